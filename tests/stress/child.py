"""Running the writer child process, and checking a store after it died."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import doxa

WRITER = Path(__file__).with_name("writer.py")


class Child:
    """The writer in a child process; its acknowledged decisions are read as they come."""

    def __init__(self, store: Path, seed: int, *limits: str) -> None:
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.process = subprocess.Popen(
            [sys.executable, str(WRITER), str(store), str(seed), *limits],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stderr is not None
        self.errors: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout,)),
            threading.Thread(target=self.errors.extend, args=(self.process.stderr,)),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            if not line.endswith("\n"):
                break  # cut by the kill: never acknowledged
            if line == "ready\n":
                self.ready.set()
            self.lines.append(line.rstrip("\n"))
        self.ready.set()

    def finish(self, timeout: float = 120) -> tuple[int, str]:
        """Wait for the child to end; its exit code and its stderr."""
        try:
            self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            for reader in self._readers:
                reader.join()
            for stream in (self.process.stdout, self.process.stderr):
                if stream is not None:
                    stream.close()
        return self.process.returncode, "".join(self.errors)

    @property
    def acknowledged(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines if line.startswith("{")]


def prepare(store: Path) -> None:
    subprocess.run([sys.executable, str(WRITER), "prepare", str(store)], check=True)


def check_intact(store: Path, acknowledged: list[dict[str, Any]]) -> int:
    """Reopen the store and check every promise; returns the number of receipts.

    Opening must not find the store behind its journal; the chain verifies; every
    acknowledged receipt is there; the admitted facts are exactly those receipts admitted or
    approved; every held write has its receipt.
    """
    with doxa.Memory.open(store, scope="s") as mem:  # raises StoreBehindJournal if behind
        checked = mem.verify()
        receipts = mem.receipts()
        assert checked == len(receipts)
        ids = {r.id for r in receipts}
        lost = [a["id"] for a in acknowledged if a["id"] not in ids]
        assert not lost, f"acknowledged receipts missing after reopening: {lost}"
        outcomes = {o: set() for o in doxa.Outcome}  # type: dict[doxa.Outcome, set[str]]
        for r in receipts:
            if r.fact is not None:
                outcomes[r.outcome].add(r.fact)
        admitted = outcomes[doxa.Outcome.ADMITTED] | outcomes[doxa.Outcome.APPROVED]
        stored = {f.id for f in mem.facts(include_ended=True)}
        assert stored == admitted, (stored - admitted, admitted - stored)
        held = {h.id for h in mem.held()}
        assert held <= outcomes[doxa.Outcome.HELD]
        for item in acknowledged:
            if item["outcome"] in ("admitted", "approved"):
                assert item["fact"] in stored
        return checked
