"""What approving a held write must end: the other values of its one-value slot.

:func:`conflicts` finds them (live, or superseded and still believed for part of the time the
write claims) and says how each ends (superseded at the write's start, or retracted), which
value the write yields to, and which supersessions move earlier; :class:`Conflicts` carries
that into the approval and words it for the receipt. Only the owner's approval asks
(:mod:`doxa.gate.owner`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from rdflib import URIRef
from rdflib.term import Node

from doxa.gate.believed import believed_by_keys
from doxa.gate.gather import live_by_keys
from doxa.gate.names import Names
from doxa.judges.base import Cardinality
from doxa.judges.compare import contradicts, overlaps
from doxa.model import Fact, FactStatus, Relation
from doxa.ontology.closure import broader_objects, property_table
from doxa.scope import Scope
from doxa.store import Store
from doxa.terms import instant
from doxa.vocabulary import DOXA, RDF

__all__ = ["Conflicts", "conflicts"]


@dataclass(frozen=True)
class Conflicts:
    """What approving a write does to the other values of its one-value slot."""

    #: the values it ends, grouped by how (superseded at its start, or retracted)
    closings: list[tuple[Relation, tuple[URIRef, ...]]] = field(default_factory=list)
    #: the earliest value starting after it, and that start: the approved value holds until
    #: then (superseded by it), and that value is left as it is
    yields_to: tuple[URIRef, datetime] | None = None
    #: superseded values superseded again, earlier: (fact, the end believed so far, the new
    #: end); both supersessions stay in the log, each with its belief time
    moved: tuple[tuple[URIRef, datetime, datetime], ...] = ()

    def explain(self, scope: Scope) -> str:
        """The receipt's word on the ends this approval corrects and the value it yields to."""
        words = [
            f"{scope.local_id(fact)}'s end corrected from {_day(was)} to {_day(now)} (the "
            "earlier end stays recorded)"
            for fact, was, now in self.moved
            if now < was
        ]
        if self.yields_to is not None:
            later, until = self.yields_to
            words.append(
                f"holds until {scope.local_id(later)} starts ({_day(until)}), which stays "
                "(a later value)"
            )
        return "".join(f"; {word}" for word in words)


def conflicts(
    store: Store,
    scope: Scope,
    names: Names,
    values: dict[URIRef, Node],
    starts: datetime | None,
    relation: Relation,
    functional: URIRef | None = None,
    judged: tuple[URIRef, ...] = (),
    chosen: Relation | None = None,
    *,
    undated: bool = False,
) -> Conflicts:
    """The values an approved write must end, grouped by how to end them: the live
    values and the superseded ones believed in the time it claims, each once; and the
    value it yields to, if one starts later. ``functional``: a predicate the owner just
    taught holds one value at a time.

    Values are ordered by valid time: one starting after the approved value is not
    ended by it (that would end it before its own start, or call a later move never
    true because an earlier one was approved); the approved value holds until the
    earliest such value starts, recorded as its supersession by that value, just as if
    it had been approved first. Only a ``was_wrong`` said about that very fact (the
    owner's ``as_relation``, or the held verdict naming it) retracts it.

    How each ends: as the owner ``chosen`` (``as_relation``) if it closes; else, for a
    fact the judge read and ``judged`` (the held write's targets), as its verdict
    ``relation`` if that closes, since that is what the owner approved; any other fact
    (one written, or left believed, after the write was held) by when it starts:
    superseded when the approved value starts later, else retracted. The judge never
    saw it, so its verdict says nothing about it: a held ``was_wrong`` must not retract
    a value that simply came before, nor a held ``replaces`` supersede one that starts
    after it (at an end before its own start). An ``undated`` value (``starts`` is when
    it was received) supersedes one that started at that same instant too: it gave no
    start, so it is the later word, not a second value claiming the same time.
    """
    subject, predicate, obj = (values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
    if subject is None or not isinstance(predicate, URIRef) or obj is None:
        return Conflicts()
    table = property_table(store)
    if functional is None:
        canonical, _ = table.canonical(predicate)
        if names.cardinality(canonical) is Cardinality.ONE:
            functional = canonical
    if functional is not None:
        table = replace(table, functional=table.functional | {functional})
    new_subject, new_predicate, new_object = table.normalise(subject, predicate, obj)
    if not table.is_functional(new_predicate):
        return Conflicts()
    ends = None if values.get(DOXA.validUntil) is None else instant(values[DOXA.validUntil])
    keys = table.keys(subject, predicate, obj)
    # the live values, and the superseded ones still believed for part of its time
    found = [
        *live_by_keys(store, scope, keys),
        *believed_by_keys(store, scope, keys, starts, ends),
    ]
    broader = broader_objects(
        store, [new_object, *(f.object for f in found if f.object is not None)]
    )
    others = []
    seen: set[URIRef] = set()
    for fact in found:
        if fact.subject is None or fact.predicate is None or fact.object is None:
            continue
        if fact.iri in seen:  # found under two keys (an inverse, a broader value)
            continue
        seen.add(fact.iri)
        old_subject, old_predicate, old_object = table.normalise(
            fact.subject, fact.predicate, fact.object
        )
        if (
            old_subject == new_subject
            and contradicts(
                table, broader, (new_predicate, new_object), (old_predicate, old_object)
            )
            and overlaps(fact.valid_from, fact.valid_until, starts, ends)
        ):
            others.append(fact)
    grouped: dict[Relation, list[URIRef]] = {}
    later: list[tuple[datetime, URIRef]] = []
    moved: list[tuple[URIRef, datetime, datetime]] = []
    for fact in others:
        if chosen is not None and chosen.closes:
            how = chosen
        elif relation.closes and fact.iri in judged:
            how = relation
        elif starts is not None and (
            fact.valid_from is None
            or starts > fact.valid_from
            or (undated and starts == fact.valid_from)
        ):
            how = Relation.REPLACES
        else:
            how = Relation.WAS_WRONG
        if _starts_after(fact, starts) and not _said_wrong(fact.iri, how, judged, chosen):
            assert fact.valid_from is not None
            later.append((fact.valid_from, fact.iri))
            continue
        if (
            how is Relation.REPLACES
            and fact.status is FactStatus.SUPERSEDED
            and fact.valid_until is not None
            and starts is not None
        ):
            moved.append((fact.iri, fact.valid_until, starts))  # ended again, earlier
        grouped.setdefault(how, []).append(fact.iri)
    first = min(later, default=None)
    return Conflicts(
        closings=[(how, tuple(targets)) for how, targets in grouped.items()],
        yields_to=None if first is None else (first[1], first[0]),
        moved=tuple(moved),
    )


def _starts_after(fact: Fact, starts: datetime | None) -> bool:
    """Whether ``fact`` starts after the approved value does (both dated)."""
    return starts is not None and fact.valid_from is not None and fact.valid_from > starts


def _said_wrong(
    fact: URIRef, how: Relation, judged: tuple[URIRef, ...], chosen: Relation | None
) -> bool:
    """Whether someone said ``fact`` was never true: the owner's ``was_wrong``, or a held
    ``was_wrong`` verdict naming it. Only that retracts a value starting later."""
    explicit = (chosen is not None and chosen.closes) or fact in judged
    return how is Relation.WAS_WRONG and explicit


def _day(moment: datetime) -> str:
    """A valid-time bound as a receipt's reason names it: the day when it falls at midnight
    (the usual ``valid_from="2026-05-01"``), else the full instant, so two bounds on one day
    are told apart."""
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return moment.date().isoformat() if moment == midnight else moment.isoformat()
