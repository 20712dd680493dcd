"""doxa's own fsynced journal of decisions, beside an embedded store.

Oxigraph never fsyncs its write-ahead log: after a power loss the last commits can be gone,
and a damaged log tail reopens silently shorter. The journal (``<store>.journal``, JSON
Lines) gets one line per decision — scope, sequence, receipt id and hash — written and
fsynced after the store applied it. On open, a store whose receipt chain ends before the
journal's lost acknowledged decisions: doxa refuses it with a clear error instead of carrying
on without them. Erasures are journaled with their tombstones (ids, digests and salted
hashes; never content), so a restored backup gets them back.

Writers in several threads share their fsyncs (group commit): inside :meth:`Journal.grouped`,
a decision's line is written under the store's lock but fsynced after the lock is released,
and one fsync covers every line written before it. A decision is still acknowledged only once
its line is on disk.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doxa.errors import StoreError

__all__ = ["Journal", "JournalEntry"]


@dataclass(frozen=True)
class JournalEntry:
    scope: str
    sequence: int
    receipt: str
    hash: str
    erasure: dict[str, Any] | None = field(default=None, compare=False)

    def as_json(self) -> dict[str, Any]:
        """The entry as its journal line's object (a restore's record keeps them too)."""
        line: dict[str, Any] = {
            "scope": self.scope,
            "sequence": self.sequence,
            "receipt": self.receipt,
            "hash": self.hash,
        }
        if self.erasure is not None:
            line["erasure"] = self.erasure
        return line

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JournalEntry:
        """Read an entry back; raises KeyError, TypeError or ValueError for a damaged one."""
        return cls(
            scope=str(data["scope"]),
            sequence=int(data["sequence"]),
            receipt=str(data["receipt"]),
            hash=str(data["hash"]),
            erasure=data.get("erasure"),
        )


class Journal:
    """An append-only, fsynced record of every decision's receipt."""

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        self.path = path
        self.fsync = fsync
        self.heads: dict[str, JournalEntry] = {}
        self.entries: list[JournalEntry] = []
        self._read()
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open, closed in close()
        self._written = 0  # lines written and flushed by this process
        self._synced = 0  # of those, how many an fsync has covered
        self._sync_lock = threading.Lock()
        self._local = threading.local()  # per thread: grouping depth and the line to await

    def _read(self) -> None:
        if not self.path.exists():
            return
        raw = self.path.read_bytes()
        good = 0
        for line in raw.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break  # a line cut by a crash: it was never acknowledged
            try:
                entry = JournalEntry.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError):
                break
            good += len(line)
            self.entries.append(entry)
            self.heads[entry.scope] = entry
        if good < len(raw):
            with open(self.path, "r+b") as file:  # drop the torn tail
                file.truncate(good)
                os.fsync(file.fileno())

    def append(self, entry: JournalEntry) -> None:
        self.append_all([entry])

    def append_all(self, entries: list[JournalEntry]) -> None:
        """Append decisions' lines with one fsync (a bulk import's batch)."""
        try:
            self._file.write("".join(_line(entry) for entry in entries))
            self._file.flush()
        except OSError as error:
            raise self._failed(error) from error
        self._written += len(entries)
        for entry in entries:
            self.entries.append(entry)
            self.heads[entry.scope] = entry
        if getattr(self._local, "depth", 0):
            self._local.ticket = self._written  # fsynced when the outermost group ends
        else:
            self.sync(self._written)

    def sync(self, ticket: int) -> None:
        """Return once the first ``ticket`` lines are on disk: one fsync covers every line
        written before it, so threads waiting together share it."""
        if not self.fsync:
            return
        with self._sync_lock:
            if self._synced >= ticket:
                return  # another thread's fsync covered it
            target = self._written
            try:
                os.fsync(self._file.fileno())
            except OSError as error:
                raise self._failed(error) from error
            self._synced = target

    @contextmanager
    def grouped(self) -> Iterator[None]:
        """Defer this thread's fsyncs to the end of the block (the caller's lock released by
        then), and wait for them there: the decisions made inside are acknowledged on exit."""
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        try:
            yield
        finally:
            self._local.depth = depth
            ticket = getattr(self._local, "ticket", 0)
            if depth == 0 and ticket:
                self._local.ticket = 0
                self.sync(ticket)

    def _failed(self, error: OSError) -> StoreError:
        return StoreError(
            f"The decision was stored but its journal line could not be written to "
            f"{self.path}: {error.strerror}. Free disk space; the next open repairs the "
            "journal from the store."
        )

    def rewrite(self, entries: list[JournalEntry]) -> None:
        """Replace the journal (after a restore), atomically."""
        self._file.close()
        temporary = self.path.with_name(self.path.name + ".new")
        with open(temporary, "w", encoding="utf-8") as file:
            file.write("".join(_line(entry) for entry in entries))
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(self.path)
        self.entries = list(entries)
        self.heads = {e.scope: e for e in entries}
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        self._synced = self._written  # the new file was fsynced whole

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def _line(entry: JournalEntry) -> str:
    """One decision as its journal line."""
    return json.dumps(entry.as_json(), sort_keys=True) + "\n"
