"""Check hand-written SPARQL in worker processes: a parse past its time is killed, not waited for.

The guard parses every query (:func:`doxa.reads.sparql.check_query`) with rdflib's parser,
which is pure Python: a few kilobytes of ``1+1+…`` take seconds to parse, and the parse holds
the GIL while it runs. The server therefore checks queries in worker processes (started with
``spawn``, never forked from the threaded server). A check runs under its query's timeout: when
the request is abandoned during the parse the worker is killed at once, so no parse outlives
its request and none slows the server's own threads; a worker still starting (seconds of
imports on a loaded machine) is kept for the next query instead. The server keeps one worker
started for every query that may run at once, so no query waits for one to start but just
after a killed check, while its replacement starts. The checked query (its form and its text)
comes back as a value; the store then runs exactly that text.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from doxa.errors import InvalidInput, ScopeViolation, StoreError
from doxa.reads.sparql import CheckedQuery, check_query

__all__ = ["Abandoned", "QueryChecker"]

_POLL = 0.02  # seconds between looks at ``stop`` while a worker parses


class Abandoned(Exception):
    """The request gave up on the query (its timeout passed) while the query was checked."""


def _serve(connection: Connection) -> None:
    """A worker's loop: read a query, answer with the checked query or the refusal."""
    connection.send(("ready",))
    while True:
        try:
            text = connection.recv()
        except (EOFError, OSError):
            return
        try:
            checked = check_query(text)
        except ScopeViolation as error:
            connection.send(("ScopeViolation", str(error)))
        except InvalidInput as error:
            connection.send(("InvalidInput", str(error)))
        else:
            connection.send(("ok", checked.form, checked.text))


class _Worker:
    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_serve, args=(child,), name="doxa-sparql-check", daemon=True
        )
        self.process.start()
        child.close()
        self._ready = False

    def ready(self) -> bool:
        """Whether the worker has started and imported the parser (it said "ready"): a fresh
        one takes seconds on a loaded machine, time a query would wait out of its timeout."""
        try:
            if not self._ready and self.connection.poll(0):
                self._ready = self.connection.recv() == ("ready",)
        except (EOFError, OSError):  # it died: not ready; the check that takes it says so
            return False
        return self._ready

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()


def _stopped(worker: _Worker, stop: Callable[[], bool]) -> None:
    if stop():
        raise Abandoned
    if not worker.process.is_alive():
        raise StoreError("The SPARQL checker stopped unexpectedly; send the query again.")


def _wait_ready(worker: _Worker, stop: Callable[[], bool]) -> None:
    """Wait until ``worker`` has started; raises :class:`Abandoned` once ``stop()``."""
    while not worker.ready():
        _stopped(worker, stop)
        worker.connection.poll(_POLL)


def _wait_answer(worker: _Worker, stop: Callable[[], bool]) -> None:
    """Wait until ``worker`` has answered; raises :class:`Abandoned` once ``stop()``."""
    while not worker.connection.poll(_POLL):
        _stopped(worker, stop)


class QueryChecker:
    """Worker processes that check queries; ``keep`` of them wait, started, for the next.

    The server keeps as many as queries may run at once (``max_running``): a query that had
    to start its own worker would wait seconds for Python and rdflib to import, which on a
    busy machine is more than a short timeout (another scope's ``ASK {}`` got 503
    ``QueryTimeout`` while one scope's two slow queries held the only two warm workers).
    """

    def __init__(self, *, keep: int = 2) -> None:
        self.keep = keep
        self._context = multiprocessing.get_context("spawn")
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False

    def start(self) -> None:
        """Start ``keep`` workers now, so the first queries do not wait for one to start."""
        with self._lock:
            while not self._closed and len(self._idle) < self.keep:
                self._idle.append(_Worker(self._context))

    def check(self, text: str, *, stop: Callable[[], bool]) -> CheckedQuery:
        """``text`` checked in a worker; raises what the check raises, or :class:`Abandoned`
        once ``stop()`` turns true: the worker is killed if it was parsing, kept if it was
        still starting (its import done, it serves the next query)."""
        worker = self._take()
        try:
            _wait_ready(worker, stop)
        except Abandoned:
            self._give(worker)
            raise
        except BaseException:
            self._replace(worker)
            raise
        try:
            worker.connection.send(text)
            _wait_answer(worker, stop)
            answer = worker.connection.recv()
        except (EOFError, OSError) as error:
            # the worker died mid-parse (killed from outside, out of memory): the query is
            # not the caller's fault, so the answer is "try again", never an internal error
            self._replace(worker)
            raise StoreError(
                "The SPARQL checker stopped unexpectedly; send the query again."
            ) from error
        except BaseException:
            self._replace(worker)
            raise
        self._give(worker)
        if answer[0] == "ok":
            return CheckedQuery(answer[1], answer[2])
        if answer[0] == "ScopeViolation":
            raise ScopeViolation(answer[1])
        raise InvalidInput(answer[1])

    def _replace(self, worker: _Worker) -> None:
        worker.kill()
        self._give(_Worker(self._context))  # a fresh one starts now, for the next query

    def close(self) -> None:
        """Stop every waiting worker; a check under way stops its own when it ends."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()

    def _take(self) -> _Worker:
        """A ready worker if one waits (the oldest first), else the oldest still starting
        (a killed check's replacement), else a new one."""
        with self._lock:
            for index, worker in enumerate(self._idle):
                if worker.ready():
                    return self._idle.pop(index)
            if self._idle:
                return self._idle.pop(0)
        return _Worker(self._context)

    def _give(self, worker: _Worker) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < self.keep:
                self._idle.append(worker)
                return
        worker.kill()
