"""Where an embedded store's database lives on disk, and how a rebuilt one replaces it.

A store directory holds one RocksDB database at a time: either the directory itself (a store
that was never rebuilt, or one restored from a backup) or the generation its ``GENERATION``
file names (``gen-000001``, ``gen-000002``, ...). A rebuild (the purge that makes erasures
real, see ``docs/decisions.md``, "Erasure is a lifecycle") writes the next generation beside
the live one, then switches the pointer with one atomic rename: at every instant the directory
exists and names one complete database, so a crash at any point leaves either the old store
or the new one, never neither. Whatever is not the named database (an unfinished generation,
the files of a replaced one) is removed by :func:`tidy`, and only by a process that holds the
store's lock (:class:`DirectoryLock`): no second process can touch a rebuild in progress.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from pathlib import Path

from doxa.errors import StoreError, StoreLocked

__all__ = [
    "DUMP",
    "POINTER",
    "DirectoryLock",
    "database",
    "finish_compaction",
    "is_store",
    "next_generation",
    "refuse_orphan_journal",
    "remove_database",
    "switch",
    "tidy",
]

POINTER = "GENERATION"  # names the live generation; absent: the directory is the database
DUMP = "rebuild.nq"  # the live quads a rebuild reads from (deleted once loaded)
_GENERATION = re.compile(r"^gen-(\d{6,})$")
_OURS = {POINTER, f"{POINTER}.new", DUMP}


class DirectoryLock:
    """An exclusive, advisory lock on a store directory (``<store>.lock`` beside it), held
    from opening to closing.

    RocksDB's own lock lives inside the database, which a rebuild replaces; this one lives
    beside the directory, so it also guards the moments when no database is open, and the
    clean-up of a rebuild that a crash interrupted. The kernel releases it when the process
    dies, so a ``kill -9`` leaves no stale lock.
    """

    def __init__(self, directory: Path) -> None:
        self.path = directory.with_name(f"{directory.name}.lock")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "a+b")  # noqa: SIM115 - held until release()
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.close()
            raise StoreLocked(
                f"The store at {directory} is already open for writing in another process; "
                "close that process (one writer per store directory) or open a copy."
            ) from None

    def release(self) -> None:
        if not self._file.closed:
            self._file.close()  # closing the descriptor drops the flock


def database(directory: Path) -> Path:
    """The RocksDB database the store in ``directory`` lives in now."""
    try:
        name = (directory / POINTER).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return directory
    if not _GENERATION.match(name):
        raise StoreError(
            f"The store at {directory} names an unknown database {name!r} in {POINTER}; "
            "restore a backup with `doxa restore`."
        )
    return directory / name


def is_store(directory: Path) -> bool:
    """Whether ``directory`` holds an embedded store (in either layout)."""
    try:
        return (database(directory) / "CURRENT").is_file()
    except OSError:
        return False


def next_generation(directory: Path) -> Path:
    """A new, empty generation directory's path (numbered after every one present)."""
    numbers = [
        int(match.group(1))
        for entry in directory.iterdir()
        if (match := _GENERATION.match(entry.name)) is not None
    ]
    return directory / f"gen-{max(numbers, default=0) + 1:06d}"


def switch(directory: Path, generation: Path) -> None:
    """Make ``generation`` the live database, atomically and durably (write, fsync, rename,
    fsync the directory)."""
    temporary = directory / f"{POINTER}.new"
    with open(temporary, "w", encoding="ascii") as file:
        file.write(generation.name + "\n")
        file.flush()
        os.fsync(file.fileno())
    temporary.replace(directory / POINTER)
    _sync_directory(directory)


def remove_database(directory: Path, database_path: Path) -> None:
    """Delete a database that is no longer live: a generation directory, or, for the
    directory's own first database, RocksDB's files in it (never doxa's, never generations)."""
    if database_path != directory:
        shutil.rmtree(database_path, ignore_errors=True)
        return
    for entry in directory.iterdir():
        if entry.name in _OURS or _GENERATION.match(entry.name):
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def tidy(directory: Path) -> None:
    """Remove what a rebuild left behind: generations that are not live, the dump, a pointer
    never switched to, and the first database's files once a generation replaced it.
    Call it only while holding the store's :class:`DirectoryLock`."""
    if not directory.is_dir():
        return
    live = database(directory)
    for entry in directory.iterdir():
        if entry.name in (DUMP, f"{POINTER}.new"):
            entry.unlink(missing_ok=True)
        elif _GENERATION.match(entry.name) and entry != live:
            shutil.rmtree(entry, ignore_errors=True)
    if live != directory:
        # the first database's files, all of them: a kill in the middle of removing them
        # may have taken CURRENT and left a write-ahead log that still holds erased text
        remove_database(directory, directory)


def _sync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _sibling(path: Path, what: str) -> Path:
    return path.with_name(f"{path.name}.{what}")


def refuse_orphan_journal(path: Path) -> None:
    """Refuse a journal of decisions beside a directory that holds no store: the store it
    belonged to was removed (``rm -rf``) or replaced, which is no crash, and opening would
    start an empty store that the journal calls damaged. Called only under the store's lock,
    before the directory is created."""
    journal = path.with_name(f"{path.name}.journal")
    try:
        holds = journal.stat().st_size > 0
    except FileNotFoundError:
        return
    if holds and not is_store(path):
        raise StoreError(
            f"{journal} holds the decisions of a store that is no longer at {path} (the "
            "directory was removed or replaced); move that journal (and any "
            f"{path.name}.purge beside it) away or delete it to start a new store there, or "
            "put the removed store back (`doxa restore BACKUP` restores one from a backup)."
        )


def finish_compaction(path: Path) -> None:
    """Finish a compaction of doxa 0.1's layout (the store renamed aside, a sibling copy
    renamed in) that a crash interrupted; called only under the store's lock."""
    old, building = _sibling(path, "old"), _sibling(path, "compacting")
    if not path.exists() and old.exists() and building.exists():
        building.rename(path)  # the copy was complete: it is renamed only after its flush
    if path.exists() and old.exists():
        shutil.rmtree(old)
    if path.exists() and building.exists():
        shutil.rmtree(building)  # a copy that never got swapped in
