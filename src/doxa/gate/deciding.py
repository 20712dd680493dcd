"""Taking one decision: under the store's lock, guarded against other processes, and taken
again (reading afresh) when another process published first.

Every part of the gate (the write path, the owner's decisions, erasure) decides this way, so
the template lives here once: the parts only say what a decision reads, checks and writes.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from doxa.clock import Clock
from doxa.errors import WriteConflict
from doxa.gate.record import Decision, Record
from doxa.scope import Scope
from doxa.store import Store

__all__ = ["MAX_ATTEMPTS", "UNLOCKED_ATTEMPTS", "Decider", "pause", "settled"]

T = TypeVar("T")
UNLOCKED_ATTEMPTS = 3  # then the gate judges under the store's lock: no thread can overtake
MAX_ATTEMPTS = 40  # only other processes (a shared server) can make a locked attempt lose


def pause(attempt: int) -> None:
    """Back off a little, at random, so two processes that keep colliding drift apart."""
    time.sleep(random.uniform(0, min(0.25, 0.005 * 2**attempt)))


def settled(decide: Callable[[], T]) -> T:
    """Run a decision, again (reading afresh) if another process published first."""
    for attempt in range(MAX_ATTEMPTS):
        try:
            return decide()
        except WriteConflict:
            if attempt == MAX_ATTEMPTS - 1:
                raise
            pause(attempt)
    raise AssertionError("unreachable: the last attempt returns or raises")


@dataclass(frozen=True)
class Decider:
    """What every decision of one scope's gate works with, and the one way to take one."""

    store: Store
    scope: Scope
    clock: Clock
    lock: threading.RLock
    record: Record

    def decide(self, step: Callable[[Decision], T]) -> T:
        """Run ``step`` under the lock on a fresh :class:`Decision`, settled.

        The decision carries the chain head read before ``step`` reads anything, so on a
        shared server its publish fails (and the whole step runs again, reading afresh) if
        another process published in between.
        """

        def once() -> T:
            with self.lock:
                return step(Decision(after=self.record.mark()))

        return settled(once)
