"""What an erasure costs as the store grows, and where the time of making it real goes.

    python bench/bench_erase.py --sizes 1000,10000,100000
    python bench/bench_erase.py --sizes 1000,10000,100000 --large     # and 1M facts

An erasure has two steps: the logical one (content out of every read, tombstones, journaled)
inside the call, and the purge, which rebuilds the store's files from the live quads and purges
every backup in the background while reads and writes go on. Per size this prints, measured
side by side in one process:

- ``rebuild``: ``EmbeddedStore.compact`` alone (dump a snapshot, bulk-load the next
  generation, replay, swap), wall and CPU seconds;
- ``fact ms``: the p50 of ``--batch`` logical erasures of one fact by id (no purge running;
  ``purge()`` is then awaited);
- ``erase p50 / max ms``: ``--batch`` subjects, one ``erase`` call each, while the purges they
  start run;
- ``purge s``: from the first of those erasures until nothing is owed (store and one backup
  rebuilt, erasures arriving meanwhile batched);
- ``writes`` / ``failed`` / ``p99``: gated writes made as fast as one thread can while the
  purge runs, how many failed, and their p99 against the p99 of idle writes made before.

Filling: each size is written through the gated bulk import (``memory.admin.import_claims``, the
same decisions as ``remember`` one by one, published in batches) from the seeded
``workload.Stream``, in chunks of 5,000 whose outcomes the stream observes. The 1M store of
``--large`` is the 100k store plus nine copies of it under other scope names (every IRI of
the scope and every text made distinct per copy, so the dictionary grows as with
new content), bulk loaded: gating 1M claims at ~200/s would take well over an hour. At 1M the
rebuild is not timed alone and no backup is made. Filled stores are kept in
``--workdir`` and reused by the next run.
"""

from __future__ import annotations

import gc
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import click
import pyoxigraph as ox

import doxa
from doxa.store import Dataset, EmbeddedStore
from workload import Stream, ontology_turtle

SCOPE = "bench"
CHUNK = 5000
LARGE = 1_000_000
COPIES = 10


def _log(message: str) -> None:
    click.echo(message, err=True)


