"""Benchmark doxa's gate: gated-write latency, throughput and recall latency as the store grows.

Run ``python bench/bench_gate.py --help``; see ``bench/README.md`` for what is measured and how
to read the ratios. One run fills one on-disk store through ``Memory.remember`` to each size in
turn (1k → 10k → 100k, continuing in the same store), measures a sample of extra writes and
recall queries at each size, and measures raw pyoxigraph inserts of the same facts into a
separate on-disk store of the same size, so the two print side by side.
"""

from __future__ import annotations

import cProfile
import gc
import json
import os
import platform
import pstats
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import click
import pyoxigraph as ox
from rdflib import Literal, URIRef

import doxa
from doxa.store import Dataset
from workload import EX, Stream, Write, ontology_turtle

SCOPE = "bench"
TARGET_SCALING = 1.5  # p50 at 100k ≤ 1.5 × p50 at 1k
TARGET_WRITES_PER_S = 300.0
TARGET_RECALL_MS = 10.0
DOXA_NS = "https://w3id.org/doxa#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD_NS = "http://www.w3.org/2001/XMLSchema#"
PROV_NS = "http://www.w3.org/ns/prov#"

Json = dict[str, Any]


# -- statistics -----------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0–100) of ``values``, linearly interpolated."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(seconds: Sequence[float]) -> Json:
    """p50/p95/p99/mean/max in milliseconds and throughput per second of a latency sample."""
    total = sum(seconds)
    return {
        "n": len(seconds),
        "p50_ms": percentile(seconds, 50) * 1000,
        "p95_ms": percentile(seconds, 95) * 1000,
        "p99_ms": percentile(seconds, 99) * 1000,
        "mean_ms": total / len(seconds) * 1000 if seconds else float("nan"),
        "max_ms": max(seconds, default=float("nan")) * 1000,
        "per_s": len(seconds) / total if total else float("nan"),
    }


# -- the doxa side --------------------------------------------------------------------------


def remember(mem: doxa.Memory, write: Write) -> str:
    """Send one write through the gate; returns the outcome's value (``admitted`` …)."""
    return mem.remember(write.text, **write.kwargs()).outcome.value


def store_counts(mem: doxa.Memory) -> Json:
    """Quads in the whole store and in the topic graphs, and claims in the topic graphs."""
    graphs = tuple(mem.store.graphs())
    topics = tuple(g for g in graphs if mem.scope.topic_of(g) is not None)
    total = mem.store.select(
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
        dataset=Dataset(default=(), named=graphs),
    )
    in_topics = mem.store.select(
        "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", dataset=Dataset(default=topics)
    )
    claims = mem.store.select(
        f"SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE {{ ?c a <{DOXA_NS}Claim> }}",
        dataset=Dataset(default=topics),
    )
    n_claims = int(str(claims[0]["n"]))
    n_topic_quads = int(str(in_topics[0]["n"]))
    return {
        "quads": int(str(total[0]["n"])),
        "topic_graphs": len(topics),
        "claims": n_claims,
        "quads_per_claim": n_topic_quads / n_claims if n_claims else 0.0,
    }


def recall_hits(mem: doxa.Memory, query: str) -> int:
    """How many stored facts share at least one index word with ``query``."""
    from doxa.text import words

    terms = " ".join(f'"{w}"' for w in words(query))
    if not terms:
        return 0
    rows = mem.store.select(
        f"SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE {{ VALUES ?t {{ {terms} }} "
        f"?c <{DOXA_NS}term> ?t }}",
        dataset=Dataset(default=(mem.scope.search,)),
    )
    return int(str(rows[0]["n"]))


# -- the raw pyoxigraph side ----------------------------------------------------------------


def _ox(term: URIRef | Literal) -> ox.NamedNode | ox.Literal:
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if term.language:
        return ox.Literal(str(term), language=term.language)
    if term.datatype is not None:
        return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
    return ox.Literal(str(term))


_SUPPORT = {"owner": "Stated", "tool": "Observed", "agent": "Inferred", "external": "Quoted"}


