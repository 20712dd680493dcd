"""``vocabulary``: the predicates and entities a scope speaks of, most used first.

What an agent reads before it writes structure: each predicate with its label, comment and
how many values it holds for one subject (``one``, ``many`` or ``unknown``: from the domain
ontology's axioms, else from what the owner taught in ``<scope>/vocabulary``), and each entity
with its label and IRI. Use counts are the live statements naming them (``<scope>/current``).
A search matches by name key (:func:`doxa.text.name_key`, as names resolve) or inside the IRI.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from rdflib import URIRef

from doxa.errors import InvalidInput
from doxa.ontology.closure import property_table
from doxa.ontology.labels import RESERVED, local_name, ontology_terms
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import as_text
from doxa.text import name_key
from doxa.vocabulary import DOXA, OWL, RDF

__all__ = ["EntityEntry", "PredicateEntry", "Vocabulary", "vocabulary"]

#: the most entries of each list one call returns
MAX_LIMIT = 1000


@dataclass(frozen=True)
class PredicateEntry:
    """A predicate: its IRI, label, comment, how many values it holds and its live uses."""

    iri: str
    label: str
    comment: str | None
    #: ``one`` (one value at a time), ``many``, or ``unknown`` (a second value asks the owner)
    values: str
    #: who said how many: ``ontology``, ``owner`` or ``nobody``
    source: str
    uses: int


@dataclass(frozen=True)
class EntityEntry:
    """An entity: its label (the IRI's local name where nobody gave one), IRI and live uses."""

    iri: str
    label: str
    uses: int


@dataclass(frozen=True)
class Vocabulary:
    """The scope's predicates and entities, each list most used first."""

    predicates: tuple[PredicateEntry, ...]
    entities: tuple[EntityEntry, ...]


def vocabulary(store: Store, scope: Scope, *, search: str | None, limit: int) -> Vocabulary:
    """List the scope's vocabulary (see the module docs); raises :class:`~doxa.InvalidInput`
    for a limit outside 1..1000 or a search that is not text."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(
            f"limit {limit!r} is not a whole number from 1 to {MAX_LIMIT}; pass one."
        )
    wanted = None if search is None else as_text(search, "search")
    current = Dataset(default=(scope.current,))
    predicate_uses = _counts(
        store, "SELECT ?t (COUNT(*) AS ?n) WHERE { ?s ?t ?o } GROUP BY ?t", current
    )
    entity_uses = _counts(
        store,
        "SELECT ?t (COUNT(*) AS ?n) WHERE { { ?t ?p ?o } UNION { ?s ?p ?t FILTER(isIRI(?t)) } } "
        "GROUP BY ?t",
        current,
    )
    own = Dataset(default=(scope.vocabulary,))
    labels: dict[URIRef, str] = {}
    minted_properties: set[URIRef] = set()
    for row in store.select(
        "SELECT ?s ?label ?type WHERE { ?s <https://w3id.org/doxa#nameKey> ?key "
        "OPTIONAL { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } "
        "OPTIONAL { ?s a ?type } }",
        dataset=own,
    ):
        term = URIRef(str(row["s"]))
        if row.get("label") is not None:
            labels[term] = min(labels.get(term, str(row["label"])), str(row["label"]))
        if row.get("type") == RDF.Property:
            minted_properties.add(term)
    lessons: dict[URIRef, str] = {}
    for row in store.select("SELECT ?p ?type WHERE { ?p a ?type }", dataset=own):
        kind = row["type"]
        if kind == OWL.FunctionalProperty:
            lessons[URIRef(str(row["p"]))] = "one"
        elif kind == DOXA.ManyValuedProperty:
            lessons.setdefault(URIRef(str(row["p"])), "many")
    ontology = ontology_terms(store)
    table = property_table(store)
    properties = {*predicate_uses, *minted_properties, *ontology.properties}
    predicates = []
    for p in properties:
        if str(p).startswith(RESERVED):
            continue
        label = labels.get(p) or ontology.labels.get(p) or local_name(p)
        if not _matches(wanted, p, label):
            continue
        if p in ontology.properties:
            values, source = (
                ("one" if table.is_functional(table.canonical(p)[0]) else "many"),
                "ontology",
            )
        elif p in lessons:
            values, source = lessons[p], "owner"
        else:
            values, source = "unknown", "nobody"
        predicates.append(
            PredicateEntry(
                str(p), label, ontology.comments.get(p), values, source, predicate_uses.get(p, 0)
            )
        )
    named = {t for t in labels if t not in minted_properties}
    named |= {t for t in ontology.labels if t not in ontology.properties}
    entities = []
    for e in {*(t for t in entity_uses if t not in properties), *named}:
        if str(e).startswith(RESERVED):
            continue
        label = labels.get(e) or ontology.labels.get(e) or local_name(e)
        if _matches(wanted, e, label):
            entities.append(EntityEntry(str(e), label, entity_uses.get(e, 0)))
    return Vocabulary(
        predicates=tuple(_ranked(predicates)[:limit]), entities=tuple(_ranked(entities)[:limit])
    )


def _counts(store: Store, text: str, dataset: Dataset) -> dict[URIRef, int]:
    out: dict[URIRef, int] = {}
    for row in store.select(text, dataset=dataset):
        term = row["t"]
        if isinstance(term, URIRef):
            out[term] = int(str(row["n"]))
    return out


def _matches(search: str | None, iri: URIRef, label: str) -> bool:
    if search is None:
        return True
    key = name_key(search)
    if key and key in name_key(label):
        return True
    return bool(search.strip()) and search.strip().casefold() in str(iri).casefold()


_Entry = TypeVar("_Entry", PredicateEntry, EntityEntry)


def _ranked(entries: Iterable[_Entry]) -> list[_Entry]:
    return sorted(entries, key=lambda e: (-e.uses, name_key(e.label), e.iri))
