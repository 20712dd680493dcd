"""Benchmark the background memtable flush: gated writes with and without it.

Run ``python bench/bench_memtable.py --help``. Two ways to run it:

- **side by side** (the default): a store per spacing (``--spacings``) gets the same seeded
  write stream, one write to each in turn, so all see the same machine at the same moment.
  This compares latencies fairly; the CPU of RocksDB's own threads (flushes, compactions) can
  only be reported for all stores together.
- **``--alone SPACING``**: one store, one spacing, in this process only, with figures per
  window of writes: latency, wall time and the CPU of every thread per write, and the
  resident memory at the end. Run it once per spacing, one after another.

A spacing is ``proportional`` (what doxa does: ``doxa.store.flusher``), ``none`` (Oxigraph's
own behaviour: RocksDB flushes a 128 MB memtable when it is full) or a fixed number of quads.
"""

from __future__ import annotations

import json
import resource
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
    """One store, flushed at one spacing, and its copy of the write stream."""

    def __init__(self, path: Path, seed: int, spacing: str) -> None:
        self.spacing = spacing
        self.mem = doxa.Memory.open(path, scope=SCOPE)
        store = self.mem.store
        assert isinstance(store, EmbeddedStore)
        assert store.flusher is not None
        if spacing == "none":
            store.flusher.stop()
        elif spacing != "proportional":
            store.flusher.least = store.flusher.every = int(spacing)
            store.flusher.size = None  # a fixed spacing, whatever the store's size
        self.flusher = store.flusher
        self.stream = Stream(seed)
        self.mem.schema.add_ontology(ontology_turtle())
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


def side_by_side(
    root: Path,
    spacings: list[str],
    targets: list[int],
    samples: int,
    seed: int,
    report: Json,
    path: Path,
) -> None:
    sides = [Side(root / name, seed, name) for name in spacings]
    done = 0
    try:
        for size in targets:
            with click.progressbar(
                length=max(size - done, 0), label=f"filling to {size:>7,}", file=sys.stderr
            ) as bar:
                while done < size:
                    step = min(100, size - done)
                    interleave(sides, step)
                    done += step
                    bar.update(step)
            writer_cpu = [side.thread_cpu for side in sides]
            latencies, background = interleave(sides, samples)
            done += samples
            row: Json = {"size": size}
            for side, seconds, cpu in zip(sides, latencies, writer_cpu, strict=True):
                row[side.spacing] = {
                    **figures(seconds),
                    "writer_cpu_ms": (side.thread_cpu - cpu) / samples * 1000,
                    "flushes": side.flusher.flushes,
                }
            # RocksDB's own threads, every store together (flushes, compactions)
            row["background_cpu_ms_per_round"] = background / samples * 1000
            report["results"].append(row)
            path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    finally:
        for side in sides:
            side.mem.close()
    first = spacings[0]
    click.echo(f"\n{samples} writes to each store per size, one to each in turn (ms)\n")
    click.echo(
        f"{'size':>8} {'spacing':>12} {'p50':>6} {'p99':>6} {'w/s':>5} {'cpu':>5} "
        f"{'p50 ÷ ' + first:>18} {'flushes':>7}"
    )
    for r in report["results"]:
        for name in spacings:
            f = r[name]
            click.echo(
                f"{r['size']:>8,} {name:>12} {f['p50_ms']:>6.2f} {f['p99_ms']:>6.2f} "
                f"{f['per_s']:>5.0f} {f['writer_cpu_ms']:>5.2f} "
                f"{f['p50_ms'] / r[first]['p50_ms']:>17.2f}× {f['flushes']:>7}"
            )
        click.echo(
            f"{'':>8} {'background':>12} {r['background_cpu_ms_per_round']:>6.2f} ms a round"
        )
    click.echo("\ncpu: the writing thread's CPU per write; background: RocksDB's own threads")


