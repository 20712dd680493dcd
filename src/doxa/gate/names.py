"""Names where IRIs are expected: resolving a write's subject, predicate and object names.

A subject or predicate given as a plain string that is not an absolute IRI is a *name*
("supplier call", "day of week"). It resolves, by its key (:func:`doxa.text.name_key`: case,
spacing, punctuation, accents, NFKC forms and look-alike letters folded, while symbols, signs
and superscripts are kept, so "C++", "C#" and "C" stay three names; never the raw spelling),
against two places only:

- the scope's vocabulary graph ``<scope>/vocabulary``: names minted earlier in this scope,
  each with its ``rdfs:label`` and ``doxa:nameKey`` (one indexed lookup; another scope's
  vocabulary is never read);
- the domain ontology: each term's ``rdfs:label``, ``skos:prefLabel``, ``skos:altLabel`` and
  local name (read once per ontology digest). doxa's own terms and the W3C vocabularies are
  left out: a user's "label" or "type" never means ``rdfs:label``.

A predicate name resolves among predicates (terms typed as properties, and predicates
minted here), a subject name among everything else. One match: its IRI. Several: an
:class:`~doxa.InvalidInput` listing them (never a silent choice, never a merge). None: a
scope-local IRI is minted, ``<scope>/entity/<slug>`` or ``<scope>/property/<slug>``, the slug
made from the key alone, so two writers (or two threads) minting one name mint the same IRI.
Minting is described here (:class:`Minted`) and written by the gate in the same transaction
as the write's decision, and only for a write that is admitted or held.

An object given as a string stays what it always was: an IRI when it is an absolute IRI, else
a string literal (``writes.py`` and the CLI promise that, and a literal compares by value in
a one-value slot just as well). To point the object at an entity, pass its IRI, as
``Memory.vocabulary`` lists them. One predicate is the exception: the object of ``owl:sameAs``
is always an entity, so "Bob" ``owl:sameAs`` "Robert Smith" resolves (or mints) both names.
That write is a fact like any other, which the owner sees and can retract; identities are
never merged, and each name keeps resolving to its own IRI.

A read's filter (``facts(subject="Bob")``) resolves a name the same way but never mints:
:meth:`Names.find`.

The vocabulary also keeps what the owner taught about an undeclared predicate (one value at
a time: ``owl:FunctionalProperty``; several: ``doxa:ManyValuedProperty``): see
:meth:`Names.cardinality`.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass
from urllib.parse import quote

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput
from doxa.judges.base import Cardinality
from doxa.ontology.labels import RESERVED, OntologyTerms, ontology_terms
from doxa.scope import Scope
from doxa.store import Change, Dataset, Quad, Store
from doxa.store.cache import CacheKey, Derived
from doxa.store.capabilities import cache_of
from doxa.store.convert import ntriples
from doxa.terms import as_text, iri_shaped
from doxa.text import loose_name_key, name_key
from doxa.vocabulary import DOXA, OWL, RDF, RDFS

__all__ = ["Cardinality", "Minted", "Names", "Resolved", "Role", "is_name"]

#: the longest name accepted, in characters: a name is a few words, not a paragraph
MAX_NAME = 200


class Role(enum.Enum):
    """What a name stands for: a predicate, or an entity (a subject or an object)."""

    ENTITY = "entity"
    PROPERTY = "property"


@dataclass(frozen=True)
class Minted:
    """A name nothing matched, and the scope-local IRI minted for it."""

    iri: URIRef
    label: str
    key: str
    role: Role

    def quads(self, scope: Scope) -> list[Quad]:
        """What the vocabulary graph gets: the IRI's type (a predicate), label and key."""
        graph = scope.vocabulary
        out: list[Quad] = [
            (self.iri, RDFS.label, Literal(self.label), graph),
            (self.iri, DOXA.nameKey, Literal(self.key), graph),
        ]
        if self.role is Role.PROPERTY:
            out.append((self.iri, RDF.type, RDF.Property, graph))
        return out


@dataclass(frozen=True)
class Resolved:
    """A write's subject, predicate and object with every name replaced by its IRI."""

    subject: object
    predicate: object
    object: object
    minted: tuple[Minted, ...] = ()


