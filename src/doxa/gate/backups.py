"""Backups of an embedded store, and erasure carried into them.

A backup is Oxigraph's own consistent copy of the store directory, kept in the folder
``<store>.backups/<UTC time>``. An erasure is no erasure while an old copy still holds the
content, so every backup is purged the same way as the store: the erased claims, their
events and held writes are deleted, then the backup is compacted.
"""

from __future__ import annotations

from pathlib import Path

from rdflib import URIRef

from doxa.errors import StoreError
from doxa.gate.erasure import erasure_plan
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, EmbeddedStore, Store

__all__ = ["backups_folder", "purge_backup"]


def backups_folder(store: Store) -> Path:
    """Where the store's backups live: the sibling folder ``<store>.backups``."""
    path = getattr(store, "path", None)
    if not isinstance(path, Path):
        raise StoreError("Only a store on disk has backups; open one with a path.")
    return path.with_name(f"{path.name}.backups")


def purge_backup(backup: Path, scope: Scope, claims: list[URIRef], subject: URIRef | None) -> int:
    """Erase ``claims`` (and, with ``subject``, every claim about it) from one backup.

    Returns the number of quads removed. The backup's receipts are left as they were: a
    restore re-applies the erasure, with its tombstones, to the restored store.
    """
    store = EmbeddedStore(backup)
    try:
        graphs = [g for g in store.graphs() if scope.topic_of(g) is not None]
        graphs.append(scope.rules)
        found = list(claims)
        if subject is not None:
            everywhere = Dataset(default=(), named=(*graphs, scope.pending, scope.quarantine))
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
