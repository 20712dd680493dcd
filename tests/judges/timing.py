"""The screen's time on a text, for the tests that bound it: the best of a few runs, so a
busy machine slows a measurement without failing it. One definition for every screen test
that times (long runs of a trigger against plain text, twice a text against once)."""

from __future__ import annotations

import time

from doxa.judges.screen import screen

__all__ = ["repeated", "screen_time"]


def screen_time(text: str, *, runs: int = 3) -> float:
    """The fastest of ``runs`` screenings of ``text``, in seconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        screen(text)
        best = min(best, time.perf_counter() - start)
    return best


def repeated(piece: str, size: int) -> str:
    """``piece`` repeated to exactly ``size`` characters."""
    return (piece * (size // len(piece) + 1))[:size]
