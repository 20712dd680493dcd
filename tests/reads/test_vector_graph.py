"""The vector index's HNSW graph: the same answers as exact search, built in the background,
kept current by change notices, and never giving back a deleted vector."""

from __future__ import annotations

import base64
import logging
import os
import subprocess
import sys
import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef
from tests.fake_embeddings import ConceptEmbedder

import doxa
from doxa import Memory
from doxa.reads import graph_index, vectors
from doxa.reads.vectors import EMBEDDING, MODEL, VECTOR_INDEX, VectorIndex
from doxa.scope import Scope
from doxa.store import Change, EmbeddedStore, Quad
from doxa.store.capabilities import cache_of
from doxa.vocabulary import XSD

NAME = "m"
DIMS = 16
SCOPE = Scope.named("v")


def claim(n: int) -> str:
    return f"{SCOPE.iri}/fact/{n:05d}"


def vector_of(n: int, dims: int = DIMS) -> Any:
    """Claim ``n``'s vector: distinct per claim, the same on every call."""
    return np.random.default_rng(n).standard_normal(dims).astype(np.float32)


def literal(vector: Any) -> Literal:
    text = base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")
    return Literal(text, datatype=XSD.base64Binary)


def inserted(n: int, vector: Any = None, model: str = NAME) -> list[Quad]:
    row = vector_of(n) if vector is None else vector
    return [
        (URIRef(claim(n)), EMBEDDING, literal(row), SCOPE.meaning),
        (URIRef(claim(n)), MODEL, Literal(model), SCOPE.meaning),
    ]


def add(store: EmbeddedStore, *numbers: int) -> None:
    store.apply(Change(insert=[q for n in numbers for q in inserted(n)]))


def delete(store: EmbeddedStore, *numbers: int) -> None:
    store.apply(Change(delete=[q for n in numbers for q in inserted(n)]))


def followed(store: EmbeddedStore, threshold: int) -> VectorIndex:
    """An index kept in the store's cache, so it hears the store's change notices."""
    index = VectorIndex(SCOPE, NAME, approximate_above=threshold)
    cache = cache_of(store)
    assert cache is not None
    cache.put(VECTOR_INDEX.of(f"{SCOPE.name}\n{NAME}"), index)
    return index


def near(index: VectorIndex, store: EmbeddedStore, vector: Any, count: int) -> list[str]:
    with index.reading(store) as held:
        return [c for c, _ in held.nearest([float(x) for x in vector], count)]


def read(index: VectorIndex, store: EmbeddedStore) -> None:
    """One reading of ``index`` and nothing asked: what applies the store's change notices,
    catches a graph up and starts a build past the threshold (the tests then look)."""
    with index.reading(store):
        return


def graphed(index: VectorIndex, store: EmbeddedStore) -> VectorIndex:
    """``index`` read once and its graph waited for."""
    read(index, store)
    assert index.settle(30)
    return index


@pytest.fixture
def store() -> EmbeddedStore:
    return EmbeddedStore()


# -- the same answers ------------------------------------------------------------------


