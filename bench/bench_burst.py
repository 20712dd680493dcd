"""The burst count's cost as one writer's history grows: it runs on every closing write.

One agent writer closes facts all day (one closing every six minutes, so no alarm: two in
any ten-minute window) in an in-memory scope. At each size N (closings by that writer so
far), the p50 over ``--samples`` runs of:

- ``new``: :func:`doxa.reads.ledger.recent_closings`, as the gate runs it: the closings of
  the window found by their minute keys (``doxa:closingMinute``), then by origin;
- ``by origin``: the count as it was before the minute keys, starting from the origin
  (``?receipt doxa:origin ?origin``): it reads every receipt the writer ever left.

The last row divides each figure at the largest N by the smallest: the gate's count must
stay near 1 (independent of the store's size).

    python bench/bench_burst.py                       # 500, 2000, 8000 closings (~1 min)
    python bench/bench_burst.py --sizes 200,800 --samples 100
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta

import click
from rdflib import URIRef

import doxa
from doxa.model import Authority
from doxa.reads.ledger import recent_closings, writer
from doxa.resources import query
from doxa.store import Dataset
from doxa.terms import dt_literal

DOMAIN = b"""
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:dayOfWeek a owl:ObjectProperty, owl:FunctionalProperty .
"""
EX = "http://example.org/"
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")

#: the query before the minute keys: the origin first, then every receipt it names
BY_ORIGIN = """
SELECT (COUNT(DISTINCT ?target) AS ?closed) WHERE {
  ?receipt doxa:origin ?origin ;
           doxa:outcome doxa:Admitted ;
           doxa:relation ?relation ;
           doxa:target ?target ;
           doxa:recordedAt ?at .
  FILTER(?relation IN (doxa:Replaces, doxa:WasWrong) && ?at >= ?since)
}
"""


def count_by_origin(mem: doxa.Memory, prefixes: str, origin: URIRef, since: datetime) -> int:
    """The count as the query before the minute keys made it."""
    found = mem.store.select(
        prefixes + BY_ORIGIN,
        dataset=Dataset(default=(mem.scope.log,)),
        bindings={"origin": [origin], "since": dt_literal(since)},
    )
    return int(str(found[0]["closed"]))


def p50_us(run: Callable[[], int], samples: int) -> float:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


@click.command()
@click.option("--sizes", default="500,2000,8000", show_default=True, help="Closings so far.")
@click.option("--samples", default=300, show_default=True, type=click.IntRange(min=10))
def main(sizes: str, samples: int) -> None:
    """Time the burst count against the number of closings one writer made before."""
    wanted = sorted(int(s) for s in sizes.split(","))
    clock = doxa.FixedClock("2026-03-01T09:00:00Z")
    rows = []
    with doxa.Memory.open(None, scope="bench", clock=clock) as mem:
        mem.schema.add_ontology(DOMAIN)
        mem.owner.grant("schedule")
        origin = writer(Authority.AGENT)
        assert origin is not None
        prefixes = query("recent_closings").split("SELECT")[0]
        closed = written = 0
        click.echo(f"{'closings':>9} {'new µs':>9} {'by origin µs':>13}")
        for size in wanted:
            while closed < size:
                clock.advance(timedelta(minutes=6))
                written += 1  # 50 subjects in turn, each on another day than the last time
                day = DAYS[(written // 50) % len(DAYS)]
                receipt = mem.remember(
                    f"s{written % 50} calls on {day}",
                    topic="calls",
                    kind="schedule",
                    subject=f"{EX}s{written % 50}",
                    predicate=f"{EX}dayOfWeek",
                    object=EX + day,
                    valid_from=clock.now(),
                )
                if receipt.relation is doxa.Relation.REPLACES:
                    assert receipt.outcome is doxa.Outcome.ADMITTED, receipt.reason
                    closed += 1
            now = clock.now()
            since = now - doxa.ClosingPolicy().burst_window
            new = functools.partial(recent_closings, mem.store, mem.scope, (origin,), since, now)
            by_origin = functools.partial(count_by_origin, mem, prefixes, origin, since)
            assert new() == by_origin() >= 1
            rows.append((size, p50_us(new, samples), p50_us(by_origin, samples)))
            click.echo(f"{size:>9} {rows[-1][1]:>9.0f} {rows[-1][2]:>13.0f}")
    first, last = rows[0], rows[-1]
    click.echo(f"{'ratio':>9} {last[1] / first[1]:>9.2f} {last[2] / first[2]:>13.2f}")


if __name__ == "__main__":
    main()
