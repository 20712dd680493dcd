"""The physical half of erasure: a background purge that makes erasures real in the files.

An erasure has two steps (``docs/decisions.md``, "Erasure is a lifecycle"). The logical one
is the gate's decision: the content leaves every graph and read, the tombstone is written and
the erasure is journaled (fsynced, with its tombstones and never its content) before the call
returns. That journal line is the purge's intent. The physical step, here, runs in one
background thread per store on disk: it rebuilds the store's files from the live quads
(:meth:`~doxa.store.Compactable.compact`, while reads and writes go on), purges every backup,
takes the erased lines out of the folders rendered from the store and out of their git
history (:mod:`doxa.audit.render_repos`), writes one ``purged`` receipt per scope naming the
erasure receipts it completes, and only then records them as purged in ``<store>.purge``.
Erasures owed when a process stopped (a crash, a kill -9) are found again on open, by
comparing the journal with that file, and the purge resumes; several erasures owed at once
share one rebuild.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeGuard

from rdflib import URIRef

from doxa.audit.backups import backups_folder, purge_backup
from doxa.audit.render_repos import fact_ids, scrub_folders
from doxa.clock import Clock
from doxa.errors import StoreError
from doxa.gate.erasure import erasure_record
from doxa.gate.receipts import ReceiptDraft
from doxa.gate.record import Decision, Record
from doxa.model import Outcome, Receipt
from doxa.scope import Scope
from doxa.store import Store
from doxa.store.capabilities import Compactable, Purgeable
from doxa.store.journal import Journal

__all__ = ["Owed", "Purge", "PurgeStatus", "purge_later", "purge_of"]

_log = logging.getLogger("doxa.purge")


class _PurgedStore(Store, Protocol):
    """A store as the purge uses it: the base contract and :class:`Purgeable`'s."""

    @property
    def journal(self) -> Journal: ...

    @property
    def path(self) -> Path: ...

    def compact(self, *, progress: Callable[[str], None] | None = None) -> None: ...

    def before_close(self, callback: Callable[[], None]) -> None: ...


def _purgeable(store: Store) -> TypeGuard[_PurgedStore]:
    return isinstance(store, Purgeable)


@dataclass(frozen=True)
class Owed:
    """One erasure whose content may still be in the files: its scope, its receipt, and the
    journal's record of its tombstones (claim IRIs, digests, salted hashes; no content)."""

    scope: str
    receipt: str
    record: dict[str, Any]


@dataclass(frozen=True)
class PurgeStatus:
    """Where the purge of a store stands (``doxa erase --status``, ``GET /purge``)."""

    owed: int  # erasures whose content may still be in a file
    running: bool  # a purge is under way now
    phase: str | None  # its step: snapshot, load, replay, retire, backups, renders, receipts
    purged: int  # erasures this process has made real
    error: str | None  # why the last attempt failed; it is retried

    def as_json(self) -> dict[str, Any]:
        return {
            "owed": self.owed,
            "running": self.running,
            "phase": self.phase,
            "purged": self.purged,
            "error": self.error,
        }


