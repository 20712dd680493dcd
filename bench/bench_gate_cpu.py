"""Per-write CPU time of gated writes on ``bench_gate``'s stream, robust to other load.

``bench_gate.py`` times wall clock, which on a shared machine measures the neighbours too
(its ``cpu/wall`` column says how much). This fills an in-memory store with 2,000 writes of
the same seeded stream and times 1,000 more with ``time.process_time`` one by one, so two
checkouts can be compared on a busy machine by running them alternately:

    PYTHONPATH=src:bench python bench/bench_gate_cpu.py after
    PYTHONPATH=/path/to/other/src:/path/to/other/bench python bench/bench_gate_cpu.py before

Instructions, which no neighbour changes, are counted under valgrind: the instructions of
``--timed 500`` minus those of ``--timed 0`` (same fill) are the 500 writes' own, per
checkout (docs/benchmarks.md):

    PYTHONPATH=src:bench valgrind --tool=callgrind python bench/bench_gate_cpu.py x \
        --fill 1000 --timed 500
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import doxa
from workload import Stream, ontology_turtle

FILL, TIMED = 2000, 1000


def main(label: str, fill: int = FILL, timed: int = TIMED) -> None:
    """Print the CPU p50, p95 and mean per gated write, and the mean of text-only writes."""
    clock = doxa.FixedClock("2026-03-01T09:00:00Z")
    with doxa.Memory.open(None, scope="bench", clock=clock) as mem:
        mem.schema.add_ontology(ontology_turtle())
        stream = Stream(7)
        stream.fill(mem, fill)
        gc.collect()
        every, text = [], []
        for _ in range(timed):
            w = stream.next()
            started = time.process_time()
            receipt = mem.remember(w.text, **w.kwargs())
            spent = time.process_time() - started
            stream.observe(w, receipt.outcome.value)
            every.append(spent)
            if w.subject is None:
                text.append(spent)
    if not every:  # --timed 0: the fill alone, for instruction counts
        print(f"{label}: filled {fill} writes, timed none")
        return
    p95 = statistics.quantiles(every, n=20)[18] if len(every) > 1 else every[0]
    print(
        f"{label}: cpu p50 {statistics.median(every) * 1000:.3f} ms  p95 {p95 * 1000:.3f}  "
        f"mean {statistics.mean(every) * 1000:.3f}  text-only mean "
        f"{statistics.mean(text) * 1000 if text else 0:.3f} (n={len(text)})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("label", nargs="?", default="doxa")
    parser.add_argument("--fill", type=int, default=FILL, help="writes before timing")
    parser.add_argument("--timed", type=int, default=TIMED, help="writes timed")
    arguments = parser.parse_args()
    main(arguments.label, arguments.fill, arguments.timed)