def clustered(count: int, dims: int, seed: int) -> Any:
    """Vectors around 10 centres, the shape an embedding model's vectors have."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((10, dims)).astype(np.float32)
    picked = centres[rng.integers(0, 10, count)]
    return picked + 0.3 * rng.standard_normal((count, dims)).astype(np.float32)


def test_the_graph_finds_what_exact_search_finds_on_clustered_vectors(
    store: EmbeddedStore,
) -> None:
    rows = clustered(800, 32, seed=1)
    store.apply(Change(insert=[q for n, row in enumerate(rows) for q in inserted(n, row)]))
    exact = VectorIndex(SCOPE, NAME, approximate_above=10**12)
    graph = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    assert (exact.kind, graph.kind) == ("exact", "hnsw")
    queries = clustered(40, 32, seed=2)
    shared = []
    for q in queries:
        truth = near(exact, store, q, 10)
        unit = rows / np.linalg.norm(rows, axis=1, keepdims=True)
        brute = np.argsort(-(unit @ (q / np.linalg.norm(q))), kind="stable")[:10]
        assert truth == [claim(int(n)) for n in brute]  # control: exact is exact
        shared.append(len(set(near(graph, store, q, 10)) & set(truth)) / 10)
    assert sum(shared) / len(shared) >= 0.95


def test_scores_from_the_graph_are_cosines_like_exact_ones(store: EmbeddedStore) -> None:
    add(store, *range(100))
    exact = VectorIndex(SCOPE, NAME, approximate_above=10**12)
    graph = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    with exact.reading(store) as one, graph.reading(store) as other:
        first = dict(one.nearest(list(vector_of(7)), 5))
        second = dict(other.nearest(list(vector_of(7)), 5))
    assert next(iter(second)) == claim(7)
    assert second[claim(7)] == pytest.approx(1.0, abs=1e-5)
    for found, score in second.items():
        assert score == pytest.approx(first[found], abs=1e-5)


# -- the threshold ----------------------------------------------------------------------


def test_the_graph_starts_only_past_the_threshold(store: EmbeddedStore) -> None:
    index = followed(store, threshold=50 * DIMS)
    add(store, *range(49))
    assert graphed(index, store).kind == "exact"  # 49 x 16 is below 50 x 16
    assert near(index, store, vector_of(3), 1) == [claim(3)]
    add(store, 49)
    assert graphed(index, store).kind == "hnsw"  # the 50th vector reaches it
    assert near(index, store, vector_of(49), 1) == [claim(49)]
    assert near(index, store, vector_of(3), 1) == [claim(3)]


def test_without_hnswlib_search_stays_exact(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(store, *range(20))
    monkeypatch.setattr(vectors, "hnswlib_or_none", lambda: None)
    index = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    assert index.kind == "exact"
    assert near(index, store, vector_of(5), 1) == [claim(5)]
    monkeypatch.undo()  # control: with it, the same index builds its graph
    assert graphed(index, store).kind == "hnsw"


def test_the_default_threshold_is_read_when_an_index_is_made(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(store, *range(10))
    assert VectorIndex(SCOPE, NAME).approximate_above == vectors.APPROXIMATE_ABOVE
    assert graphed(VectorIndex(SCOPE, NAME), store).kind == "exact"  # 160 is far below it
    monkeypatch.setattr(vectors, "APPROXIMATE_ABOVE", 100)
    assert graphed(VectorIndex(SCOPE, NAME), store).kind == "hnsw"


def test_a_search_deeper_than_the_graph_answers_is_exact(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(store, *range(60))
    exact = VectorIndex(SCOPE, NAME, approximate_above=10**12)
    graph = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    monkeypatch.setattr(vectors, "DEEPEST_APPROXIMATE", 10)
    asked = graph_index.GraphIndex.search
    calls: list[int] = []

    def counted(self: graph_index.GraphIndex, query: Any, count: int) -> Any:
        calls.append(count)
        return asked(self, query, count)

    monkeypatch.setattr(graph_index.GraphIndex, "search", counted)
    deep = near(graph, store, vector_of(1), 40)
    assert calls == []  # 40 is past the graph's depth: the product answered
    assert deep == near(exact, store, vector_of(1), 40)
    assert near(graph, store, vector_of(1), 5)[0] == claim(1)
    assert calls == [5]  # control: a shallow search asks the graph


def test_a_search_the_graph_cannot_answer_is_exact(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(store, *range(30))
    graph = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    exact = VectorIndex(SCOPE, NAME, approximate_above=10**12)
    monkeypatch.setattr(graph_index.GraphIndex, "search", lambda self, query, count: None)
    assert near(graph, store, vector_of(4), 8) == near(exact, store, vector_of(4), 8)
    assert near(graph, store, vector_of(4), 8)[0] == claim(4)


def test_a_graph_that_cannot_be_built_leaves_exact_search(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    add(store, *range(30))

    def failing(self: graph_index.GraphIndex, rows: Any, first: int) -> None:
        raise MemoryError("no room")

    monkeypatch.setattr(graph_index.GraphIndex, "add", failing)
    with caplog.at_level(logging.WARNING, logger="doxa.reads.vectors"):
        index = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    assert index.kind == "exact"
    assert "no HNSW graph (MemoryError: no room); searching exactly" in caplog.text
    assert near(index, store, vector_of(9), 1) == [claim(9)]
    assert index.settle(0)  # not tried again at every recall
    with index.reading(store):
        assert index.settle(0)


# -- deletes never come back -------------------------------------------------------------


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(
        st.tuples(st.booleans(), st.lists(st.integers(0, 39), min_size=1, max_size=6)),
        min_size=1,
        max_size=12,
    )
)
def test_a_deleted_vector_never_comes_back_from_the_graph(
    steps: list[tuple[bool, list[int]]],
) -> None:
    store = EmbeddedStore()
    add(store, *range(40, 60))  # always some live vectors, past the threshold at once
    index = followed(store, threshold=0)
    graphed(index, store)
    assert index.kind == "hnsw"  # the property is about the graph, not the product
    live = set(range(40, 60))
    for adding, numbers in steps:
        if adding:
            add(store, *numbers)
            live |= set(numbers)
        else:
            delete(store, *numbers)
            live -= set(numbers)
        for n in {*numbers, *list(live)[:3]}:
            found = near(index, store, vector_of(n), 60)
            assert set(found) <= {claim(m) for m in live}
            if n in live:  # control: a live vector is found by itself
                assert found[0] == claim(n)
        assert len(index) == len(live)


def test_a_deleted_vector_added_again_comes_back(store: EmbeddedStore) -> None:
    index = followed(store, threshold=0)
    add(store, *range(30))
    graphed(index, store)
    delete(store, 3)
    assert claim(3) not in near(index, store, vector_of(3), 30)
    add(store, 3)  # a new row, not the deleted one unmarked
    assert near(index, store, vector_of(3), 1) == [claim(3)]


# -- built in the background ---------------------------------------------------------------


class HeldBuild:
    """Holds the background build's first ``add`` (its bulk load) until released."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        original = graph_index.GraphIndex.add
        held = self

        def add(self: graph_index.GraphIndex, rows: Any, first: int) -> None:
            if first == 0 and threading.current_thread().name.startswith("doxa-vectors"):
                held.started.set()
                assert held.release.wait(30)
            original(self, rows, first)

        monkeypatch.setattr(graph_index.GraphIndex, "add", add)


