"""Durable intents beside an embedded store: an import to undo, a restore to finish.

A restore and an import each take many steps, and a ``kill -9`` can stop them anywhere. Like
the purge's record (``<store>.purge``), each writes its intent beside the store, fsynced,
before its first step, and removes it after its last: a store whose intent file is still
there was interrupted, and the next open undoes the import (``<store>.import``: the graphs it
wrote) or finishes the restore (``<store>.restore``: the staged copy, where the replaced store
goes, and the erasures recorded after the backup, which must be applied again). Each file is
written whole to a temporary name and renamed, so a reader sees the old intent or the new one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doxa.errors import StoreError

__all__ = [
    "ImportIntent",
    "RestoreIntent",
    "import_path",
    "read_import",
    "read_restore",
    "remove",
    "restore_path",
    "write",
]


def import_path(store: Path) -> Path:
    """Where an import into the store at ``store`` records the graphs it is writing."""
    return store.with_name(f"{store.name}.import")


def restore_path(store: Path) -> Path:
    """Where a restore into the store at ``store`` records what it still has to do."""
    return store.with_name(f"{store.name}.restore")


@dataclass(frozen=True)
class ImportIntent:
    """An import under way: its scope and every graph it writes (all empty before it)."""

    scope: str
    graphs: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "graphs": list(self.graphs)}


@dataclass(frozen=True)
class RestoreIntent:
    """A restore under way.

    ``staged`` is the backup's copy beside the store (swapped in by renames), ``replaced``
    where the store it replaces is kept, ``heads`` the backup's last receipt per scope, and
    ``erasures`` the journal lines of the erasures recorded after the backup, which the
    restored store must get back. ``phase`` is ``swap`` until the copy is in place and the
    journal cut back to the backup, then ``erase``.
    """

    backup: str
    staged: str
    replaced: str
    heads: dict[str, int]
    erasures: tuple[dict[str, Any], ...]
    phase: str = "swap"

    def as_json(self) -> dict[str, Any]:
        return {
            "backup": self.backup,
            "staged": self.staged,
            "replaced": self.replaced,
            "heads": self.heads,
            "erasures": list(self.erasures),
            "phase": self.phase,
        }


def write(path: Path, intent: ImportIntent | RestoreIntent) -> None:
    """Record ``intent`` at ``path`` durably: written whole, fsynced, renamed, directory synced."""
    temporary = path.with_name(path.name + ".new")
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(intent.as_json(), file, sort_keys=True)
        file.flush()
        os.fsync(file.fileno())
    temporary.replace(path)
    _sync_directory(path.parent)


def remove(path: Path) -> None:
    """The intent is done: remove its file, durably."""
    path.unlink(missing_ok=True)
    _sync_directory(path.parent)


def _load(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise StoreError(
            f"The record {path} of an interrupted operation cannot be read ({error}); "
            "keep the store as it is and restore a backup with `doxa restore`."
        ) from None
    if not isinstance(data, dict):
        raise StoreError(
            f"The record {path} of an interrupted operation is not an object; keep the store "
            "as it is and restore a backup with `doxa restore`."
        )
    return data


def read_import(store: Path) -> ImportIntent | None:
    """The import an earlier process left unfinished in ``store``, or None."""
    data = _load(import_path(store))
    if data is None:
        return None
    return ImportIntent(str(data["scope"]), tuple(str(g) for g in data.get("graphs", [])))


def read_restore(store: Path) -> RestoreIntent | None:
    """The restore an earlier process left unfinished in ``store``, or None."""
    data = _load(restore_path(store))
    if data is None:
        return None
    return RestoreIntent(
        backup=str(data["backup"]),
        staged=str(data["staged"]),
        replaced=str(data["replaced"]),
        heads={str(k): int(v) for k, v in dict(data.get("heads", {})).items()},
        erasures=tuple(dict(e) for e in data.get("erasures", [])),
        phase=str(data.get("phase", "swap")),
    )


def _sync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
