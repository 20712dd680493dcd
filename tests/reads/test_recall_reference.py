"""recall against a brute-force reference built from ``facts``: the same facts, in the same
order, whatever the memory holds and whenever it is asked about.

``facts`` reads liveness through ``queries/facts.rq``; recall reads it through the word index
and the log's endings. The two are written independently, so agreeing on generated memories
(notes, functional values replaced by the owner, retractions, both clocks) is real evidence.
"""

from __future__ import annotations

import math
from datetime import timedelta
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import URIRef
from tests.conftest import DOMAIN, EX
from tests.store.shared import SharedView

import doxa
from doxa.reads import facts as recall_reads
from doxa.store import EmbeddedStore, Store
from doxa.text import label_words, stems

VOCABULARY = ("amber", "birch", "cedar", "delta", "ember", "fjord")
CITIES = ("Lyon", "Rome", "Oslo")
TOPICS = ("home", "work")

note = st.tuples(
    st.just("note"),
    st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=3),
    st.integers(0, 1),
    st.just(0),
)
move = st.tuples(
    st.just("move"), st.sampled_from(("ann", "bob")), st.sampled_from(CITIES), st.integers(0, 40)
)
retract = st.tuples(st.just("retract"), st.integers(0, 50), st.just(0), st.just(0))
advance = st.tuples(st.just("advance"), st.integers(1, 48), st.just(0), st.just(0))
operations = st.lists(st.one_of(note, move, move, retract, advance), min_size=1, max_size=25)
asked = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=3)


def build(ops: list[tuple[object, ...]], *, shared: bool = False) -> tuple[doxa.Memory, list[str]]:
    """The memory the operations make; ``shared``: recall reads the store, not the index."""
    clock = doxa.FixedClock("2026-03-01T09:00:00Z")
    # shared: as a store other processes write, so no word index in memory
    store: Store = SharedView() if shared else EmbeddedStore()
    memory = doxa.Memory(store, scope="alice", clock=clock)
    memory.schema.add_ontology(DOMAIN)
    memory.owner.grant("location")  # the owner's new city replaces the old one at once
    admitted: list[str] = []
    for op, a, b, c in ops:
        if op == "note":
            assert isinstance(b, int)
            receipt = memory.remember(" ".join(map(str, a)) + " remembered", topic=TOPICS[b])  # type: ignore[call-overload]
        elif op == "move":
            receipt = memory.remember(
                f"{str(a).title()} lives in {b} {VOCABULARY[len(str(b)) % 6]}",
                subject=EX + str(a),
                predicate=EX + "livesIn",
                object=EX + str(b),
                topic="places",
                kind="location",
                # sometimes before the value it replaces began
                valid_from=clock.now() - timedelta(days=int(str(c))),
            )
        elif op == "retract":
            live = {f.id for f in memory.facts()}
            target = admitted[int(str(a)) % len(admitted)] if admitted else None
            if target in live:
                memory.owner.retract(target, reason="never true")
            continue
        else:
            clock.advance(timedelta(hours=int(str(a))))
            continue
        if receipt.fact is not None and receipt.outcome is doxa.Outcome.ADMITTED:
            admitted.append(receipt.fact)
    return memory, admitted


def claim_stems(fact: doxa.Fact) -> list[str]:
    """The stems a fact is matched on, by hand: its text's, then its labels'."""
    labels = [
        label_words(str(t)) if isinstance(t, URIRef) else str(t)
        for t in (fact.subject, fact.predicate, fact.object)
        if t is not None
    ]
    return stems(" ".join([fact.text, *labels]))


def reference(memory: doxa.Memory, text: str, **times: object) -> list[tuple[str, float]]:
    """Rank by hand what ``facts`` says is true: BM25 over stems, newer, id (RARE read when
    called, so a patched bound counts).

    Candidates are the facts carrying a rare stem (carried by at most ``RARE`` claims), or,
    when every stem is common, the facts carrying them all.
    """
    wanted = stems(text)
    everything = memory.facts(include_ended=True, as_of="2100-01-01")
    counts = {
        w: min(sum(w in claim_stems(f) for f in everything), recall_reads.RARE + 1) for w in wanted
    }
    rare = {w for w in wanted if counts[w] <= recall_reads.RARE}
    weight = {w: math.log1p(recall_reads.RARE / max(counts[w], 1)) for w in wanted}
    best = recall_reads.bm25([weight[w] for w in wanted], len(wanted))
    ranked = []
    for fact in memory.facts(**times):  # type: ignore[arg-type]
        own = claim_stems(fact)
        carried = [w for w in wanted if w in own]
        if (set(carried) & rare) if rare else len(carried) == len(wanted):
            score = recall_reads.bm25([weight[w] for w in carried], len(own))
            ranked.append((-score, -fact.recorded_at.timestamp(), str(fact.iri), fact.id))
    ranked.sort()
    return [(fact_id, round(-score / best, 4)) for score, _, _, fact_id in ranked]


def agree(memory: doxa.Memory, query: list[str], back: int, ended: bool) -> None:
    now = memory.clock.now()
    text = " ".join(query)
    moments = (now, now - timedelta(hours=back), now - timedelta(days=back % 30))
    for valid_at, as_of in zip(moments, (*moments[1:], moments[0]), strict=True):
        times = {"valid_at": valid_at, "as_of": as_of, "include_ended": ended}
        for asking in (text, "ember " + text):  # every city line carries "ember"
            expected = reference(memory, asking, **times)
            found = memory.recall(asking, limit=500, **times)  # type: ignore[arg-type]
            assert [(f.id, f.score) for f in found] == expected
            top = memory.recall(asking, limit=2, **times)  # type: ignore[arg-type]
            assert [(f.id, f.score) for f in top] == expected[:2]


@pytest.mark.parametrize("shared", [False, True], ids=["index", "store"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, query=asked, back=st.integers(0, 72), ended=st.booleans())
def test_recall_agrees_with_facts(
    shared: bool, ops: list[tuple[object, ...]], query: list[str], back: int, ended: bool
) -> None:
    memory, _ = build(ops, shared=shared)
    agree(memory, query, back, ended)


@pytest.mark.parametrize("shared", [False, True], ids=["index", "store"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=operations, query=asked, back=st.integers(0, 72), ended=st.booleans())
def test_recall_agrees_with_facts_when_words_are_common(
    shared: bool, ops: list[tuple[object, ...]], query: list[str], back: int, ended: bool
) -> None:
    """The same with the rare-word bound at 2 claims, so queries mix rare and common words
    (and some have only common ones), as a large store's do."""
    memory, _ = build(ops, shared=shared)
    with patch.object(recall_reads, "RARE", 2):
        agree(memory, query, back, ended)


def test_reference_sees_a_replaced_city_and_a_retraction() -> None:
    """The generator makes what the property needs: a supersession and a retraction (control
    for the property: without them it would only compare live notes)."""
    memory, admitted = build(
        [
            ("note", ["amber"], 0, 0),
            ("move", "ann", "Lyon", 0),
            ("advance", 24, 0, 0),
            ("move", "ann", "Rome", 0),
            ("retract", 0, 0, 0),
        ]
    )
    statuses = {f.id: f.status for f in memory.facts(include_ended=True)}
    assert doxa.FactStatus.SUPERSEDED in statuses.values()
    assert statuses[admitted[0]] is doxa.FactStatus.RETRACTED
    assert memory.recall("amber") == []
    assert [f.id for f in memory.recall("amber", include_ended=True)] == [admitted[0]]
