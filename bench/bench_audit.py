"""Whole-scope audits and the rdflib view, measured side by side in one run.

For each size N (facts written through the gate with ``memory.admin.import_claims``):

1. ``memory.admin.audit()``: pySHACL over the scope's view with doxa's shapes and a domain shape
   (a ``sh:maxCount`` that a few subjects break): wall time and peak Python memory
   (``tracemalloc``), and how many violations it found;
   beside the same pySHACL validation over an in-memory rdflib copy of the view (copy
   included), the ratio view/copy;
2. the same query read two ways: ``memory.rdf.dataset().query(q)`` (rdflib over the live store)
   against ``memory.rdf.sparql(q)``, and a ``triples()`` loop over the view against the same
   pattern as a SPARQL SELECT; each timed over ``--repeats`` runs, with the ratio.

    python bench/bench_audit.py                      # 1k, 10k (a few minutes)
    python bench/bench_audit.py --sizes 10000,100000 # the issue's sizes (long: see benchmarks.md)

Results go to stdout as a table and to ``--out``/bench_audit-<UTC time>.json; with matplotlib
installed, ``bench/audit.png`` plots audit time against N (skipped, with a line, without it).
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from pyshacl import validate
from rdflib import Graph, URIRef

import doxa
from doxa.audit.shape_sources import domain_shapes

EX = "http://example.org/"
DOMAIN = b"""@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:likes a owl:ObjectProperty . ex:livesIn a owl:ObjectProperty, owl:FunctionalProperty .
"""
SHAPE = b"""@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
ex:FewLikes a sh:NodeShape ; sh:targetSubjectsOf ex:likes ;
    sh:property [ sh:path ex:likes ; sh:maxCount 3 ; sh:message "four likes or more" ] .
