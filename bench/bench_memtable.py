"""Benchmark the background memtable flush: gated writes with it and without it, side by side.

Run ``python bench/bench_memtable.py --help``. Two on-disk stores get the same seeded write
stream, one write to each in turn, so both see the same machine at the same moment: store A
flushes RocksDB's memtable in the background every ``FLUSH_EVERY`` quads (what doxa does),
store B never does (Oxigraph's own setting: a 128 MB memtable per column family). At each size
the report gives both latencies, their ratio, and the CPU the whole process used per write
(RocksDB's flushes and compactions run in threads of their own, so that CPU is counted too).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

import doxa
from bench_gate import SCOPE, machine_info, parse_sizes, percentile, remember
from doxa.store import EmbeddedStore
from workload import Stream, ontology_turtle

Json = dict[str, Any]


class Side:
    """One store and its copy of the write stream."""

    def __init__(self, path: Path, seed: int, flush: bool) -> None:
        self.mem = doxa.Memory.open(path, scope=SCOPE)
        store = self.mem.store
        assert isinstance(store, EmbeddedStore)
        assert store.flusher is not None
        if not flush:
            store.flusher.stop()  # Oxigraph's own behaviour: RocksDB flushes when it must
        self.flusher = store.flusher
        self.stream = Stream(seed)
        self.mem.add_ontology(ontology_turtle())
        for write in self.stream.rules():
            self.stream.observe(write, remember(self.mem, write))

        self.thread_cpu = 0.0  # this side's writes on the calling thread, in CPU seconds

    def write(self) -> float:
        write = self.stream.next()
        cpu, start = time.thread_time(), time.perf_counter()
        outcome = remember(self.mem, write)
        elapsed = time.perf_counter() - start
        self.thread_cpu += time.thread_time() - cpu
        self.stream.observe(write, outcome)
        return elapsed


def interleave(sides: list[Side], count: int) -> tuple[list[list[float]], float]:
    """``count`` writes to each side, one to each in turn: their latencies, and the CPU
    seconds the process spent in other threads meanwhile (RocksDB's flushes, compactions)."""
    latencies: list[list[float]] = [[] for _ in sides]
    before = [side.thread_cpu for side in sides]
    cpu = time.process_time()
    for _ in range(count):
        for side, seconds in zip(sides, latencies, strict=True):
            seconds.append(side.write())
    writers = sum(side.thread_cpu - b for side, b in zip(sides, before, strict=True))
    return latencies, time.process_time() - cpu - writers


def figures(seconds: list[float]) -> Json:
    return {
        "p50_ms": percentile(seconds, 50) * 1000,
        "p95_ms": percentile(seconds, 95) * 1000,
        "p99_ms": percentile(seconds, 99) * 1000,
        "per_s": len(seconds) / sum(seconds),
    }


@click.command()
@click.option("--sizes", default="1000,10000,50000", show_default=True, help="Store sizes.")
@click.option("--samples", default=500, show_default=True, type=click.IntRange(min=10))
@click.option("--seed", default=7, show_default=True)
@click.option("--out", default="bench/results", show_default=True, type=click.Path(path_type=Path))
@click.option("--workdir", default=None, type=click.Path(file_okay=False, path_type=Path))
def main(sizes: str, samples: int, seed: int, out: Path, workdir: Path | None) -> None:
    """Fill two stores side by side and compare gated writes with and without the flush."""
    targets = parse_sizes(sizes)
    root = Path(tempfile.mkdtemp(prefix="doxa-memtable-", dir=workdir))
    started = datetime.now(UTC)
    sides = [Side(root / "flushed", seed, flush=True), Side(root / "unflushed", seed, flush=False)]
    report: Json = {
        "benchmark": "bench_memtable",
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "started": started.isoformat(),
        "machine": machine_info(root),
        "config": {"sizes": targets, "samples": samples, "seed": seed},
        "results": [],
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"bench_memtable-{started.strftime('%Y%m%d-%H%M%S')}.json"
    done = 0
    try:
        for size in targets:
            with click.progressbar(
                length=size - done, label=f"filling both to {size:>7,}", file=sys.stderr
            ) as bar:
                while done < size:
                    step = min(100, size - done)
                    interleave(sides, step)
                    done += step
                    bar.update(step)
            writer_cpu = [side.thread_cpu for side in sides]
            latencies, background = interleave(sides, samples)
            done += samples
            flushed, unflushed = figures(latencies[0]), figures(latencies[1])
            for figure, side, cpu in zip((flushed, unflushed), sides, writer_cpu, strict=True):
                figure["writer_cpu_ms"] = (side.thread_cpu - cpu) / samples * 1000
            row = {
                "size": size,
                "flushed": flushed,
                "unflushed": unflushed,
                "p50_unflushed_over_flushed": unflushed["p50_ms"] / flushed["p50_ms"],
                # RocksDB's own threads, both stores together (flushes, compactions)
                "background_cpu_ms_per_write_pair": background / samples * 1000,
                "background_flushes": sides[0].flusher.flushes,
            }
            report["results"].append(row)
            path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            click.echo(
                f"  {size:,}: p50 {flushed['p50_ms']:.2f} ms flushed, "
                f"{unflushed['p50_ms']:.2f} ms not ({row['p50_unflushed_over_flushed']:.2f}×)",
                err=True,
            )
    finally:
        for side in sides:
            side.mem.close()
    click.echo(f"\n{samples} writes to each store per size, one to each in turn (ms)\n")
    click.echo(
        f"{'size':>8} {'flushed p50':>11} {'p99':>6} {'w/s':>5} {'cpu':>5} "
        f"{'unflushed p50':>13} {'p99':>6} {'w/s':>5} {'cpu':>5} {'ratio':>6} "
        f"{'bg cpu':>6} {'flushes':>7}"
    )
    for r in report["results"]:
        f, u = r["flushed"], r["unflushed"]
        click.echo(
            f"{r['size']:>8,} {f['p50_ms']:>11.2f} {f['p99_ms']:>6.2f} {f['per_s']:>5.0f} "
            f"{f['writer_cpu_ms']:>5.2f} {u['p50_ms']:>13.2f} {u['p99_ms']:>6.2f} "
            f"{u['per_s']:>5.0f} {u['writer_cpu_ms']:>5.2f} "
            f"{r['p50_unflushed_over_flushed']:>5.2f}× "
            f"{r['background_cpu_ms_per_write_pair']:>6.2f} {r['background_flushes']:>7}"
        )
    click.echo(
        "\ncpu: the writing thread's CPU per write; bg cpu: RocksDB's own threads (flushes, "
        "compactions) per pair of writes, both stores together"
    )
    click.echo(f"\nwrote {path}", err=True)


if __name__ == "__main__":
    main()
