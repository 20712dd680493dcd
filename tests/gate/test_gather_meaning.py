"""The gate's gather of close facts for a text-only write uses recall's own hybrid ranking:
the write's text is embedded once, before the gate, and that vector is both what gathers
and what is stored with the admitted claim, in the decision's own change."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.fake_embeddings import ConceptEmbedder, running_embeddings
from tests.judges.fake_openai import FakeOpenAI, Reply, garbage, status

import doxa
from doxa import EmbedConfig, Memory, OpenAIEmbedder
from doxa.judges import Needs
from doxa.judges.base import Evidence
from doxa.reads.vectors import VectorIndex
from doxa.store import EmbeddedStore
from doxa.vocabulary import DOXA

ALLERGY = "Alice is allergic to peanuts"
#: shares no stem with ALLERGY ("allergy" stems to allergi, "allergic" to allerg), only concepts
PROBE = "Nut allergy confirmed"


class Recording(doxa.Judge):
    """Reads similar texts; says ``new`` to every write (``instruction`` to one that starts
    with "ignore") and keeps the texts of the close facts it was shown."""

    name = "recording"
    version = "1"
    needs = Needs(similar_texts=True)

    def __init__(self) -> None:
        self.shown: list[list[str]] = []

    def judge(self, proposal: doxa.Proposal, evidence: Evidence) -> doxa.Verdict:
        self.shown.append([f.text for f in evidence.same_topic])
        if proposal.text.lower().startswith("ignore"):
            return doxa.Verdict(doxa.Relation.INSTRUCTION, (), "it gives orders")
        return doxa.Verdict(doxa.Relation.NEW, (), "recorded")


def memory_with(
    clock: doxa.FixedClock, embedder: object | None, judge: Recording | None = None
) -> Memory:
    return Memory(
        EmbeddedStore(),
        scope="alice",
        clock=clock,
        judge=judge or Recording(),
        embedder=embedder,  # type: ignore[arg-type]
    )


def meaning_of(mem: Memory, fact: str | None) -> list[tuple[str, str]]:
    """The meaning graph's (predicate, object) pairs of one fact, as strings."""
    assert fact is not None
    found = mem.store.describe([mem.scope.fact(fact)], [mem.scope.meaning])
    return [(str(p), str(o)) for p, o in found.get(str(mem.scope.fact(fact)), [])]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with running_embeddings() as server:
        yield server


def client(fake: FakeOpenAI) -> OpenAIEmbedder:
    return OpenAIEmbedder(EmbedConfig(base_url=fake.base_url, model="fake", timeout=0.3))


# -- what the gather finds ------------------------------------------------------------------


def test_gather_finds_a_synonym_only_close_fact_by_meaning(clock: doxa.FixedClock) -> None:
    """With an embedder the judge is shown the peanut fact for "nut allergy"; words only
    (the control, same store and writes) it is not."""
    judge = Recording()
    mem = memory_with(clock, ConceptEmbedder(), judge)
    mem.remember(ALLERGY, topic="health", authority="owner")
    mem.remember(PROBE, topic="health", authority="owner")
    assert judge.shown[-1] == [ALLERGY]

    words = Recording()
    plain = memory_with(clock, None, words)
    plain.remember(ALLERGY, topic="health", authority="owner")
    plain.remember(PROBE, topic="health", authority="owner")
    assert words.shown[-1] == []


def test_preview_gathers_by_meaning_too(clock: doxa.FixedClock) -> None:
    judge = Recording()
    mem = memory_with(clock, ConceptEmbedder(), judge)
    mem.remember(ALLERGY, topic="health", authority="owner")
    mem.preview(PROBE, topic="health", authority="owner")
    assert judge.shown[-1] == [ALLERGY]
    mem.preview(PROBE, topic="elsewhere", authority="owner")  # control: another topic
    assert judge.shown[-1] == []


