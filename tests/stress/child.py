"""Running the writer child process, and checking a store after it died."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from tests.stress import writer

import doxa

WRITER = Path(__file__).with_name("writer.py")


class Forked:
    """A writer forked by the fork server: what ``Child`` uses of ``subprocess.Popen``."""

    def __init__(self, server: ForkServer, argv: list[str]) -> None:
        self._server = server
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        self.stdout: IO[str] | None = open(out_read, encoding="utf-8")  # noqa: SIM115
        self.stderr: IO[str] | None = open(err_read, encoding="utf-8")  # noqa: SIM115
        try:
            reply = server.ask(["run", *argv], (out_write, err_write))
        finally:  # the child has its copies: end of file when it dies
            os.close(out_write)
            os.close(err_write)
        assert reply.startswith("pid "), reply
        self.pid = int(reply.split()[1])
        self.returncode: int | None = None

    def send_signal(self, sig: int) -> None:
        assert sig == signal.SIGKILL, "the fork server only sends SIGKILL"
        self.kill()

    def kill(self) -> None:
        if self.returncode is None:
            assert self._server.ask(["kill"]) == "killed"

    def poll(self) -> int | None:
        return self.wait(0) if self.returncode is None else self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        if self.returncode is None:
            reply = self._server.ask(["wait", 3600 if timeout is None else timeout])
            if reply.startswith("exit "):
                self.returncode = int(reply.split()[1])
        if self.returncode is None and timeout != 0:
            raise subprocess.TimeoutExpired(f"writer {self.pid}", timeout)
        return self.returncode


class ForkServer:
    """``writer.py serve``: one interpreter with doxa imported, forking a writer per round."""

    def __init__(self) -> None:
        self._channel, theirs = socket.socketpair()
        self.process = subprocess.Popen(
            [sys.executable, str(WRITER), "serve", str(theirs.fileno())],
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        self._replies = self._channel.makefile("r", encoding="utf-8")

    def ask(self, request: list[Any], fds: tuple[int, ...] = ()) -> str:
        socket.send_fds(self._channel, [json.dumps(request).encode()], list(fds))
        reply = self._replies.readline()
        assert reply.endswith("\n"), f"the fork server died: {self.process.poll()}"
        return reply.rstrip("\n")

    def close(self) -> None:
        self._replies.close()
        self._channel.close()  # end of requests: the server returns
        assert self.process.wait(timeout=60) == 0


@contextmanager
def fork_server() -> Iterator[ForkServer]:
    server = ForkServer()
    try:
        yield server
    finally:
        server.close()


class Child:
    """The writer in a child process; its acknowledged decisions are read as they come.

    A fresh interpreter, or with ``server`` a process forked from one that has doxa imported.
    """

    def __init__(
        self, store: Path, seed: int, *limits: str, server: ForkServer | None = None
    ) -> None:
        self.lines: list[str] = []
        self.ready = threading.Event()
        argv = [str(store), str(seed), *limits]
        self.process: subprocess.Popen[str] | Forked = (
            Forked(server, argv)
            if server is not None
            else subprocess.Popen(
                [sys.executable, str(WRITER), *argv],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
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
    """Create the store the writers write to (in this process: it closes it again)."""
    writer.prepare(str(store))


def check_intact(
    store: Path,
    acknowledged: list[dict[str, Any]],
    since: Sequence[doxa.Receipt] = (),
    full: bool = True,
) -> list[doxa.Receipt]:
    """Reopen the store and check every promise; returns its receipts, in chain order.

    Opening must not find the store behind its journal; every acknowledged receipt is there;
    the receipts ``since`` (what the last check returned) are still the chain's first ones,
    unchanged; each receipt is numbered on and names the one before's hash as its previous;
    the admitted facts are exactly those receipts admitted or approved; every held write has
    its receipt. ``full`` adds ``Memory.verify()``: every receipt's hash recomputed from its
    content, and every claim and event accounted for by a receipt. It reads the whole store,
    so the crash test's long run does it every few kills and at the end, not after each.
    """
    with doxa.Memory.open(store, scope="s") as mem:  # raises StoreBehindJournal if behind
        receipts = mem.receipts()
        if full:
            assert mem.verify() == len(receipts)
        assert receipts[: len(since)] == list(since), "a receipt checked before has changed"
        previous_hash = ""
        for sequence, receipt in enumerate(receipts, start=1):
            assert (receipt.sequence, receipt.previous_hash) == (sequence, previous_hash), receipt
            assert receipt.receipt_hash, receipt
            previous_hash = receipt.receipt_hash
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
        return receipts
