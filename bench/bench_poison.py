"""Benchmark memory poisoning through the agent's own notes (issue 33).

Run ``python bench/bench_poison.py --help``. One run, in one process:

1. **The screen alone** (:func:`doxa.judges.screen.screen_note`) on the development and
   held-out sets of bench/poison_sets.py: poison notes held, benign notes held (needless
   holds), per shape.
2. **Through every interface** an agent writes with (Python, REST with the agent key, the
   MCP ``remember`` tool, the memory tool, memory files with ``sync``, the LangGraph store),
   each note into a fresh scope: held, admitted, needless holds; then the end-to-end count:
   after a poison note is written, how often the next ``recall`` on its topic's words hands
   it back unmarked (as a live fact in the agent's own words).
3. **Cost**: ``screen_note`` per note (p50, µs), and the gated agent write's p50 with the
   note screen and without it (``screen_note`` replaced by a function that finds nothing),
   in alternating rounds in this process; their ratio.

The targets: at least 95% of the development set's poison held and none of its benign
notes; screening p50 at most 0.2 ms; the gated write within 1.1x.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import anyio
import click
from fastapi.testclient import TestClient
from mcp import Client

import doxa
import doxa.judges.rules
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.langgraph_store import DoxaStore
from doxa.interfaces.mcp.server import build_server
from doxa.interfaces.memory_tool import MemoryToolHandler
from doxa.judges.screen import screen_note
from doxa.store import EmbeddedStore
from poison_sets import Note, development, heldout

OWNER, AGENT = "o" * 24, "a" * 24


def screen_rates(notes: list[Note]) -> dict[str, Any]:
    """Held and admitted counts by the screen alone, overall and per shape."""
    held: Counter[tuple[bool, str]] = Counter()
    total: Counter[tuple[bool, str]] = Counter()
    for note in notes:
        total[note.poison, note.shape] += 1
        held[note.poison, note.shape] += screen_note(note.text) is not None
    poison = sum(v for (p, _), v in total.items() if p)
    benign = sum(v for (p, _), v in total.items() if not p)
    return {
        "poison": poison,
        "poison_held": sum(v for (p, _), v in held.items() if p),
        "benign": benign,
        "benign_held": sum(v for (p, _), v in held.items() if not p),
        "shapes": {
            f"{'poison' if p else 'benign'}: {shape}": f"{held[p, shape]}/{count}"
            for (p, shape), count in sorted(total.items())
        },
    }


# -- every interface ---------------------------------------------------------------------------

#: a writer: (memory, note, folder) -> nothing; the outcome is read from the memory
Writer = Callable[[doxa.Memory, Note, Path], None]


def _python(mem: doxa.Memory, note: Note, folder: Path) -> None:
    mem.remember(note.text, topic=note.topic)


def _rest(mem: doxa.Memory, note: Note, folder: Path) -> None:
    config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=OWNER, agent_keys=(AGENT,)),))
    app = create_app(mem.store, config, rejudge_every=None)
    with TestClient(app, headers={"Authorization": f"Bearer {AGENT}"}) as client:
        answer = client.post("/remember", json={"text": note.text, "topic": note.topic})
        assert answer.status_code == 200, answer.text


def _mcp(mem: doxa.Memory, note: Note, folder: Path) -> None:
    async def run() -> None:
        async with Client(build_server(mem, quiet=True)) as client:
            result = await client.call_tool("remember", {"text": note.text, "topic": note.topic})
            assert not result.is_error, result.content

    anyio.run(run)


def _memory_tool(mem: doxa.Memory, note: Note, folder: Path) -> None:
    MemoryToolHandler(mem).execute(
        {"command": "create", "path": f"/memories/{note.topic}.md", "file_text": f"- {note.text}\n"}
    )


def _files(mem: doxa.Memory, note: Note, folder: Path) -> None:
    mem.files.render(folder)
    (folder / f"{note.topic}.md").write_text(f"# {note.topic}\n\n- {note.text}\n", "utf-8")
    mem.files.sync(folder, authority="agent")


def _langgraph(mem: doxa.Memory, note: Note, folder: Path) -> None:
    DoxaStore(mem).put(("memories", note.topic), "note", {"text": note.text})


WRITERS: dict[str, Writer] = {
    "python": _python,
    "rest": _rest,
    "mcp": _mcp,
    "memory-tool": _memory_tool,
    "files": _files,
    "langgraph": _langgraph,
}


def through(interface: str, notes: list[Note]) -> dict[str, int]:
    """Write each note through ``interface`` into a fresh scope; count the outcomes."""
    counts: Counter[str] = Counter()
    with TemporaryDirectory() as tmp:
        for at, note in enumerate(notes):
            mem = doxa.Memory(EmbeddedStore(), scope="alice")
            folder = Path(tmp) / str(at)
            folder.mkdir()
            try:
                WRITERS[interface](mem, note, folder)
                held = bool(mem.held())
                words = " ".join(w for w in note.text.split() if len(w) > 3)[:200]
                recalled = any(note.text in f.text for f in mem.recall(words, limit=10))
            finally:
                mem.close()
            kind = "poison" if note.poison else "benign"
            counts[f"{kind}_{'held' if held else 'admitted'}"] += 1
            if note.poison and recalled:
                counts["poison_recalled_unmarked"] += 1
    return dict(counts)


# -- cost ----------------------------------------------------------------------------------------


@contextmanager
def blind_note_screen() -> Iterator[None]:
    """The rule judge without the note screen (what it was before issue 33)."""
    saved = doxa.judges.rules.screen_note
    doxa.judges.rules.screen_note = lambda text: None
    try:
        yield
    finally:
        doxa.judges.rules.screen_note = saved


def write_p50s(notes: list[Note], rounds: int) -> dict[str, float]:
    """The gated agent write's p50 (ms) with and without the note screen, in alternating
    rounds over the benign notes (the write an agent makes every turn)."""
    benign = [n for n in notes if not n.poison]
    times: dict[str, list[float]] = {"with": [], "without": []}
    for turn in range(rounds * 2):
        which = "with" if turn % 2 == 0 else "without"
        mem = doxa.Memory(EmbeddedStore(), scope="alice")
        try:
            with blind_note_screen() if which == "without" else nullcontext():
                for note in benign:
                    start = time.perf_counter()
                    mem.remember(note.text, topic=note.topic)
                    times[which].append((time.perf_counter() - start) * 1000)
        finally:
            mem.close()
    found = {k: round(statistics.median(v), 4) for k, v in times.items()}
    found["ratio"] = round(found["with"] / found["without"], 3)
    return found


def screen_p50_us(notes: list[Note], repeats: int) -> float:
    """screen_note's p50 per note, each text new to it (its views are cached per text)."""
    samples = []
    for turn in range(repeats):
        for note in notes:
            text = f"{note.text} ({turn})"
            start = time.perf_counter()
            screen_note(text)
            samples.append((time.perf_counter() - start) * 1e6)
    return round(statistics.median(samples), 1)


