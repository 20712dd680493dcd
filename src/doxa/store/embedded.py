"""The embedded backend: Oxigraph on disk (RocksDB) or in memory, in this process.

Oxigraph does not detect conflicting writes, so callers serialise decisions (the gate holds one
lock per store); query results are read to the end in the calling thread, because pyoxigraph
must consume them in the thread that ran the query.
"""

from __future__ import annotations

import gc
import os
import re
import secrets
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TypeVar

import pyoxigraph as ox
from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput, StoreError, StoreLocked, WriteConflict
from doxa.store.base import (
    SLOT_TOKEN,
    SLOTS_GRAPH,
    Binding,
    Change,
    Dataset,
    Quad,
    QueryResult,
    Row,
    bind_values,
    tell_derived,
)
from doxa.store.convert import from_ox, to_ox, to_ox_graph
from doxa.store.flusher import Flusher
from doxa.store.journal import Journal

__all__ = ["EmbeddedStore"]

T = TypeVar("T")

_FORMATS = {
    "turtle": ox.RdfFormat.TURTLE,
    "ttl": ox.RdfFormat.TURTLE,
    "ntriples": ox.RdfFormat.N_TRIPLES,
    "nt": ox.RdfFormat.N_TRIPLES,
    "nquads": ox.RdfFormat.N_QUADS,
    "nq": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
    "rdfxml": ox.RdfFormat.RDF_XML,
    "xml": ox.RdfFormat.RDF_XML,
    "rdf": ox.RdfFormat.RDF_XML,
    "owl": ox.RdfFormat.RDF_XML,
}


def rdf_format(name: str) -> ox.RdfFormat:
    """Look up an RDF format by a short name or file extension."""
    try:
        return _FORMATS[name.lower().lstrip(".")]
    except KeyError:
        known = ", ".join(sorted(_FORMATS))
        raise InvalidInput(f"{name!r} is not a known RDF format; use one of: {known}.") from None


