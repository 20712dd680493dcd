"""Facts resting on facts: who rests on what, and the basis-ended flags an ending leaves.

A claim rests on the facts its writer named (``doxa:restsOn``, from ``derived_from``) and on
the fact it refines (``doxa:refines``). Each such link is also kept, as it is, as one index
entry in the scope's search graph (the claim graphs are many, one per topic), so when a fact
ends, the facts resting on it are one lookup per kind of link away (the store's object
index), never a scan: the cost of an ending grows with its dependents, not with the store.

When a decision ends facts (a supersession, a retraction, an erasure), :func:`flag_endings`
walks those links transitively and writes one ``doxa:BasisEnded`` event per live dependent
into the same change, so the flags are published atomically with the ending (and journaled
with its receipt). An empty search result (``support absent``) is indexed under the question it
asked, ``(claim, doxa:awaitsAnswer, "?subject predicate")``; a later admitted write with the
same subject and predicate answers it, and flags it.
Nothing about a flagged fact is edited: the event has its own ``doxa:recordedAt``, so a read
as of an earlier belief time shows no flag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.scope import Scope, new_id
from doxa.store import Change, Store
from doxa.vocabulary import DOXA, RDF

__all__ = ["Ended", "basis_entries", "dependents", "flag_answers", "flag_endings", "question"]

Pair = tuple[URIRef, Node]
#: the links a claim rests on a fact by: named by its writer, or refining it
_LINKS = (DOXA.restsOn, DOXA.refines)
# built once: an ending with many dependents writes these thousands of times
_TYPE, _BASIS_ENDED, _FLAGS, _ENDING = RDF.type, DOXA.BasisEnded, DOXA.flags, DOXA.basisEnding
_RECORDED, _REASON, _BASIS = DOXA.recordedAt, DOXA.reason, DOXA.basis


@dataclass(frozen=True)
class Ended:
    """One fact a decision ends, and how: what its dependents' flags will name."""

    claim: URIRef
    #: the supersession, retraction or erasure tombstone event
    event: URIRef
    #: superseded, retracted or erased
    how: str
    successor: URIRef | None = None


def basis_entries(
    iri: URIRef, pairs: Sequence[Pair], asked: Literal | None
) -> list[tuple[URIRef, URIRef, Node]]:
    """The search-graph index entries of a claim being admitted: one per fact it rests on
    (named or refined) and, for an empty search result, its question ``asked`` (the claim's
    :func:`question`, worked out once by the caller)."""
    entries: list[tuple[URIRef, URIRef, Node]] = [(iri, p, o) for p, o in pairs if p in _LINKS]
    if asked is not None and (DOXA.support, DOXA.Absent) in pairs:
        entries.append((iri, DOXA.awaitsAnswer, asked))
    return entries


def question(pairs: Sequence[Pair]) -> Literal | None:
    """The question a structured claim answers (or, with support absent, found no answer
    to): its subject and predicate, as one index key; None for a text-only claim."""
    values = dict(pairs)
    subject, predicate = values.get(RDF.subject), values.get(RDF.predicate)
    if not isinstance(subject, URIRef) or not isinstance(predicate, URIRef):
        return None
    return Literal(f"?{subject} {predicate}")


def dependents(
    store: Store, scope: Scope, bases: Sequence[URIRef], leaving: set[URIRef]
) -> list[tuple[URIRef, URIRef]]:
    """Every live fact resting on ``bases``, transitively, with the fact it rests on directly.

    One index lookup (and one liveness lookup) per level of the walk; facts in ``leaving``
    (ended by the same decision) and facts already ended are not flagged, and the walk does
    not go on through them (their own ending flagged what rested on them then).
    """
    seen = {*bases, *leaving}
    frontier = list(dict.fromkeys(bases))
    out: list[tuple[URIRef, URIRef]] = []
    while frontier:
        candidates: dict[URIRef, URIRef] = {}
        for link in _LINKS:
            for basis, resting in store.referrers(link, frontier, scope.search).items():
                for dependent in map(URIRef, resting):
                    if dependent not in seen:
                        candidates.setdefault(dependent, URIRef(basis))
        if not candidates:
            break
        seen |= set(candidates)
        ended = _ended(store, scope, list(candidates))
        live = [(d, b) for d, b in candidates.items() if str(d) not in ended]
        out += live
        frontier = [d for d, _ in live]
    return out


