"""What the loaded ontology calls its terms: labels, local names, comments and which terms
are properties, read once per ontology digest.

The gate resolves names against it (:mod:`doxa.gate.names`) and ``Memory.vocabulary`` lists
it. doxa's own terms and the W3C vocabularies (RDF, RDFS, OWL, XSD, SKOS, PROV, DCTerms) are
left out: a user's "label", "type" or "text" never means ``rdfs:label`` or ``doxa:text``.
Names are compared by :func:`doxa.text.name_key`, never by their raw spelling.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.ontology.closure import ontology_digest
from doxa.store import Change, Dataset, Store
from doxa.store.cache import CacheKey, Derived
from doxa.store.capabilities import cache_of
from doxa.text import name_key
from doxa.vocabulary import CLOSURE_GRAPH, DOXA, ONTOLOGY_GRAPH, OWL, PROV, RDF, RDFS, SKOS, XSD

__all__ = ["RESERVED", "OntologyTerms", "local_name", "ontology_terms"]

#: namespaces whose terms a name never resolves to: doxa's own (its terms and the ontology's
#: IRI), the W3C vocabularies and the annotation vocabularies doxa's ontology uses
RESERVED: tuple[str, ...] = (
    str(DOXA).rstrip("#"),
    *(str(ns) for ns in (RDF, RDFS, OWL, XSD, SKOS, PROV)),
    "http://purl.org/dc/terms/",
    "http://purl.org/dc/elements/1.1/",
    "http://purl.org/vocab/vann/",
)
_LABELS = (RDFS.label, SKOS.prefLabel, SKOS.altLabel)
_PROPERTY_TYPES = frozenset(
    {
        RDF.Property,
        OWL.ObjectProperty,
        OWL.DatatypeProperty,
        OWL.AnnotationProperty,
        OWL.FunctionalProperty,
        OWL.InverseFunctionalProperty,
        OWL.TransitiveProperty,
        OWL.SymmetricProperty,
    }
)
# axioms that make a term a property even without a property type
_PROPERTY_AXIOMS = (RDFS.domain, RDFS.range, RDFS.subPropertyOf, OWL.inverseOf)


@dataclass(frozen=True)
class OntologyTerms:
    """The domain ontology's terms, by name key and role (``True``: a property)."""

    #: (is a property, name key) -> the terms with that key among labels and local names
    by_key: dict[tuple[bool, str], frozenset[URIRef]]
    #: term -> its first label (rdfs:label, else skos:prefLabel, else the local name)
    labels: dict[URIRef, str]
    #: term -> its rdfs:comment
    comments: dict[URIRef, str]
    #: the terms the ontology declares properties (typed so, or given a domain, range …)
    properties: frozenset[URIRef]

    def find(self, key: str, *, prop: bool) -> frozenset[URIRef]:
        """The terms a name key matches, among properties (``prop``) or the other terms."""
        return self.by_key.get((prop, key), frozenset())


def local_name(term: URIRef) -> str:
    """The part of an IRI after its last ``#``, ``/`` or ``:``.

    >>> local_name(URIRef("http://example.org/onto#dayOfWeek"))
    'dayOfWeek'
    """
    text = str(term)
    for mark in ("#", "/", ":"):
        if mark in text:
            return text.rsplit(mark, 1)[-1]
    return text


_KEPT: dict[str, OntologyTerms] = {}
_KEEPING = threading.Lock()


class _KeptTerms(Derived):
    """The terms kept in the store's cache until the ontology or its closure changes (a read
    that raced such a change is not kept: it carries the generation it started from)."""

    def __init__(self) -> None:
        self.terms: OntologyTerms | None = None
        self.generation = 0

    def changed(self, change: Change) -> None:
        graphs = {str(q[3]) for q in change.insert} | {str(q[3]) for q in change.delete}
        if graphs & _WATCHED:
            self.forget()

    def reset(self, graph: URIRef | None) -> None:
        if graph is None or str(graph) in _WATCHED:
            self.forget()

    def forget(self) -> None:
        self.generation += 1
        self.terms = None


_WATCHED = frozenset({str(ONTOLOGY_GRAPH), str(CLOSURE_GRAPH)})
_TERMS: CacheKey[_KeptTerms] = CacheKey("doxa.ontology-terms")


def ontology_terms(store: Store) -> OntologyTerms:
    """The loaded ontology's terms: kept in the store's cache where it has one (no read per
    write), else read once per ontology digest."""
    cache = cache_of(store)
    kept = cache.get_or_make(_TERMS, _KeptTerms) if cache is not None else None
    if kept is not None and kept.terms is not None:
        return kept.terms
    generation = kept.generation if kept is not None else 0
    terms = _by_digest(store)
    if kept is not None and kept.generation == generation:
        kept.terms = terms
    return terms


def _by_digest(store: Store) -> OntologyTerms:
    digest = ontology_digest(store) or ""
    found = _KEPT.get(digest)
    if found is None:
        found = _read(store)
        with _KEEPING:
            if len(_KEPT) > 64:  # many ontologies over a process's life: start over
                _KEPT.clear()
            _KEPT[digest] = found
    return found


def _read(store: Store) -> OntologyTerms:
    rows = store.select(
        "SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(isIRI(?s)) }",
        dataset=Dataset(default=(ONTOLOGY_GRAPH,)),
    )
    names: dict[URIRef, dict[Node, list[str]]] = {}
    comments: dict[URIRef, str] = {}
    props: set[URIRef] = set()
    ontologies: set[URIRef] = set()  # the ontologies' own IRIs: no entity of the user's
    for row in rows:
        term = URIRef(str(row["s"]))
        predicate, value = row["p"], row["o"]
        if str(term).startswith(RESERVED) or value == OWL.Ontology:
            ontologies.add(term)
            continue
        found = names.setdefault(term, {})
        if predicate in _LABELS and isinstance(value, Literal):
            found.setdefault(predicate, []).append(str(value))
        elif predicate == RDFS.comment and isinstance(value, Literal):
            comments.setdefault(term, str(value))
        elif (predicate == RDF.type and value in _PROPERTY_TYPES) or predicate in _PROPERTY_AXIOMS:
            props.add(term)
    by_key: dict[tuple[bool, str], set[URIRef]] = {}
    labels: dict[URIRef, str] = {}
    for term, given in names.items():
        if term in ontologies:
            continue
        spelled = [sorted(given.get(p, ())) for p in _LABELS]
        labels[term] = next((s[0] for s in spelled if s), local_name(term))
        for name in (*(n for s in spelled for n in s), local_name(term)):
            key = name_key(name)
            if key:
                by_key.setdefault((term in props, key), set()).add(term)
    for term in ontologies:
        names.pop(term, None)
        props.discard(term)
    return OntologyTerms(
        by_key={k: frozenset(v) for k, v in by_key.items()},
        labels=labels,
        comments=comments,
        properties=frozenset(props),
    )