class _KeptLessons(Derived):
    """A scope's lessons, forgotten when its vocabulary graph changes."""

    def __init__(self, scope: Scope) -> None:
        self.graph = str(scope.vocabulary)
        self.lessons: dict[URIRef, Cardinality] | None = None
        self.generation = 0

    def changed(self, change: Change) -> None:
        mine = self.graph.__eq__
        if any(map(mine, [str(q[3]) for q in change.insert])) or any(
            map(mine, [str(q[3]) for q in change.delete])
        ):
            self.forget()

    def reset(self, graph: URIRef | None) -> None:
        if graph is None or str(graph) == self.graph:
            self.forget()

    def forget(self) -> None:
        self.generation += 1
        self.lessons = None


_LESSONS: CacheKey[_KeptLessons] = CacheKey("doxa.lessons")


def is_name(value: object) -> bool:
    """Whether a subject or predicate value is a name: a str that is not an absolute IRI."""
    return isinstance(value, str) and not isinstance(value, URIRef) and not iri_shaped(value)


def _label_and_key(name: str, what: str) -> tuple[str, str]:
    """A name's label (spacing collapsed) and its key; refuses an overlong or empty name."""
    label = " ".join(as_text(name, what).split())
    if len(label) > MAX_NAME:
        raise InvalidInput(
            f"{what} name {label[:40]!r}… is {len(label)} characters long; a name is at most "
            f"{MAX_NAME}: pass a short name or an absolute IRI."
        )
    key = name_key(label)
    if not key:
        raise InvalidInput(
            f"{what} {name!r} is neither an absolute IRI nor a name (it has no letter or "
            "digit); pass a name such as 'supplier call' or an IRI such as "
            "'http://example.org/supplierCall'."
        )
    return label, key


def _slug(key: str) -> str:
    """The IRI path segment a key mints: its words joined by hyphens, symbols escaped."""
    return quote(key.replace(" ", "-"), safe="-")


def _digest(key: str) -> str:
    """A short, stable suffix telling a minted IRI from an older one its slug met."""
    return hashlib.sha256(key.encode()).hexdigest()[:10]


def _states_identity(predicate: object) -> bool:
    """Whether a write's predicate is ``owl:sameAs``: two names the writer says are one
    entity. The write is then a fact between two entities, kept like any other; the names
    keep their own IRIs (nothing is merged)."""
    return isinstance(predicate, str) and str(predicate) == str(OWL.sameAs)


