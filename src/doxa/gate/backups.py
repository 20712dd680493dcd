"""Backups of an embedded store, and erasure carried into them.

A backup is Oxigraph's own consistent copy of the store directory, kept in the folder
``<store>.backups/<UTC time>``. An erasure is no erasure while an old copy still holds the
content, so every backup is purged the same way as the store: the erased claims, their
events and held writes are deleted, then the backup is compacted.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from rdflib import URIRef

from doxa.errors import StoreError
from doxa.gate.erasure import erasure_plan
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, EmbeddedStore, Store
from doxa.store.journal import Journal

__all__ = ["accept_loss", "backups_folder", "purge_backup", "restore_backup"]


def backups_folder(store: Store) -> Path:
    """Where the store's backups live: the sibling folder ``<store>.backups``."""
    path = getattr(store, "path", None)
    if not isinstance(path, Path):
        raise StoreError("Only a store on disk has backups; open one with a path.")
    return path.with_name(f"{path.name}.backups")


def purge_backup(
    backup: Path, scope: Scope, claims: Sequence[URIRef], subjects: Sequence[URIRef] = ()
) -> int:
    """Erase ``claims`` (and every claim about one of ``subjects``) from one backup.

    Returns the number of quads removed. The backup's receipts are left as they were: a
    restore re-applies the erasure, with its tombstones, to the restored store.
    """
    store = EmbeddedStore(backup, journal=False)
    try:
        graphs = [g for g in store.graphs() if scope.topic_of(g) is not None]
        graphs.append(scope.rules)
        found = list(claims)
        everywhere = Dataset(default=(), named=(*graphs, scope.pending, scope.quarantine))
        for subject in subjects:
            found += [
                URIRef(str(row["claim"]))
                for row in store.select(
                    query("claims_about"), dataset=everywhere, bindings={"iri": subject}
                )
            ]
        plan = erasure_plan(store, scope, list(dict.fromkeys(found)), graphs)
        if plan.change.delete:
            store.apply(plan.change)
        store.compact()
        return len(plan.change.delete)
    finally:
        store.close()


def restore_backup(path: Path, backup: Path) -> dict[str, int]:
    """Put ``backup`` in place of the store at ``path``; returns erasures re-applied per scope.

    The store being replaced is kept as a backup itself (``…-replaced``), so restoring loses
    nothing. Decisions after the backup are dropped from the journal; every erasure recorded
    since is applied again, tombstones included, so erased content stays erased.
    """
    from doxa.memory import Memory  # the facade builds on the gate, not the reverse

    if not (backup / "CURRENT").is_file():
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
    counts: dict[str, int] = {}
    for entry in since:
        assert entry.erasure is not None
        with Memory.open(path, scope=entry.scope) as memory:
            memory.gate.reapply_erasure(entry.erasure)
        counts[entry.scope] = counts.get(entry.scope, 0) + 1
    if since:  # one rebuild makes every re-applied erasure real in the files
        store = EmbeddedStore(path, journal=False)
        try:
            store.compact()
        finally:
            store.close()
    return counts


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
    backup holds them; ``restore_backup`` is the other way out.
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
