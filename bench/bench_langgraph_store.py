"""The LangGraph store's cost per call as the scope grows, beside Memory's own, in one run.

For each size N (items put through ``DoxaStore`` into one namespace, on disk), the p50 over
``--samples`` calls of:

1. ``DoxaStore.put`` of a new key, beside ``Memory.remember`` of a plain fact (the ratio is
   the store's overhead: the key's lookup and the JSON);
2. ``DoxaStore.put`` of an existing key (a revision), and ``DoxaStore.get``;
3. ``DoxaStore.search`` with a query (recall) and ``Memory.recall`` of the same words.

The last row prints each figure at the largest N over the smallest: per-call cost must not
grow with the store (ratios near 1).

    python bench/bench_langgraph_store.py                   # 1k, 5k (about a minute)
    python bench/bench_langgraph_store.py --sizes 1000,20000

Results go to stdout and to ``--out``/bench_langgraph_store-<UTC time>.json; with matplotlib
installed, ``bench/langgraph_store.png`` plots the p50s against N (skipped, with a line,
without it).
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

import doxa
from doxa.interfaces.langgraph_store import DoxaStore

NAMESPACE = ("bench", "items")
COLUMNS = ("put_ms", "remember_ms", "revise_ms", "get_ms", "search_ms", "recall_ms")


def p50(call: Callable[[int], object], samples: int) -> float:
    """The median milliseconds of ``call(i)`` for i in 0 … samples-1."""
    times = []
    for i in range(samples):
        start = time.perf_counter()
        call(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def measure(memory: doxa.Memory, store: DoxaStore, size: int, samples: int) -> dict[str, Any]:
    """The p50s once the namespace holds ``size`` items."""
    fresh = f"s{size}-"

    def put(i: int) -> None:
        store.put(NAMESPACE, f"{fresh}{i}", {"text": f"new item {i} of run {size}"})

    def remember(i: int) -> None:
        memory.remember(f"plain fact {i} of run {size}", topic="bench.plain")

    def revise(i: int) -> None:
        store.put(NAMESPACE, f"k{i}", {"text": f"item {i} revised in run {size}"})

    return {
        "items": size,
        "put_ms": p50(put, samples),
        "remember_ms": p50(remember, samples),
        "revise_ms": p50(revise, samples),
        "get_ms": p50(lambda i: store.get(NAMESPACE, f"k{i}"), samples),
        "search_ms": p50(lambda i: store.search(NAMESPACE, query=f"item {i}"), samples),
        "recall_ms": p50(lambda i: memory.recall(f"item {i}", topic="bench.items"), samples),
    }


def plot(results: list[dict[str, Any]], target: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        click.echo("matplotlib is not installed: no plot (pip install matplotlib)", err=True)
        return
    sizes = [r["items"] for r in results]
    figure, axis = plt.subplots(figsize=(6, 4))
    for column in COLUMNS:
        axis.plot(sizes, [r[column] for r in results], marker="o", label=column[:-3])
    axis.set(xscale="log", xlabel="items in the namespace", ylabel="p50 ms")
    axis.legend()
    figure.tight_layout()
    figure.savefig(target)
    click.echo(f"plot: {target}", err=True)


@click.command()
@click.option("--sizes", default="1000,5000", show_default=True, help="Items, comma-separated.")
@click.option("--samples", default=50, show_default=True, help="Timed calls of each kind.")
@click.option("--out", default="bench/results", show_default=True, type=click.Path(path_type=Path))
def main(sizes: str, samples: int, out: Path) -> None:
    """Per-call cost of the LangGraph store against the scope's size, beside Memory's."""
    wanted = sorted(int(s.replace("k", "000")) for s in sizes.split(","))
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        # the revisions timed are one agent's closings, hundreds a second: a burst that would
        # raise the alarm after two and time the held path instead, so no burst is counted
        memory = doxa.Memory.open(
            Path(folder) / "store", scope="bench", policy=doxa.ClosingPolicy(burst_size=10**9)
        )
        memory.owner.grant("general")  # revisions close at once, as an owner's grant allows
        store = DoxaStore(memory)
        filled = 0
        click.echo(f"{'items':>7} " + " ".join(f"{c:>12}" for c in COLUMNS))
        for size in wanted:
            click.echo(f"filling {size} items …", err=True)
            for i in range(filled, size):
                store.put(NAMESPACE, f"k{i}", {"text": f"item {i} about subject {i % 97}"})
            filled = size
            r = measure(memory, store, size, samples)
            results.append(r)
            click.echo(f"{size:>7} " + " ".join(f"{r[c]:>12.2f}" for c in COLUMNS))
        memory.close()
    if len(results) > 1:
        first, last = results[0], results[-1]
        ratios = {c: last[c] / first[c] for c in COLUMNS}
        click.echo(f"{'ratio':>7} " + " ".join(f"{ratios[c]:>11.2f}x" for c in COLUMNS))
        overhead = last["put_ms"] / last["remember_ms"]
        click.echo(f"put / remember at {last['items']}: {overhead:.2f}x")
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (out / f"bench_langgraph_store-{stamp}.json").write_text(
        json.dumps(
            {"command": sys.argv, "python": platform.python_version(), "results": results},
            indent=2,
        ),
        encoding="utf-8",
    )
    plot(results, Path("bench") / "langgraph_store.png")


if __name__ == "__main__":
    main()
