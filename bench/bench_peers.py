"""doxa beside what users would pick instead, measured side by side in one run.

Systems, each on disk, each fed the same seeded write stream (bench/workload.py):

- ``doxa``: filled through the gated bulk import (``memory.admin.import_claims``), then single
  gated writes (``remember``) and ``recall`` timed at each size;
- ``raw``: plain pyoxigraph, each write the claim's quads in one ``Store.extend``
  transaction (no gate); recall is a SPARQL ``CONTAINS`` scan over the texts. Also the raw
  transaction throughput of the very quads doxa's import wrote (the bulk-import target);
- ``naive``: an rdflib graph validated whole by pySHACL on every write (what one writes
  first); capped at ``--naive-max`` facts since each write re-validates everything; recall is
  an rdflib SPARQL ``CONTAINS`` query;
- ``mcp``: the official MCP memory server (npm ``@modelcontextprotocol/server-memory``,
  installed by ``npm install`` into ``bench/.peers``), driven over stdio by the official
  ``mcp`` Python client: ``create_entities`` / ``add_observations`` for a write and
  ``search_nodes`` for recall.

Prints a table and the ratios, writes ``--out/bench_peers-<time>.json`` and a PNG plot of
latency against store size per system beside it.

    python bench/bench_peers.py                # 1k and 10k
    python bench/bench_peers.py --large        # and 100k
"""

from __future__ import annotations

import asyncio
import gc
import json
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import pyoxigraph as ox
from rdflib import Graph

import doxa
from bench_gate import RawStore, machine_info, summary
from doxa.store.convert import from_ox, to_ox
from workload import Stream, Write, ontology_turtle

Json = dict[str, Any]
HERE = Path(__file__).resolve().parent
PEERS = HERE / ".peers"
MCP_PACKAGE = "@modelcontextprotocol/server-memory"
MCP_ENTRY = PEERS / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
DOXA_NS = "https://w3id.org/doxa#"
TARGETS = {"recall_vs_mcp_10k": 10.0, "recall_vs_mcp_100k": 50.0, "bulk_vs_raw": 0.25}


def _log(message: str) -> None:
    click.echo(message, err=True)


def _word(query: str) -> str:
    """One word of a recall query: the MCP server matches its query as one substring."""
    return max(query.split(), key=len)


# -- doxa --------------------------------------------------------------------------------


def _row(write: Write) -> Json:
    return {"text": write.text, **write.kwargs()}


def doxa_grow(mem: doxa.Memory, stream: Stream, count: int, log: list[Write]) -> Json:
    """Grow the store by ``count`` writes through the gated bulk import (timed)."""
    writes = [stream.next() for _ in range(count)]
    before = sum(1 for _ in mem.store.quads())
    start = time.perf_counter()
    with click.progressbar(length=count, label="doxa import", file=sys.stderr) as bar:
        report = mem.admin.import_claims([_row(w) for w in writes], progress=bar.update)
    elapsed = time.perf_counter() - start
    for write, receipt in zip(writes, report.receipts, strict=True):
        stream.observe(write, receipt.outcome.value)
    log.extend(writes)
    quads = sum(1 for _ in mem.store.quads()) - before
    return {
        "claims": count,
        "seconds": round(elapsed, 3),
        "claims_per_s": count / elapsed,
        "quads_written": quads,
        "quads_per_s": quads / elapsed,
        "batches": report.batches,
        "outcomes": report.counts,
    }


def doxa_writes(mem: doxa.Memory, writes: list[Write], stream: Stream) -> Json:
    latencies = []
    for write in writes:
        start = time.perf_counter()
        receipt = mem.remember(write.text, **write.kwargs())
        latencies.append(time.perf_counter() - start)
        stream.observe(write, receipt.outcome.value)
    return summary(latencies)


def doxa_recalls(mem: doxa.Memory, queries: list[str]) -> Json:
    for q in queries[:3]:
        mem.recall(q)
    latencies, hits = [], 0
    for q in queries:
        start = time.perf_counter()
        found = mem.recall(q)
        latencies.append(time.perf_counter() - start)
        hits += bool(found)
    return {**summary(latencies), "answered": hits}