def alone(
    root: Path, spacing: str, total: int, window: int, seed: int, report: Json, path: Path
) -> None:
    side = Side(root / spacing, seed, spacing)
    latencies: list[float] = []
    try:
        cpu, wall, writer = time.process_time(), time.perf_counter(), side.thread_cpu
        for n in range(1, total + 1):
            latencies.append(side.write())
            if n % window:
                continue
            now_cpu, now_wall = time.process_time(), time.perf_counter()
            row = {
                "writes": n,
                **figures(latencies[-window:]),
                "wall_ms_per_write": (now_wall - wall) / window * 1000,
                "cpu_ms_per_write": (now_cpu - cpu) / window * 1000,
                "writer_cpu_ms_per_write": (side.thread_cpu - writer) / window * 1000,
                "spacing_quads": side.flusher.every if spacing != "none" else None,
                "flushes": side.flusher.flushes,
            }
            cpu, wall, writer = now_cpu, now_wall, side.thread_cpu
            report["results"].append(row)
            path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            click.echo(
                f"{spacing} @{n:,}: p50 {row['p50_ms']:.2f} ms, wall {row['wall_ms_per_write']:.2f}"
                f" ms, cpu {row['cpu_ms_per_write']:.2f} ms (writer "
                f"{row['writer_cpu_ms_per_write']:.2f}), spacing {row['spacing_quads']}, "
                f"flushes {row['flushes']}",
                err=True,
            )
    finally:
        side.mem.close()
    report["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    click.echo(f"\n{spacing}: a write per window of {window:,} (ms)\n")
    click.echo(f"{'writes':>8} {'p50':>6} {'wall':>6} {'cpu':>6} {'writer':>6} {'spacing':>8}")
    for r in report["results"]:
        click.echo(
            f"{r['writes']:>8,} {r['p50_ms']:>6.2f} {r['wall_ms_per_write']:>6.2f} "
            f"{r['cpu_ms_per_write']:>6.2f} {r['writer_cpu_ms_per_write']:>6.2f} "
            f"{r['spacing_quads'] or '-':>8}"
        )
    click.echo(f"\nresident memory at the end: {report['max_rss_mb']:,.0f} MB (peak)")


@click.command()
@click.option("--sizes", default="1000,10000,50000", show_default=True, help="Store sizes.")
@click.option("--samples", default=500, show_default=True, type=click.IntRange(min=10))
@click.option(
    "--spacings",
    default="proportional,none",
    show_default=True,
    help="Side by side: proportional, none, or a number of quads; the first is the base.",
)
@click.option("--alone", "alone_spacing", default=None, help="One store at this spacing.")
@click.option("--writes", default=100_000, show_default=True, help="With --alone: writes.")
@click.option("--window", default=10_000, show_default=True, help="With --alone: window.")
@click.option("--seed", default=7, show_default=True)
@click.option("--out", default="bench/results", show_default=True, type=click.Path(path_type=Path))
@click.option("--workdir", default=None, type=click.Path(file_okay=False, path_type=Path))
def main(
    sizes: str,
    samples: int,
    spacings: str,
    alone_spacing: str | None,
    writes: int,
    window: int,
    seed: int,
    out: Path,
    workdir: Path | None,
) -> None:
    """Gated writes with the memtable flushed at different spacings."""
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="doxa-memtable-", dir=workdir))
    started = datetime.now(UTC)
    report: Json = {
        "benchmark": "bench_memtable",
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "started": started.isoformat(),
        "machine": machine_info(root),
        "results": [],
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"bench_memtable-{started.strftime('%Y%m%d-%H%M%S')}.json"
    if alone_spacing is not None:
        report["config"] = {"alone": alone_spacing, "writes": writes, "window": window}
        alone(root, alone_spacing, writes, window, seed, report, path)
    else:
        names = [name.strip() for name in spacings.split(",") if name.strip()]
        report["config"] = {"spacings": names, "sizes": parse_sizes(sizes), "samples": samples}
        side_by_side(root, names, parse_sizes(sizes), samples, seed, report, path)
    click.echo(f"\nwrote {path} (stores in {root})", err=True)


if __name__ == "__main__":
    main()
