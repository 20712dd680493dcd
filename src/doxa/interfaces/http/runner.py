"""Run a query with a hard timeout: in a thread of its own, abandoned when time is up.

pyoxigraph has no timeout and no way to cancel a query. It releases the GIL while it
evaluates, and its results must be read in the thread that ran the query, so each query runs
(and is read to the end) in a fresh thread. When the timeout passes, the request gets 503 at
once and the thread is abandoned: it is told to stop reading at the next row, and a query that
is still computing its first row runs on until it ends. ``max_running`` bounds how many such
threads exist, abandoned ones included; when all are busy a new query gets 503 straight away,
so runaway queries cannot pile up.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from doxa.interfaces.http.errors import Problem

__all__ = ["QueryRunner"]

T = TypeVar("T")


class _Outcome(Generic[T]):
    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: T | None = None
        self.error: BaseException | None = None


class QueryRunner:
    """At most ``max_running`` queries at once, each given ``timeout`` seconds."""

    def __init__(self, *, timeout: float, max_running: int) -> None:
        self.timeout = timeout
        self.max_running = max_running
        self._slots = threading.BoundedSemaphore(max_running)

    def run(self, work: Callable[[Callable[[], bool]], T], *, timeout: float | None = None) -> T:
        """Call ``work(stop)`` in a worker thread; ``stop()`` turns true once abandoned.

        Raises :class:`Problem` (503) when no worker is free or the time runs out; re-raises
        what ``work`` raised.
        """
        limit = self.timeout if timeout is None else min(timeout, self.timeout)
        if not self._slots.acquire(blocking=False):
            raise Problem(
                503,
                "Busy",
                f"All {self.max_running} query workers are busy (slow queries run until they "
                "end); try again shortly, or ask a narrower query.",
                headers={"Retry-After": "5"},
            )
        outcome: _Outcome[T] = _Outcome()
        abandoned = threading.Event()

        def target() -> None:
            try:
                outcome.value = work(abandoned.is_set)
            except BaseException as error:  # handed to the waiting request
                outcome.error = error
            finally:
                self._slots.release()
                outcome.done.set()

        threading.Thread(target=target, name="doxa-sparql", daemon=True).start()
        if not outcome.done.wait(limit):
            abandoned.set()
            raise Problem(
                503,
                "QueryTimeout",
                f"The query ran longer than {limit:g} s and was abandoned; narrow it (a LIMIT, "
                "fewer joins, a named topic graph) and try again.",
            )
        if outcome.error is not None:
            raise outcome.error
        return outcome.value  # type: ignore[return-value]