class Names:
    """Resolves names for one scope of one store (see the module docs)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    # -- resolving ------------------------------------------------------------------------

    def resolve(self, subject: object, predicate: object, obj: object) -> Resolved:
        """Replace a subject or predicate name by its IRI; other values (the object among
        them) pass as they are (``build_proposal`` reads them), except the object of
        ``owl:sameAs``, which names an entity. Raises :class:`~doxa.InvalidInput` for an
        ambiguous or empty name. Writes nothing."""
        identity = is_name(obj) and _states_identity(predicate)
        if not identity and not any(map(is_name, (subject, predicate))):
            return Resolved(subject, predicate, obj)  # IRIs only: no lookup at all
        minted: list[Minted] = []
        ontology = ontology_terms(self.store)
        if is_name(predicate):
            predicate = self._one(str(predicate), Role.PROPERTY, "predicate", minted, ontology)
        if is_name(subject):
            subject = self._one(str(subject), Role.ENTITY, "subject", minted, ontology)
        if identity:
            obj = self._one(str(obj), Role.ENTITY, "object", minted, ontology)
        return Resolved(subject, predicate, obj, tuple(dict.fromkeys(minted)))

    def find(self, name: str, role: Role, what: str) -> URIRef | None:
        """The IRI ``name`` already stands for in this scope, or None: what a read's filter
        (``facts(subject="Bob")``) resolves by. Never mints; ambiguity is refused as for a
        write."""
        label, key = _label_and_key(name, what)
        return self._match(key, role, what, label, ontology_terms(self.store))

    def _one(
        self,
        name: str,
        role: Role,
        what: str,
        minted: list[Minted],
        ontology: OntologyTerms,
    ) -> URIRef:
        label, key = _label_and_key(name, what)
        found, others = self._candidates(key, role, what, label, ontology)
        if found is not None:
            return found
        iri = self.scope.minted(role.value, _slug(key))
        if iri in others:
            # a store written before keys kept symbols minted "C++" at .../c: "C" is another
            # name, so it gets an IRI of its own rather than that one
            iri = self.scope.minted(role.value, f"{_slug(key)}--{_digest(key)}")
        minted.append(Minted(iri, label, key, role))
        return iri

    def _match(
        self, key: str, role: Role, what: str, label: str, ontology: OntologyTerms
    ) -> URIRef | None:
        return self._candidates(key, role, what, label, ontology)[0]

    def _candidates(
        self,
        key: str,
        role: Role,
        what: str,
        label: str,
        ontology: OntologyTerms,
    ) -> tuple[URIRef | None, frozenset[URIRef]]:
        """The one IRI the name stands for (or None), and the vocabulary IRIs the lookup met
        that are other names (stored under the old, looser key)."""
        mine, others = self._vocabulary(key, role, label)
        found = set(ontology.find(key, prop=role is Role.PROPERTY)) | mine
        if len(found) > 1:
            listed = ", ".join(f"<{c}>" for c in sorted(found))
            raise InvalidInput(
                f"{what} name {label!r} matches {len(found)} {role.value} IRIs: "
                f"{listed}; pass the IRI you mean instead of the name."
            )
        return (next(iter(found)) if found else None), others

    def _vocabulary(
        self, key: str, role: Role, label: str
    ) -> tuple[set[URIRef], frozenset[URIRef]]:
        """The scope's minted (or owner-labelled) IRIs with this key and role, in one seek,
        and those the seek met that are other names.

        A store written before keys kept symbols holds looser keys (``C++`` and ``C`` both
        under ``c``, :func:`doxa.text.loose_name_key`), so both keys are sought and an entry
        is this name only if its label's key is this key: names never merge through an old
        key.
        """
        keys = {key, loose_name_key(label)}
        rows = self.store.select(
            "SELECT ?iri ?type ?label WHERE { VALUES ?key { "
            + " ".join(ntriples(Literal(k)) for k in sorted(keys))
            + " } ?iri <https://w3id.org/doxa#nameKey> ?key "
            "OPTIONAL { ?iri <http://www.w3.org/2000/01/rdf-schema#label> ?label } "
            "OPTIONAL { ?iri a ?type FILTER(?type = <http://www.w3.org/1999/02/22-rdf-syntax-"
            "ns#Property>) } }",
            dataset=Dataset(default=(self.scope.vocabulary,)),
        )
        labels: dict[URIRef, set[str]] = {}
        for row in rows:
            if (row.get("type") is not None) != (role is Role.PROPERTY):
                continue
            iri = URIRef(str(row["iri"]))
            spelled = labels.setdefault(iri, set())
            if row.get("label") is not None:
                spelled.add(str(row["label"]))
        mine = {
            iri
            for iri, spelled in labels.items()
            if any(name_key(label) == key for label in spelled)
        }
        return mine, frozenset(labels) - mine

    # -- a statement a judge read in a text -----------------------------------------------

    def read_statement(
        self, text: str, statement: tuple[str, str, str]
    ) -> tuple[list[tuple[URIRef, Node]], tuple[Minted, ...]] | str:
        """The claim pairs (``rdf:subject``, ``rdf:predicate``, ``rdf:object``) and minted
        names for a statement a judge read in ``text``; or why it is not used.

        A judge proposes; it cannot invent. The subject's and the object's words must all be
        words of the text (by name key), and the predicate must be one the scope or the
        ontology already knows, or be made of the text's words: a model that names something
        the write does not say mints nothing. Resolution is the writer's (:meth:`resolve`).
        """
        words = set(name_key(text).split())
        subject, predicate, obj = statement
        for part, name in (("subject", subject), ("object", obj)):
            key = name_key(name)
            if not key or not set(key.split()) <= words:
                return f"its {part} {name!r} is not in the write's text"
        if is_name(subject) is False or is_name(predicate) is False:
            return "a judge names the subject and predicate, it gives no IRIs"
        try:
            resolved = self.resolve(subject, predicate, obj)
        except InvalidInput as error:
            return str(error)
        if (
            any(m.role is Role.PROPERTY for m in resolved.minted)
            and not set(name_key(predicate).split()) <= words
        ):
            return f"its predicate {predicate!r} is neither known nor in the write's text"
        assert isinstance(resolved.subject, URIRef)
        assert isinstance(resolved.predicate, URIRef)
        value = Literal(obj)  # as a writer's string object: a literal (a judge gives no IRIs)
        pairs: list[tuple[URIRef, Node]] = [
            (RDF.subject, resolved.subject),
            (RDF.predicate, resolved.predicate),
            (RDF.object, value),
        ]
        return pairs, resolved.minted

    # -- what the owner taught ------------------------------------------------------------

    def cardinality(self, predicate: URIRef) -> Cardinality:
        """Whether ``predicate`` holds one value or many, as the ontology (which wins) or the
        owner's lesson in this scope's vocabulary says; ``UNKNOWN`` when neither has."""
        if predicate in ontology_terms(self.store).properties or str(predicate).startswith(
            RESERVED
        ):
            return Cardinality.DECLARED
        return self._lessons().get(predicate, Cardinality.UNKNOWN)

    def lessons(self) -> dict[URIRef, Cardinality]:
        """Every lesson the owner taught in this scope, by predicate or sentence pattern."""
        return dict(self._lessons())

    def _lessons(self) -> dict[URIRef, Cardinality]:
        """Every lesson of the scope (few: one per taught predicate), kept in the store's
        cache until the vocabulary graph changes; read afresh where there is no cache."""
        cache = cache_of(self.store)
        kept = (
            cache.get_or_make(_LESSONS.of(self.scope.name), lambda: _KeptLessons(self.scope))
            if cache is not None
            else None
        )
        if kept is not None and kept.lessons is not None:
            return kept.lessons
        generation = kept.generation if kept is not None else 0
        lessons: dict[URIRef, Cardinality] = {}
        for row in self.store.select(
            "SELECT ?p ?type WHERE { ?p a ?type FILTER(?type IN (<http://www.w3.org/2002/07/"
            "owl#FunctionalProperty>, <https://w3id.org/doxa#ManyValuedProperty>, "
            "<https://w3id.org/doxa#UnchangingProperty>)) }",
            dataset=Dataset(default=(self.scope.vocabulary,)),
        ):
            predicate = URIRef(str(row["p"]))
            # raced double lessons: unchanging wins over one value, one value over many
            taught = _TAUGHT[URIRef(str(row["type"]))]
            if _RANK[taught] > _RANK[lessons.get(predicate, Cardinality.UNKNOWN)]:
                lessons[predicate] = taught
        if kept is not None and kept.generation == generation:
            kept.lessons = lessons
        return lessons

    def lesson(self, predicate: URIRef, cardinality: Cardinality) -> list[Quad]:
        """The vocabulary quads that record the owner's answer for ``predicate``."""
        kinds = {
            Cardinality.ONE: (OWL.FunctionalProperty,),
            Cardinality.MANY: (DOXA.ManyValuedProperty,),
            Cardinality.UNCHANGING: (DOXA.UnchangingProperty, OWL.FunctionalProperty),
        }
        return [(predicate, RDF.type, k, self.scope.vocabulary) for k in kinds[cardinality]]


#: the vocabulary class each lesson is recorded as
_TAUGHT = {
    OWL.FunctionalProperty: Cardinality.ONE,
    DOXA.ManyValuedProperty: Cardinality.MANY,
    DOXA.UnchangingProperty: Cardinality.UNCHANGING,
}
#: which lesson wins when two were recorded for one predicate (two owners' answers raced)
_RANK = {
    Cardinality.UNKNOWN: 0,
    Cardinality.DECLARED: 0,
    Cardinality.MANY: 1,
    Cardinality.ONE: 2,
    Cardinality.UNCHANGING: 3,
}
