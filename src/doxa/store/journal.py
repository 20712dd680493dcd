"""doxa's own fsynced journal of decisions, beside an embedded store.

Oxigraph never fsyncs its write-ahead log: after a power loss the last commits can be gone,
and a damaged log tail reopens silently shorter. The journal (``<store>.journal``, JSON
Lines) gets one line per decision — scope, sequence, receipt id and hash — written and
fsynced after the store applied it. On open, a store whose receipt chain ends before the
journal's lost acknowledged decisions: doxa refuses it with a clear error instead of carrying
on without them. Erasures are journaled with their tombstones (ids, digests and salted
hashes; never content), so a restored backup gets them back.
"""

from __future__ import annotations

import json
import os
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


class Journal:
    """An append-only, fsynced record of every decision's receipt."""

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        self.path = path
        self.fsync = fsync
        self.heads: dict[str, JournalEntry] = {}
        self.entries: list[JournalEntry] = []
        self._read()
        self._file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open, closed in close()

    def _read(self) -> None:
        if not self.path.exists():
            return
        raw = self.path.read_bytes()
        good = 0
        for line in raw.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break  # a line cut by a crash: it was never acknowledged
            try:
                data = json.loads(line)
                entry = JournalEntry(
                    scope=str(data["scope"]),
                    sequence=int(data["sequence"]),
                    receipt=str(data["receipt"]),
                    hash=str(data["hash"]),
                    erasure=data.get("erasure"),
                )
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
            if self.fsync:
                os.fsync(self._file.fileno())
        except OSError as error:
            raise StoreError(
                f"The decision was stored but its journal line could not be written to "
                f"{self.path}: {error.strerror}. Free disk space; the next open repairs the "
                "journal from the store."
            ) from error
        for entry in entries:
            self.entries.append(entry)
            self.heads[entry.scope] = entry

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

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()


def _line(entry: JournalEntry) -> str:
    """One decision as its journal line."""
    line: dict[str, Any] = {
        "scope": entry.scope,
        "sequence": entry.sequence,
        "receipt": entry.receipt,
        "hash": entry.hash,
    }
    if entry.erasure is not None:
        line["erasure"] = entry.erasure
    return json.dumps(line, sort_keys=True) + "\n"
