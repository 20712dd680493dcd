"""Each admitted fact's vector: kept in the scope's meaning graph, searched in memory.

A vector is one literal on the claim in ``<scope>/meaning`` (``doxa:embedding``: little-endian
float32, base64) beside the model that made it; a claim whose vector could not be had carries
``doxa:embeddingMissing`` with the reason instead, until ``memory.admin.reindex`` fills it.
The meaning graph is derived, like the search graph: an erasure deletes it with the claim, and
it is never evidence of anything.

:class:`VectorIndex` holds the scope's vectors of one model as one normalised matrix and
finds the nearest by exact cosine (one matrix product) while the matrix is small; once its
vectors × dimensions pass :data:`APPROXIMATE_ABOVE` it also builds an HNSW graph over the same
rows (:class:`~doxa.reads.graph_index.GraphIndex`, in a background thread: recall stays exact
until the graph is ready) and asks the graph first (measured in docs/decisions.md). It follows
the store through its change
notices, as the word index does, so it exists only where this process is the store's only
writer; the vectors it finds are candidates only: recall keeps those the search graph still
holds, live by the same clock and status rules as the words.

numpy and hnswlib come with the ``meaning`` extra (``pip install 'doxa[meaning]'``); nothing
here imports them until a vector is decoded or searched (without hnswlib, search stays exact).
"""

from __future__ import annotations

import atexit
import base64
import logging
import math
import struct
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from rdflib import Literal, URIRef

from doxa.errors import InvalidInput
from doxa.reads.graph_index import GraphIndex, hnswlib_or_none
from doxa.scope import Scope
from doxa.store import Change, Quad, Store
from doxa.store.cache import CacheKey, Derived
from doxa.store.capabilities import cache_of
from doxa.vocabulary import DOXA, XSD

if TYPE_CHECKING:
    import numpy

__all__ = [
    "APPROXIMATE_ABOVE",
    "BUILD_CHUNK",
    "DEEPEST_APPROXIMATE",
    "EXIT_WAIT",
    "GRAPH_CATCH_UP",
    "GRAPH_RETRY_GROWTH",
    "Meaning",
    "VectorIndex",
    "decode",
    "encode",
    "missing_quads",
    "numpy_or_none",
    "unembedded",
    "vector_quads",
]

EMBEDDING = DOXA.embedding
MODEL = DOXA.embeddingModel
MISSING = DOXA.embeddingMissing

#: vectors × dimensions past which the index also keeps an HNSW graph (10k at 768, 5k at
#: 1536): below it the exact product measured ≤ 1.4 ms p50 on one core, past it 6.5 ms at
#: 10k x 1536 against 0.7 ms from the graph (bench/bench_vectors.py, docs/decisions.md)
APPROXIMATE_ABOVE = 8_000_000
#: the deepest search asked of the graph; deeper (many near vectors filtered out) is exact,
#: where one product costs less than a graph search with that many candidates
DEEPEST_APPROXIMATE = 512

#: vectors × dimensions added between two recalls past which the graph is rebuilt in the
#: background (recall exact meanwhile) instead of caught up under the lock: 2,000 vectors at
#: 384 dimensions, 1,000 at 768, 500 at 1536. Adding one measured 0.26 / 0.87 / 2.2 ms at
#: 384 / 768 / 1536 on the loaded two-core machine, so a recall (and the gate's locked
#: attempts, which gather through the same lock) waits at most ~0.5 / 0.9 / 1.1 s for it
GRAPH_CATCH_UP = 768_000
#: vectors × dimensions the background build adds per hnswlib call (1,000 vectors at 384,
#: 250 at 1536: about half a second each); between two it looks whether the process is
#: exiting, so an exit waits for one such call at most
BUILD_CHUNK = 384_000
#: the most seconds the process's exit waits for its graph builders (each stops after the
#: hnswlib call it is in; one takes about half a second)
EXIT_WAIT = 10.0
#: after a graph could not be built or adopted, the index tries again once it holds this
#: much more (a half more vectors than at the failure): not at every recall, and a bounded
#: number of times however large the store grows
GRAPH_RETRY_GROWTH = 0.5

log = logging.getLogger(__name__)


class Meaning(NamedTuple):
    """A recall query's vector and the model that made it (only its vectors compare)."""

    vector: Sequence[float]
    model: str