def _timed(action: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds (every thread of this process) of ``action``."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def _copy(source: Path, target: Path) -> None:
    _remove(target)
    shutil.copytree(source, target)
    journal = source.with_name(f"{source.name}.journal")
    if journal.exists():
        shutil.copy(journal, target.with_name(f"{target.name}.journal"))


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(path.with_name(f"{path.name}.backups"), ignore_errors=True)
    for sibling in ("journal", "purge", "lock"):
        path.with_name(f"{path.name}.{sibling}").unlink(missing_ok=True)


# -- filling -----------------------------------------------------------------------------


def fill(path: Path, size: int) -> list[str]:
    """A store of ``size`` gated writes; returns subjects of admitted facts (erase targets)."""
    _remove(path)
    stream = Stream(11)
    with doxa.Memory.open(path, scope=SCOPE) as mem:
        mem.schema.add_ontology(ontology_turtle())
        mem.owner.grant("schedule")
        with click.progressbar(length=size, label=f"fill {size:>9,}", file=sys.stderr) as bar:
            done = 0
            while done < size:
                writes = [stream.next() for _ in range(min(CHUNK, size - done))]
                report = mem.admin.import_claims(
                    [{"text": w.text, **w.kwargs()} for w in writes], progress=bar.update
                )
                for write, receipt in zip(writes, report.receipts, strict=True):
                    stream.observe(write, receipt.outcome.value)
                done += len(writes)
    subjects = list(dict.fromkeys(str(w.subject) for w in stream.admitted))
    return subjects[:: max(1, len(subjects) // 50)][:50]


def _distinct(copy: int) -> Callable[[str], str]:
    """Rewrite one N-Quads line into scope copy ``copy``: its IRIs and plain literals."""
    scope = re.compile(rf"urn:doxa:scope:{SCOPE}(?=[/>])")
    text = re.compile(r'"((?:[^"\\]|\\.)* (?:[^"\\]|\\.)*)"(?=[ @])')  # words, not ids

    def rewrite(line: str) -> str:
        line = scope.sub(f"urn:doxa:scope:{SCOPE}-copy{copy}", line)
        return text.sub(lambda m: f'"{m.group(1)} ~{copy}"', line)

    return rewrite


def replicate(source: Path, path: Path, copies: int) -> None:
    """``copies`` scopes of the store at ``source`` (one as it is, the rest renamed)."""
    _copy(source, path)
    store = ox.Store(str(path))
    with tempfile.TemporaryDirectory(dir=path.parent) as scratch:
        dump = Path(scratch) / "scope.nq"
        store.dump(str(dump), ox.RdfFormat.N_QUADS)
        with click.progressbar(range(1, copies), label="replicate", file=sys.stderr) as bar:
            for copy in bar:
                renamed = Path(scratch) / f"copy{copy}.nq"
                rewrite = _distinct(copy)
                with dump.open(encoding="utf-8") as lines, renamed.open("w") as out:
                    out.writelines(rewrite(line) for line in lines)
                store.bulk_load(path=str(renamed), format=ox.RdfFormat.N_QUADS, lenient=True)
                renamed.unlink()
    store.flush()
    del store
    gc.collect()


def filled(workdir: Path, size: int) -> tuple[Path, list[str]]:
    """The filled store for ``size`` (made once, kept in ``workdir``) and its erase targets."""
    path = workdir / f"filled-{size}"
    done = path.with_name(f"{path.name}.json")
    if not done.exists():
        if size == LARGE:
            source, subjects = filled(workdir, LARGE // COPIES)
            replicate(source, path, COPIES)
        else:
            subjects = fill(path, size)
        done.write_text(json.dumps(subjects))
    return path, json.loads(done.read_text())


# -- measuring ---------------------------------------------------------------------------


def _quads(store: EmbeddedStore) -> int:
    rows = store.select(
        "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }",
        dataset=Dataset(default=(), named=tuple(store.graphs())),
    )
    return int(str(rows[0]["n"]))


def _write(mem: doxa.Memory, index: int) -> float:
    start = time.perf_counter()
    mem.remember(f"Bench write {index} while the purge runs", topic="bench", authority="owner")
    return time.perf_counter() - start


def _pct(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(size: int, workdir: Path, batch: int, full: bool, idle_writes: int) -> dict[str, float]:
    """One size: the rebuild alone, then the logical erasures (each call timed) with the
    purge they start, and gated writes before (idle) and while that purge runs, side by
    side in one process."""
    source, subjects = filled(workdir, size)
    path = workdir / f"run-{size}"
    _copy(source, path)
    out: dict[str, float] = {}
    try:
        with doxa.Memory.open(path, scope=SCOPE) as mem:
            embedded = mem.store
            assert isinstance(embedded, EmbeddedStore)
            out["quads"] = _quads(embedded)
            if full:
                out["rebuild_s"], out["rebuild_cpu"] = _timed(embedded.compact)
                mem.admin.backup()
            idle = [_write(mem, i) for i in range(idle_writes)]
            single: list[float] = []  # one fact by its id, before any purge runs
            for fact in [f.id for f in mem.facts(topic="bench")][:batch]:
                start = time.perf_counter()
                mem.owner.erase(fact, reason="bench")
                single.append(time.perf_counter() - start)
            mem.admin.purge()
            idle += [_write(mem, idle_writes + i) for i in range(idle_writes)]
            logical: list[float] = []
            claims = 0
            begun = time.perf_counter()
            for subject in subjects[:batch]:
                start = time.perf_counter()
                claims += len(mem.owner.erase(subject, reason="bench").targets)
                logical.append(time.perf_counter() - start)
            during: list[float] = []
            failures = 0
            while mem.admin.purge_status().owed or mem.admin.purge_status().running:
                try:
                    during.append(_write(mem, idle_writes + len(during)))
                except doxa.DoxaError:
                    failures += 1
            out["purge_s"] = time.perf_counter() - begun
            mem.admin.purge()
            out["claims"] = claims
            out["fact_p50_ms"] = _pct(single, 0.5) * 1e3
            out["logical_p50_ms"] = _pct(logical, 0.5) * 1e3
            out["logical_max_ms"] = max(logical) * 1e3
            out["idle_p50_ms"] = _pct(idle, 0.5) * 1e3
            out["idle_p99_ms"] = _pct(idle, 0.99) * 1e3
            out["during_writes"] = len(during)
            out["failures"] = failures
            if during:
                out["during_p50_ms"] = _pct(during, 0.5) * 1e3
                out["during_p99_ms"] = _pct(during, 0.99) * 1e3
    finally:
        _remove(path)
    return out


def _cell(row: dict[str, float], key: str, spec: str) -> str:
    return format(row[key], spec) if key in row else "-"


@click.command()
@click.option("--sizes", default="1000,10000,100000", show_default=True)
@click.option("--large", is_flag=True, help="Add 1M facts (the 100k store in ten scopes).")
@click.option("--batch", default=5, show_default=True, help="Subjects erased, one call each.")
@click.option("--idle-writes", default=300, show_default=True, help="Writes timed before.")
@click.option("--workdir", type=click.Path(path_type=Path), default=None)
def main(sizes: str, large: bool, batch: int, idle_writes: int, workdir: Path | None) -> None:
    """Time logical erasures, the background purge, and writes beside it at each size."""
    base = workdir or Path(tempfile.mkdtemp(prefix="doxa-erase-"))
    base.mkdir(parents=True, exist_ok=True)
    _log(f"work directory: {base} (filled stores are kept there)")
    counts = [int(n) for n in sizes.split(",") if n] + ([LARGE] if large else [])
    rows = []
    for size in counts:
        row = measure(size, base, batch, full=size < LARGE, idle_writes=idle_writes)
        rows.append((size, row))
        _log(f"{size}: {json.dumps({k: round(v, 3) for k, v in row.items()})}")
    print(
        f"{'facts':>9} {'quads':>11} {'rebuild s':>9} {'cpu s':>7} {'fact ms':>7} "
        f"{'erase p50 ms':>12} {'erase max ms':>12} {'purge s':>8} {'writes':>6} {'failed':>6} "
        f"{'p99 idle ms':>11} {'p99 purge ms':>12} {'× idle':>6}"
    )
    for size, r in rows:
        ratio = f"{r['during_p99_ms'] / r['idle_p99_ms']:.2f}" if "during_p99_ms" in r else "-"
        print(
            f"{size:>9,} {int(r['quads']):>11,} {_cell(r, 'rebuild_s', '.2f'):>9} "
            f"{_cell(r, 'rebuild_cpu', '.2f'):>7} {r['fact_p50_ms']:>7.1f} "
            f"{r['logical_p50_ms']:>12.1f} {r['logical_max_ms']:>12.1f} {r['purge_s']:>8.2f} "
            f"{int(r['during_writes']):>6} "
            f"{int(r['failures']):>6} {r['idle_p99_ms']:>11.2f} "
            f"{_cell(r, 'during_p99_ms', '.2f'):>12} {ratio:>6}"
        )
    print(
        f"fact ms: p50 of {batch} logical erasures of one fact by id (no purge running); "
        f"erase: {batch} subjects, one logical erase call each (the purge runs in the "
        "background); purge s: from the first erase until nothing is owed (store and one "
        "backup rebuilt); writes: gated writes made meanwhile, their p99 against idle writes"
    )


if __name__ == "__main__":
    main()
