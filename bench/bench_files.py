"""Memory as files: how long a render and a sync take, and writes per second through the
gate in a sync beside plain ``remember`` calls, at two store sizes in one run.

    python bench/bench_files.py                       # 1k and 10k facts
    python bench/bench_files.py --sizes 1000 --edits 50 --no-plot   # a quick look

Per size: the store is filled through the gated bulk import (text facts over 20 topics),
rendered into a temporary folder (``render s``), then ``--edits`` lines are edited, as many
added and a tenth of them deleted, and the folder is synced as the owner (``sync s``; its
``writes/s`` counts every change the gate decided). Beside it, the same number of plain
``Memory.remember`` calls on the same store (``remember writes/s``), so ``sync/remember`` is
what the projection costs per write (``gate writes/s in sync`` counts only the time inside the
gate's calls: the reads of the files and the render a sync ends with, which reads the whole
scope once, are left out). The last table row gives each figure's ratio of the
largest size to the smallest. Progress goes to stderr; ``--plot`` (matplotlib installed)
draws ``bench/files.png``.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

import click

import doxa

TOPICS = 20


def _log(message: str) -> None:
    click.echo(message, err=True)


def _fill(memory: doxa.Memory, size: int) -> None:
    rows = [
        {"text": f"Fact {n} about item {n % 97} in area {n % 13}", "topic": f"t{n % TOPICS}"}
        for n in range(size)
    ]
    done = 0

    def progress(step: int) -> None:
        nonlocal done
        done += step
        if done % max(1, size // 10) == 0:
            _log(f"  filled {done}/{size}")

    memory.admin.import_claims(rows, progress=progress)


def _edit(folder: Path, edits: int, seed: int) -> int:
    """Edit, add and delete lines in the rendered files; the number of changes made."""
    chooser = random.Random(seed)
    files = sorted(p for p in folder.glob("t*.md"))
    changes = 0
    for number in range(edits):
        path = chooser.choice(files)
        lines = path.read_text().splitlines()
        facts = [i for i, line in enumerate(lines) if line.startswith("- Fact")]
        if facts:
            i = chooser.choice(facts)
            if number % 10 == 0:
                del lines[i]
            else:
                lines[i] = lines[i].replace("Fact", "Noted fact", 1)
            changes += 1
        lines.append(f"- New fact {number} written in the files")
        changes += 1
        path.write_text("\n".join(lines) + "\n")
    return changes


def _timing(memory: doxa.Memory) -> list[float]:
    """Time spent inside the gate's calls a sync makes (remember, hold, approve): the sum
    goes into the returned list's one item. The wrappers sit on this memory only."""
    spent = [0.0]
    for owner, name in ((memory, "remember"), (memory, "approve"), (memory.gate, "hold_for_owner")):
        inner = getattr(owner, name)

        def timed(*args: object, _inner: object = inner, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return _inner(*args, **kwargs)  # type: ignore[operator]
            finally:
                spent[0] += time.perf_counter() - start

        setattr(owner, name, timed)
    return spent


def _measure(size: int, edits: int, seed: int) -> dict[str, float]:
    memory = doxa.Memory.open(None, scope="bench")
    _log(f"size {size}: filling")
    _fill(memory, size)
    with tempfile.TemporaryDirectory() as where:
        folder = Path(where)
        start = time.perf_counter()
        memory.files.render(folder)
        rendered = time.perf_counter() - start
        _log(f"size {size}: rendered in {rendered:.2f} s; editing")
        changes = _edit(folder, edits, seed)
        inside = _timing(memory)
        start = time.perf_counter()
        report = memory.files.sync(folder, authority="owner")
        synced = time.perf_counter() - start
        gated = max(inside[0], 1e-9)
        decided = sum(1 for item in report.items if item.receipt is not None)
    _log(f"size {size}: synced {decided} of {changes} changes in {synced:.2f} s; plain writes")
    start = time.perf_counter()
    for n in range(decided):
        memory.remember(
            f"Plain fact {n} beside the sync", topic=f"t{n % TOPICS}", authority="owner"
        )
    plain = time.perf_counter() - start
    return {
        "render s": rendered,
        "sync s": synced,
        "sync writes/s": decided / synced,
        "gate writes/s in sync": decided / gated,
        "remember writes/s": decided / plain,
        "gate in sync/remember": (decided / gated) / (decided / plain),
    }


@click.command()
@click.option("--sizes", default="1000,10000", show_default=True, help="Store sizes, in facts.")
@click.option("--edits", default=200, show_default=True, help="Lines edited (as many added).")
@click.option("--seed", default=7, show_default=True)
@click.option("--plot/--no-plot", default=True, help="Draw bench/files.png (needs matplotlib).")
def main(sizes: str, edits: int, seed: int, plot: bool) -> None:
    counts = [int(s.replace("k", "000")) for s in sizes.split(",")]
    results = {size: _measure(size, edits, seed) for size in counts}
    names = list(next(iter(results.values())))
    click.echo("| facts | " + " | ".join(names) + " |")
    click.echo("| --- " * (len(names) + 1) + "|")
    for size, row in results.items():
        click.echo(f"| {size} | " + " | ".join(f"{row[n]:.3g}" for n in names) + " |")
    if len(counts) > 1:
        small, large = results[counts[0]], results[counts[-1]]
        ratios = " | ".join(f"{large[n] / small[n]:.2f}x" for n in names)
        click.echo(f"| {counts[-1]} / {counts[0]} | {ratios} |")
    if plot:
        _plot(results)


def _plot(results: dict[int, dict[str, float]]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _log("matplotlib is not installed: no plot")
        return
    figure, axes = plt.subplots(figsize=(6, 4))
    sizes = sorted(results)
    for name in ("render s", "sync s"):
        axes.plot(sizes, [results[s][name] for s in sizes], marker="o", label=name)
    axes.set_xscale("log")
    axes.set_xlabel("facts in the scope")
    axes.set_ylabel("seconds")
    axes.set_title("render and sync (owner) of the Markdown projection")
    axes.legend()
    figure.tight_layout()
    figure.savefig(Path(__file__).parent / "files.png")
    _log("plot: bench/files.png")


if __name__ == "__main__":
    main()
