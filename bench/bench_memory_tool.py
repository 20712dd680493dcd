"""The memory tool at the largest sizes it accepts: how long each command takes.

    python bench/bench_memory_tool.py               # 20 rounds of each command
    python bench/bench_memory_tool.py --rounds 5    # a quick look

Each round opens a fresh scope holding one topic file at the most lines a file may have
after an edit (``MAX_FILE_LINES`` less the ``MAX_CHANGES`` lines an insert adds and the
line a revision may add) plus a few small topics.
Each round times, through ``MemoryToolHandler.execute`` (the tool's JSON input to its
answer): ``view`` of the listing, ``view`` of the full file with ``view_range [1, 10**15]``,
``str_replace`` of one line of it, ``insert`` of ``MAX_CHANGES`` lines of ``MAX_LINE_CHARS``
characters (``MAX_TEXT_BYTES`` of text), ``create`` of a new file of ``MAX_CHANGES`` such
lines, ``rename`` and ``delete`` of a file of ``MAX_CHANGES`` facts (a topic change and a
retraction request each, held for the owner). The table gives each command's median wall
and CPU time and slowest CPU time in milliseconds, and whether the slowest is within the
100 ms target (CPU time: on a shared machine the wall clock also counts the neighbours);
the process exits 1 when one is not. Progress goes to stderr.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable

import click

import doxa
from doxa.interfaces.memory_tool import (
    MAX_CHANGES,
    MAX_FILE_LINES,
    MAX_LINE_CHARS,
    MAX_TEXT_BYTES,
    MemoryToolHandler,
)

TARGET_MS = 100.0
BIG = "/memories/big.md"


def _log(message: str) -> None:
    click.echo(message, err=True)


def _long_lines(tag: str, count: int) -> str:
    """``count`` distinct lines of ``MAX_LINE_CHARS`` characters, within the byte bound."""
    width = min(MAX_LINE_CHARS, MAX_TEXT_BYTES // count - 4)
    lines = []
    for n in range(count):
        head = f"- Alice {tag} note {n} says "
        lines.append(head + ("word " * width)[: width - len(head)])
    return "\n".join(lines) + "\n"


def _fill(memory: doxa.Memory) -> None:
    rows = [
        {"text": f"Alice keeps item {n} of the big list in drawer {n % 37}", "topic": "big"}
        for n in range(MAX_FILE_LINES - MAX_CHANGES - 2)
    ]
    rows += [{"text": f"Alice likes fruit {n}", "topic": f"small{n % 5}"} for n in range(20)]
    memory.admin.import_claims(rows)


def _timed(run: Callable[[], str]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one command (the CPU figure leaves out the time other
    processes take from this one on a shared machine)."""
    wall, cpu = time.perf_counter(), time.process_time()
    said = run()
    spent = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
    if said.startswith("Error"):
        raise click.ClickException(f"a command failed: {said[:300]}")
    return spent


def _round(
    tool: MemoryToolHandler, owner: MemoryToolHandler, n: int
) -> dict[str, tuple[float, float]]:
    times: dict[str, tuple[float, float]] = {}
    times["view /memories"] = _timed(lambda: tool.execute({"command": "view", "path": "/memories"}))
    times["view file [1, 10**15]"] = _timed(
        lambda: tool.execute({"command": "view", "path": BIG, "view_range": [1, 10**15]})
    )
    old = f"drawer {n % 37}\n"
    line = next(
        x.split("\t", 1)[1]
        for x in tool.execute({"command": "view", "path": BIG}).splitlines()
        if x.endswith(old.strip()) or old.strip() + " <!--" in x
    )
    times["str_replace"] = _timed(
        lambda: owner.execute(
            {
                "command": "str_replace",
                "path": BIG,
                "old_str": line,
                "new_str": line.replace("drawer", f"box {n} of drawer", 1),
            }
        )
    )
    text = _long_lines(f"round {n} insert", MAX_CHANGES)
    before = tool.execute({"command": "view", "path": BIG}).count("\n") + 1
    times["insert MAX_CHANGES long lines"] = _timed(
        lambda: owner.execute(
            {"command": "insert", "path": BIG, "insert_line": before, "insert_text": text}
        )
    )
    made, moved = f"/memories/made{n}.md", f"/memories/moved{n}.md"
    created = _long_lines(f"round {n} create", MAX_CHANGES)
    times["create MAX_CHANGES long lines"] = _timed(
        lambda: tool.execute({"command": "create", "path": made, "file_text": created})
    )
    times["rename MAX_CHANGES facts"] = _timed(
        lambda: owner.execute({"command": "rename", "old_path": made, "new_path": moved})
    )
    times["delete MAX_CHANGES facts"] = _timed(
        lambda: tool.execute({"command": "delete", "path": moved})
    )
    return times


@click.command()
@click.option("--rounds", default=20, show_default=True, help="Rounds of every command.")
def main(rounds: int) -> None:
    _log(f"each round: one topic of {MAX_FILE_LINES - MAX_CHANGES - 2} facts and 5 small ones")
    measured: dict[str, list[tuple[float, float]]] = {}
    for n in range(rounds + 1):
        memory = doxa.Memory.open(None, scope="bench")  # a fresh scope: every round alike
        _fill(memory)
        tool, owner = MemoryToolHandler(memory), MemoryToolHandler(memory, authority="owner")
        tool.execute({"command": "view", "path": BIG})  # the scope's caches, as in use
        gc.collect()  # the last round's garbage is not this round's time
        found = _round(tool, owner, n)
        memory.close()
        if n == 0:
            continue  # the first round warms up: first-use imports and compiled shapes
        for name, spent in found.items():
            measured.setdefault(name, []).append(spent)
        _log(f"round {n}/{rounds}")
    click.echo("| command | median wall ms | median CPU ms | slowest CPU ms | CPU within 100 ms |")
    click.echo("| --- | --- | --- | --- | --- |")
    failed = False
    for name, values in measured.items():
        walls, cpus = [w for w, _ in values], [c for _, c in values]
        slowest = max(cpus)
        failed |= slowest > TARGET_MS
        ok = "yes" if slowest <= TARGET_MS else "**no**"
        click.echo(
            f"| {name} | {statistics.median(walls):.1f} | {statistics.median(cpus):.1f} "
            f"| {slowest:.1f} | {ok} |"
        )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