def raw_transaction(mem: doxa.Memory, workdir: Path) -> Json:
    """Raw pyoxigraph throughput on the very quads doxa's import wrote: one ``extend``."""
    quads = [
        ox.Quad(to_ox(s), to_ox(p), to_ox(o), ox.NamedNode(str(g)))  # type: ignore[arg-type]
        for s, p, o, g in mem.store.quads()
    ]
    target = workdir / "raw-transaction"
    store = ox.Store(str(target))
    gc.collect()
    start = time.perf_counter()
    store.extend(quads)
    store.flush()
    elapsed = time.perf_counter() - start
    del store
    shutil.rmtree(target, ignore_errors=True)
    return {"quads": len(quads), "seconds": round(elapsed, 3), "quads_per_s": len(quads) / elapsed}


# -- raw pyoxigraph ------------------------------------------------------------------------

RAW_RECALL = (
    "SELECT ?f WHERE { GRAPH ?g { ?f <" + DOXA_NS + "text> ?t "
    "FILTER(CONTAINS(LCASE(?t), LCASE(?q))) } } LIMIT 10"
)


def raw_recalls(raw: RawStore, queries: list[str]) -> Json:
    latencies = []
    for q in queries:
        sparql = RAW_RECALL.replace("?q", json.dumps(_word(q)))
        start = time.perf_counter()
        list(raw.store.query(sparql))
        latencies.append(time.perf_counter() - start)
    return summary(latencies)


# -- naive: pySHACL over the whole graph on every write -----------------------------------


class Naive:
    """An rdflib graph validated whole with pySHACL against doxa's shapes on every write."""

    def __init__(self) -> None:
        from pyshacl import validate

        self.validate = validate
        self.graph = Graph()
        self.shapes = Graph().parse(HERE.parent / "shapes" / "doxa.ttl")
        self.raw = RawStore.__new__(RawStore)
        self.raw.count = 0

    def add(self, write: Write) -> None:
        for q in self.raw.fact_quads(write):
            self.graph.add((from_ox(q.subject), from_ox(q.predicate), from_ox(q.object)))

    def write(self, write: Write) -> bool:
        self.add(write)
        conforms, _, _ = self.validate(self.graph, shacl_graph=self.shapes)
        return bool(conforms)

    def recall(self, query: str) -> int:
        sparql = (
            f"SELECT ?f WHERE {{ ?f <{DOXA_NS}text> ?t "
            f"FILTER(CONTAINS(LCASE(?t), LCASE({json.dumps(_word(query))}))) }} LIMIT 10"
        )
        return len(list(self.graph.query(sparql)))


# -- the MCP memory server ------------------------------------------------------------------


def install_mcp() -> Path:
    """``npm install`` the official MCP memory server into bench/.peers (once)."""
    if not MCP_ENTRY.exists():
        if shutil.which("npm") is None:
            raise click.ClickException(
                "npm is not installed: apt-get install nodejs npm (scripts/debian-packages)."
            )
        PEERS.mkdir(exist_ok=True)
        _log(f"npm install {MCP_PACKAGE} into {PEERS}")
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", MCP_PACKAGE], cwd=PEERS, check=True
        )
    return MCP_ENTRY


def _entity(index: int, write: Write) -> Json:
    name = f"{write.label or write.topic}#{index}"
    return {"name": name, "entityType": write.kind, "observations": [write.text]}


