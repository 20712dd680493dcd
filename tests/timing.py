"""CPU time per call, for the tests that bound a cost: one definition for every test that
times (the screen's long runs, the aligner on a megabyte, the SPARQL guard's long inputs,
the memory files' parser).

Three choices keep a ratio of two of these a measure of the code, not of the machine:

- **the calling thread's CPU time** (``time.thread_time``), not the wall clock and not the
  process's: a shared runner's neighbours are not counted, and neither are this process's
  other threads (a server or a RocksDB compaction an earlier test left running in the same
  pytest worker, which ``process_time`` counted; a full run once failed that way);
- **rounds of at least 10 ms**, so a call of a fraction of a millisecond is not timed
  alone against the clock's grain;
- **interleaved, best of several**: the two sides of a comparison take turns round by
  round, so a slow spell of the machine slows both, and the best round of each is kept."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["cpu_seconds", "repeated", "side_by_side"]

#: the shortest round: a call shorter than this is repeated within the round
_ROUND = 0.01


def _round(action: Callable[[], object]) -> float:
    calls, start = 0, time.thread_time()
    while (spent := time.thread_time() - start) < _ROUND or calls == 0:
        action()
        calls += 1
    return spent / calls


def cpu_seconds(action: Callable[[], object], *, runs: int = 5) -> float:
    """The calling thread's CPU seconds per call of ``action``: the best of ``runs`` rounds."""
    return min(_round(action) for _ in range(runs))


def side_by_side(
    first: Callable[[], object], second: Callable[[], object], *, runs: int = 5
) -> tuple[float, float]:
    """CPU seconds per call of ``first`` and of ``second``, their rounds taken in turn: the
    best of ``runs`` rounds each."""
    best = [float("inf"), float("inf")]
    for _ in range(runs):
        best[0] = min(best[0], _round(first))
        best[1] = min(best[1], _round(second))
    return best[0], best[1]


def repeated(piece: str, size: int) -> str:
    """``piece`` repeated to exactly ``size`` characters."""
    return (piece * (size // len(piece) + 1))[:size]