def test_changes_during_the_build_from_two_threads_are_all_in_the_graph(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldBuild(monkeypatch)
    index = followed(store, threshold=0)
    add(store, *range(100))
    read(index, store)
    assert held.started.wait(10)
    assert index.kind == "exact"  # the build is held: recall answers exactly meanwhile

    def write(numbers: range) -> None:
        for n in numbers:
            add(store, n + 1000)  # a new vector
            delete(store, n)  # and an old one gone
            assert near(index, store, vector_of(n + 1000), 1) == [claim(n + 1000)]
            assert claim(n) not in near(index, store, vector_of(n), 5)

    writers = [threading.Thread(target=write, args=(r,)) for r in (range(20), range(20, 40))]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(30)
    assert index.kind == "exact"
    held.release.set()
    assert index.settle(30)
    assert index.kind == "hnsw"
    assert len(index) == 100
    for n in range(40):
        assert claim(n) not in near(index, store, vector_of(n), 10)
        assert near(index, store, vector_of(n + 1000), 1) == [claim(n + 1000)]
    for n in range(40, 100):  # control: the untouched ones are all still found
        assert near(index, store, vector_of(n), 1) == [claim(n)]


def test_a_graph_built_before_a_reset_is_dropped(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldBuild(monkeypatch)
    index = followed(store, threshold=0)
    add(store, *range(30))
    read(index, store)
    assert held.started.wait(10)
    index.reset(None)  # e.g. an import: the store may hold anything now
    delete(store, *range(10))
    held.release.set()
    assert index.settle(30)
    assert index.kind == "exact"  # the old graph knew the old content
    graphed(index, store)  # the next reading builds one of the new content
    assert index.kind == "hnsw"
    assert claim(2) not in near(index, store, vector_of(2), 30)
    assert near(index, store, vector_of(20), 1) == [claim(20)]


# -- what the index leaves out ---------------------------------------------------------------


def test_vectors_of_another_dimension_are_counted_not_searched(store: EmbeddedStore) -> None:
    add(store, *range(20))
    store.apply(Change(insert=inserted(500, vector_of(500, dims=8))))
    index = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    assert index.kind == "hnsw"
    assert (index.mismatched, index.unreadable, len(index)) == (1, 0, 20)
    assert claim(500) not in near(index, store, vector_of(500, dims=16), 21)
    assert near(index, store, vector_of(5), 1) == [claim(5)]  # control


@pytest.mark.parametrize(
    "vector",
    [[float("nan")] * DIMS, [0.0] * DIMS, [float("inf")] + [1.0] * (DIMS - 1)],
    ids=["nan", "zero", "inf"],
)
def test_a_vector_that_is_no_direction_is_counted_not_searched(
    store: EmbeddedStore, vector: list[float]
) -> None:
    add(store, *range(20))
    store.apply(Change(insert=inserted(500, np.asarray(vector, dtype=np.float32))))
    index = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    assert (index.unreadable, len(index)) == (1, 20)
    assert near(index, store, vector_of(5), 1) == [claim(5)]  # control


def test_the_index_counts_the_graph_in_its_bytes(store: EmbeddedStore) -> None:
    add(store, *range(100))
    exact = graphed(VectorIndex(SCOPE, NAME, approximate_above=10**12), store)
    graph = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    assert exact.nbytes == 128 * DIMS * 4  # the matrix's capacity
    assert graph.nbytes > exact.nbytes + 100 * DIMS * 4


# -- through recall ------------------------------------------------------------------------


def test_recall_with_the_graph_answers_as_recall_without_it(
    clock: doxa.FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = [
        ("Alice is allergic to peanuts", "alice"),
        ("Alice prefers green tea in the morning", "alice"),
        ("Alice likes jazz", "alice"),
        ("Bob is allergic to nuts", "bob"),
        ("Bob drinks coffee", "bob"),
        ("Carol works as a nurse", "carol"),
    ]
    asked = [("nut allergy", None), ("beverage", None), ("nut allergy", "bob"), ("job", None)]
    answers: dict[str, list[list[str]]] = {}
    for kind, threshold in (("exact", 10**12), ("hnsw", 0)):
        monkeypatch.setattr(vectors, "APPROXIMATE_ABOVE", threshold)
        with Memory(EmbeddedStore(), scope="alice", clock=clock, embedder=ConceptEmbedder()) as mem:
            written = [mem.remember(text, topic=topic, authority="owner") for text, topic in lines]
            mem.recall("nut allergy")  # the first recall builds the index (and starts the graph)
            index = VectorIndex.of(mem.store, mem.scope, "fake-concepts")
            assert index is not None
            assert index.settle(30)
            gone = written[0].fact
            assert gone is not None
            mem.owner.erase(gone, reason="asked to forget")
            answers[kind] = [[f.text for f in mem.recall(q, topic=t, limit=3)] for q, t in asked]
            assert index.kind == kind
    assert answers["hnsw"] == answers["exact"]
    assert all("Alice is allergic to peanuts" not in found for found in answers["hnsw"])
    assert answers["hnsw"][0][0] == "Bob is allergic to nuts"  # control: the kept one is first


def test_a_bulk_load_between_recalls_rebuilds_the_graph_in_the_background(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "GRAPH_CATCH_UP", 5 * DIMS)  # five vectors at 16 dimensions
    index = followed(store, threshold=0)
    add(store, *range(20))
    graphed(index, store)
    add(store, *range(100, 105))  # five: caught up at the next recall, graph kept
    assert near(index, store, vector_of(104), 1) == [claim(104)]
    assert index.kind == "hnsw"
    add(store, *range(200, 206))  # six: past the catch-up, the graph is built again
    assert near(index, store, vector_of(205), 1) == [claim(205)]  # answered exactly meanwhile
    assert index.settle(30)
    assert index.kind == "hnsw"
    assert len(index) == 31
    for n in (3, 104, 205):
        assert near(index, store, vector_of(n), 1) == [claim(n)]


# -- the build's lifecycle: the process's exit, failures -----------------------------------

#: a child process that starts a build of 5,000 vectors in chunks of 500, waits until the
#: builder is inside hnswlib, and exits at once; an exit hook registered before the build's
#: (so run after it) prints what the build had done by then
EXITING = """
import atexit, base64, sys, threading
import numpy as np
from rdflib import Literal, URIRef
from doxa.reads import graph_index, vectors
from doxa.scope import Scope
from doxa.store import Change, EmbeddedStore
from doxa.vocabulary import XSD

scope = Scope.named("v")
rows = np.random.default_rng(0).standard_normal((5000, 16)).astype("<f4")
store = EmbeddedStore()
store.apply(Change(insert=[
    q
    for n, row in enumerate(rows)
    for q in (
        (URIRef(f"{scope.iri}/fact/{n}"), vectors.EMBEDDING,
         Literal(base64.b64encode(row.tobytes()).decode(), datatype=XSD.base64Binary),
         scope.meaning),
        (URIRef(f"{scope.iri}/fact/{n}"), vectors.MODEL, Literal("m"), scope.meaning),
    )
]))
vectors.BUILD_CHUNK = 500 * 16
calls = []
entered = threading.Event()
original = graph_index.GraphIndex.add

def add(self, rows, first):
    calls.append(first)
    entered.set()
    original(self, rows, first)

graph_index.GraphIndex.add = add
index = vectors.VectorIndex(scope, "m", approximate_above=0)

def report():
    print("after the exit hook: calls", len(calls), "builder alive", builder.is_alive(), flush=True)

atexit.register(report)
with index.reading(store):
    pass
builder = index._builder
assert entered.wait(30)
print("building:", builder is not None and builder.is_alive(), "graph", index.kind, flush=True)
"""


def test_a_process_exiting_during_the_build_exits_cleanly(tmp_path: Any) -> None:
    script = tmp_path / "exiting.py"
    script.write_text(EXITING)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for _ in range(5):
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr  # was -6 (SIGABRT) about half the time
        assert "terminate called" not in done.stderr
        # control: the build had started and was inside hnswlib when the process exited
        assert "building: True graph exact" in done.stdout
        calls = int(done.stdout.split("calls ")[1].split()[0])
        assert 1 <= calls < 10  # stopped between two chunks, not run to the end
        assert "builder alive False" in done.stdout  # joined by the exit hook


def test_the_build_adds_its_rows_in_chunks(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "BUILD_CHUNK", 30 * DIMS)
    sizes: list[tuple[int, int]] = []
    original = graph_index.GraphIndex.add

    def counted(self: graph_index.GraphIndex, rows: Any, first: int) -> None:
        sizes.append((first, len(rows)))
        original(self, rows, first)

    monkeypatch.setattr(graph_index.GraphIndex, "add", counted)
    store.apply(Change(insert=[q for n in range(100) for q in inserted(n)]))
    index = graphed(VectorIndex(SCOPE, NAME, approximate_above=0), store)
    assert [s for s in sizes if s[1]] == [(0, 30), (30, 30), (60, 30), (90, 10)]
    assert index.kind == "hnsw"
    for n in (0, 29, 30, 99):  # control: every chunk's rows are in the graph
        assert near(index, store, vector_of(n), 1) == [claim(n)]


class FailingAdd:
    """``GraphIndex.add`` failing with MemoryError (hnswlib's resize) when ``failing`` is set
    and the rows start at ``first`` > 0 (a catch-up), counting every call."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.failing = True
        self.calls = 0
        original = graph_index.GraphIndex.add
        held = self

        def add(self: graph_index.GraphIndex, rows: Any, first: int) -> None:
            held.calls += 1
            if held.failing and first > 0:
                raise MemoryError("resize")
            original(self, rows, first)

        monkeypatch.setattr(graph_index.GraphIndex, "add", add)


def test_a_graph_that_fails_while_adopted_leaves_exact_search_and_is_tried_again(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    held = HeldBuild(monkeypatch)
    failing = FailingAdd(monkeypatch)
    index = followed(store, threshold=0)
    add(store, *range(100))
    read(index, store)
    assert held.started.wait(10)
    add(store, 1000)
    read(index, store)  # read during the build: adopting it must add the vector
    with caplog.at_level(logging.WARNING, logger="doxa.reads.vectors"):
        held.release.set()
        assert index.settle(30)
    assert index.kind == "exact"
    assert caplog.text.count("no HNSW graph (MemoryError: resize)") == 1
    assert "trying again at 152 vectors" in caplog.text  # 101 and a half more
    assert near(index, store, vector_of(1000), 1) == [claim(1000)]
    failing.failing = False
    calls = failing.calls
    for _ in range(3):  # not tried again at every recall
        with index.reading(store):
            assert index.settle(0)
    assert (index.kind, failing.calls) == ("exact", calls)
    add(store, *range(2000, 2050))  # 151 vectors: still short of the retry
    assert graphed(index, store).kind == "exact"
    add(store, 2050)  # the 152nd: tried again, and now it works
    assert graphed(index, store).kind == "hnsw"
    for n in (5, 1000, 2050):
        assert near(index, store, vector_of(n), 1) == [claim(n)]


def test_a_graph_adopted_without_a_fault_answers_at_once(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldBuild(monkeypatch)  # control of the test above: the same steps, no fault
    index = followed(store, threshold=0)
    add(store, *range(100))
    read(index, store)
    assert held.started.wait(10)
    add(store, 1000)
    read(index, store)
    held.release.set()
    assert index.settle(30)
    assert index.kind == "hnsw"
    assert near(index, store, vector_of(1000), 1) == [claim(1000)]


def test_a_graph_that_fails_to_catch_up_leaves_exact_search(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    index = followed(store, threshold=0)
    add(store, *range(40))
    assert graphed(index, store).kind == "hnsw"
    add(store, 100)
    assert near(index, store, vector_of(100), 1) == [claim(100)]  # control: caught up
    assert index.kind == "hnsw"
    failing = FailingAdd(monkeypatch)
    add(store, 101)
    with caplog.at_level(logging.WARNING, logger="doxa.reads.vectors"):
        assert near(index, store, vector_of(101), 1) == [claim(101)]  # answered, exactly
    assert index.kind == "exact"
    assert "no HNSW graph (MemoryError: resize)" in caplog.text
    assert "trying again at 63 vectors" in caplog.text
    failing.failing = False
    add(store, *range(200, 221))  # 63 vectors
    assert graphed(index, store).kind == "hnsw"
    assert near(index, store, vector_of(220), 1) == [claim(220)]


def test_a_build_that_fails_is_tried_again_once_the_index_has_grown(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(store, *range(30))
    original = graph_index.GraphIndex.add

    def failing(self: graph_index.GraphIndex, rows: Any, first: int) -> None:
        raise RuntimeError("no room")

    monkeypatch.setattr(graph_index.GraphIndex, "add", failing)
    index = graphed(followed(store, threshold=0), store)
    assert index.kind == "exact"
    monkeypatch.setattr(graph_index.GraphIndex, "add", original)
    assert graphed(index, store).kind == "exact"  # 30 vectors: not yet
    add(store, *range(100, 115))  # 45: a half more
    assert graphed(index, store).kind == "hnsw"


def test_vectors_added_during_the_build_are_caught_up_outside_the_lock(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "GRAPH_CATCH_UP", 5 * DIMS)
    held = HeldBuild(monkeypatch)
    gaps: list[int] = []
    original = VectorIndex._catch_graph_up

    def catch_up(self: VectorIndex, graph: graph_index.GraphIndex) -> None:
        gaps.append(len(self._claims) - graph.count)  # what is added under the lock
        original(self, graph)

    monkeypatch.setattr(VectorIndex, "_catch_graph_up", catch_up)
    index = followed(store, threshold=0)
    add(store, *range(50))
    read(index, store)
    assert held.started.wait(10)
    for n in range(100, 140):  # 40 vectors read during the build, eight times the catch-up
        add(store, n)
        read(index, store)
    delete(store, 120)
    held.release.set()
    assert index.settle(30)
    assert index.kind == "hnsw"
    assert gaps  # the adoption ran
    assert max(gaps) <= 5  # and added at most the catch-up under the lock: the rest outside
    for n in (3, 100, 139):  # control: all of them in the graph
        assert near(index, store, vector_of(n), 1) == [claim(n)]
    assert claim(120) not in near(index, store, vector_of(120), 10)  # deleted after the build
    assert (len(index), index.kind) == (89, "hnsw")


@pytest.mark.parametrize(("dims", "kept"), [(16, True), (32, False)])
def test_the_catch_up_under_the_lock_is_bounded_by_vectors_times_dimensions(
    store: EmbeddedStore, monkeypatch: pytest.MonkeyPatch, dims: int, kept: bool
) -> None:
    monkeypatch.setattr(vectors, "GRAPH_CATCH_UP", 5 * 16)
    index = followed(store, threshold=0)
    store.apply(Change(insert=[q for n in range(20) for q in inserted(n, vector_of(n, dims))]))
    assert graphed(index, store).kind == "hnsw"
    store.apply(
        Change(insert=[q for n in range(100, 104) for q in inserted(n, vector_of(n, dims))])
    )
    with index.reading(store) as held:  # four vectors: 64 elements at 16, 128 at 32
        assert held.kind == ("hnsw" if kept else "exact")
    assert index.settle(30)
    assert index.kind == "hnsw"
