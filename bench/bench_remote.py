"""Benchmark the store backends in one run: the embedded store, the Oxigraph server, Virtuoso.

Each backend gets the same seeded write stream (bench/workload.py): ``--size`` gated writes fill
it, then ``--samples`` more writes are timed one by one (gated writes per second) and
``--queries`` recall queries are timed (latency). The servers run on this machine, on loopback,
started and stopped by this script the way the tests start them (tests/servers.py), so the
ratios to the embedded store show the cost of HTTP and of each server, not of a network.

    python bench/bench_remote.py                 # 1k facts per backend, about 3 minutes
    python bench/bench_remote.py --size 300      # a quick look
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the servers are started as the tests start them

from tests.servers import oxigraph_server, virtuoso_server  # noqa: E402

import doxa  # noqa: E402
from doxa.store import EmbeddedStore, Store  # noqa: E402
from workload import Stream, ontology_turtle  # noqa: E402

SCOPE = "bench"
Json = dict[str, Any]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@contextmanager
def embedded(directory: Path) -> Iterator[Store]:
    store = EmbeddedStore(directory / "embedded")
    try:
        yield store
    finally:
        store.close()


@contextmanager
def served(
    start: Callable[[Path], AbstractContextManager[Any]], directory: Path
) -> Iterator[Store]:
    with start(directory) as server:
        store = server.store()
        try:
            yield store
        finally:
            store.close()


def measure(store: Store, size: int, samples: int, queries: int, seed: int) -> Json:
    """Fill one store with ``size`` gated writes, then time more writes and recalls."""
    mem = doxa.Memory(store, scope=SCOPE)
    stream = Stream(seed)
    mem.schema.add_ontology(ontology_turtle())
    for write in stream.rules():
        mem.remember(write.text, **write.kwargs())
    started = time.perf_counter()
    for _ in range(size):
        write = stream.next()
        stream.observe(write, mem.remember(write.text, **write.kwargs()).outcome.value)
    fill = time.perf_counter() - started
    latencies = []
    for _ in range(samples):
        write = stream.next()
        start = time.perf_counter()
        outcome = mem.remember(write.text, **write.kwargs()).outcome.value
        latencies.append(time.perf_counter() - start)
        stream.observe(write, outcome)
    asked = [stream.query() for _ in range(queries)]
    recalls = []
    for text in asked:
        start = time.perf_counter()
        mem.recall(text)
        recalls.append(time.perf_counter() - start)
    return {
        "fill_s": round(fill, 2),
        "writes_per_s": round(len(latencies) / sum(latencies), 1),
        "write_p50_ms": round(percentile(latencies, 50) * 1000, 2),
        "write_p95_ms": round(percentile(latencies, 95) * 1000, 2),
        "recall_p50_ms": round(percentile(recalls, 50) * 1000, 2),
        "recall_p95_ms": round(percentile(recalls, 95) * 1000, 2),
        "receipts": mem.verify(),
    }


@click.command()
@click.option("--size", default=1000, show_default=True, help="Gated writes that fill each store.")
@click.option("--samples", default=200, show_default=True, help="Gated writes timed after it.")
@click.option("--queries", default=100, show_default=True, help="Recall queries timed.")
@click.option("--seed", default=7, show_default=True, help="Seed of the write stream.")
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=ROOT / "bench" / "results",
    show_default=True,
    help="Directory for the JSON report.",
)
def main(size: int, samples: int, queries: int, seed: int, out: Path) -> None:
    """Gated writes per second and recall latency per backend, as ratios to embedded."""
    backends: dict[str, Callable[[Path], AbstractContextManager[Store]]] = {
        "embedded": embedded,
        "oxigraph-server": lambda d: served(oxigraph_server, d),
        "virtuoso": lambda d: served(virtuoso_server, d),
    }
    results: dict[str, Json] = {}
    with tempfile.TemporaryDirectory(prefix="doxa-bench-remote-") as tmp:
        for name, open_store in backends.items():
            directory = Path(tmp) / name
            directory.mkdir()
            click.echo(
                f"{name}: {size} writes, then {samples} timed writes, {queries} recalls", err=True
            )
            with open_store(directory) as store:
                results[name] = measure(store, size, samples, queries, seed)
            click.echo(f"  {results[name]}", err=True)
    base = results["embedded"]
    click.echo(
        f"{'backend':16} {'writes/s':>9} {'× embedded':>11} {'write p50 ms':>13} "
        f"{'recall p50 ms':>14} {'× embedded':>11}"
    )
    for name, r in results.items():
        click.echo(
            f"{name:16} {r['writes_per_s']:9.1f} {r['writes_per_s'] / base['writes_per_s']:11.3f} "
            f"{r['write_p50_ms']:13.2f} {r['recall_p50_ms']:14.2f} "
            f"{r['recall_p50_ms'] / base['recall_p50_ms']:11.1f}"
        )
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report = {
        "command": " ".join(sys.argv),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_average": os.getloadavg(),  # other jobs on the machine skew every backend
        },
        "config": {"size": size, "samples": samples, "queries": queries, "seed": seed},
        "results": results,
    }
    path = out / f"bench_remote-{stamp}.json"
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    click.echo(f"report: {path}", err=True)


if __name__ == "__main__":
    main()