class RawStore:
    """A plain on-disk pyoxigraph store holding each fact as a claim's quads, no gate."""

    def __init__(self, path: Path) -> None:
        self.store = ox.Store(str(path))
        self.count = 0

    def fact_quads(self, write: Write) -> list[ox.Quad]:
        """The same quads a doxa claim of ``write`` has in its topic graph."""
        self.count += 1
        d = DOXA_NS
        fact = ox.NamedNode(f"urn:raw:fact/{self.count}")
        graph = ox.NamedNode(f"urn:raw:topic/{write.topic}")
        standpoint = (
            write.sources[0] if write.authority == "external" else f"urn:raw:sp/{write.authority}"
        )
        pairs: list[tuple[str, ox.NamedNode | ox.Literal]] = [
            (RDF_NS + "type", ox.NamedNode(d + "Claim")),
            (d + "text", ox.Literal(write.text)),
            (d + "topic", ox.Literal(write.topic)),
            (d + "kind", ox.Literal(write.kind)),
            (d + "authority", ox.NamedNode(d + write.authority.capitalize())),
            (d + "standpoint", ox.NamedNode(standpoint)),
            (d + "support", ox.NamedNode(d + _SUPPORT[write.authority])),
        ]
        if write.subject is not None and write.predicate is not None and write.value is not None:
            pairs += [
                (RDF_NS + "subject", _ox(write.subject)),
                (RDF_NS + "predicate", _ox(write.predicate)),
                (RDF_NS + "object", _ox(write.value)),
            ]
        pairs += [(PROV_NS + "wasDerivedFrom", ox.NamedNode(s)) for s in write.sources]
        stamp = ox.NamedNode(XSD_NS + "dateTime")
        if write.valid_from is not None:
            valid = write.valid_from.isoformat().replace("+00:00", "Z")
            pairs.append((d + "validFrom", ox.Literal(valid, datatype=stamp)))
        if write.confidence is not None:
            decimal = ox.NamedNode(XSD_NS + "decimal")
            pairs.append((d + "confidence", ox.Literal(str(write.confidence), datatype=decimal)))
        if write.turn is not None:
            pairs.append((d + "turn", ox.NamedNode(write.turn)))
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        pairs.append((d + "recordedAt", ox.Literal(now, datatype=stamp)))
        return [ox.Quad(fact, ox.NamedNode(p), o, graph) for p, o in pairs]

    def fill(self, writes: Iterable[Write], chunk: int = 1000) -> int:
        """Insert facts in chunks (untimed filling); returns the number of quads."""
        quads: list[ox.Quad] = []
        total = 0
        for write in writes:
            quads += self.fact_quads(write)
            if len(quads) >= chunk * 10:
                self.store.extend(quads)
                total += len(quads)
                quads = []
        if quads:
            self.store.extend(quads)
            total += len(quads)
        return total

    def timed_inserts(self, writes: Sequence[Write]) -> tuple[list[float], float]:
        """Insert one fact per ``Store.extend`` transaction; latencies and mean quads/fact."""
        latencies = []
        quads_total = 0
        for write in writes:
            quads = self.fact_quads(write)  # built outside the timed part
            quads_total += len(quads)
            start = time.perf_counter()
            self.store.extend(quads)
            latencies.append(time.perf_counter() - start)
        return latencies, quads_total / max(len(writes), 1)

    def close(self) -> None:
        self.store.flush()
        del self.store


# -- profiling ------------------------------------------------------------------------------


def _where(func: tuple[str, int, str]) -> str:
    """``file:function`` with the file shortened to the package path."""
    filename, _line, name = func
    for marker in ("site-packages/", "/src/", "/lib/python3"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            break
    return f"{filename}:{name}"


def profile_gate(
    mem: doxa.Memory, stream: Stream, count: int, log: list[Write], stem: Path, size: int
) -> Json:
    """Profile ``count`` gated writes with cProfile; save the stats and return the top costs.

    ``stem`` is the report's path without its suffix; the stats go next to the report.
    """
    profiler = cProfile.Profile()
    writes = [stream.next() for _ in range(count)]
    profiler.enable()
    start = time.perf_counter()
    outcomes = [remember(mem, w) for w in writes]
    elapsed = time.perf_counter() - start
    profiler.disable()
    for w, outcome in zip(writes, outcomes, strict=True):
        stream.observe(w, outcome)
    log.extend(writes)
    path = stem.with_name(f"{stem.name}-profile_{size}.pstats")
    profiler.dump_stats(path)
    stats = pstats.Stats(profiler)
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, Any]] = stats.stats  # type: ignore[attr-defined]
    total = stats.total_tt  # type: ignore[attr-defined]

    def rows(key: int, limit: int) -> list[Json]:
        ranked = sorted(raw.items(), key=lambda kv: kv[1][key], reverse=True)[:limit]
        return [
            {
                "where": _where(func),
                "calls": nc,
                "self_s": round(tt, 4),
                "cumulative_s": round(ct, 4),
                "cumulative_pct": round(100 * ct / total, 1),
                "self_pct": round(100 * tt / total, 1),
            }
            for func, (_cc, nc, tt, ct, _callers) in ranked
        ]

    return {
        "size": size,
        "writes": count,
        "seconds": elapsed,
        "profiled_seconds": total,
        "ms_per_write_profiled": 1000 * total / count,
        "pstats": str(path),
        "top_cumulative": rows(3, 40),
        "top_self": rows(2, 25),
    }