async def mcp_run(
    entry: Path, memory_file: Path, plan: list[tuple[int, list[Write], list[Write], list[str]]]
) -> list[Json]:
    """Grow the server's graph size by size; time single writes and searches at each."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command="node", args=[str(entry)], env={"MEMORY_FILE_PATH": str(memory_file)}
    )
    results = []
    index = 0
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for size, grow, samples, queries in plan:
            start = time.perf_counter()
            for chunk in range(0, len(grow), 1000):
                entities = []
                for w in grow[chunk : chunk + 1000]:
                    index += 1
                    entities.append(_entity(index, w))
                await session.call_tool("create_entities", {"entities": entities})
            fill = time.perf_counter() - start
            latencies = []
            names = []
            for n, w in enumerate(samples):
                index += 1
                if n % 2 == 0 or not names:  # a new entity, or one more line on a known one
                    entity = _entity(index, w)
                    call = ("create_entities", {"entities": [entity]})
                    names.append(entity["name"])
                else:
                    observation = {"entityName": names[-1], "contents": [w.text]}
                    call = ("add_observations", {"observations": [observation]})
                started = time.perf_counter()
                result = await session.call_tool(*call)
                latencies.append(time.perf_counter() - started)
                if result.is_error:
                    raise click.ClickException(f"MCP {call[0]} failed: {result.content}")
            searches = []
            answered = 0
            for q in queries:
                started = time.perf_counter()
                result = await session.call_tool("search_nodes", {"query": _word(q)})
                searches.append(time.perf_counter() - started)
                text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                answered += '"name"' in text
            results.append(
                {
                    "size": size,
                    "fill_seconds": round(fill, 3),
                    "fill_per_s": len(grow) / fill if fill else None,
                    "write": summary(latencies),
                    "recall": {**summary(searches), "answered": answered},
                    "file_bytes": memory_file.stat().st_size,
                }
            )
            _log(f"mcp at {size:,}: done")
    return results


# -- the run --------------------------------------------------------------------------------


def _sizes(text: str) -> list[int]:
    return [int(float(s.replace("k", "e3").replace("m", "e6"))) for s in text.split(",")]


def plot(report: Json, target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, what in zip(axes, ("write", "recall"), strict=True):
        for system, rows in report["systems"].items():
            points = [(r["size"], r[what]["p50_ms"]) for r in rows if what in r]
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, marker="o", label=system)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("facts in the store")
        ax.set_ylabel(f"{what} p50 (ms)")
        ax.set_title(f"{'single write' if what == 'write' else 'recall'} latency")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    plt.close(fig)


@click.command()
@click.option("--sizes", default="1000,10000", show_default=True, help="Store sizes in facts.")
@click.option("--large", is_flag=True, help="Add 100k to the sizes.")
@click.option("--samples", default=100, show_default=True, help="Single writes timed per size.")
@click.option("--queries", default=50, show_default=True, help="Recalls timed per size.")
@click.option("--naive-max", default=1000, show_default=True, help="Largest size for naive.")
@click.option("--naive-samples", default=5, show_default=True)
@click.option("--no-mcp", is_flag=True, help="Leave out the MCP memory server.")
@click.option("--seed", default=7, show_default=True)
@click.option("--out", default=str(HERE / "results"), show_default=True)
@click.option("--workdir", default=None, help="Where the stores go (default: a temp folder).")
def main(
    sizes: str,
    large: bool,
    samples: int,
    queries: int,
    naive_max: int,
    naive_samples: int,
    no_mcp: bool,
    seed: int,
    out: str,
    workdir: str | None,
) -> None:
    """Gated writes and recall beside raw pyoxigraph, naive pySHACL and the MCP memory server."""
    steps = sorted(set(_sizes(sizes) + ([100_000] if large else [])))
    work = Path(tempfile.mkdtemp(prefix="doxa-peers-", dir=workdir))
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report: Json = {
        "command": " ".join(sys.argv),
        "started": stamp,
        "machine": machine_info(work),
        "sizes": steps,
        "systems": {"doxa": [], "raw": [], "naive": [], "mcp": []},
    }
    stream = Stream(seed)
    mem = doxa.Memory.open(work / "doxa", scope="bench")
    mem.schema.add_ontology(ontology_turtle())
    for write in stream.rules():
        stream.observe(write, mem.remember(write.text, **write.kwargs()).outcome.value)
    raw = RawStore(work / "raw")
    naive = Naive()
    log: list[Write] = []
    plan: list[tuple[int, list[Write], list[Write], list[str]]] = []
    size = 0
    for target in steps:
        grow = target - size
        _log(f"== {target:,} facts")
        doxa_fill = doxa_grow(mem, stream, grow, log)
        new = log[-grow:]
        raw.fill(new)
        if target <= naive_max:
            for w in new:
                naive.add(w)
        size = target
        writes = [stream.next() for _ in range(samples)]
        asked = [stream.query() for _ in range(queries)]
        raw_tx = raw_transaction(mem, work)
        report["systems"]["doxa"].append(
            {
                "size": size,
                "bulk_import": doxa_fill,
                "raw_transaction": raw_tx,
                "write": doxa_writes(mem, writes, stream),
                "recall": doxa_recalls(mem, asked),
            }
        )
        latencies, quads_per_fact = raw.timed_inserts(writes)
        report["systems"]["raw"].append(
            {
                "size": size,
                "write": summary(latencies),
                "quads_per_fact": quads_per_fact,
                "recall": raw_recalls(raw, asked),
            }
        )
        if size <= naive_max:
            lat, found = [], []
            for w in writes[:naive_samples]:
                start = time.perf_counter()
                naive.write(w)
                lat.append(time.perf_counter() - start)
            for q in asked[:naive_samples]:
                start = time.perf_counter()
                naive.recall(q)
                found.append(time.perf_counter() - start)
            report["systems"]["naive"].append(
                {"size": size, "write": summary(lat), "recall": summary(found)}
            )
        plan.append((size, new, writes, asked))
        _log(f"doxa, raw, naive at {size:,}: done")
    mem.close()
    if not no_mcp:
        entry = install_mcp()
        report["systems"]["mcp"] = asyncio.run(mcp_run(entry, work / "mcp-memory.jsonl", plan))
    report["ratios"] = ratios(report)
    report["finished"] = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target_json = out_dir / f"bench_peers-{stamp}.json"
    target_json.write_text(json.dumps(report, indent=2))
    plot(report, target_json.with_suffix(".png"))
    click.echo(table(report))
    click.echo(f"\nresults: {target_json}\nplot:    {target_json.with_suffix('.png')}")
    raw.close()
    shutil.rmtree(work, ignore_errors=True)


def ratios(report: Json) -> Json:
    """Each peer's p50 over doxa's, per size (above 1: doxa is faster), and bulk vs raw."""
    out: Json = {}
    doxa_rows = {r["size"]: r for r in report["systems"]["doxa"]}
    for system in ("raw", "naive", "mcp"):
        for row in report["systems"][system]:
            mine = doxa_rows[row["size"]]
            for what in ("write", "recall"):
                key = f"{system}_{what}_over_doxa_{row['size']}"
                out[key] = row[what]["p50_ms"] / mine[what]["p50_ms"]
    for size, row in doxa_rows.items():
        out[f"bulk_over_raw_transaction_{size}"] = (
            row["bulk_import"]["quads_per_s"] / row["raw_transaction"]["quads_per_s"]
        )
    return out


def table(report: Json) -> str:
    lines = [
        f"{'system':<8} {'size':>8} {'write p50 ms':>13} {'write p99 ms':>13} "
        f"{'recall p50 ms':>14} {'recall p99 ms':>14}"
    ]
    for system, rows in report["systems"].items():
        for r in rows:
            lines.append(
                f"{system:<8} {r['size']:>8,} {r['write']['p50_ms']:>13.2f} "
                f"{r['write']['p99_ms']:>13.2f} {r['recall']['p50_ms']:>14.2f} "
                f"{r['recall']['p99_ms']:>14.2f}"
            )
    lines.append("")
    for r in report["systems"]["doxa"]:
        b, x = r["bulk_import"], r["raw_transaction"]
        lines.append(
            f"doxa bulk import to {r['size']:,}: {b['claims_per_s']:.0f} claims/s, "
            f"{b['quads_per_s']:.0f} quads/s; raw extend of the same store: "
            f"{x['quads_per_s']:.0f} quads/s"
        )
    lines.append("")
    for key, value in report["ratios"].items():
        lines.append(f"{key:<40} {value:10.2f}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