def flag_endings(
    store: Store, scope: Scope, change: Change, ended: Sequence[Ended], now_literal: Literal
) -> list[URIRef]:
    """Write a basis-ended event for every live fact resting on the facts ``ended``; returns
    the events. An erased basis is named only by its tombstone."""
    leaving = {e.claim for e in ended}
    events: list[URIRef] = []
    log = scope.log
    for end in ended:
        for dependent, via in dependents(store, scope, [end.claim], leaving):
            event = scope.event(new_id())
            events.append(event)
            change.insert += [
                (event, _TYPE, _BASIS_ENDED, log),
                (event, _FLAGS, dependent, log),
                (event, _ENDING, end.event, log),
                (event, _RECORDED, now_literal, log),
                (event, _REASON, Literal(_reason(scope, end, via)), log),
            ]
            if end.how != "erased":
                change.insert.append((event, _BASIS, end.claim, log))
    return events


def _ended(store: Store, scope: Scope, claims: Sequence[URIRef]) -> set[str]:
    """Which of ``claims`` an ending event (supersession, retraction, erasure) ends.

    Only a typed event counts, as in the ``live`` query fragment: a stray ``doxa:ends`` quad
    that no gate wrote must not stop a dependent from being flagged. The types are read only
    for the claims that have an ``ends`` at all (one more round trip, and only then).
    """
    found = store.referrers(DOXA.ends, claims, scope.log)
    if not found:
        return set()
    events = {URIRef(e) for nodes in found.values() for e in nodes}
    types = store.describe(sorted(events), [scope.log], predicates=[_TYPE])
    typed = {e for e, pairs in types.items() if any(o in _ENDINGS for _, o in pairs)}
    return {claim for claim, nodes in found.items() if typed.intersection(nodes)}


_ENDINGS = frozenset({DOXA.Supersession, DOXA.Retraction, DOXA.Erasure})


def _reason(scope: Scope, end: Ended, via: URIRef) -> str:
    through = "" if via == end.claim else f" (through {scope.local_id(via)})"
    if end.how == "erased":
        tombstone = scope.local_id(end.event)
        return f"re-check: a fact this rests on{through} was erased (tombstone {tombstone})"
    by = f" by {scope.local_id(end.successor)}" if end.successor is not None else ""
    return (
        f"re-check: the fact this rests on{through}, {scope.local_id(end.claim)}, was {end.how}{by}"
    )


def flag_answers(
    store: Store,
    scope: Scope,
    change: Change,
    answers: Sequence[tuple[URIRef, Literal]],
    leaving: set[URIRef],
    now_literal: Literal,
) -> list[URIRef]:
    """Flag the live empty search results whose subject a write of this decision answers
    (``answers``: the admitted claim and its :func:`question`); returns the events."""
    events: list[URIRef] = []
    log = scope.log
    for claim, asked in answers:
        waiting = [
            URIRef(a)
            for a in store.referrers(DOXA.awaitsAnswer, [asked], scope.search).get(str(asked), ())
            if URIRef(a) not in leaving and URIRef(a) != claim
        ]
        if not waiting:
            continue
        ended = _ended(store, scope, waiting)
        for absent in (a for a in waiting if str(a) not in ended):
            event = scope.event(new_id())
            events.append(event)
            reason = (
                f"re-check: this search found nothing, but {scope.local_id(claim)} later "
                "answered its subject"
            )
            change.insert += [
                (event, RDF.type, DOXA.BasisEnded, log),
                (event, DOXA.flags, absent, log),
                (event, DOXA.basisEnding, claim, log),
                (event, DOXA.recordedAt, now_literal, log),
                (event, DOXA.reason, Literal(reason), log),
            ]
    return events
