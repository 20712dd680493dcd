"""Superseded facts that are still believed for part of a write's valid time.

A supersession ends a fact's valid time at its successor's start; the fact stays believed
for the time before. A value written into that time (starting before the end, as an owner's
approval or a backdated write may) contradicts it there just as it would a live value, so
the gate finds such facts too, through their past statement keys (see
:mod:`doxa.gate.index`). A write that starts at or after the end of the statement's
latest-ending superseded claims (its front) reads nothing more: the usual case costs one
indexed lookup however long the history, and a statement never superseded (no claim carries
its past key) one index seek. Otherwise the query keeps only the superseded
facts whose believed time overlaps the write's.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from rdflib import Literal, URIRef

from doxa.gate.index import TERM, front_key, past_key
from doxa.model import Fact
from doxa.reads.claims import load_facts
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant

__all__ = ["believed_by_keys", "front"]

#: stand-ins for an open side of the write's valid time (a claim without a start or an end)
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, tzinfo=UTC)


def front(store: Store, scope: Scope, keys: Sequence[Literal]) -> dict[URIRef, datetime]:
    """The front of the statements' superseded claims: each with the latest end any of its
    supersessions gave it (no superseded claim of the statements is believed past the
    latest of these)."""
    if not keys:
        return {}
    rows = store.select(
        query("front_of"),
        dataset=Dataset(default=(scope.search, scope.log)),
        bindings={"key": [front_key(k) for k in keys]},
    )
    found: dict[URIRef, datetime] = {}
    for row in rows:
        claim, until = URIRef(str(row["claim"])), instant(row["until"])
        found[claim] = max(found.get(claim, until), until)
    return found


def believed_by_keys(
    store: Store,
    scope: Scope,
    keys: Sequence[Literal],
    start: datetime | None,
    end: datetime | None,
) -> list[Fact]:
    """Superseded, unretracted facts carrying any of the statement ``keys`` whose believed
    valid time overlaps [``start``, ``end``); each with its status and believed end."""
    if not keys:
        return []
    pasts = [past_key(k) for k in keys]
    if not store.referrers(TERM, pasts, scope.search):
        return []  # no superseded claim of the statements (the usual case): one index seek
    latest = front(store, scope, keys)
    if latest and start is not None and start >= max(latest.values()):
        return []  # the write starts after every superseded claim of the statement ended
    rows = store.select(
        query("believed_by_key"),
        dataset=Dataset(default=(scope.search, scope.log)),
        bindings={
            "key": pasts,
            "start": dt_literal(start or EARLIEST),
            "end": dt_literal(end or LATEST),
        },
    )
    found: list[Fact] = []
    for topic in sorted({str(row["topic"]) for row in rows}):  # read each from its own graph
        group = list(
            dict.fromkeys(URIRef(str(r["claim"])) for r in rows if str(r["topic"]) == topic)
        )
        dataset = Dataset(default=(scope.topic(topic), scope.log))
        found += load_facts(store, scope, dataset, group, as_of=LATEST)  # every ending
    return found
