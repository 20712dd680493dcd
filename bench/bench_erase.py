"""What an erasure costs as the store grows: the logical erase, and the compaction that makes
it real in the files (Oxigraph keeps every string it stored until the store is rebuilt).

    python bench/bench_erase.py --sizes 1000,10000,30000

Each size fills a fresh on-disk store through the gate (the seeded ``workload.Stream``), takes
a backup, then erases one subject and times: the gate's erase (deletions and tombstones in one
receipt), the compaction of the store, and the purge of the backup. Ratios are to the
smallest size, measured in the same run.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import click

import doxa
from workload import Stream, ontology_turtle


def measure(size: int, workdir: Path) -> dict[str, float]:
    path = workdir / f"erase-{size}"
    shutil.rmtree(path, ignore_errors=True)
    stream = Stream(11)
    with doxa.Memory.open(path, scope="bench") as mem:
        mem.add_ontology(ontology_turtle())
        mem.grant("schedule")
        target = None
        with click.progressbar(length=size, label=f"fill {size:>7}", file=sys.stderr) as bar:
            for _ in range(size):
                write = stream.next()
                receipt = mem.remember(write.text, **write.kwargs())
                stream.observe(write, receipt.outcome.value)
                if target is None and write.subject is not None:
                    target = write.subject
                bar.update(1)
        assert target is not None
        mem.backup()
        quads = sum(1 for _ in mem.store.quads())
        started = time.perf_counter()
        receipt = mem.gate.erase(
            fact_id=None, subject=target, reason="bench", actor=mem.scope.standpoint("owner")
        )
        logical = time.perf_counter() - started
        started = time.perf_counter()
        compact = getattr(mem.store, "compact")  # noqa: B009 - the embedded store has it
        compact()
        compaction = time.perf_counter() - started
        started = time.perf_counter()
        mem._purge([mem.scope.fact(t) for t in receipt.targets], target)
        purge = time.perf_counter() - started  # compacts the store again, then the backup
    shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(path.with_name(path.name + ".backups"), ignore_errors=True)
    return {
        "quads": float(quads),
        "erase_ms": logical * 1000,
        "compact_s": compaction,
        "purge_s": purge,
        "erased": float(len(receipt.targets)),
    }


@click.command()
@click.option("--sizes", default="1000,10000,30000", show_default=True)
@click.option("--workdir", type=click.Path(path_type=Path), default=None)
def main(sizes: str, workdir: Path | None) -> None:
    """Time an erasure and its compaction at each store size."""
    base = workdir or Path(tempfile.mkdtemp(prefix="doxa-erase-"))
    rows = [(int(n), measure(int(n), base)) for n in sizes.split(",")]
    first = rows[0][1]
    print(
        f"{'facts':>7} {'quads':>9} {'erased':>6} {'erase ms':>9} {'compact s':>9} "
        f"{'x':>6} {'purge s':>8}"
    )
    for size, r in rows:
        print(
            f"{size:>7} {int(r['quads']):>9} {int(r['erased']):>6} {r['erase_ms']:>9.1f} "
            f"{r['compact_s']:>9.2f} {r['compact_s'] / first['compact_s']:>6.1f} "
            f"{r['purge_s']:>8.2f}"
        )


if __name__ == "__main__":
    main()
