"""Backups of an embedded store, and erasure carried into them.

A backup is Oxigraph's own consistent copy of the store directory, kept in the folder
``<store>.backups/<UTC time>``. An erasure is no erasure while an old copy still holds the
content, so every backup is purged the same way as the store: the erased claims, their
events and held writes are deleted, then the backup is compacted.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rdflib import URIRef

from doxa.errors import StoreError
from doxa.gate.erasure import erasure_plan, strip_origins, subject_hash
from doxa.resources import query
from doxa.scope import Scope, new_id
from doxa.store import Change, Dataset, EmbeddedStore, Store, intents
from doxa.store.capabilities import OnDisk
from doxa.store.generations import DirectoryLock, is_store
from doxa.store.intents import RestoreIntent
from doxa.store.journal import Journal
from doxa.vocabulary import DOXA

__all__ = [
    "accept_loss",
    "backups_folder",
    "begin_restore",
    "erasure_present",
    "purge_backup",
    "swap_staged",
]


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
            # (and names only they used leave its vocabulary, their entries its receipts)
            gone, reseals, _ = strip_origins(
                store, scope, plan.change.delete, functools.partial(_event, scope)
            )
            if gone:
                store.apply(Change(delete=gone, insert=reseals))
                removed += len(gone)
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


def begin_restore(path: Path, backup: Path) -> RestoreIntent:
    """Stage ``backup`` beside the store at ``path`` and record the restore's intent.

    Nothing of the store is touched yet: the backup is copied to ``<store>.restoring``, its
    last receipt per scope read, and the intent (``<store>.restore``, fsynced) names the copy,
    where the replaced store will be kept (``…-replaced``) and the erasures the journal
    recorded after the backup. From then on the restore is owed: :func:`swap_staged` and
    :func:`doxa.restore_backup` finish it, and so does the next open after a crash.
    Raises :class:`~doxa.StoreError` for what is not a backup, :class:`~doxa.StoreLocked`
    while another process has the store open.
    """
    if not is_store(backup):
        raise StoreError(f"{backup} is not a store backup; list them with `doxa backups`.")
    lock = DirectoryLock(path)  # refuses a store another process has open, held throughout
    try:
        staged = path.with_name(f"{path.name}.restoring")
        shutil.rmtree(staged, ignore_errors=True)  # a copy an earlier kill cut off
        shutil.copytree(backup, staged)
        heads = _heads(staged)
        staged.with_name(f"{staged.name}.lock").unlink(missing_ok=True)
        journal = Journal(path.with_name(f"{path.name}.journal"))
        entries = list(journal.entries)
        journal.close()
        since = [e for e in entries if e.sequence > heads.get(e.scope, 0) and e.erasure]
        folder = path.with_name(f"{path.name}.backups")
        kept = folder / (datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ") + "-replaced")
        intent = RestoreIntent(
            backup=str(backup.resolve()),
            # absolute: the next open, from another working directory, finishes the restore
            staged=str(staged.resolve()),
            replaced=str(kept.resolve()),
            heads=heads,
            erasures=tuple(e.as_json() for e in since),
        )
        intents.write(intents.restore_path(path), intent)
        return intent
    finally:
        lock.release()


def discard_stale_copy(path: Path) -> None:
    """Delete ``<store>.restoring`` when no restore intent is beside it: a kill cut a restore
    off after copying the backup and before recording the intent, so nothing is owed, and
    the copy (of a backup) may hold content erased since. Call it with the store open, its
    lock held, so that no restore is staging the copy now."""
    staged = path.with_name(f"{path.name}.restoring")
    if staged.exists() and intents.read_restore(path) is None:
        shutil.rmtree(staged, ignore_errors=True)


def swap_staged(path: Path, intent: RestoreIntent) -> RestoreIntent:
    """Put the staged copy in place of the store and cut the journal back to the backup.

    Each step is a rename or an atomic rewrite, and each is skipped once done, so a restore a
    crash interrupted runs this again safely. Returns the intent at its next phase (``erase``,
    recorded): the erasures since the backup are still owed, and the journal no longer holds
    them, only the intent does. The store being replaced is kept as a backup itself.
    """
    lock = DirectoryLock(path)
    try:
        staged, kept = Path(intent.staged), Path(intent.replaced)
        if staged.exists():
            if path.exists():
                kept.parent.mkdir(parents=True, exist_ok=True)
                path.rename(kept)
            staged.rename(path)
            _sync(path.parent, kept.parent)
        elif not is_store(path):
            raise StoreError(
                f"The restore into {path} was interrupted and its staged copy {staged} is "
                f"gone; move {intents.restore_path(path)} aside and run `doxa restore "
                f"{intent.backup}` again."
            )
        journal = Journal(path.with_name(f"{path.name}.journal"))
        try:
            journal.rewrite(
                [e for e in journal.entries if e.sequence <= intent.heads.get(e.scope, 0)]
            )
        finally:
            journal.close()
        intent = dataclasses.replace(intent, phase="erase")
        intents.write(intents.restore_path(path), intent)
        return intent
    finally:
        lock.release()


def erasure_present(store: Store, scope: Scope, record: dict[str, Any]) -> bool:
    """Whether the store already holds a tombstone for every node a journaled erasure
    buried: a restore a crash interrupted re-applied it already, so it is not applied twice."""
    nodes = [str(n["node"]) for n in record.get("nodes", [])]
    return all(
        store.ask(
            "ASK WHERE { ?event a ?erasure ; ?ends ?node }",
            dataset=Dataset(default=(scope.log,)),
            bindings={"erasure": DOXA.Erasure, "ends": DOXA.ends, "node": URIRef(node)},
        )
        for node in nodes
    )


def _sync(*directories: Path) -> None:
    for directory in dict.fromkeys(directories):
        if directory.is_dir():
            descriptor = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)


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
    backup holds them; ``doxa.restore_backup`` is the other way out.
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