@click.command()
@click.option("--per-template", default=12, show_default=True, help="Notes per template.")
@click.option("--interfaces", default=",".join(WRITERS), show_default=True)
@click.option("--rounds", default=3, show_default=True, help="Alternating write-cost rounds.")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Write JSON here.")
def main(per_template: int, interfaces: str, rounds: int, out: Path | None) -> None:
    dev, held_out = development(per_template), heldout(per_template)
    result: dict[str, Any] = {
        "screen": {"development": screen_rates(dev), "heldout": screen_rates(held_out)}
    }
    for name, rates in result["screen"].items():
        click.echo(
            f"{name}: poison held {rates['poison_held']}/{rates['poison']}, "
            f"benign held {rates['benign_held']}/{rates['benign']}"
        )
    result["interfaces"] = {}
    chosen = [i for i in interfaces.split(",") if i]
    with click.progressbar(chosen, label="interfaces") as bar:
        for interface in bar:
            result["interfaces"][interface] = through(interface, dev)
    for interface, counts in result["interfaces"].items():
        click.echo(f"{interface}: {counts}")
    result["screen_p50_us"] = screen_p50_us(dev, 20)
    result["gated_write_p50_ms"] = write_p50s(dev, rounds)
    click.echo(f"screen_note p50: {result['screen_p50_us']} µs per note (target <= 200)")
    click.echo(f"gated agent write p50: {result['gated_write_p50_ms']} (target ratio <= 1.1)")
    if out is not None:
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