# -- machine --------------------------------------------------------------------------------


def _git(*args: str) -> str:
    """The output of a git command in the repository, or '' when git is not there."""
    try:
        return subprocess.run(
            ["git", *args],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent,
        ).stdout.rstrip()
    except OSError:
        return ""


def machine_info(workdir: Path) -> Json:
    """What ran the benchmark: CPU, memory, OS, Python and package versions, disk."""
    cpu = platform.processor() or ""
    meminfo = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        meminfo = Path("/proc/meminfo").read_text().splitlines()[0].split(":", 1)[1].strip()
    except OSError:
        pass
    versions: dict[str, str | None] = {}
    for name in ("doxa", "pyoxigraph", "rdflib", "pyshacl", "owlrl", "click"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    commit = _git("rev-parse", "--short", "HEAD")
    # uncommitted changes to what the gate runs, so a figure can be traced to its code
    dirty = _git("status", "--porcelain", "--", ":/src", ":/queries", ":/shapes", ":/ontology")
    usage = shutil.disk_usage(workdir)
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory": meminfo,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "packages": versions,
        "git_commit": commit or None,
        "git_uncommitted": [line[3:] for line in dirty.splitlines()],
        "workdir": str(workdir),
        "workdir_free_gb": round(usage.free / 1e9, 1),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
    }


# -- one size -------------------------------------------------------------------------------


