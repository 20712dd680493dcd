"""The screen's time on a text, for the tests that bound it: the best of a few runs, so a
busy machine slows a measurement without failing it. One definition for every screen test
that times (long runs of a trigger against plain text, twice a text against once)."""

from __future__ import annotations

import time

from doxa.judges.screen import screen

__all__ = ["repeated", "screen_time"]


def screen_time(text: str, *, runs: int = 3) -> float:
    """The screen's CPU seconds per call on ``text``, the best of ``runs`` rounds, each round
    screening it until it has taken at least 10 ms. CPU time, not the wall clock: the time
    other processes take from this one on a shared machine (a CI runner, the rest of the
    suite) is not counted, so a ratio of two of these measures the screen, not the
    neighbours; and a screening of a fraction of a millisecond is not timed alone."""
    best = float("inf")
    for _ in range(runs):
        calls, start = 0, time.process_time()
        while (spent := time.process_time() - start) < 0.01 or calls == 0:
            screen(text)
            calls += 1
        best = min(best, spent / calls)
    return best


def repeated(piece: str, size: int) -> str:
    """``piece`` repeated to exactly ``size`` characters."""
    return (piece * (size // len(piece) + 1))[:size]