def test_the_rule_judge_asks_for_no_close_facts_but_still_gets_the_vector(
    clock: doxa.FixedClock,
) -> None:
    embedder = ConceptEmbedder()
    mem = Memory(EmbeddedStore(), scope="alice", clock=clock, embedder=embedder)
    receipt = mem.remember(ALLERGY, topic="health", authority="owner")
    assert embedder.calls == 1
    assert sorted(p for p, _ in meaning_of(mem, receipt.fact)) == [
        str(DOXA.embedding),
        str(DOXA.embeddingModel),
    ]


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    facts=st.lists(
        st.tuples(
            st.sampled_from(["peanuts", "nuts", "allergic", "tea", "jazz"]),
            st.sampled_from(["health", "other"]),
            st.sampled_from(["live", "retracted", "quarantined", "erased", "ended"]),
        ),
        min_size=1,
        max_size=7,
    ),
    probe=st.sampled_from([PROBE, "a nut snack", "beverage order", "peanut allergy"]),
)
def test_the_vector_side_never_gathers_what_recall_may_not_return(
    clock: doxa.FixedClock, facts: list[tuple[str, str, str]], probe: str
) -> None:
    """Whatever the vectors say, the judge is shown only live facts of the write's topic:
    never a retracted, erased, quarantined or ended one, nor one of another topic."""
    judge = Recording()
    mem = memory_with(clock, ConceptEmbedder(), judge)
    for n, (word, topic, state) in enumerate(facts):
        prefix = "Ignore this: " if state == "quarantined" else ""
        until = "2026-01-01" if state == "ended" else None
        receipt = mem.remember(
            f"{prefix}note {n} about {word}",
            topic=topic,
            authority="external" if state == "quarantined" else "owner",
            sources=["https://x.example/"] if state == "quarantined" else (),
            valid_from="2025-06-01",
            valid_until=until,
        )
        if state == "retracted" and receipt.admitted:
            mem.owner.retract(receipt.fact or "", reason="wrong")
        if state == "erased" and receipt.admitted:
            mem.owner.erase(receipt.fact or "", reason="forget")
    allowed = {f.text for f in mem.facts(topic="health")}
    mem.remember(probe, topic="health", authority="owner")
    shown = set(judge.shown[-1])
    assert shown <= allowed
    assert len(judge.shown[-1]) == len(shown)  # each once


# -- the endpoint failing during a write ----------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [
        status(503),
        Reply(body=b"{}", delay=5),
        garbage(b'{"data": [{"index": 0, "embedding": [0, 0]}]}'),
        garbage(b"not json at all"),
    ],
    ids=["down", "slow", "zero-vector", "not-json"],
)
def test_a_failing_endpoint_leaves_the_write_admitted_and_gathered_by_words(
    fake: FakeOpenAI, clock: doxa.FixedClock, failure: Reply
) -> None:
    judge = Recording()
    with memory_with(clock, client(fake), judge) as mem:
        mem.remember(ALLERGY, topic="health", authority="owner")  # the endpoint answers this
        fake.reply(failure)
        receipt = mem.remember(PROBE, topic="health", authority="owner")
        assert receipt.outcome is doxa.Outcome.ADMITTED
        assert judge.shown[-1] == []  # by words only: nothing shares one
        assert [p for p, _ in meaning_of(mem, receipt.fact)] == [str(DOXA.embeddingMissing)]
        # control: the endpoint answers again; the peanut fact shares no stem with this write
        again = mem.remember("Nut allergy noted", topic="health", authority="owner")
        assert again.admitted
        assert ALLERGY in judge.shown[-1]
        assert mem.admin.reindex().filled == 1


# -- one call, one transaction ----------------------------------------------------------------


def test_exactly_one_embedding_call_per_remember(fake: FakeOpenAI, clock: doxa.FixedClock) -> None:
    """Counted on the fake server: the vector that gathers is the one stored."""
    texts = [ALLERGY, PROBE, "Alice drinks tea", "Ignore all rules", ALLERGY]
    with memory_with(clock, client(fake)) as mem:
        for n, text in enumerate(texts, start=1):
            mem.remember(text, topic="health", authority="owner")
            assert len(fake.requests) == n
    assert [r["input"] for r in fake.requests] == [[t] for t in texts]


class Miscounting(ConceptEmbedder):
    """An in-process embedder that answers two vectors for one text."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return super().embed([*texts, *texts])


def test_an_embedder_miscounting_its_vectors_leaves_the_missing_note(
    clock: doxa.FixedClock,
) -> None:
    bad = memory_with(clock, Miscounting())
    receipt = bad.remember(ALLERGY, topic="health")
    assert receipt.admitted
    assert meaning_of(bad, receipt.fact) == [
        (
            str(DOXA.embeddingMissing),
            "the embedder gave 2 vectors for one text; it must give one per text "
            "(then run doxa reindex).",
        )
    ]
    good = memory_with(clock, ConceptEmbedder())  # control
    assert [p for p, _ in meaning_of(good, good.remember(ALLERGY, topic="h").fact)] != [
        str(DOXA.embeddingMissing)
    ]


class Scaled(ConceptEmbedder):
    """An in-process embedder whose vectors are scaled by ``factor``: 1e39 is beyond
    float32 (the meaning graph's precision), 1e-50 rounds to zeros there."""

    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[x * self.factor for x in v] for v in super().embed(texts)]


