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
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pyoxigraph as ox
from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput, StoreError, StoreLocked, WriteConflict
from doxa.store import generations, intents
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
)
from doxa.store.cache import StoreCache
from doxa.store.capabilities import (
    Cloneable,
    Compactable,
    OnDisk,
    PlainValues,
    Purgeable,
    SoleWriter,
)
from doxa.store.convert import from_ox, rdf_format, to_ox, to_ox_graph
from doxa.store.flusher import Flusher
from doxa.store.journal import Journal

if TYPE_CHECKING:
    from rdflib.store import Store as RdflibStore

    from doxa.store.view import ScopeGraphs

__all__ = ["DiskStore", "EmbeddedStore", "JournaledStore"]

T = TypeVar("T")


class _Generation:
    """One open RocksDB database of a store, and how many reads are using it: a rebuilt
    store replaces it only once the reads that began on it have ended."""

    def __init__(self, store: ox.Store, directory: Path | None) -> None:
        self.store: ox.Store | None = store
        self.directory = directory
        self.readers = 0


class EmbeddedStore(SoleWriter, Cloneable, PlainValues, Compactable):
    """An Oxigraph store in a directory on disk, or in memory when ``path`` is None.

    Reads run in any thread, writes are serialised by ``lock``, and :meth:`compact` rebuilds
    the files while both go on (``docs/decisions.md``, "Erasure is a lifecycle"). This process
    is the store's only writer (on disk it holds the directory's lock), so it keeps a cache.

    Like :class:`pathlib.Path`, the one constructor gives the class that says what the store
    can do: ``EmbeddedStore(None)`` an in-memory store, ``EmbeddedStore(path)`` a
    :class:`JournaledStore` (on disk, with its decision journal) and ``EmbeddedStore(path,
    journal=False)`` a :class:`DiskStore` (on disk, no journal: backups, scratch copies).
    """

    def __new__(
        cls, path: Path | str | None = None, *, journal: bool = True, durable: bool = True
    ) -> EmbeddedStore:
        kind: type[EmbeddedStore] = cls
        if cls is EmbeddedStore and path is not None:
            kind = JournaledStore if journal else DiskStore
        return object.__new__(kind)

    def __init__(
        self, path: Path | str | None = None, *, journal: bool = True, durable: bool = True
    ) -> None:
        self._root = Path(path) if path is not None else None
        self._journal: Journal | None = None
        self.lock = threading.RLock()
        self.cache = StoreCache()  # one writer per directory: what it keeps stays true
        self._handles = threading.Condition()  # guards _live and every generation's readers
        self._rebuilding = threading.Lock()  # one rebuild at a time
        self._recorded: list[Callable[[ox.Store], None]] | None = None  # writes during one
        self._directory_lock: generations.DirectoryLock | None = None
        self._before_close: list[Callable[[], None]] = []
        try:
            if self._root is None:
                self._live: _Generation | None = _Generation(ox.Store(), None)
            else:
                self._directory_lock = generations.DirectoryLock(self._root)
                generations.finish_compaction(
                    self._root
                )  # only under the lock: see generations.tidy
                if journal:
                    generations.refuse_orphan_journal(self._root)
                self._root.mkdir(parents=True, exist_ok=True)
                generations.tidy(self._root)
                where = generations.database(self._root)
                self._live = _Generation(ox.Store(str(where)), where)
        except StoreLocked:
            raise
        except StoreError:  # already says what to do (an orphan journal)
            if self._directory_lock is not None:
                self._directory_lock.release()
            raise
        except (OSError, RuntimeError) as error:
            if self._directory_lock is not None:
                self._directory_lock.release()
            message = str(error)
            if "lock" in message.lower():
                raise StoreLocked(
                    f"The store at {self._root} is already open for writing in another process; "
                    "close that process (one writer per store directory) or open a copy."
                ) from None
            raise StoreError(f"Cannot open the store at {self._root}: {message}.") from error
        if self._root is not None and journal:
            self._journal = Journal(
                self._root.with_name(f"{self._root.name}.journal"), fsync=durable
            )
        # on disk, a small memtable keeps a write's cost flat as the store grows
        self.flusher = (
            Flusher(self._flush_now, size=self._disk_bytes) if self._root is not None else None
        )
        if self._root is not None:
            self._undo_import(self._root)

    def _undo_import(self, root: Path) -> None:
        """Clear the graphs of an import a crash cut off (``<store>.import``, see
        :mod:`doxa.store.intents`): the scope is as it was before, and the import can run
        again. A kill during the undo leaves the record, so the next open undoes it again."""
        try:
            intent = intents.read_import(root)
            if intent is None:
                return
            for graph in intent.graphs:
                self.clear_graph(URIRef(graph))
            self.flush()
            intents.remove(intents.import_path(root))
        except BaseException:
            self.close()
            raise

    @contextmanager
    def _reading(self) -> Iterator[ox.Store]:
        """The live database, kept open until the block ends even if a rebuild replaces it."""
        with self._handles:
            live = self._live
            if live is None or live.store is None:
                raise StoreError("The store is closed; open it again with Memory.open.")
            live.readers += 1
            store = live.store
        try:
            yield store
        finally:
            with self._handles:
                live.readers -= 1
                if live.readers == 0:
                    self._handles.notify_all()

    def _record(self, replay: Callable[[ox.Store], None]) -> None:
        """Remember a write made during a rebuild, to replay it onto the new database."""
        if self._recorded is not None:
            self._recorded.append(replay)

    # -- reads -------------------------------------------------------------------------

    def rdflib_view(self, scope_graphs: ScopeGraphs) -> RdflibStore:
        """A read-only rdflib store (oxrdflib's) over ``scope_graphs`` of the live database."""
        from doxa.store.oxigraph_view import OxigraphView  # oxrdflib only when asked for

        return OxigraphView(self, self._reading, scope_graphs)

    def _query(self, store: ox.Store, sparql: str, dataset: Dataset) -> object:
        try:
            return store.query(
                sparql,
                default_graph=[ox.NamedNode(str(g)) for g in dataset.default],
                named_graphs=[ox.NamedNode(str(g)) for g in dataset.named],
            )
        except SyntaxError as error:
            raise InvalidInput(f"The SPARQL query is not valid: {error}.") from None
        except (OSError, RuntimeError) as error:
            raise StoreError(f"The store could not answer the query: {error}.") from error

    def select(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> list[Row]:
        with self._reading() as store:
            result = self._query(store, bind_values(sparql, bindings or {}), dataset)
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
        with self._reading() as store:
            for obj in objects:
                subjects = [
                    str(q.subject.value)  # type: ignore[union-attr]
                    for q in store.quads_for_pattern(None, p, to_ox(obj), g)
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
        with self._reading() as store:
            return self._describe(store, subjects, graphs, predicates)

    def _describe(
        self,
        store: ox.Store,
        subjects: Sequence[URIRef],
        graphs: Sequence[URIRef],
        predicates: Sequence[URIRef] | None,
    ) -> dict[str, list[tuple[Node, Node]]]:
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
        with self._reading() as store:
            result = self._query(store, bind_values(sparql, bindings or {}), dataset)
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
        with self._reading() as store:
            result = self._query(store, bind_values(sparql, bindings or {}), dataset)
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
        with self._reading() as store:
            return self._run(store, sparql, dataset, max_rows, stop)

    def _run(
        self,
        store: ox.Store,
        sparql: str,
        dataset: Dataset,
        max_rows: int | None,
        stop: Callable[[], bool] | None,
    ) -> QueryResult:
        result = self._query(store, sparql, dataset)
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
        with self._reading() as store:
            return [URIRef(g.value) for g in store.named_graphs() if isinstance(g, ox.NamedNode)]

    def quads(self, graph: URIRef | None = None) -> Iterator[Quad]:
        pattern_graph = None if graph is None else ox.NamedNode(str(graph))
        with self._reading() as store:
            for quad in store.quads_for_pattern(None, None, None, pattern_graph):
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
        with self._reading() as store:
            for quad in store.quads_for_pattern(None, None, None, ox.NamedNode(str(graph))):
                yield quad.subject.value, quad.predicate.value, quad.object.value  # type: ignore[union-attr]

    # -- writes ------------------------------------------------------------------------

    def _writable(self) -> ox.Store:
        """The live database, for a write made under ``lock`` (a rebuild swaps under it too)."""
        live = self._live
        if live is None or live.store is None:
            raise StoreError("The store is closed; open it again with Memory.open.")
        return live.store

    def apply(self, change: Change) -> None:
        if not change.delete and not change.insert and change.slot is None:
            return
        try:
            with self.lock:
                if change.slot is not None:
                    self._claim(change)
                else:
                    self._apply(change)
        except (ValueError, TypeError) as error:
            raise InvalidInput(f"The write holds a term that is not valid RDF: {error}.") from None
        self.cache.changed(change)
        if self.flusher is not None:
            self.flusher.wrote(len(change.delete) + len(change.insert))

    def _apply(self, change: Change) -> None:
        if not change.delete:
            quads = [
                ox.Quad(to_ox(s), to_ox(p), to_ox(o), to_ox_graph(g))  # type: ignore[arg-type]
                for s, p, o, g in change.insert
            ]
            self._write(lambda store: store.extend(quads))
            return
        update = change.to_update()
        self._write(lambda store: store.update(update))

    def _claim(self, change: Change) -> None:
        """Apply a change that claims a slot: this process is the directory's only writer, so
        checking the slot under the store's lock and writing is atomic."""
        assert change.slot is not None
        claims = self._writable().quads_for_pattern(
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
        self._write(lambda store: store.update(update))

    def _write(self, action: Callable[[ox.Store], None]) -> None:
        """Apply a write to the live database (the caller holds ``lock``) and, during a
        rebuild, remember it for the new one. Every write is a blind set of quads (insert,
        delete, load, clear), so replaying one the rebuild's snapshot already holds is
        harmless."""
        try:
            action(self._writable())
        except (OSError, RuntimeError) as error:
            raise StoreError(f"The store could not apply the write: {error}.") from error
        self._record(action)

    def load(self, data: bytes, *, format: str, graph: URIRef) -> int:
        fmt = rdf_format(format)
        if fmt.supports_datasets:
            # quads name their own graphs: loading them could write into any scope
            raise InvalidInput(
                f"{fmt.name} data names its own graphs and cannot be loaded into one graph; "
                "use Turtle, N-Triples or RDF/XML."
            )
        target = ox.NamedNode(str(graph))

        def load(store: ox.Store) -> None:
            try:
                store.load(data, fmt, to_graph=target)
            except SyntaxError:
                if store is live:
                    raise
                # a replay: the same data fails the same way after writing the same part

        with self.lock:
            live = self._writable()
            before = self._count(live, graph)
            try:
                self._write(load)
            except SyntaxError as error:
                self._record(load)  # the part written before the error must reach a rebuild
                raise InvalidInput(f"The RDF data could not be parsed: {_clean(error)}.") from None
            finally:
                self.cache.reset(graph)  # a failed load may have written part of it
            loaded = self._count(live, graph) - before
        if self.flusher is not None:
            self.flusher.wrote(loaded)
        return loaded

    @staticmethod
    def _count(store: ox.Store, graph: URIRef) -> int:
        return sum(1 for _ in store.quads_for_pattern(None, None, None, ox.NamedNode(str(graph))))

    def clear_graph(self, graph: URIRef) -> None:
        target = ox.NamedNode(str(graph))
        with self.lock:
            self._write(lambda store: store.remove_graph(target))
        self.cache.reset(graph)

    # -- rebuilding --------------------------------------------------------------------

    def compact(self, *, progress: Callable[[str], None] | None = None) -> None:
        """Rebuild the store's files from its live quads, while reads and writes go on.

        Oxigraph's files keep every string ever stored (its dictionary is append-only), even
        after ``remove`` and ``optimize``: only a database rebuilt from what is live forgets
        erased content. The rebuild dumps a snapshot of the live quads (Oxigraph releases the
        GIL while it dumps and loads), loads them into the next generation beside the live
        one, replays the writes made meanwhile, and swaps the new database in under ``lock``
        with one atomic rename (:func:`generations.switch`). Reads that began on the old
        database finish on it; its files are deleted once they have. What the erasures
        before this call removed is gone from the files when it returns; a crash at any point
        leaves the old store or the new one whole.
        """
        say = progress or (lambda _: None)
        # no derived cache is reset: a rebuild keeps the same quads, and the erasure's own
        # change already told every cache what it removed
        with self._rebuilding:
            if self._root is None:
                with self.lock:
                    fresh = ox.Store()
                    with self._reading() as store:
                        fresh.bulk_extend(store.quads_for_pattern(None, None, None, None))
                    self._swap(_Generation(fresh, None))
                return
            directory = self._root
            target = generations.next_generation(directory)
            dump = directory / generations.DUMP
            recorded: list[Callable[[ox.Store], None]] = []
            with self.lock:
                self._recorded = recorded  # from before the snapshot: replays are harmless
            switched = False
            try:
                say("snapshot")
                with self._reading() as store:
                    store.dump(str(dump), ox.RdfFormat.N_QUADS)
                del store  # no reference may keep the old database open once it is retired
                say("load")
                fresh = ox.Store(str(target))
                fresh.bulk_load(path=str(dump), format=ox.RdfFormat.N_QUADS)
                dump.unlink()
                say("replay")
                done = 0
                while len(recorded) - done > _REPLAY_UNLOCKED:  # catch up without the lock
                    batch = recorded[done : len(recorded)]
                    for replay in batch:
                        replay(fresh)
                    done += len(batch)
                with self.lock:
                    for replay in recorded[done:]:
                        replay(fresh)
                    fresh.flush()
                    generations.switch(directory, target)
                    switched = True
                    self._recorded = None
                    old = self._swap(_Generation(fresh, target))
            except (OSError, RuntimeError, ValueError) as error:
                raise StoreError(
                    f"The store at {directory} could not be rebuilt: {error}. It is unchanged; "
                    "free disk space and erase again to finish the purge."
                ) from error
            finally:
                with self.lock:
                    self._recorded = None
                if not switched:
                    shutil.rmtree(target, ignore_errors=True)
                    dump.unlink(missing_ok=True)
            recorded.clear()  # a recorded load holds the database it was made on
            say("retire")
            self._retire(old)

    def _swap(self, fresh: _Generation) -> _Generation:
        """Make ``fresh`` the live database; reads begun on the old one go on with it."""
        with self._handles:
            old = self._live
            assert old is not None
            self._live = fresh
        return old

    def _retire(self, old: _Generation) -> None:
        """Close a replaced database once its last read has ended, and delete its files."""
        with self._handles:
            while old.readers:
                self._handles.wait()
            old.store = None
        gc.collect()  # the last reference gone, RocksDB closes the database
        if self._root is not None and old.directory is not None:
            generations.remove_database(self._root, old.directory)

    def clone(self) -> EmbeddedStore:
        """An in-memory copy of this store (for scratch work that must not touch it)."""
        copy = EmbeddedStore(None)
        with self._reading() as store:
            copy._writable().bulk_extend(store.quads_for_pattern(None, None, None, None))
        return copy

    def flush(self) -> None:
        if self._root is not None:
            with self._reading() as store:
                store.flush()

    def _flush_now(self) -> None:
        """The background flush: a store closed meanwhile has nothing left to flush."""
        try:
            with self._reading() as store:
                store.flush()
        except StoreError:
            return

    def _disk_bytes(self) -> int:
        """The size of the store's table files: what a flush makes RocksDB compact against."""
        live = self._live
        if live is None or live.directory is None:
            return 0
        total = 0
        with os.scandir(live.directory) as entries:
            for entry in entries:
                if entry.name.endswith(".sst"):
                    try:
                        total += entry.stat().st_size
                    except FileNotFoundError:
                        continue  # compacted away while the directory was read
        return total

    def before_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` first when the store closes (the purge finishes what is owed)."""
        self._before_close.append(callback)

    def close(self) -> None:
        """Flush and close the store; waits for a rebuild under way and for reads in flight."""
        callbacks, self._before_close = self._before_close, []
        for callback in callbacks:
            callback()
        if self.flusher is not None:
            self.flusher.stop()  # waits for a flush under way: it holds the store open
        with self._rebuilding:  # a rebuild under way finishes (or fails) whole
            if self._journal is not None:
                self._journal.close()
            live = self._live
            if live is None or live.store is None:
                self._release()
                return
            if self._root is None:
                self._live = None  # in memory: nothing to flush, no directory lock to release
                return
            try:
                live.store.flush()
            except (OSError, RuntimeError) as error:  # a full disk: what was acknowledged is safe
                raise StoreError(
                    f"The store at {self._root} could not be flushed on closing: {error}. Every "
                    "acknowledged decision is in its log and journal; free disk space (or file "
                    "handles) and reopen it."
                ) from error
            finally:
                with self._handles:
                    self._live = None
                    while live.readers:
                        self._handles.wait()
                    live.store = None  # the last reference released: RocksDB's lock too
                gc.collect()
                self._release()

    def _release(self) -> None:
        if self._directory_lock is not None:
            self._directory_lock.release()
            self._directory_lock = None


class DiskStore(EmbeddedStore, OnDisk):
    """An embedded store in a directory on disk, without a decision journal."""

    @property
    def path(self) -> Path:
        assert self._root is not None
        return self._root

    def backup(self, target: Path) -> None:
        """Copy the store to a new directory ``target`` (Oxigraph's own consistent backup)."""
        if target.exists():
            raise StoreError(f"The backup directory {target} exists already; choose a new one.")
        with self._reading() as store:
            store.flush()
            try:
                store.backup(str(target))
            except OSError as error:
                raise StoreError(f"Cannot back up the store to {target}: {error}.") from error


class JournaledStore(DiskStore, Purgeable):
    """An embedded store on disk whose decisions are journaled beside it
    (``<path>.journal``): what :meth:`doxa.Memory.open` opens."""

    @property
    def journal(self) -> Journal:
        assert self._journal is not None
        return self._journal


_REPLAY_UNLOCKED = 64  # writes left to replay when the rebuild takes the lock to swap


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


def _clean(error: BaseException) -> str:
    return re.sub(r"\s+", " ", str(error)).strip().rstrip(".")
