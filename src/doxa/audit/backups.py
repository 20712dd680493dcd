"""Backups of an embedded store, and erasure carried into them.

A backup is Oxigraph's own consistent copy of the store directory, kept in the folder
``<store>.backups/<UTC time>``. An erasure is no erasure while an old copy still holds the
content, so every backup is purged the same way as the store: the erased claims, their
events and held writes are deleted, then the backup is compacted.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rdflib import URIRef

from doxa.errors import StoreError
from doxa.gate.erasure import erasure_plan, strip_origins, subject_hash, unused_names
from doxa.resources import query
from doxa.scope import Scope, new_id
from doxa.store import Change, Dataset, EmbeddedStore, Store
from doxa.store.capabilities import OnDisk
from doxa.store.generations import is_store
from doxa.store.journal import Journal, JournalEntry

__all__ = ["accept_loss", "backups_folder", "purge_backup", "swap_in_backup"]


def backups_folder(store: Store) -> Path:
    """Where the store's backups live: the sibling folder ``<store>.backups``."""
    if not isinstance(store, OnDisk):
        raise StoreError("Only a store on disk has backups; open one with a path.")
    return store.path.with_name(f"{store.path.name}.backups")


def purge_backup(backup: Path, erasures: Sequence[tuple[str, dict[str, Any]]]) -> int:
    """Erase from one backup what journaled erasures took from the store.

    ``erasures`` are (scope, journal record) pairs: the records name the erased claims and
    keep salted hashes, never content. A claim the backup holds that the store no longer had
    when a subject was erased (a held write since rejected, say) is found by its subject's
    salted hash. Returns the number of quads removed; the backup is then rebuilt, so its
    files forget them too. The backup's receipts are left as they were: a restore re-applies
    the erasures, with their tombstones, to the restored store.
    """
    store = EmbeddedStore(backup, journal=False)
    try:
        removed = 0
        by_scope: dict[str, list[dict[str, Any]]] = {}
        for scope_name, record in erasures:
            by_scope.setdefault(scope_name, []).append(record)
        for scope_name, records in by_scope.items():
            scope = Scope.named(scope_name)
            graphs = [g for g in store.graphs() if scope.topic_of(g) is not None]
            graphs.append(scope.rules)
            found = [URIRef(c) for record in records for c in record.get("claims", [])]
            found += _about_hashed(store, scope, graphs, records)
            plan = erasure_plan(store, scope, list(dict.fromkeys(found)), graphs)
            if plan.change.delete:
                store.apply(plan.change)
                removed += len(plan.change.delete)
            # sources and turns only the erased writes used leave the backup's receipts too;
            # the reseals are taken over by the erasure a restore re-applies
            gone, reseals, _ = strip_origins(
                store, scope, plan.change.delete, functools.partial(_event, scope)
            )
            names = unused_names(store, scope, [*plan.change.delete, *gone])
            if gone or names:
                store.apply(Change(delete=[*gone, *names], insert=reseals))
                removed += len(gone) + len(names)
        store.compact()
        return removed
    finally:
        store.close()


def _event(scope: Scope) -> URIRef:
    return scope.event(new_id())


def _about_hashed(
    store: Store, scope: Scope, graphs: list[URIRef], records: list[dict[str, Any]]
) -> list[URIRef]:
    """The claims whose subject or object has a salted subject hash one of ``records`` keeps."""
    hashes = {h for record in records for n in record.get("nodes", []) for h in n.get("hashes", [])}
    salts = {str(record["salt"]) for record in records if record.get("salt")}
    if not hashes or not salts:
        return []
    everywhere = Dataset(default=(), named=(*graphs, scope.pending, scope.quarantine))
    found = []
    for row in store.select(query("claim_terms"), dataset=everywhere):
        terms = [row[name] for name in ("s", "o") if name in row]
        if any(subject_hash(salt_value, term) in hashes for salt_value in salts for term in terms):
            found.append(URIRef(str(row["claim"])))
    return found


def swap_in_backup(path: Path, backup: Path) -> list[JournalEntry]:
    """Put ``backup`` in place of the store at ``path``; returns the erasures recorded since.

    The store being replaced is kept as a backup itself (``…-replaced``), so restoring loses
    nothing. Decisions after the backup are dropped from the journal; the erasures recorded
    since are returned, oldest first, for the caller to apply again
    (:meth:`doxa.Memory.restore_backup` does, tombstones included).
    """
    if not is_store(backup):
        raise StoreError(f"{backup} is not a store backup; list them with `doxa backups`.")
    EmbeddedStore(path, journal=False).close()  # refuses a store another process has open
    journal = Journal(path.with_name(f"{path.name}.journal"))
    entries = list(journal.entries)
    journal.close()
    folder = path.with_name(f"{path.name}.backups")
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / (datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ") + "-replaced")
    shutil.move(str(path), str(kept))
    shutil.copytree(backup, path)
    heads = _heads(path)
    restored = [e for e in entries if e.sequence <= heads.get(e.scope, 0)]
    since = [e for e in entries if e.sequence > heads.get(e.scope, 0) and e.erasure]
    journal = Journal(path.with_name(f"{path.name}.journal"))
    journal.rewrite(restored)
    journal.close()
    return since


def _heads(path: Path) -> dict[str, int]:
    store = EmbeddedStore(path, journal=False)
    try:
        logs = tuple(g for g in store.graphs() if str(g).endswith("/log"))
        rows = store.select(query("scope_heads"), dataset=Dataset(default=(), named=logs))
        return {str(row["scope"]): int(str(row["sequence"])) for row in rows}
    finally:
        store.close()


def accept_loss(path: Path) -> dict[str, int]:
    """Accept that a crash lost acknowledged decisions: cut the journal back to the store.

    Returns how many journaled decisions were given up, per scope. Use it only when no
    backup holds them; ``Memory.restore_backup`` is the other way out.
    """
    heads = _heads(path)
    journal = Journal(path.with_name(f"{path.name}.journal"))
    try:
        kept = [e for e in journal.entries if e.sequence <= heads.get(e.scope, 0)]
        lost: dict[str, int] = {}
        for entry in journal.entries:
            if entry.sequence > heads.get(entry.scope, 0):
                lost[entry.scope] = lost.get(entry.scope, 0) + 1
        journal.rewrite(kept)
        return lost
    finally:
        journal.close()
