"""Benchmark exports and imports: doxa's canonical export, verify and import beside raw pyoxigraph.

Run ``python bench/bench_exports.py --facts 5000``. One run fills an in-memory memory through
``Memory.remember``, then times, in the same process: ``memory.admin.export`` (N-Quads, TriG),
``verify_export`` on the file, ``memory.admin.load_export`` into a fresh store, and pyoxigraph's own
N-Quads dump and load of the same quads (no canonicalisation, no chain check), and prints each
doxa step as a ratio to the raw step it is closest to.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import click
import pyoxigraph as ox

import doxa
from doxa.audit.chain import verify_export
from doxa.store.convert import to_ox, to_ox_graph


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


@click.command()
@click.option("--facts", default=3000, show_default=True, help="Facts written before measuring.")
def main(facts: int) -> None:
    """Print export, verify and import times for a memory of FACTS facts, beside raw pyoxigraph."""
    memory = doxa.Memory.open(None, scope="bench", clock=doxa.FixedClock("2026-03-01"))
    topics = ["meetings", "drinks", "people", "home", "work"]
    for i in range(facts):
        memory.remember(
            f"Note {i}: item {i % 97} is in room {i % 31}",
            topic=topics[i % 5],
            authority="owner",
        )
    folder = Path(tempfile.mkdtemp(prefix="doxa-bench-"))
    nq, trig, raw = folder / "x.nq", folder / "x.trig", folder / "raw.nq"
    rows: dict[str, float] = {}
    rows["export N-Quads (doxa, RDFC-1.0)"] = timed(lambda: memory.admin.export(nq, audit=True))
    rows["export TriG (doxa)"] = timed(lambda: memory.admin.export(trig, audit=True))
    quads = [
        ox.Quad(to_ox(s), to_ox(p), to_ox(o), to_ox_graph(g))  # type: ignore[arg-type]
        for s, p, o, g in memory.store.quads()
    ]
    rows["dump N-Quads (raw pyoxigraph)"] = timed(
        lambda: ox.serialize(quads, output=str(raw), format=ox.RdfFormat.N_QUADS)
    )
    rows["verify export (doxa)"] = timed(lambda: verify_export(nq))
    fresh = doxa.Memory.open(None, scope="bench", clock=memory.clock)
    rows["import N-Quads (doxa, chain verified)"] = timed(lambda: fresh.admin.load_export(nq))
    target = ox.Store()
    rows["load N-Quads (raw pyoxigraph)"] = timed(
        lambda: target.load(path=str(raw), format=ox.RdfFormat.N_QUADS)
    )
    count = len(nq.read_text(encoding="utf-8").splitlines())
    click.echo(f"{facts} facts, {count} quads in the audit export")
    for name, seconds in rows.items():
        click.echo(f"  {name:40s} {seconds * 1000:9.1f} ms  {count / seconds:10.0f} quads/s")
    base_dump = rows["dump N-Quads (raw pyoxigraph)"]
    base_load = rows["load N-Quads (raw pyoxigraph)"]
    click.echo("ratios (doxa / raw pyoxigraph, measured in this run):")
    ratios = {
        "export N-Quads / dump": rows["export N-Quads (doxa, RDFC-1.0)"] / base_dump,
        "export TriG    / dump": rows["export TriG (doxa)"] / base_dump,
        "import         / load": rows["import N-Quads (doxa, chain verified)"] / base_load,
    }
    for name, ratio in ratios.items():
        click.echo(f"  {name}  {ratio:6.1f}x")
    same = (
        fresh.admin.export(folder / "again.nq", audit=True) and (folder / "again.nq").read_bytes()
    )
    click.echo(f"round trip gives the same bytes: {same == nq.read_bytes()}")


if __name__ == "__main__":
    main()