class Purge:
    """The background purge of one store on disk (one per store object: :func:`purge_of`)."""

    def __init__(self, store: _PurgedStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.path = store.path.with_name(f"{store.path.name}.purge")
        self._done: set[str] = set(self._read())
        self._owed: dict[str, Owed] = {}
        self._condition = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._running = False
        self._phase: str | None = None
        self._purged = 0
        self._error: str | None = None
        self._retry_after = 1.0
        store.before_close(self.finish)

    # -- what is owed --------------------------------------------------------------------

    def _read(self) -> list[str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as error:
            # unreadable: every journaled erasure counts as owed, so a purge runs again
            _log.warning("The purge record %s is unreadable (%s); purging again.", self.path, error)
            return []
        return [str(r) for r in data.get("purged", [])] if isinstance(data, dict) else []

    def _write(self) -> None:
        temporary = self.path.with_name(self.path.name + ".new")
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump({"purged": sorted(self._done)}, file)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(self.path)

    def rescan(self) -> None:
        """Owe every erasure the journal holds that the purge record does not: those a
        stopped process left, and those a journal repair of another scope just wrote back."""
        journal = self.store.journal
        with self._condition:
            for entry in list(journal.entries):
                if entry.erasure is not None and entry.receipt not in self._done:
                    self._owed.setdefault(
                        entry.receipt, Owed(entry.scope, entry.receipt, entry.erasure)
                    )

    def owed(self) -> list[Owed]:
        """The journaled erasures not yet made real in the files, oldest first."""
        with self._condition:
            return list(self._owed.values())

    def owe(self, scope: str, receipt: str, claims: Sequence[URIRef] = ()) -> None:
        """Note an erasure just committed (or retried); :meth:`start` then purges it.

        Its record is the journal's; a journal line written before records were kept, or
        repaired after a crash, has none, and then it is read back from the tombstones."""
        journal = self.store.journal
        entry = journal.heads.get(scope)
        if entry is None or entry.receipt != receipt:
            entry = next((e for e in reversed(journal.entries) if e.receipt == receipt), None)
        record = entry.erasure if entry is not None else None
        if record is None:
            named = Scope.named(scope)
            record = erasure_record(self.store, named, named.receipt(receipt), claims)
        if record is None:
            raise StoreError(f"The receipt {receipt} erased nothing: there is no purge to owe.")
        with self._condition:
            if receipt not in self._done:
                self._owed[receipt] = Owed(scope, receipt, record)

    def status(self) -> PurgeStatus:
        with self._condition:
            return PurgeStatus(
                owed=len(self._owed),
                running=self._running,
                phase=self._phase,
                purged=self._purged,
                error=self._error,
            )

    # -- running -------------------------------------------------------------------------

    def start(self) -> None:
        """Make sure the owed erasures get purged: wake (or start) the background thread."""
        with self._condition:
            if self._stopping or not self._owed:
                return
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="doxa-purge", daemon=True)
                self._thread.start()
            self._condition.notify_all()

    def wait(self, timeout: float | None = None) -> PurgeStatus:
        """Block until nothing is owed (or ``timeout`` seconds passed); raises
        :class:`~doxa.StoreError` if an attempt failed and erasures are still owed."""
        self.start()
        with self._condition:
            self._condition.wait_for(
                lambda: not self._owed or (self._error is not None and not self._running),
                timeout=timeout,
            )
        status = self.status()
        if status.owed and status.error is not None:
            raise StoreError(
                f"The purge of erased content has not finished: {status.error} It is retried "
                "in the background (and on the next open); `doxa erase --status` follows it."
            )
        return status

    def finish(self) -> None:
        """Purge what is owed, then stop the thread: a store closes with its erasures real."""
        if self.owed():
            try:
                self.wait()
            except StoreError as error:
                _log.warning("Closing with erasures still owed: %s", error)
        with self._condition:
            self._stopping = True
            self._condition.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _loop(self) -> None:
        while True:
            with self._condition:
                while not self._stopping and not self._owed:
                    self._condition.wait()
                if self._stopping:
                    return
                if self._error is not None:  # back off before a retry; stop() wakes it
                    self._condition.wait(timeout=self._retry_after)
                    if self._stopping:
                        return
                self._running = True
                self._error = None
                self._condition.notify_all()
            try:
                self._purge_once()
                error = None
            except Exception as failure:  # kept and retried: the journal still owes it
                _log.warning("The purge of erased content failed: %s", failure)
                error = str(failure)
            with self._condition:
                self._running = False
                self._phase = None
                self._error = error
                self._retry_after = 1.0 if error is None else min(60.0, self._retry_after * 2)
                self._condition.notify_all()

    def _step(self, phase: str) -> None:
        with self._condition:
            self._phase = phase

    def _purge_once(self) -> None:
        batch = self.owed()  # the erasures committed before the rebuild's snapshot
        if not batch:
            return
        self.store.compact(progress=self._step)
        self._step("backups")
        for backup in _backups(self.store):
            purge_backup(backup, [(owed.scope, owed.record) for owed in batch])
        self._step("renders")  # the folders rendered from the store, and their git history
        scrub_folders(
            self.store.path, fact_ids(c for o in batch for c in o.record.get("claims", []))
        )
        self._step("receipts")
        by_scope: dict[str, list[Owed]] = {}
        for owed in batch:
            by_scope.setdefault(owed.scope, []).append(owed)
        for scope_name, owed_here in by_scope.items():
            _purged_receipt(self.store, Scope.named(scope_name), self.clock, owed_here)
        with self._condition:
            self._done |= {owed.receipt for owed in batch}
            self._write()
            for owed in batch:
                self._owed.pop(owed.receipt, None)
            self._purged += len(batch)


def _backups(store: _PurgedStore) -> list[Path]:
    folder = backups_folder(store)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir())


def _purged_receipt(store: _PurgedStore, scope: Scope, clock: Clock, owed: list[Owed]) -> None:
    """One ``purged`` receipt for a scope, naming the erasure receipts it completes."""
    record = Record(store, scope, clock)
    claims = tuple(URIRef(c) for o in owed for c in o.record.get("claims", []))
    receipts = ", ".join(o.receipt for o in owed)
    with store.lock:
        after = record.mark()
        record.commit(
            Decision(after=after),
            ReceiptDraft(
                outcome=Outcome.PURGED,
                reason=f"The files no longer hold the content erased by receipts {receipts}.",
                judge="purge",
                judge_version="1",
                targets=claims,
            ),
        )


_PURGES: weakref.WeakKeyDictionary[Store, Purge] = weakref.WeakKeyDictionary()
_REGISTRY = threading.Lock()


def purge_of(store: Store, clock: Clock) -> Purge | None:
    """The store's purge (made on first use), or None for a store with nothing to purge in
    the background (in memory, opened without its journal, or on a server)."""
    if not _purgeable(store):
        return None
    with _REGISTRY:
        found = _PURGES.get(store)
        if found is None:
            found = _PURGES[store] = Purge(store, clock)
        return found


def purge_later(
    store: Store,
    clock: Clock,
    scope: Scope,
    receipts: Sequence[Receipt],
    *,
    wait: bool = False,
    start: bool = True,
) -> None:
    """Hand erasure receipts to the store's background purge (in memory: purge now).

    ``start=False`` only records what is owed (several scopes' erasures, one purge for all);
    ``wait`` returns once the files and backups no longer hold the content.
    """
    purge = purge_of(store, clock)
    if purge is None:
        if isinstance(store, Compactable):
            store.compact()  # in memory: no files, no backups, nothing to wait for
        return
    for receipt in receipts:
        purge.owe(scope.name, receipt.id, [scope.fact(t) for t in receipt.targets])
    if start:
        purge.start()  # a retry finishes what an interrupted purge left
    if wait:
        purge.wait()