class EmbeddedStore:
    """An Oxigraph store in a directory on disk, or in memory when ``path`` is None."""

    def __init__(
        self, path: Path | str | None = None, *, journal: bool = True, durable: bool = True
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.journal: Journal | None = None
        self.lock = threading.RLock()
        self.memo: dict[object, object] | None = {}  # one writer per directory: caches hold
        try:
            if self.path is None:
                self._open: ox.Store | None = ox.Store()
            else:
                _finish_compaction(self.path)
                self.path.mkdir(parents=True, exist_ok=True)
                self._open = ox.Store(str(self.path))
        except OSError as error:
            message = str(error)
            if "lock" in message.lower():
                raise StoreLocked(
                    f"The store at {self.path} is already open for writing in another process; "
                    "close that process (one writer per store directory) or open a copy."
                ) from None
            raise StoreError(f"Cannot open the store at {self.path}: {message}.") from error
        if self.path is not None and journal:
            self.journal = Journal(self.path.with_name(f"{self.path.name}.journal"), fsync=durable)
        # on disk, a small memtable keeps a write's cost flat as the store grows
        self.flusher = (
            Flusher(self._flush_now, size=self._disk_bytes) if self.path is not None else None
        )

    # -- reads -------------------------------------------------------------------------

    def _query(self, sparql: str, dataset: Dataset) -> object:
        try:
            return self._store.query(
                sparql,
                default_graph=[ox.NamedNode(str(g)) for g in dataset.default],
                named_graphs=[ox.NamedNode(str(g)) for g in dataset.named],
            )
        except SyntaxError as error:
            raise InvalidInput(f"The SPARQL query is not valid: {error}.") from None
        except OSError as error:
            raise StoreError(f"The store could not answer the query: {error}.") from error

    def select(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> list[Row]:
        result = self._query(bind_values(sparql, bindings or {}), dataset)
        assert isinstance(result, ox.QuerySolutions)
        names = [v.value for v in result.variables]
        rows: list[Row] = []
        for solution in result:
            row: Row = {}
            for index, name in enumerate(names):
                value = solution[index]
                if value is not None:
                    row[name] = from_ox(value)
            rows.append(row)
        return rows

    def referrers(
        self, predicate: URIRef, objects: Sequence[Node], graph: URIRef
    ) -> dict[str, list[str]]:
        p, g = ox.NamedNode(str(predicate)), ox.NamedNode(str(graph))
        found: dict[str, list[str]] = {}
        for obj in objects:
            subjects = [
                str(q.subject.value)  # type: ignore[union-attr]
                for q in self._store.quads_for_pattern(None, p, to_ox(obj), g)
            ]
            if subjects:
                found[str(obj)] = subjects
        return found

    def describe(
        self,
        subjects: Sequence[URIRef],
        graphs: Sequence[URIRef],
        predicates: Sequence[URIRef] | None = None,
    ) -> dict[str, list[tuple[Node, Node]]]:
        store = self._store
        described: dict[str, list[tuple[Node, Node]]] = {}
        if predicates is not None or len(graphs) <= 4:  # a few lookups beat reading the rest
            named = [ox.NamedNode(str(g)) for g in graphs]
            asked = [None] if predicates is None else [ox.NamedNode(str(p)) for p in predicates]
            for subject in subjects:
                node = ox.NamedNode(str(subject))
                pairs: list[tuple[Node, Node]] = [
                    (from_ox(q.predicate), from_ox(q.object))
                    for graph in named
                    for predicate in asked
                    for q in store.quads_for_pattern(node, predicate, None, graph)
                ]
                if pairs:
                    described[str(subject)] = (
                        list(dict.fromkeys(pairs)) if len(named) > 1 else pairs
                    )
            return described
        # one index lookup a subject across every graph, kept if its graph was asked for
        wanted = {str(g) for g in graphs}
        for subject in subjects:
            found = store.quads_for_pattern(ox.NamedNode(str(subject)), None, None, None)
            kept: list[tuple[Node, Node]] = list(
                dict.fromkeys(
                    (from_ox(q.predicate), from_ox(q.object))
                    for q in found
                    if isinstance(q.graph_name, ox.NamedNode) and q.graph_name.value in wanted
                )
            )
            if kept:
                described[str(subject)] = kept
        return described

    def column(
        self,
        sparql: str,
        variable: str,
        *,
        dataset: Dataset,
        bindings: Mapping[str, Binding] | None = None,
    ) -> list[str]:
        result = self._query(bind_values(sparql, bindings or {}), dataset)
        assert isinstance(result, ox.QuerySolutions)
        values = []
        for solution in result:
            value = solution[variable]
            if value is not None:
                values.append(value.value)
        return values

    def ask(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> bool:
        result = self._query(bind_values(sparql, bindings or {}), dataset)
        assert isinstance(result, ox.QueryBoolean)
        return bool(result)

    def run(
        self,
        sparql: str,
        *,
        dataset: Dataset,
        max_rows: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> QueryResult:
        result = self._query(sparql, dataset)
        if isinstance(result, ox.QueryBoolean):
            return QueryResult(form="ask", boolean=bool(result))
        if isinstance(result, ox.QueryTriples):
            triples, cut = _take(result, max_rows, stop)
            return QueryResult(
                form="construct",
                triples=tuple(
                    (from_ox(t.subject), from_ox(t.predicate), from_ox(t.object)) for t in triples
                ),
                truncated=cut,
            )
        assert isinstance(result, ox.QuerySolutions)
        names = tuple(v.value for v in result.variables)
        solutions, cut = _take(result, max_rows, stop)
        rows = tuple(
            tuple(None if solution[i] is None else from_ox(solution[i]) for i in range(len(names)))
            for solution in solutions
        )
        return QueryResult(form="select", variables=names, rows=rows, truncated=cut)

    def graphs(self) -> list[URIRef]:
        return [URIRef(g.value) for g in self._store.named_graphs() if isinstance(g, ox.NamedNode)]

    def quads(self, graph: URIRef | None = None) -> Iterator[Quad]:
        pattern_graph = None if graph is None else ox.NamedNode(str(graph))
        for quad in self._store.quads_for_pattern(None, None, None, pattern_graph):
            if isinstance(quad.graph_name, ox.DefaultGraph):
                continue
            yield (
                from_ox(quad.subject),
                from_ox(quad.predicate),
                from_ox(quad.object),
                URIRef(quad.graph_name.value),
            )

    def values(self, graph: URIRef) -> Iterator[tuple[str, str, str]]:
        """Every triple of ``graph`` as its terms' plain strings (IRIs, literals' lexical
        forms): for a cache that reads a whole graph, without building an RDF term for each."""
        for quad in self._store.quads_for_pattern(None, None, None, ox.NamedNode(str(graph))):
            yield quad.subject.value, quad.predicate.value, quad.object.value  # type: ignore[union-attr]

    # -- writes ------------------------------------------------------------------------

    def apply(self, change: Change) -> None:
        if not change.delete and not change.insert and change.slot is None:
            return
        try:
            if change.slot is not None:
                self._claim(change)
            else:
                self._apply(change)
        except (ValueError, TypeError) as error:
            raise InvalidInput(f"The write holds a term that is not valid RDF: {error}.") from None
        tell_derived(self.memo, change, None)
        if self.flusher is not None:
            self.flusher.wrote(len(change.delete) + len(change.insert))

    def _apply(self, change: Change) -> None:
        if not change.delete:
            quads = [
                ox.Quad(to_ox(s), to_ox(p), to_ox(o), to_ox_graph(g))  # type: ignore[arg-type]
                for s, p, o, g in change.insert
            ]
            self._write(lambda: self._store.extend(quads))
            return
        update = change.to_update()
        self._write(lambda: self._store.update(update))

    def _claim(self, change: Change) -> None:
        """Apply a change that claims a slot: this process is the directory's only writer, so
        checking the slot under the store's lock and writing is atomic."""
        assert change.slot is not None
        with self.lock:
            claims = self._store.quads_for_pattern(
                ox.NamedNode(str(change.slot)),
                ox.NamedNode(str(SLOT_TOKEN)),
                None,
                ox.NamedNode(str(SLOTS_GRAPH)),
            )
            if next(claims, None) is not None:
                raise WriteConflict(
                    "Another writer published to this scope first; the gate judges again."
                )
            marker = (change.slot, SLOT_TOKEN, Literal(secrets.token_hex(16)), SLOTS_GRAPH)
            claim = Change(delete=change.delete, insert=[marker, *change.insert])
            update = claim.to_update()
            self._write(lambda: self._store.update(update))

    def _write(self, action: Callable[[], None]) -> None:
        try:
            action()
        except OSError as error:
            raise StoreError(f"The store could not apply the write: {error}.") from error

    def load(self, data: bytes, *, format: str, graph: URIRef) -> int:
        fmt = rdf_format(format)
        if fmt.supports_datasets:
            # quads name their own graphs: loading them could write into any scope
            raise InvalidInput(
                f"{fmt.name} data names its own graphs and cannot be loaded into one graph; "
                "use Turtle, N-Triples or RDF/XML."
            )
        before = self._count(graph)
        try:
            self._store.load(data, fmt, to_graph=ox.NamedNode(str(graph)))
        except SyntaxError as error:
            raise InvalidInput(f"The RDF data could not be parsed: {_clean(error)}.") from None
        except OSError as error:
            raise StoreError(f"The store could not load the data: {error}.") from error
        finally:
            tell_derived(self.memo, None, graph)  # a failed load may have written part of it
        loaded = self._count(graph) - before
        if self.flusher is not None:
            self.flusher.wrote(loaded)
        return loaded

    def _count(self, graph: URIRef) -> int:
        return sum(
            1 for _ in self._store.quads_for_pattern(None, None, None, ox.NamedNode(str(graph)))
        )

    def clear_graph(self, graph: URIRef) -> None:
        self._store.remove_graph(ox.NamedNode(str(graph)))
        tell_derived(self.memo, None, graph)

    def compact(self) -> None:
        """Rewrite the store from its current quads and swap the copy in.

        Oxigraph's files keep every string ever stored (its dictionary is append-only), even
        after ``remove`` and ``optimize``: only a store rebuilt from what is live forgets
        erased content. The copy is built beside the store, flushed, then swapped in by two
        renames; an interrupted swap is finished the next time the directory is opened.
        """
        tell_derived(self.memo, None, None)  # nothing derived keeps what an erasure removed
        with self.lock, self._flushes_paused():
            if self.path is None:
                fresh = ox.Store()
                fresh.bulk_extend(self._store.quads_for_pattern(None, None, None, None))
                self._open = fresh
                gc.collect()
                return
            building = _sibling(self.path, "compacting")
            if building.exists():
                shutil.rmtree(building)
            fresh = ox.Store(str(building))
            fresh.bulk_extend(self._store.quads_for_pattern(None, None, None, None))
            fresh.flush()
            del fresh
            self._open = None
            gc.collect()  # release RocksDB's lock on both directories
            old = _sibling(self.path, "old")
            self.path.rename(old)
            building.rename(self.path)
            shutil.rmtree(old)
            self._open = ox.Store(str(self.path))

    def clone(self) -> EmbeddedStore:
        """An in-memory copy of this store (for scratch work that must not touch it)."""
        copy = EmbeddedStore(None)
        assert copy._open is not None
        copy._open.bulk_extend(self._store.quads_for_pattern(None, None, None, None))
        return copy

    def backup(self, target: Path) -> None:
        """Copy the store to a new directory ``target`` (Oxigraph's own consistent backup)."""
        if self.path is None:
            raise StoreError("An in-memory store cannot be backed up; open one on disk.")
        if target.exists():
            raise StoreError(f"The backup directory {target} exists already; choose a new one.")
        self._store.flush()
        try:
            self._store.backup(str(target))
        except OSError as error:
            raise StoreError(f"Cannot back up the store to {target}: {error}.") from error

    def flush(self) -> None:
        if self.path is not None:
            self._store.flush()

    def _flush_now(self) -> None:
        """The background flush: a store closed meanwhile has nothing left to flush."""
        if self._open is not None:
            self._open.flush()

    def _disk_bytes(self) -> int:
        """The size of the store's table files: what a flush makes RocksDB compact against."""
        assert self.path is not None
        total = 0
        with os.scandir(self.path) as entries:
            for entry in entries:
                if entry.name.endswith(".sst"):
                    try:
                        total += entry.stat().st_size
                    except FileNotFoundError:
                        continue  # compacted away while the directory was read
        return total

    def _flushes_paused(self) -> AbstractContextManager[None]:
        return self.flusher.paused() if self.flusher is not None else nullcontext()

    def close(self) -> None:
        if self.flusher is not None:
            self.flusher.stop()  # waits for a flush under way: it holds the store open
        if self.journal is not None:
            self.journal.close()
        if self._open is None:
            return
        if self.path is None:
            self._open = None  # in memory: nothing to flush, no directory lock to release
            return
        try:
            self._open.flush()
        except OSError as error:  # a full disk, a file-size limit: what was acknowledged is safe
            raise StoreError(
                f"The store at {self.path} could not be flushed on closing: {error}. Every "
                "acknowledged decision is in its log and journal; free disk space (or file "
                "handles) and reopen it."
            ) from error
        finally:
            self._open = None  # dropping the last reference releases RocksDB's directory lock
            gc.collect()

    @property
    def _store(self) -> ox.Store:
        if self._open is None:
            raise StoreError("The store is closed; open it again with Memory.open.")
        return self._open


def _take(
    items: Iterable[T], limit: int | None, stop: Callable[[], bool] | None
) -> tuple[list[T], bool]:
    """Read up to ``limit`` items in this thread (pyoxigraph requires it); say if more were left."""
    taken: list[T] = []
    for item in items:
        if (limit is not None and len(taken) >= limit) or (stop is not None and stop()):
            return taken, True
        taken.append(item)
    return taken, False


def _sibling(path: Path, what: str) -> Path:
    return path.with_name(f"{path.name}.{what}")


def _finish_compaction(path: Path) -> None:
    """Finish a compaction a crash interrupted (see :meth:`EmbeddedStore.compact`)."""
    old, building = _sibling(path, "old"), _sibling(path, "compacting")
    if not path.exists() and old.exists() and building.exists():
        building.rename(path)  # the copy was complete: it is renamed only after its flush
    if path.exists() and old.exists():
        shutil.rmtree(old)
    if path.exists() and building.exists():
        shutil.rmtree(building)  # a copy that never got swapped in


def _clean(error: BaseException) -> str:
    return re.sub(r"\s+", " ", str(error)).strip().rstrip(".")
