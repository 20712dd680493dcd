"""The word index in memory: kept current by every write, equal to one read afresh, dropped
on erasure, and not used when other processes may write the store."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import URIRef
from tests.conftest import DOMAIN, EX
from tests.store.shared import SharedView

import doxa
from doxa.reads import word_index
from doxa.reads.word_index import WordIndex
from doxa.store import EmbeddedStore, Store
from doxa.vocabulary import PROV

WORDS = ("amber", "birch", "cedar", "delta", "ember", "fjord")


def memory(*, shared: bool = False) -> doxa.Memory:
    # shared: as a store other processes write, so every read goes to the store
    store: Store = SharedView() if shared else EmbeddedStore()
    mem = doxa.Memory(store, scope="alice", clock=doxa.FixedClock("2026-03-01T09:00:00Z"))
    mem.schema.add_ontology(DOMAIN)
    mem.owner.grant("location")
    return mem


def index_of(mem: doxa.Memory) -> WordIndex:
    found = WordIndex.of(mem.store, mem.scope)
    assert found is not None
    return found


def snapshot(index: WordIndex) -> tuple[Any, ...]:
    """Everything the index holds, in a comparable form."""
    postings = {w: sorted(c) for w, c in index.postings.items()}
    entries = {
        c: (e.topic, e.recorded, sorted(e.valid_from), sorted(e.valid_until), sorted(e.words))
        for c, e in index.entries.items()
    }
    endings = {
        c: sorted((r, sorted((k, str(v)) for k, v in e.items())) for r, e in found)
        for c, found in index.endings.items()
    }
    return postings, entries, endings


def fresh(mem: doxa.Memory) -> tuple[Any, ...]:
    """The index as a new one reads it from the store now."""
    rebuilt = WordIndex(mem.scope)
    with rebuilt.reading(mem.store):
        return snapshot(rebuilt)


def current(mem: doxa.Memory) -> tuple[Any, ...]:
    index = index_of(mem)
    with index.reading(mem.store):
        return snapshot(index)


def move(mem: doxa.Memory, who: str, city: str, **extra: Any) -> doxa.Receipt:
    return mem.remember(
        f"{who.title()} lives in {city}",
        subject=EX + who,
        predicate=EX + "livesIn",
        object=EX + city,
        topic="places",
        kind="location",
        **extra,
    )


def test_a_write_after_the_index_was_read_is_found() -> None:
    mem = memory()
    old = mem.remember("amber tea in the morning", topic="home").fact
    assert [f.id for f in mem.recall("amber")] == [old]  # the index is read here
    new = mem.remember("amber lamp in the hall", topic="home").fact
    assert {f.id for f in mem.recall("amber")} == {old, new}
    assert [f.id for f in mem.recall("lamp")] == [new]  # control: a word only the new one has


def test_endings_after_the_index_was_read_are_seen() -> None:
    mem = memory()
    lyon = move(mem, "ann", "Lyon").fact
    kept = mem.remember("Ann likes Lyon's markets", topic="places").fact
    note = mem.remember("Lyon trip planned for spring", topic="places").fact
    assert {f.id for f in mem.recall("lyon")} == {lyon, kept, note}
    mem.clock.advance(timedelta(days=2))  # type: ignore[attr-defined]
    rome = move(mem, "ann", "Rome").fact
    assert rome is not None
    mem.owner.retract(note, reason="never planned")
    found = {f.id for f in mem.recall("lyon")}
    assert lyon not in found
    assert note not in found
    assert kept in found  # control: the sibling that did not end
    assert [f.id for f in mem.recall("rome")] == [rome]
    ended = {f.id for f in mem.recall("lyon", include_ended=True)}
    assert ended == {lyon, kept, note}


@pytest.mark.parametrize(("shared", "reads_store"), [(False, False), (True, True)])
def test_recall_reads_no_postings_from_the_store_once_indexed(
    shared: bool, reads_store: bool
) -> None:
    """The point of the index: the words come from memory; a shared store reads them."""
    mem = memory(shared=shared)
    mem.remember("amber tea in the morning", topic="home")
    mem.recall("amber")  # read the index once
    calls: list[str] = []
    real = mem.store.column

    def counting(sparql: str, *args: Any, **kwargs: Any) -> list[str]:
        calls.append(sparql)
        return real(sparql, *args, **kwargs)

    with patch.object(mem.store, "column", counting):
        assert [f.text for f in mem.recall("amber")] == ["amber tea in the morning"]
    assert bool(calls) is reads_store


def test_erasure_drops_the_erased_words_from_memory() -> None:
    mem = memory()
    gone = mem.remember("Zephyrine's phone is 0612", topic="contacts").fact
    kept = mem.remember("Marguerite's phone is 0699", topic="contacts").fact
    assert gone is not None
    assert kept is not None
    index = index_of(mem)
    assert {f.id for f in mem.recall("phone")} == {gone, kept}
    assert "%zephyrin" in index.postings
    mem.owner.erase(gone, reason="asked to be forgotten")
    assert "%zephyrin" not in index.postings  # at once, not at the next recall
    assert [f.id for f in mem.recall("phone")] == [kept]
    assert "%marguerit" in index.postings  # control: read again, with the kept one only
    assert "%zephyrin" not in index.postings


def test_a_load_into_another_graph_keeps_the_index() -> None:
    mem = memory()
    mem.remember("amber tea", topic="home")
    index = index_of(mem)
    mem.recall("amber")
    mem.schema.add_ontology(DOMAIN)
    assert index.entries  # the ontology is not what recall reads: nothing to read again
    mem.store.clear_graph(mem.scope.search)
    assert not index.entries  # control: a cleared search graph drops it


def test_too_many_changes_before_a_recall_read_it_afresh() -> None:
    mem = memory()
    mem.remember("amber tea", topic="home")
    mem.recall("amber")
    index = index_of(mem)
    with patch.object(word_index, "_MAX_PENDING", 3):
        for n in range(2):
            mem.remember(f"birch shelf number {n}", topic="home")
        assert index.entries  # within the bound: caught up at the next recall
        for n in range(3):
            mem.remember(f"cedar box number {n}", topic="home")
        assert not index.entries  # past it: dropped, to be read whole
    assert len(mem.recall("cedar")) == 3
    assert current(mem) == fresh(mem)


operation = st.one_of(
    st.tuples(st.just("note"), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)),
    st.tuples(st.just("move"), st.sampled_from(("ann", "bob", "cy"))),
    st.tuples(st.just("retract"), st.integers(0, 30)),
    st.tuples(st.just("recall"), st.sampled_from(WORDS)),
    st.tuples(st.just("import"), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)),
    st.tuples(st.just("erase"), st.integers(0, 30)),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(operation, min_size=1, max_size=20))
def test_the_index_kept_current_equals_one_read_afresh(ops: list[tuple[str, Any]]) -> None:
    mem = memory()
    mem.recall("amber")  # read while empty: every later write is caught up, not read whole
    admitted: list[str] = []
    cities = iter(("Lyon", "Rome", "Oslo", "Kyiv", "Lima") * 10)
    for op, arg in ops:
        mem.clock.advance(timedelta(hours=1))  # type: ignore[attr-defined]
        if op == "recall":
            mem.recall(arg)
        elif op in ("retract", "erase"):
            target = admitted[arg % len(admitted)] if admitted else None
            if target not in {f.id for f in mem.facts()}:
                continue
            if op == "retract":
                mem.owner.retract(target, reason="never true")
            else:
                mem.owner.erase(target, reason="forget it")
        else:
            try:
                if op == "import":
                    rows = [{"text": " ".join(arg) + " imported", "topic": "work"}]
                    report = mem.admin.import_claims(
                        rows
                    )  # erased content is refused in its report
                    admitted += [r.fact for r in report.receipts if r.fact is not None]
                    continue
                if op == "note":
                    receipt = mem.remember(" ".join(arg) + " noted", topic="home")
                else:
                    receipt = move(mem, arg, next(cities))
            except doxa.ErasedContent:
                continue  # erased content cannot be written again: the gate's promise
            if receipt.fact is not None:
                admitted.append(receipt.fact)
    assert current(mem) == fresh(mem)


def test_recalls_while_another_thread_writes() -> None:
    mem = memory()
    mem.remember("amber seed", topic="home")
    errors: list[BaseException] = []
    done = threading.Event()

    def write() -> None:
        try:
            for n in range(60):
                mem.remember(f"amber note {n}", topic="home")
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)
        finally:
            done.set()

    def read() -> None:
        try:
            while not done.is_set():
                mem.recall("amber note", limit=5)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=write), *(threading.Thread(target=read) for _ in range(2))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(mem.recall("amber", limit=100)) == 61
    assert current(mem) == fresh(mem)


def test_both_ways_of_reading_agree_on_a_history() -> None:
    """The same history recalled through the index and through store reads (the reference
    test covers this broadly; this pins one history with a move)."""
    answers = []
    for shared in (False, True):
        mem = memory(shared=shared)
        move(mem, "ann", "Lyon")
        mem.remember("amber Lyon market", topic="places")
        mem.clock.advance(timedelta(days=1))  # type: ignore[attr-defined]
        move(mem, "ann", "Rome")
        now = mem.clock.now()
        answers.append(
            [
                [f.text for f in mem.recall("lyon", as_of=when, valid_at=when)]
                for when in (now, now - timedelta(hours=12))
            ]
        )
    assert answers[0] == answers[1]
    then, before = answers[0]
    assert "Ann lives in Lyon" not in then
    assert "Ann lives in Lyon" in before
    assert "amber Lyon market" in then
    assert "amber Lyon market" in before


def test_a_change_that_removes_a_claims_words_removes_them() -> None:
    mem = memory()
    gone = mem.remember("amber tea", topic="home").fact
    kept = mem.remember("amber lamp", topic="home").fact
    mem.recall("amber")
    index = index_of(mem)
    quads = [q for q in mem.store.quads(mem.scope.search) if str(q[0]).endswith(str(gone))]
    assert quads
    mem.store.apply(doxa.store.Change(delete=quads))
    with index.reading(mem.store):
        assert "%tea" not in index.postings
        assert index.postings["%amber"] == {str(mem.scope.fact(str(kept)))}  # control


def add_source(mem: doxa.Memory, fact: str, source: str) -> None:
    claim = mem.scope.fact(fact)
    graph = mem.scope.topic(mem.get(fact).topic)
    mem.store.apply(doxa.store.Change(insert=[(claim, PROV.wasDerivedFrom, URIRef(source), graph)]))


def test_a_kept_fact_is_read_again_once_a_change_touches_it() -> None:
    mem = memory()
    fact = mem.remember("amber tea", topic="home", sources="https://a.example/1").fact
    other = mem.remember("amber lamp", topic="home", sources="https://a.example/2").fact
    assert fact is not None
    assert other is not None
    mem.recall("amber")  # both kept now
    add_source(mem, fact, "https://b.example/3")
    sources = {f.id: {str(s) for s in f.sources} for f in mem.recall("amber")}
    assert sources[fact] == {"https://a.example/1", "https://b.example/3"}
    assert sources[other] == {"https://a.example/2"}  # control: untouched, unchanged


def test_a_fact_read_while_a_write_touches_it_is_not_kept() -> None:
    """A recall reading a fact while another thread changes it must not keep the old read."""
    mem = memory()
    fact = mem.remember("amber tea", topic="home", sources="https://a.example/1").fact
    assert fact is not None
    real = mem.store.describe
    raced: list[bool] = []

    def describe_then_write(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)
        if not raced and mem.scope.rules in args[1]:  # the facts' read, not the index's own
            raced.append(True)
            add_source(mem, fact, "https://b.example/3")  # lands after the read
        return found

    with patch.object(mem.store, "describe", describe_then_write):
        first = mem.recall("amber")
    assert raced
    assert {str(s) for s in first[0].sources} == {"https://a.example/1"}  # read before it
    again = mem.recall("amber")
    assert {str(s) for s in again[0].sources} == {"https://a.example/1", "https://b.example/3"}
