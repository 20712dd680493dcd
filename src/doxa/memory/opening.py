"""Opening a store the one way every entry point does: recovery first, then the checks.

:func:`open_location` is :func:`doxa.store.open_store` plus what a crash may have left
half-done beside the store: a restore cut off by a kill is finished (its erasures applied
again) before the store serves anything, and a stale staging copy is discarded once the
store's lock is held. ``Memory.open_at``, ``Memory.connect``, ``doxa serve`` and ``doxa mcp``
all open through it, so none can skip a step. Opening one scope on that store then runs
:func:`ensure_ontology` and :func:`check_journal` (from ``Memory``'s constructor).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Self

import httpx

from doxa.audit.backups import begin_restore, discard_stale_copy, erasure_present, swap_staged
from doxa.audit.purge import purge_later, purge_of
from doxa.audit.shape_sources import domain_shapes
from doxa.clock import Clock, SystemClock
from doxa.errors import ChainBroken, InvalidInput, StoreBehindJournal
from doxa.gate.erasure import erasure_record
from doxa.gate.gate import Gate
from doxa.gate.shapes import ShapeCheck, default_shape_check
from doxa.judges.base import Judge
from doxa.judges.rules import RuleJudge
from doxa.memory.arguments import only
from doxa.model import ClosingPolicy, Outcome, Receipt
from doxa.ontology.closure import close_ontology, next_digest, ontology_digest
from doxa.reads.embeddings import Embedder
from doxa.reads.receipts import receipts as receipt_reads
from doxa.resources import data_file
from doxa.scope import Scope
from doxa.store import EmbeddedStore, Store
from doxa.store.capabilities import Journaled, OnDisk
from doxa.store.convert import ntriples
from doxa.store.intents import RestoreIntent, read_restore, restore_path
from doxa.store.intents import remove as remove_intent
from doxa.store.journal import JournalEntry
from doxa.store.location import Location, is_server_url, open_store, parse_location
from doxa.text import DEFAULT_LANGUAGE
from doxa.vocabulary import ONTOLOGY_GRAPH

__all__ = [
    "Opening",
    "check_journal",
    "ensure_ontology",
    "finish_pending_restore",
    "finish_restore",
    "open_location",
    "restore_backup",
]

_log = logging.getLogger("doxa.memory")


class Opening:
    """The ways to open a memory, each through :func:`open_location`: a directory or
    ``None`` (``open``), any store location (``open_at``), a SPARQL server (``connect``).
    :class:`~doxa.Memory` inherits them; its constructor takes the store they open."""

    if TYPE_CHECKING:

        def __init__(
            self,
            store: Store,
            *,
            scope: str,
            judge: Judge | None = None,
            clock: Clock | None = None,
            shapes: ShapeCheck | None = None,
            policy: ClosingPolicy | None = None,
            owns_store: bool = False,
            language: str = DEFAULT_LANGUAGE,
            embedder: Embedder | None = None,
        ) -> None:
            """Memory's constructor, as the classmethods call it (declared for the type
            checker only: ``Memory.__init__`` is the one that runs)."""

    @classmethod
    def open(
        cls,
        path: str | Path | None,
        *,
        scope: str,
        judge: Judge | None = None,
        clock: Clock | None = None,
        policy: ClosingPolicy | None = None,
        durable: bool = True,
        language: str = DEFAULT_LANGUAGE,
        embedder: Embedder | None = None,
    ) -> Self:
        """Open (creating if needed) an embedded store at ``path``; ``None`` keeps it in memory.

        Every decision is journaled beside the store and, with ``durable`` (the default),
        fsynced before the call returns, so a power loss cannot take an acknowledged decision
        unnoticed; ``durable=False`` skips the fsync (bulk loads, benchmarks, throwaway
        stores). Raises :class:`~doxa.StoreLocked` when another process has the directory
        open.
        """
        directory = Path(path) if path is not None else None  # a path, never a URL
        return cls.open_at(
            directory,
            scope=scope,
            judge=judge,
            clock=clock,
            policy=policy,
            durable=durable,
            language=language,
            embedder=embedder,
        )

    @classmethod
    def open_at(
        cls,
        location: str | Path | Location | None,
        *,
        scope: str,
        update_url: str | None = None,
        environ: Mapping[str, str] = os.environ,
        judge: Judge | None = None,
        clock: Clock | None = None,
        policy: ClosingPolicy | None = None,
        durable: bool = True,
        language: str = DEFAULT_LANGUAGE,
        embedder: Embedder | None = None,
    ) -> Self:
        """Open the memory at any store location: a directory, ``":memory:"`` (or None), or a
        SPARQL server's URL (:func:`doxa.store.open_store`: credentials from
        ``$DOXA_STORE_USER`` / ``$DOXA_STORE_PASSWORD`` in ``environ``). The memory owns the
        store and closes it. Raises :class:`~doxa.InvalidInput` for a location that names no
        store.
        """
        where = (
            location
            if isinstance(location, Location)
            else parse_location(location, update_url=update_url)
        )
        # a restore a kill cut off is finished first, as every entry point does
        store = open_location(where, environ=environ, durable=durable)
        return cls._owning(
            store,
            scope=scope,
            judge=judge,
            clock=clock,
            policy=policy,
            language=language,
            embedder=embedder,
        )

    @classmethod
    def _owning(
        cls,
        store: Store,
        *,
        scope: str,
        judge: Judge | None,
        clock: Clock | None,
        policy: ClosingPolicy | None,
        language: str,
        embedder: Embedder | None = None,
    ) -> Self:
        """A memory that owns the ``store`` just opened for it, or the store closed again: a
        bad scope or a refused journal check must not leave the directory held."""
        try:
            return cls(
                store,
                scope=scope,
                judge=judge,
                clock=clock,
                policy=policy,
                owns_store=True,
                language=language,
                embedder=embedder,
            )
        except BaseException:
            store.close()
            raise

    @classmethod
    def connect(
        cls,
        query_url: str,
        update_url: str | None = None,
        *,
        scope: str,
        auth: tuple[str, str] | httpx.Auth | None = None,
        judge: Judge | None = None,
        clock: Clock | None = None,
        policy: ClosingPolicy | None = None,
        language: str = DEFAULT_LANGUAGE,
        embedder: Embedder | None = None,
    ) -> Self:
        """Use a SPARQL 1.1 server (Oxigraph server, Virtuoso, Fuseki, GraphDB, Neptune).

        ``update_url`` defaults to ``query_url`` (one endpoint for both, as on Virtuoso).
        Several processes may write the same scope through one server: each decision is one
        Update request that applies only if no other process published since the gate read,
        else the judge runs again (docs/remote.md). Raises :class:`~doxa.StoreError` when the
        server cannot be reached.
        """
        if not is_server_url(query_url):
            raise InvalidInput(
                f"{query_url!r} is not an HTTP(S) URL; give the server's SPARQL endpoint, "
                "for example http://localhost:7878/query."
            )
        where = parse_location(query_url, update_url=update_url)
        store = open_location(where, auth=auth, environ={})  # credentials only from auth=
        return cls._owning(
            store,
            scope=scope,
            judge=judge,
            clock=clock,
            policy=policy,
            language=language,
            embedder=embedder,
        )


def open_location(
    where: Location,
    *,
    auth: tuple[str, str] | httpx.Auth | None = None,
    environ: Mapping[str, str] = os.environ,
    durable: bool = True,
) -> Store:
    """The store at ``where``, after finishing what a crash left half-done beside it.

    A restore a kill cut off is finished before the store opens (an unfinished one would
    serve content erased since the backup); the stale staging copy a restore leaves is
    removed once this process holds the store's lock. The caller closes the store.
    """
    if where.directory is not None:
        finish_pending_restore(where.directory)
    store = open_store(where, auth=auth, environ=environ, durable=durable)
    if where.directory is not None:
        discard_stale_copy(where.directory)  # the store's lock is held now
    return store


def restore_backup(path: str | Path, backup: str | Path) -> dict[str, int]:
    """Put ``backup`` in place of the closed store at ``path``; returns erasures per scope.

    The replaced store is kept as a backup (``<time>-replaced``), so nothing is lost.
    Every erasure recorded since the backup is applied again, tombstones included, and
    purged from the files before this returns: erased content stays erased. The restore
    is recorded (``<store>.restore``) before anything is touched, so a restore a crash
    cut off is finished by the next open, or by running this again; a pending restore of
    another backup is finished first.
    """
    path, backup = Path(path), Path(backup)
    pending = read_restore(path)
    if pending is not None:
        counts = finish_restore(path, pending)
        if Path(pending.backup) == backup.resolve():
            return counts  # the interrupted restore was this one: it is done now
    return finish_restore(path, begin_restore(path, backup))


def finish_pending_restore(directory: Path) -> None:
    """Finish a restore a crash cut off in the store at ``directory`` (none: do nothing)."""
    pending = read_restore(directory)
    if pending is not None:
        _log.warning("Finishing the restore of %s that was interrupted.", pending.backup)
        finish_restore(directory, pending)


def finish_restore(path: Path, intent: RestoreIntent) -> dict[str, int]:
    """Finish a restore from its recorded intent: swap the staged copy in, apply again each
    erasure recorded since the backup (once: one already re-applied has its tombstones), let
    the purge take them out of the files, and only then drop the intent. Returns the
    erasures per scope."""
    if intent.phase != "erase":
        intent = swap_staged(path, intent)
    since = [JournalEntry.from_json(line) for line in intent.erasures]
    counts: dict[str, int] = {}
    if since:
        store = EmbeddedStore(path)  # one store for every re-applied erasure: one purge for all
        try:
            clock = SystemClock()
            purge = purge_of(store, clock)
            if purge is not None:
                purge.rescan()  # erasures re-applied before a crash are owed again
            shapes = default_shape_check().with_domain(domain_shapes(store))
            gates: dict[str, Gate] = {}
            reapplied: dict[str, list[Receipt]] = {}
            for entry in since:
                assert entry.erasure is not None
                counts[entry.scope] = counts.get(entry.scope, 0) + 1
                scope = Scope.named(entry.scope)
                if erasure_present(store, scope, entry.erasure):
                    continue  # re-applied before a crash; the rescan owes its purge
                gate = gates.get(entry.scope)
                if gate is None:
                    gate = gates[entry.scope] = Gate(
                        store, scope, shapes=shapes, judge=RuleJudge(), clock=clock, lock=store.lock
                    )
                reapplied.setdefault(entry.scope, []).append(
                    gate.erasing.reapply_erasure(entry.erasure)
                )
            for name, receipts in reapplied.items():
                purge_later(store, clock, Scope.named(name), receipts, start=False)
            purge_later(store, clock, Scope.named(since[0].scope), [])  # one purge: start it
        finally:
            store.close()  # the purge finishes first: the files forget what was erased again
    remove_intent(restore_path(path))
    return counts


def ensure_ontology(store: Store) -> None:
    """Load and close doxa's ontology into a new store; close it again if a closing was cut
    off (its digest is missing)."""
    if not store.select("SELECT ?s WHERE { ?s ?p ?o } LIMIT 1", dataset=only(ONTOLOGY_GRAPH)):
        data = data_file("ontology", "doxa.ttl").read_bytes()
        store.load(data, format="turtle", graph=ONTOLOGY_GRAPH)
        close_ontology(store, next_digest(None, data))
    elif ontology_digest(store) is None:  # a closing was interrupted: close again
        lines = sorted(
            f"{ntriples(s)} {ntriples(p)} {ntriples(o)}"
            for s, p, o, _ in store.quads(ONTOLOGY_GRAPH)
        )
        close_ontology(store, next_digest(None, "\n".join(lines).encode()))


def check_journal(store: Store, scope: Scope, gate: Gate) -> None:
    """Compare the store's receipt chain of ``scope`` with doxa's fsynced journal of
    decisions: refuse a store that lost acknowledged decisions or was replaced, and journal
    the receipts a crash stored but did not journal."""
    if not isinstance(store, Journaled):
        return
    journal = store.journal
    head = gate.record.head()
    entry = journal.heads.get(scope.name)
    known = entry.sequence if entry is not None else 0
    where = str(store.path) if isinstance(store, OnDisk) else "?"
    if known > head.sequence:
        lost = known - head.sequence
        raise StoreBehindJournal(
            f"The store at {where} is missing {lost} decision(s) "
            f"of scope {scope.name!r} that were acknowledged (the journal has receipts "
            f"up to #{known}, the store ends at #{head.sequence}): its write-ahead log lost "
            "them in a crash. Restore the latest backup with `doxa restore`, or accept the "
            "loss with `doxa recover --accept-loss`."
        )
    if entry is not None and known == head.sequence and entry.hash != head.receipt_hash:
        raise ChainBroken(
            f"The store's latest receipt #{known} of scope {scope.name!r} is not the "
            "one the journal acknowledged: the store was replaced or altered. Restore a "
            "backup with `doxa restore`."
        )
    if known < head.sequence:  # stored, then a crash before the journal line: repair
        for receipt in receipt_reads(store, scope)[known:]:
            record = None
            if receipt.outcome is Outcome.ERASED:  # the purge's intent, from the tombstones
                record = erasure_record(
                    store,
                    scope,
                    scope.receipt(receipt.id),
                    [scope.fact(t) for t in receipt.targets],
                )
            journal.append(
                JournalEntry(scope.name, receipt.sequence, receipt.id, receipt.receipt_hash, record)
            )