"""
QUERY = f"SELECT ?s ?o WHERE {{ ?s <{EX}likes> ?o }}"


def claims(count: int) -> list[dict[str, Any]]:
    """``count`` structured facts: person i likes drink j; every 50th person likes 5 drinks."""
    rows = []
    for i in range(count):
        person = i // 5 if i % 250 < 5 else i
        rows.append(
            {
                "text": f"person {person} likes drink {i}",
                "topic": f"topic{i % 20}",
                "subject": f"{EX}person{person}",
                "predicate": f"{EX}likes",
                "object": f"{EX}drink{i}",
                "authority": "owner",
            }
        )
    return rows


def traced_peak(work: Callable[[], object]) -> int:
    """The peak bytes Python allocated while ``work`` ran (pyoxigraph's own, in Rust, are not
    seen by tracemalloc)."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def timed(work: Callable[[], object], repeats: int) -> float:
    """The median seconds of ``repeats`` runs of ``work``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(size: int, repeats: int) -> dict[str, Any]:
    mem = doxa.Memory.open(None, scope="bench", clock=doxa.FixedClock("2026-03-01T09:00:00Z"))
    mem.schema.add_ontology(DOMAIN, name="domain.ttl")
    mem.schema.add_shapes(SHAPE, name="likes.ttl")
    start = time.perf_counter()
    report = mem.admin.import_claims(claims(size))
    fill = time.perf_counter() - start
    # times first, untraced; then the peaks, each path once more under tracemalloc (which
    # slows what it traces, so it never runs during a timing)
    ds = mem.rdf.dataset()
    shapes = Graph()
    shapes += mem.gate.shapes.graph
    shapes += domain_shapes(mem.store)

    def on_a_copy() -> bool:
        # the same validation over an in-memory copy of the view (an export-then-pySHACL
        # audit), for the side-by-side figure
        copy = Graph()
        copy += ds.default_graph
        return bool(validate(copy, shacl_graph=shapes)[0])

    start = time.perf_counter()
    audit = mem.admin.audit()
    audit_s = time.perf_counter() - start
    start = time.perf_counter()
    copied = on_a_copy()
    copy_s = time.perf_counter() - start
    assert copied == audit.conforms
    peak = traced_peak(mem.admin.audit)
    copy_peak = traced_peak(on_a_copy)
    current = ds.graph(mem.scope.current)
    likes = URIRef(f"{EX}likes")
    via_rdflib = timed(lambda: list(ds.query(QUERY)), repeats)
    via_sparql = timed(lambda: mem.rdf.sparql(QUERY).rows, repeats)
    loop = timed(lambda: list(current.triples((None, likes, None))), repeats)
    rows = len(mem.rdf.sparql(QUERY).rows)
    mem.close()
    return {
        "facts": size,
        "admitted": sum(1 for r in report.receipts if r.outcome is doxa.Outcome.ADMITTED),
        "fill_s": fill,
        "audit_s": audit_s,
        "audit_peak_mb": peak / 2**20,
        "copy_peak_mb": copy_peak / 2**20,
        "audit_triples": audit.triples,
        "copy_audit_s": copy_s,
        "audit_vs_copy": audit_s / copy_s,
        "violations": len(audit.violations),
        "rows": rows,
        "dataset_query_s": via_rdflib,
        "sparql_s": via_sparql,
        "query_ratio": via_rdflib / via_sparql,
        "triples_loop_s": loop,
        "loop_ratio": loop / via_sparql,
    }


def plot(results: list[dict[str, Any]], target: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        click.echo("matplotlib is not installed: no plot (pip install matplotlib)", err=True)
        return
    sizes = [r["facts"] for r in results]
    figure, axis = plt.subplots(figsize=(6, 4))
    axis.plot(sizes, [r["audit_s"] for r in results], marker="o", label="doxa audit")
    axis.plot(sizes, [r["dataset_query_s"] for r in results], marker="o", label="dataset().query")
    axis.plot(sizes, [r["sparql_s"] for r in results], marker="o", label="sparql()")
    axis.set(xscale="log", yscale="log", xlabel="facts", ylabel="seconds")
    axis.legend()
    figure.tight_layout()
    figure.savefig(target)
    click.echo(f"plot: {target}", err=True)


@click.command()
@click.option("--sizes", default="1000,10000", show_default=True, help="Facts, comma-separated.")
@click.option("--repeats", default=5, show_default=True, help="Timed runs of each read.")
@click.option("--out", default="bench/results", show_default=True, type=click.Path(path_type=Path))
def main(sizes: str, repeats: int, out: Path) -> None:
    """Audit time and memory, and reads through the rdflib view against memory.rdf.sparql."""
    header = (
        f"{'facts':>8} {'triples':>8} {'audit s':>8} {'copy s':>7} {'ratio':>6} {'peak MB':>8} "
        f"{'copy MB':>8} "
        f"{'viol.':>6} {'rows':>7} "
        f"{'ds.query s':>10} {'sparql s':>9} {'ratio':>6} {'triples() s':>11} {'ratio':>6}"
    )
    click.echo(header)
    results = []
    for size in (int(s.replace("k", "000")) for s in sizes.split(",")):
        click.echo(f"filling {size} facts …", err=True)
        r = measure(size, repeats)
        results.append(r)
        click.echo(  # each size as it finishes: a long run stopped part way keeps its rows
            f"{r['facts']:>8} {r['audit_triples']:>8} {r['audit_s']:>8.2f} "
            f"{r['copy_audit_s']:>7.2f} {r['audit_vs_copy']:>6.2f} {r['audit_peak_mb']:>8.1f} "
            f"{r['copy_peak_mb']:>8.1f} "
            f"{r['violations']:>6} {r['rows']:>7} {r['dataset_query_s']:>10.4f} "
            f"{r['sparql_s']:>9.4f} {r['query_ratio']:>6.2f} {r['triples_loop_s']:>11.4f} "
            f"{r['loop_ratio']:>6.2f}"
        )
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (out / f"bench_audit-{stamp}.json").write_text(
        json.dumps(
            {
                "command": sys.argv,
                "python": platform.python_version(),
                "machine": platform.platform(),
                "results": results,
            },
            indent=2,
        ),
        encoding="utf-8",
    )
    plot(results, Path(__file__).with_name("audit.png"))


if __name__ == "__main__":
    main()