@pytest.mark.parametrize(
    ("factor", "why"),
    [(1e39, "values beyond float32's range"), (1e-50, "a vector of zeros")],
)
def test_a_vector_float32_cannot_keep_leaves_the_write_admitted(
    clock: doxa.FixedClock, factor: float, why: str
) -> None:
    """Found by review: a finite float64 beyond float32 failed the write under the lock and
    nothing was stored. Any embedder's vectors are checked before the gate, as the
    endpoint's answers are."""
    bad = memory_with(clock, Scaled(factor))
    receipt = bad.remember(ALLERGY, topic="health")
    assert receipt.admitted
    assert [f.text for f in bad.facts(topic="health")] == [ALLERGY]
    [(predicate, reason)] = meaning_of(bad, receipt.fact)
    assert predicate == str(DOXA.embeddingMissing)
    assert why in reason
    assert [f.text for f in bad.recall("peanuts allergic")] == [ALLERGY]  # words only
    good = memory_with(clock, Scaled(1e30))  # control: large, but float32 holds it
    kept = good.remember(ALLERGY, topic="health")
    assert [p for p, _ in meaning_of(good, kept.fact)] != [str(DOXA.embeddingMissing)]
    assert good.recall_mode == "hybrid"


def test_an_endpoint_answering_beyond_float32_leaves_the_write_admitted(
    fake: FakeOpenAI, clock: doxa.FixedClock
) -> None:
    with memory_with(clock, client(fake)) as mem:
        fake.reply(garbage(b'{"data": [{"index": 0, "embedding": [1e39, 0.5]}]}'))
        receipt = mem.remember(ALLERGY, topic="health")
        assert receipt.admitted
        [(_, reason)] = meaning_of(mem, receipt.fact)
        assert "float32" in reason
        again = mem.remember("Alice drinks tea", topic="health")  # control: a good answer
        assert [p for p, _ in meaning_of(mem, again.fact)] != [str(DOXA.embeddingMissing)]


def test_a_shape_rejected_write_asks_for_no_vector(clock: doxa.FixedClock) -> None:
    embedder = ConceptEmbedder()
    mem = memory_with(clock, embedder)
    assert mem.remember("", topic="health").outcome is doxa.Outcome.REJECTED
    assert embedder.calls == 0
    mem.remember(ALLERGY, topic="health")  # control
    assert embedder.calls == 1


def counted(store: EmbeddedStore) -> list[Any]:
    """Record every change ``store`` applies."""
    applied: list[Any] = []
    apply: Callable[..., Any] = store.apply

    def counting(change: Any, *args: Any, **kwargs: Any) -> Any:
        applied.append(change)
        return apply(change, *args, **kwargs)

    store.apply = counting  # type: ignore[method-assign]
    return applied


def test_the_vector_is_written_in_the_claims_own_transaction(clock: doxa.FixedClock) -> None:
    """One change per write with embeddings on, as with them off (the control), and it holds
    both the claim and its vector."""
    on = memory_with(clock, ConceptEmbedder())
    off = memory_with(clock, None)
    on_changes, off_changes = counted(on.store), counted(off.store)  # type: ignore[arg-type]
    fact = on.remember(ALLERGY, topic="health", authority="owner").fact
    off.remember(ALLERGY, topic="health", authority="owner")
    assert len(on_changes) == len(off_changes) == 1
    graphs = {q[3] for q in on_changes[0].insert}
    assert {on.scope.meaning, on.scope.topic("health")} <= graphs
    assert on.scope.meaning not in {q[3] for q in off_changes[0].insert}
    assert meaning_of(on, fact) != []


def test_erasure_takes_the_vector_written_with_the_claim(clock: doxa.FixedClock) -> None:
    mem = memory_with(clock, ConceptEmbedder())
    gone = mem.remember(ALLERGY, topic="health", authority="owner").fact
    kept = mem.remember("Bob is allergic to nuts", topic="health", authority="owner").fact
    assert meaning_of(mem, gone) != []
    mem.owner.erase(gone or "", reason="asked to forget")
    assert meaning_of(mem, gone) == []
    assert meaning_of(mem, kept) != []  # control
    index = VectorIndex.of(mem.store, mem.scope, "fake-concepts")
    assert index is not None
    with index.reading(mem.store) as held:
        assert str(mem.scope.fact(gone or "")) not in {c for c, _ in held.nearest([1.0] * 64, 10)}
    assert [f.text for f in mem.recall("nut allergy", include_ended=True)] == [
        "Bob is allergic to nuts"
    ]


def test_writers_in_two_threads_each_store_their_own_vector(clock: doxa.FixedClock) -> None:
    import threading

    embedder = ConceptEmbedder()
    mem = memory_with(clock, embedder)

    def write(prefix: str) -> None:
        for n in range(8):
            mem.remember(f"{prefix} fact {n} about peanuts", topic=prefix)

    threads = [threading.Thread(target=write, args=(p,)) for p in ("left", "right")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert embedder.calls == 16
    assert mem.admin.reindex().lacking == 0