def numpy_or_none() -> Any:
    """numpy, or None when the ``meaning`` extra is not installed."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def _numpy() -> Any:
    found = numpy_or_none()
    if found is None:
        raise InvalidInput(
            "recall by meaning needs numpy; install it with pip install 'doxa[meaning]'."
        )
    return found


def encode(vector: Sequence[float]) -> Literal:
    """A vector as the literal the meaning graph keeps (little-endian float32, base64).

    >>> str(encode([1.0, 0.5]))
    'AACAPwAAAD8='
    """
    raw = struct.pack(f"<{len(vector)}f", *vector)
    return Literal(base64.b64encode(raw).decode("ascii"), datatype=XSD.base64Binary)


def decode(text: str) -> tuple[float, ...] | None:
    """The vector of an :func:`encode` literal's text; None for anything else.

    >>> decode("AACAPwAAAD8="), decode("not base64!")
    ((1.0, 0.5), None)
    """
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    if not raw or len(raw) % 4:
        return None
    return struct.unpack(f"<{len(raw) // 4}f", raw)


def vector_quads(scope: Scope, claim: URIRef, vector: Sequence[float], model: str) -> list[Quad]:
    """The meaning graph's triples of one claim's vector."""
    graph = scope.meaning
    return [
        (claim, EMBEDDING, encode(vector), graph),
        (claim, MODEL, Literal(model), graph),
    ]


def missing_quads(scope: Scope, claim: URIRef, reason: str) -> list[Quad]:
    """The note that a claim has no vector yet, and why."""
    return [(claim, MISSING, Literal(reason), scope.meaning)]


def unembedded(store: Store, scope: Scope, model: str) -> list[tuple[URIRef, str]]:
    """The claims the search graph holds (admitted, not erased) without a vector of ``model``,
    oldest IRI first, each with its topic; what reindex fills in."""
    topics: dict[str, str] = {}
    for s, p, o, _ in store.quads(scope.search):
        if p == DOXA.topic:
            topics[str(s)] = str(o)
    have: set[str] = set()
    for s, p, o, _ in store.quads(scope.meaning):
        if p == MODEL and str(o) == model:
            have.add(str(s))
    return [(URIRef(c), topics[c]) for c in sorted(topics) if c not in have]


class VectorIndex(Derived):
    """One scope's vectors of one model, as a matrix in memory; see the module's docstring.

    Read it inside :meth:`reading`, which brings it up to date first. Appending a vector is
    amortised O(1) (the matrix, and the graph once there is one, double when full), so a
    write's cost does not grow with the store; a deleted vector's row is zeroed (and its
    graph node marked deleted), and reclaimed only when the index is rebuilt from the store
    (a reset): nothing is compacted in place, so memory follows every vector added since
    (docs/decisions.md).

    ``approximate_above`` (vectors × dimensions; None: :data:`APPROXIMATE_ABOVE`) is where
    the graph starts: the first :meth:`reading` past it starts a thread that builds the graph
    from the matrix while recalls go on exactly; the changes read in the meantime are
    replayed into it before it is used (see :meth:`_adopt`).
    """

    def __init__(self, scope: Scope, model: str, *, approximate_above: int | None = None) -> None:
        self.scope = scope
        self.model = model
        self.approximate_above = (
            APPROXIMATE_ABOVE if approximate_above is None else approximate_above
        )
        self._lock = threading.RLock()
        self._stale = True
        self._pending: list[set[str]] = []
        self._matrix: numpy.ndarray[Any, Any] | None = None
        self._claims: list[str | None] = []  # row -> claim (None: a deleted row)
        self._rows: dict[str, int] = {}
        self._graph: GraphIndex | None = None
        self._builder: threading.Thread | None = None
        self._generation = 0  # a rebuild from the store starts a new one: older graphs are dropped
        #: after a failed graph, the live vectors to reach before the next try (None: no failure)
        self._retry_at: int | None = None
        self.dimensions: int | None = None
        #: vectors left out because their dimension differs from the index's
        self.mismatched = 0
        #: vectors left out because they hold a value that is not a finite number
        self.unreadable = 0

    @classmethod
    def of(cls, store: Store, scope: Scope, model: str) -> VectorIndex | None:
        """The scope's index of ``model`` on ``store``; None where other processes may write
        the store (no change notices to follow) or numpy is not installed."""
        cache = cache_of(store)
        if cache is None or numpy_or_none() is None:
            return None
        return cache.get_or_make(
            VECTOR_INDEX.of(f"{scope.name}\n{model}"), lambda: cls(scope, model)
        )

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def nbytes(self) -> int:
        """The matrix's size in bytes (its capacity, not only the rows in use) and the
        graph's (hnswlib's count: the vectors and links of the rows in it)."""
        graph = None if _BUILDERS.stopping else self._graph  # no hnswlib call after exit
        matrix = 0 if self._matrix is None else int(self._matrix.nbytes)
        return matrix + (0 if graph is None else graph.nbytes)

    @property
    def kind(self) -> str:
        """``"hnsw"`` once the graph answers searches, else ``"exact"``."""
        return "exact" if self._graph is None else "hnsw"

    def settle(self, timeout: float | None = None) -> bool:
        """Wait for a graph being built to be ready (or given up); whether none is building.

        Recall never needs to wait (it searches exactly meanwhile); tests and benchmarks do.
        """
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
            return not builder.is_alive()
        return True

    # -- told by the store ---------------------------------------------------------------

    def changed(self, change: Change) -> None:
        if self._stale:
            return
        graph = self.scope.meaning
        touched = {
            str(s) for quads in (change.delete, change.insert) for s, _, _, g in quads if g == graph
        }
        if touched:
            self._pending.append(touched)  # appending is atomic: a writer never waits here

    def reset(self, graph: URIRef | None) -> None:
        if graph is None or graph == self.scope.meaning:
            with self._lock:
                self._stale = True
                self._pending = []
                self._graph = None  # it knew the old content; a graph building now is dropped
                self._generation += 1

    # -- reading -----------------------------------------------------------------------

    @contextmanager
    def reading(self, store: Store) -> Iterator[VectorIndex]:
        """The index brought up to date with ``store``, held still while it is read."""
        with self._lock:
            if self._stale:
                self._build(store)
            elif self._pending:
                self._catch_up(store)
            self._start_graph()
            yield self

    def nearest(self, vector: Sequence[float], count: int) -> list[tuple[str, float]]:
        """Up to ``count`` claims by cosine to ``vector``, closest first, each above 0 (an
        unrelated vector never comes back as a match). Call it inside :meth:`reading`.

        Fewer than ``count`` come back only when the index holds no more such claims. With
        the graph, the nearest are approximate (recall@20 measured in docs/decisions.md); a
        deleted row never comes back either way."""
        np = _numpy()
        if self._matrix is None or not self._rows or len(vector) != self.dimensions:
            return []
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if not norm or not math.isfinite(norm):
            return []
        query = query / norm
        graph, live = self._graph, len(self._rows)
        if _BUILDERS.stopping:
            graph = None  # the process is exiting: no hnswlib call after the exit hook
        if graph is not None and min(count, live) <= DEEPEST_APPROXIMATE:
            found = graph.search(query, min(count, live))
            if found is not None:
                return [
                    (claim, score)
                    for row, score in found
                    if (claim := self._claims[row]) is not None and score > 0
                ]
        return self._exact(query, count)

    def _exact(self, query: numpy.ndarray[Any, Any], count: int) -> list[tuple[str, float]]:
        np = _numpy()
        assert self._matrix is not None
        used = len(self._claims)
        # einsum, not ``@``: a matrix-vector product through BLAS starts its thread pool,
        # which measured 16x slower at 100k on a busy machine (docs/decisions.md)
        scores = np.einsum("ij,j->i", self._matrix[:used], query)
        count = min(count, used)
        top = np.argpartition(-scores, count - 1)[:count]
        top = top[np.argsort(-scores[top], kind="stable")]
        found: list[tuple[str, float]] = []
        for row in top.tolist():
            claim, score = self._claims[row], float(scores[row])
            if claim is not None and score > 0:
                found.append((claim, score))
        return found

    def _build(self, store: Store) -> None:
        self._stale = False  # notices from now on are caught up
        self._pending = []
        self._matrix, self._claims, self._rows = None, [], {}
        self.dimensions, self.mismatched, self.unreadable = None, 0, 0
        self._graph, self._retry_at = None, None
        self._generation += 1
        grouped: dict[str, dict[str, str]] = {}
        for s, p, o, _ in store.quads(self.scope.meaning):
            if p in (EMBEDDING, MODEL):
                grouped.setdefault(str(s), {})[str(p)] = str(o)
        for claim in sorted(grouped):
            self._enter(claim, grouped[claim])

    def _catch_up(self, store: Store) -> None:
        pending, self._pending = self._pending, []
        touched = sorted(set().union(*pending))
        described = store.describe(
            [URIRef(c) for c in touched], [self.scope.meaning], (EMBEDDING, MODEL)
        )
        for claim in touched:
            self._leave(claim)
            pairs = described.get(claim)
            if pairs:
                self._enter(claim, {str(p): str(o) for p, o in pairs})
        graph = self._graph
        if graph is None:
            return
        assert self.dimensions is not None
        if _BUILDERS.stopping or (len(self._claims) - graph.count) * self.dimensions > (
            GRAPH_CATCH_UP
        ):
            self._graph = None  # a bulk load: rebuilt in the background, exact meanwhile
            self._generation += 1
            return
        try:
            self._catch_graph_up(graph)
        except Exception as error:  # hnswlib's resize: MemoryError, RuntimeError
            self._graph = None
            self._generation += 1
            self._give_up(error)

    def _enter(self, claim: str, fields: dict[str, str]) -> None:
        if fields.get(str(MODEL)) != self.model:
            return
        row = _unit_row(fields.get(str(EMBEDDING), ""))
        if row is None:
            self.unreadable += 1
            return
        if self.dimensions is None:
            self.dimensions = len(row)
        if len(row) != self.dimensions:
            self.mismatched += 1
            return
        np = _numpy()
        used = len(self._claims)
        if self._matrix is None or used == self._matrix.shape[0]:
            grown = np.zeros((max(64, used * 2), self.dimensions), dtype=np.float32)
            if self._matrix is not None:
                grown[:used] = self._matrix[:used]
            self._matrix = grown
        self._matrix[used] = row
        self._claims.append(claim)
        self._rows[claim] = used  # the graph, if any, gets the row at the end of the catch-up

    def _leave(self, claim: str) -> None:
        row = self._rows.pop(claim, None)
        if row is not None and self._matrix is not None:
            self._matrix[row] = 0.0
            self._claims[row] = None
            graph = self._graph
            if graph is not None and row < graph.count and not _BUILDERS.stopping:
                graph.delete(row)  # (exiting: the catch-up drops the graph after this)

    # -- the graph, built beside the matrix --------------------------------------------

    def _start_graph(self) -> None:
        """Start building the graph in a thread once the matrix is past the threshold (and,
        after a failure, once it holds :data:`GRAPH_RETRY_GROWTH` more vectors)."""
        if self._graph is not None or self._builder is not None or _BUILDERS.stopping:
            return
        if self.dimensions is None or len(self._rows) * self.dimensions < self.approximate_above:
            return
        if self._retry_at is not None and len(self._rows) < self._retry_at:
            return
        if hnswlib_or_none() is None:
            return  # no hnswlib: exact search, as it always was
        assert self._matrix is not None
        builder = threading.Thread(
            target=self._make_graph,
            args=(self._generation, self._matrix, len(self._claims), self.dimensions),
            name=f"doxa-vectors-{self.scope.name}",
            daemon=True,
        )
        self._builder = builder
        _BUILDERS.started(self, builder)
        builder.start()

    def _make_graph(
        self, generation: int, matrix: numpy.ndarray[Any, Any], count: int, dimensions: int
    ) -> None:
        """Build the graph of the matrix's first ``count`` rows outside the lock, then adopt it.

        The rows are read from the matrix as it was when the build started: its rows below
        ``count`` are never rewritten (a new vector always takes a new row; a grown matrix
        is a copy), only zeroed when deleted, and every row deleted by then is marked in
        :meth:`_adopt`. Any failure (hnswlib's MemoryError or RuntimeError, a bug) is logged
        and leaves exact search, to be tried again later: it never escapes the thread with
        the builder still set, which would keep recall exact for good."""
        try:
            graph = GraphIndex(dimensions, capacity=count + count // 8)  # then doubling
            if not _added(graph, matrix, 0, count):
                return  # the process is exiting
            while True:
                with self._lock:
                    if generation != self._generation or _BUILDERS.stopping:
                        return  # dropped by a reset, or the process is exiting
                    assert self._matrix is not None
                    matrix, used = self._matrix, len(self._claims)
                    if (used - graph.count) * dimensions <= GRAPH_CATCH_UP:
                        self._adopt(graph)
                        return
                # many vectors came during the build: add them outside the lock first
                if not _added(graph, matrix, graph.count, used):
                    return
        except Exception as error:
            with self._lock:
                if generation == self._generation:
                    self._give_up(error)
        finally:
            with self._lock:
                if self._builder is threading.current_thread():
                    self._builder = None  # last: settle() sees the graph adopted once it is None
            _BUILDERS.finished(threading.current_thread())

    def _give_up(self, error: BaseException) -> None:
        """Search exactly after a graph failed (under the lock), logged once per failure; the
        graph is tried again once the index holds :data:`GRAPH_RETRY_GROWTH` more vectors."""
        live = len(self._rows)
        self._retry_at = live + max(1, math.ceil(live * GRAPH_RETRY_GROWTH))
        log.warning(
            "vector index of %s: no HNSW graph (%s: %s); searching exactly, trying again at "
            "%d vectors",
            self.model,
            type(error).__name__,
            error,
            self._retry_at,
        )

    def _adopt(self, graph: GraphIndex) -> None:
        """Make ``graph`` (built from the matrix's first ``graph.count`` rows) current, under
        the lock: the rows added since are added to it and the rows deleted since marked, so
        it answers as the matrix does."""
        for row, claim in enumerate(self._claims[: graph.count]):
            if claim is None:
                graph.delete(row)
        self._catch_graph_up(graph)
        self._graph, self._retry_at = graph, None

    def _catch_graph_up(self, graph: GraphIndex) -> None:
        """Add the matrix's rows past the graph's to it in one batch (a row deleted since it
        was appended is added and marked: labels stay row numbers)."""
        assert self._matrix is not None
        first, used = graph.count, len(self._claims)
        graph.add(self._matrix[first:used], first)
        for row in range(first, used):
            if self._claims[row] is None:
                graph.delete(row)

    def _quiesce(self, timeout: float) -> None:
        """Wait (at most ``timeout``) for a thread inside :meth:`reading` to leave it: after the
        exit hook has set the stop, the next one to enter never calls hnswlib."""
        if self._lock.acquire(timeout=max(0.0, timeout)):
            self._lock.release()


def _added(graph: GraphIndex, matrix: numpy.ndarray[Any, Any], first: int, end: int) -> bool:
    """Add the matrix's rows ``first`` .. ``end - 1`` to ``graph``, :data:`BUILD_CHUNK` elements
    per hnswlib call; False (the rest left out) once the process is exiting."""
    step = max(1, BUILD_CHUNK // int(matrix.shape[1]))
    for start in range(first, end, step):
        if _BUILDERS.stopping:
            return False
        graph.add(matrix[start : min(end, start + step)], start)
    return True


class _Builders:
    """The process's live graph builders, stopped and waited for at exit.

    A builder is a daemon thread (a short CLI process must not wait for a graph it will
    never use), but a daemon thread still inside hnswlib's C++ when the interpreter shuts
    down aborts the process (SIGABRT, "terminate called without an active exception"). So
    an exit hook, registered with the first builder, sets the stop, which every builder
    looks at between two hnswlib calls and every reading at the lock, then joins the
    builders and waits out any reading in progress: after it, no hnswlib code runs.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: set[threading.Thread] = set()
        self._indexes: weakref.WeakSet[VectorIndex] = weakref.WeakSet()
        self._hooked = False

    @property
    def stopping(self) -> bool:
        """Whether the process is exiting (no new hnswlib call may start)."""
        return self._stop.is_set()

    def started(self, index: VectorIndex, thread: threading.Thread) -> None:
        with self._lock:
            if not self._hooked:
                atexit.register(self.stop)
                self._hooked = True
            self._threads.add(thread)
            self._indexes.add(index)

    def finished(self, thread: threading.Thread) -> None:
        with self._lock:
            self._threads.discard(thread)

    def stop(self, wait: float | None = None) -> None:
        """Stop every builder and wait for them (at most ``wait`` seconds in all; None:
        :data:`EXIT_WAIT`)."""
        self._stop.set()
        deadline = time.monotonic() + (EXIT_WAIT if wait is None else wait)
        with self._lock:
            threads, indexes = list(self._threads), list(self._indexes)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        for index in indexes:
            index._quiesce(deadline - time.monotonic())
        left = [thread.name for thread in threads if thread.is_alive()]
        if left:
            log.warning("vector graph builders still running at exit: %s", ", ".join(left))


_BUILDERS = _Builders()


def _unit_row(text: str) -> numpy.ndarray[Any, Any] | None:
    """The unit float32 row of an :func:`encode` literal's text; None for anything else (not
    base64 of float32s, not finite, all zero)."""
    np = _numpy()
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    if not raw or len(raw) % 4:
        return None
    row = np.frombuffer(raw, dtype="<f4").astype(np.float32)
    norm = float(np.linalg.norm(row))
    if not norm or not math.isfinite(norm):
        return None
    unit: numpy.ndarray[Any, Any] = row / np.float32(norm)
    return unit


#: the store cache's key of a scope's vector index (one per model)
VECTOR_INDEX: CacheKey[VectorIndex] = CacheKey("doxa.meaning")