def fill(mem: doxa.Memory, stream: Stream, count: int, log: list[Write], label: str) -> Json:
    """Send ``count`` writes through the gate, with a progress bar on stderr."""
    outcomes: Counter[str] = Counter()
    start = time.perf_counter()
    # click draws the bar only on a terminal; under nohup, print a line every 10% instead
    step = 0 if sys.stderr.isatty() else max(count // 10, 1)
    with click.progressbar(length=count, label=label, file=sys.stderr, show_pos=True) as bar:
        for done in range(1, count + 1):
            write = stream.next()
            outcome = remember(mem, write)
            stream.observe(write, outcome)
            outcomes[outcome] += 1
            log.append(write)
            bar.update(1)
            if step and done % step == 0:
                rate = done / (time.perf_counter() - start)
                click.echo(f"  {done:,}/{count:,} writes, {rate:.0f} writes/s", err=True)
    elapsed = time.perf_counter() - start
    return {
        "writes": count,
        "seconds": round(elapsed, 2),
        "writes_per_s": count / elapsed if elapsed else None,
        "outcomes": dict(outcomes),
    }


def sample_writes(mem: doxa.Memory, stream: Stream, count: int, log: list[Write]) -> Json:
    """Time ``count`` extra gated writes one by one."""
    writes = [stream.next() for _ in range(count)]
    latencies: list[float] = []
    by_op: dict[str, list[float]] = defaultdict(list)
    by_outcome: dict[str, list[float]] = defaultdict(list)
    gc.collect()
    load = os.getloadavg()[0]
    wall, cpu = time.perf_counter(), time.process_time()
    for write in writes:
        start = time.perf_counter()
        outcome = remember(mem, write)
        elapsed = time.perf_counter() - start
        stream.observe(write, outcome)
        latencies.append(elapsed)
        by_op[write.op].append(elapsed)
        by_outcome[outcome].append(elapsed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    log.extend(writes)
    return {
        **summary(latencies),
        # noise check: CPU seconds this process got per wall second, and the 1-min load
        "cpu_per_wall": round(cpu / wall, 3),
        "load_1min": load,
        "by_op": {op: summary(v) for op, v in sorted(by_op.items())},
        "by_outcome": {o: summary(v) for o, v in sorted(by_outcome.items())},
    }


def sample_concurrent(
    mem: doxa.Memory, stream: Stream, count: int, log: list[Write], threads: int = 4
) -> Json:
    """``count`` gated writes from ``threads`` threads at once: the journal's group commit
    lets them share fsyncs, so a durable store takes more writes per second than one
    writer gets."""
    writes = [stream.next() for _ in range(count)]
    guard = threading.Lock()

    def run(part: list[Write]) -> None:
        for write in part:
            outcome = remember(mem, write)
            with guard:
                stream.observe(write, outcome)

    workers = [threading.Thread(target=run, args=(writes[i::threads],)) for i in range(threads)]
    wall = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - wall
    log.extend(writes)
    return {"threads": threads, "writes": count, "seconds": round(wall, 3), "per_s": count / wall}


def fsync_rate(folder: Path, count: int = 200) -> Json:
    """How many small appends this disk makes durable per second, one after another: the
    ceiling for acknowledged writes by one writer, whatever the software above it does."""
    path = folder / "fsync-probe"
    latencies = []
    with open(path, "ab") as file:
        for _ in range(count):
            start = time.perf_counter()
            file.write(b"x" * 120 + b"\n")
            file.flush()
            os.fsync(file.fileno())
            latencies.append(time.perf_counter() - start)
    path.unlink()
    return summary(latencies)


def sample_recalls(mem: doxa.Memory, stream: Stream, count: int) -> Json:
    """Time ``count`` recall queries of 1–3 words; also how many facts each one touches."""
    queries = [stream.query() for _ in range(count)]
    hits = [recall_hits(mem, q) for q in queries]
    for q in queries[:3]:  # warm the caches the way a running agent's would be
        mem.recall(q)
    latencies: list[float] = []
    returned: list[int] = []
    by_words: dict[int, list[float]] = defaultdict(list)
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    for q in queries:
        start = time.perf_counter()
        found = mem.recall(q)
        elapsed = time.perf_counter() - start
        latencies.append(elapsed)
        returned.append(len(found))
        by_words[len(q.split())].append(elapsed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    slowest = sorted(zip(latencies, queries, hits, strict=True), reverse=True)[:5]
    return {
        **summary(latencies),
        "cpu_per_wall": round(cpu / wall, 3),
        "matched_facts_p50": percentile(hits, 50),
        "matched_facts_p95": percentile(hits, 95),
        "matched_facts_max": max(hits, default=0),
        "returned_mean": sum(returned) / max(len(returned), 1),
        "by_words": {str(k): summary(v) for k, v in sorted(by_words.items())},
        "slowest": [
            {"ms": round(s * 1000, 2), "query": q, "matched_facts": h} for s, q, h in slowest
        ],
        "examples": queries[:8],
    }


def resident_mb() -> float | None:
    """This process's resident memory now (Linux), in MB: RocksDB's caches, the recall index
    and Python's heap together."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


# -- report ---------------------------------------------------------------------------------


def print_table(results: list[Json]) -> None:
    """The figures per size, with the ratios side by side."""
    header = (
        f"{'size':>8} {'p50 ms':>7} {'p95 ms':>7} {'w/s':>6} {'p50/base':>8} "
        f"{'raw p50':>8} {'raw/s':>7} {'w/s÷raw':>8} {'recall p50':>10} {'p95':>6} "
        f"{'matched':>8} {'cpu/wall':>8} {'4 thr w/s':>9} {'fsync/s':>7}"
    )
    click.echo(header)
    click.echo("-" * len(header))
    for r in results:
        w, raw, rc = r["writes"], r["raw"], r["recall"]
        click.echo(
            f"{r['size']:>8,} {w['p50_ms']:>7.2f} {w['p95_ms']:>7.2f} {w['per_s']:>6.0f} "
            f"{r['ratios']['p50_vs_base']:>7.2f}× {raw['p50_ms']:>8.3f} {raw['per_s']:>7.0f} "
            f"{r['ratios']['writes_per_s_vs_raw']:>8.4f} {rc['p50_ms']:>9.2f}  "
            f"{rc['p95_ms']:>6.1f} {rc['matched_facts_p50']:>8.0f} {w['cpu_per_wall']:>8.2f} "
            f"{r['concurrent']['per_s']:>9.0f} {r['fsync']['per_s']:>7.0f}"
        )


def judge_targets(results: list[Json]) -> Json:
    """Each target against the figures of the largest size measured."""
    base, last = results[0], results[-1]
    note = "" if (base["size"], last["size"]) == (1000, 100_000) else " (sizes differ from 1k/100k)"
    scaling = last["ratios"]["p50_vs_base"]
    rate = last["writes"]["per_s"]
    recall = last["recall"]["p50_ms"]
    return {
        "p50_scaling": {
            "target": f"p50 at 100k ≤ {TARGET_SCALING}× p50 at 1k",
            "measured": f"p50 at {last['size']:,} = {scaling:.2f}× p50 at {base['size']:,}{note}",
            "value": scaling,
            "met": scaling <= TARGET_SCALING,
        },
        "throughput": {
            "target": f"≥ {TARGET_WRITES_PER_S:.0f} gated writes/s",
            "measured": f"{rate:.0f} writes/s at {last['size']:,} "
            f"(min over sizes {min(r['writes']['per_s'] for r in results):.0f})",
            "value": rate,
            "met": all(r["writes"]["per_s"] >= TARGET_WRITES_PER_S for r in results),
        },
        "recall": {
            "target": f"recall p50 ≤ {TARGET_RECALL_MS:.0f} ms at 100k",
            "measured": f"{recall:.2f} ms at {last['size']:,}{note}",
            "value": recall,
            "met": recall <= TARGET_RECALL_MS,
        },
    }


def print_profile(profile: Json, limit: int = 20) -> None:
    """The top cumulative costs of the profiled writes."""
    click.echo(
        f"\nprofile: {profile['writes']} writes at {profile['size']:,} "
        f"({profile['ms_per_write_profiled']:.2f} ms/write under cProfile) → {profile['pstats']}"
    )
    click.echo(f"{'cum %':>6} {'self %':>6} {'calls':>8}  where")
    for row in profile["top_cumulative"][:limit]:
        click.echo(
            f"{row['cumulative_pct']:>6.1f} {row['self_pct']:>6.1f} {row['calls']:>8}  "
            f"{row['where']}"
        )


# -- main -----------------------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    """``"1000,10k,1e5"`` → ``[1000, 10000, 100000]``, sorted and distinct."""
    sizes = set()
    for part in text.split(","):
        token = part.strip().lower().replace("_", "")
        if not token:
            continue
        factor = 1
        if token.endswith("k"):
            token, factor = token[:-1], 1000
        try:
            value = int(float(token) * factor)
        except ValueError:
            raise click.BadParameter(f"{part!r} is not a size; use e.g. 1000,10000") from None
        if value < 1:
            raise click.BadParameter(f"{part!r}: sizes must be positive")
        sizes.add(value)
    if not sizes:
        raise click.BadParameter("give at least one size")
    return sorted(sizes)


@click.command()
@click.option("--sizes", default="1000,10000,100000", show_default=True, help="Store sizes.")
@click.option("--samples", default=300, show_default=True, type=click.IntRange(min=10))
@click.option("--queries", default=100, show_default=True, type=click.IntRange(min=5))
@click.option(
    "--out",
    default="bench/results",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
)
@click.option("--seed", default=7, show_default=True, help="Seed of the write stream.")
@click.option(
    "--workdir",
    default=None,
    type=click.Path(file_okay=False, path_type=Path),
    help="Where the temporary stores go (default: the system temp dir).",
)
@click.option("--profile-at", type=int, default=None, help="Profile writes at this size.")
@click.option("--profile-writes", default=300, show_default=True, type=click.IntRange(min=1))
@click.option("--keep", is_flag=True, help="Keep the stores after the run.")
@click.option(
    "--durable/--no-fsync",
    default=True,
    show_default=True,
    help="fsync doxa's journal after every decision (the default, as users run it).",
)
def main(
    sizes: str,
    samples: int,
    queries: int,
    out: Path,
    seed: int,
    workdir: Path | None,
    profile_at: int | None,
    profile_writes: int,
    keep: bool,
    durable: bool,
) -> None:
    """Fill a store through the gate to each size and measure writes, recall and raw inserts."""
    targets = parse_sizes(sizes)
    if profile_at is not None and profile_at not in targets:
        raise click.BadParameter(f"--profile-at {profile_at} is not one of --sizes {targets}")
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="doxa-bench-", dir=workdir))
    started = datetime.now(UTC)
    machine = machine_info(root)
    click.echo(f"stores in {root}", err=True)

    mem = doxa.Memory.open(root / "doxa", scope=SCOPE, durable=durable)
    raw = RawStore(root / "raw")
    stream = Stream(seed)
    results: list[Json] = []
    log: list[Write] = []  # every write sent to the gate, in order, replayed into the raw store
    out.mkdir(parents=True, exist_ok=True)
    report: Json = {
        "benchmark": "bench_gate",
        "command": " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "started": started.isoformat(),
        "finished": None,  # stays None in a run that was stopped part way
        "machine": machine,
        "config": {
            "sizes": targets,
            "samples": samples,
            "queries": queries,
            "seed": seed,
            "scope": SCOPE,
            "example_namespace": EX,
        },
        "results": results,
        "targets": None,
        "profile": None,
    }
    path = out / f"bench_gate-{started.strftime('%Y%m%d-%H%M%S')}.json"
    try:
        mem.schema.add_ontology(ontology_turtle())
        report["config"]["rules"] = dict(Counter(remember(mem, w) for w in stream.rules()))
        for size in targets:
            results.append(measure_size(mem, raw, stream, log, size, samples, queries, results))
            report["targets"] = judge_targets(results)
            if size == profile_at:
                click.echo(f"profiling {profile_writes} writes at {size:,}", err=True)
                report["profile"] = profile_gate(
                    mem, stream, profile_writes, log, path.with_suffix(""), size
                )
            _save(path, report)  # after every size, so a stopped run keeps what it measured
    finally:
        mem.close()
        raw.close()
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    report["finished"] = datetime.now(UTC).isoformat()
    _save(path, report)

    click.echo(
        f"\ndoxa {machine['packages'].get('doxa')} · pyoxigraph "
        f"{machine['packages'].get('pyoxigraph')} · {machine['cpu']} × {machine['cpus']}"
    )
    click.echo(f"{samples} sampled writes and {queries} recall queries per size\n")
    print_table(results)
    click.echo("")
    for name, v in report["targets"].items():
        click.echo(f"{'MET ' if v['met'] else 'MISS'} {name:<12} {v['target']:<34} {v['measured']}")
    if report["profile"] is not None:
        print_profile(report["profile"])
    click.echo(f"\nwrote {path}", err=True)


def measure_size(
    mem: doxa.Memory,
    raw: RawStore,
    stream: Stream,
    log: list[Write],
    size: int,
    samples: int,
    queries: int,
    earlier: list[Json],
) -> Json:
    """Fill both stores to ``size`` and measure writes, recalls and raw inserts there."""
    filled = fill(mem, stream, max(0, size - len(log)), log, f"filling to {size:>7,}")
    raw.fill(log[raw.count :])
    click.echo(f"measuring {samples} writes and {queries} recalls at {size:,}", err=True)
    writes = sample_writes(mem, stream, samples, log)
    concurrent = sample_concurrent(mem, stream, samples, log)
    disk = fsync_rate(Path(str(getattr(mem.store, "path", tempfile.gettempdir()))).parent)
    recall = sample_recalls(mem, stream, queries)
    raw_latencies, raw_quads = raw.timed_inserts(log[raw.count :])
    counts = store_counts(mem)
    counts["quads_per_write"] = counts["quads"] / len(log)  # claim, index, receipt, counters
    raw_figures = {**summary(raw_latencies), "quads_per_fact": raw_quads}
    base_writes = earlier[0]["writes"] if earlier else writes
    base_raw = earlier[0]["raw"] if earlier else raw_figures
    click.echo(
        f"  {size:,}: p50 {writes['p50_ms']:.2f} ms, {writes['per_s']:.0f} w/s, "
        f"recall p50 {recall['p50_ms']:.2f} ms, {counts['quads']:,} quads, "
        f"RSS {resident_mb() or 0:,.0f} MB, "
        f"cpu/wall {writes['cpu_per_wall']:.2f}, load {writes['load_1min']:.2f}",
        err=True,
    )
    return {
        "size": size,
        "fill": filled,
        "writes": writes,
        "concurrent": concurrent,
        "fsync": disk,
        "recall": recall,
        "raw": raw_figures,
        "store": counts,
        "rss_mb": resident_mb(),
        "ratios": {
            "p50_vs_base": writes["p50_ms"] / base_writes["p50_ms"],
            "raw_p50_vs_base": raw_figures["p50_ms"] / base_raw["p50_ms"],
            "writes_per_s_vs_raw": writes["per_s"] / raw_figures["per_s"],
            "p50_vs_raw_p50": writes["p50_ms"] / raw_figures["p50_ms"],
            "concurrent_vs_single": concurrent["per_s"] / writes["per_s"],
            "writes_per_s_vs_fsyncs_per_s": writes["per_s"] / disk["per_s"],
        },
    }


def _save(path: Path, report: Json) -> None:
    path.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
