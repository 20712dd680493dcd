"""Run a query with a hard timeout, a limit per process and a limit per scope.

pyoxigraph 0.5 has no timeout and its Python bindings cannot cancel a query (Oxigraph's Rust
API has a cancellation token; the bindings do not pass one). It releases the GIL while it
evaluates, and its results must be read in the thread that ran the query, so each query runs
(and is read to the end) in a fresh thread. When the timeout passes, the request gets 503 at
once and the thread is abandoned: a check still parsing is killed with its worker process
(:mod:`doxa.interfaces.http.checker`), a query being read stops at its next row, and a query
still computing its first row (a cross product, a big ``ORDER BY``) runs on until it ends.

Every thread holds a slot until it ends, abandoned ones included, so runaway queries cannot
pile up: at most ``max_running`` in the process and ``max_running_per_scope`` for any one
scope. A query that finds no free slot gets 503 ``Busy`` at once. With a per-scope limit below
the process limit, one scope's slow queries leave slots for the others.
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
    """At most ``max_running`` queries at once (``max_running_per_scope`` for one scope), each
    given ``timeout`` seconds."""

    def __init__(
        self,
        *,
        timeout: float,
        max_running: int,
        max_running_per_scope: int | None = None,
        workers: str = "query workers",
        advice: str = "(slow queries run until they end); try again shortly, or ask a "
        "narrower query.",
    ) -> None:
        self.timeout = timeout
        #: what the slots are called in a Busy answer, and what it advises
        self.workers = workers
        self.advice = advice
        self.max_running = max_running
        if max_running_per_scope is None:  # half the workers, so one scope leaves the rest free
            max_running_per_scope = max(1, max_running // 2)
        self.max_running_per_scope = min(max_running_per_scope, max_running)
        self._lock = threading.Lock()
        self._running: dict[str, int] = {}

    def running(self, scope: str | None = None) -> int:
        """How many query threads are alive (abandoned ones included), in ``scope`` or in all."""
        with self._lock:
            if scope is not None:
                return self._running.get(scope, 0)
            return sum(self._running.values())

    def run(
        self,
        work: Callable[[Callable[[], bool]], T],
        *,
        scope: str = "",
        timeout: float | None = None,
    ) -> T:
        """Call ``work(stop)`` in a worker thread; ``stop()`` turns true once abandoned.

        Raises :class:`Problem` (503) when no slot is free, for the process or for ``scope``,
        or the time runs out; re-raises what ``work`` raised.
        """
        limit = self.timeout if timeout is None else min(timeout, self.timeout)
        self._claim(scope)
        outcome: _Outcome[T] = _Outcome()
        abandoned = threading.Event()

        def target() -> None:
            try:
                outcome.value = work(abandoned.is_set)
            except BaseException as error:  # handed to the waiting request
                outcome.error = error
            finally:
                self._release(scope)
                outcome.done.set()

        try:
            threading.Thread(target=target, name="doxa-sparql", daemon=True).start()
        except BaseException:
            self._release(scope)
            raise
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

    def _claim(self, scope: str) -> None:
        with self._lock:
            mine = self._running.get(scope, 0)
            if mine >= self.max_running_per_scope:
                raise Problem(
                    503,
                    "Busy",
                    f"All {self.max_running_per_scope} {self.workers} of this scope are busy "
                    f"{self.advice}",
                    headers={"Retry-After": "5"},
                )
            if sum(self._running.values()) >= self.max_running:
                raise Problem(
                    503,
                    "Busy",
                    f"All {self.max_running} {self.workers} are busy {self.advice}",
                    headers={"Retry-After": "5"},
                )
            self._running[scope] = mine + 1

    def _release(self, scope: str) -> None:
        with self._lock:
            left = self._running[scope] - 1
            if left:
                self._running[scope] = left
            else:
                del self._running[scope]
