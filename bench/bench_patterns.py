"""Plain sentences, offline: does the rule judge close a stale value written in any sentence
shape, keep many-valued statements many, and ask the owner at most once per pattern?

A seeded stream of text-only agent writes (``sentence_shapes.py``: 37 families of
statements in 2-3 wordings each, over several hundred subjects, values changing over time,
many-valued controls, values that never change, and one-off notes) goes through a fresh
in-memory ``Memory`` with the default rule judge, closing granted for every kind (so a hold
measures the judge, not the closing policy) and the clock an hour on between writes (so no
burst of closings stops automatic closing).

The simulated owner reviews the held writes every ``--review-every`` writes. They know what
each of their facts means (the bench's record of each write, never the text read back) and
nothing of the judge: a held write whose targets include a fact of its own slot is a
"replace or add?" question, answered as the family is (``replaces`` for one value at a time,
``new`` for many, ``was_wrong`` for a value that never changes) and counted against the
pattern (the family's wording) it is written in; any other hold is needless (approved as
``new`` when it names targets, a repeat of a value already live is rejected).

Reported, whole stream and per family kind, in one run:

- **stale live**: slots of one-valued and unchanging families that took two values or more
  and still have a value other than the latest live at the end (target <= 5%);
- **wrong closings**: facts of many-valued slots superseded or retracted (target 0);
- **owner questions per pattern**: max and mean over the patterns asked (target <= 1);
- **needless holds** per 200 writes (target < 1);
- how old values ended (superseded or retracted: one-valued values should be superseded,
  unchanging ones retracted) and the judge's relations.

    python bench/bench_patterns.py            # the default run (~25 s on 2 cores)
    python bench/bench_patterns.py --quick    # a smoke run (tests/scenarios)
    python bench/bench_patterns.py --reword 0.2   # later values in another wording
    PYTHONPATH=/work/main/src python bench/bench_patterns.py   # another checkout's doxa

The table goes to stdout; the JSON to ``--out`` (``bench/results/bench_patterns-<UTC
time>.json``: every figure, the questions per pattern, each needless hold and each stale
slot with its texts, the options and which doxa ran), with a plot beside it when
matplotlib is installed. The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click

import doxa
from sentence_shapes import FAMILIES, Slot, Write, make_slots, make_stream

START = datetime(2026, 1, 5, 9, tzinfo=UTC)
KINDS = ("one", "many", "fixed", "note")
LABELS = {"one": "one-valued", "many": "many-valued", "fixed": "unchanging", "note": "notes"}
#: the owner's answer to "replace or add?", per family kind
ANSWER = {"one": "replaces", "many": "new", "fixed": "was_wrong"}


@dataclass
class Tally:
    """The figures of one family kind (or of the whole stream)."""

    writes: int = 0
    slots_changed: int = 0  # one-valued and unchanging slots that took two values or more
    stale_live: int = 0
    latest_missing: int = 0  # the latest value is not live at the end
    control_facts: int = 0  # facts of many-valued slots
    wrong_closings: int = 0
    holds: int = 0
    questions: int = 0
    needless_holds: int = 0
    ended_superseded: int = 0  # old values of changed slots, by how they ended
    ended_retracted: int = 0
    relations: Counter[str] = field(default_factory=Counter)


@dataclass
class Owner:
    """The simulated owner: what each fact and held write means, and the questions asked."""

    meaning: dict[str, Write] = field(default_factory=dict)  # fact id -> write
    held: dict[str, Write] = field(default_factory=dict)  # held id -> write
    questions: Counter[str] = field(default_factory=Counter)  # pattern -> questions
    patterns: set[str] = field(default_factory=set)  # every pattern written
    needless: list[dict[str, Any]] = field(default_factory=list)  # the holds, for reading
    stale: list[dict[str, Any]] = field(default_factory=list)  # stale slots, for reading


def review(mem: doxa.Memory, owner: Owner, tallies: dict[str, Tally]) -> None:
    """Answer every held write as the owner would."""
    for item in mem.held():
        write = owner.held.pop(item.id)
        tally = tallies[write.kind]
        targets = [t for t in (owner.meaning.get(t) for t in item.targets) if t is not None]
        mine = [t for t in targets if t.slot == write.slot]
        answer: str | None
        if mine and write.kind in ANSWER:
            if any(t.value == write.value for t in mine):
                tally.needless_holds += 1  # a repeat of a live value: nothing to ask
                owner.needless.append(_hold(item, write, targets))
                mem.owner.reject(item, reason="the same value again")
                continue
            tally.questions += 1
            owner.questions[write.pattern] += 1
            answer = ANSWER[write.kind]
        else:
            tally.needless_holds += 1
            owner.needless.append(_hold(item, write, targets))
            answer = "new" if item.targets else None
        receipt = mem.owner.approve(item, as_relation=answer)
        if receipt.fact is not None:
            owner.meaning[receipt.fact] = write


def _hold(item: doxa.HeldWrite, write: Write, targets: list[Write]) -> dict[str, Any]:
    relation = item.relation.value if item.relation else None
    return {"text": write.text, "relation": relation, "targets": [t.text for t in targets]}


def run(
    slots: list[Slot],
    writes: list[Write],
    review_every: int,
    *,
    grant: bool = True,
) -> dict[str, Any]:
    """Write the stream, let the owner review, and score the end state."""
    tallies = {kind: Tally() for kind in KINDS}
    owner = Owner()
    clock = doxa.FixedClock(START)
    started = time.perf_counter()
    with doxa.Memory.open(None, scope="bench", clock=clock) as mem:
        for topic in sorted({f.topic for f in FAMILIES} | {"notes"}) if grant else ():
            mem.owner.grant(topic)
        for count, write in enumerate(writes):
            clock.set(START + timedelta(hours=count))
            receipt = mem.remember(write.text, topic=write.topic, kind=write.topic)
            tally = tallies[write.kind]
            tally.writes += 1
            owner.patterns.add(write.pattern)
            relation = receipt.relation.value if receipt.relation else "-"
            tally.relations[f"{relation} {receipt.outcome.value}"] += 1
            if receipt.outcome is doxa.Outcome.ADMITTED and receipt.fact is not None:
                owner.meaning[receipt.fact] = write
            elif receipt.outcome is doxa.Outcome.HELD and receipt.held is not None:
                tally.holds += 1
                owner.held[receipt.held] = write
            if (count + 1) % review_every == 0:
                review(mem, owner, tallies)
        clock.set(START + timedelta(hours=len(writes)))
        review(mem, owner, tallies)
        seconds = time.perf_counter() - started
        status = {fact: mem.get(fact).status for fact in owner.meaning}
        alarms = len(mem.owner.alarms(include_cleared=True))
    _score(slots, owner, status, tallies)
    return _report(slots, writes, owner, tallies, seconds, alarms)


def _score(
    slots: list[Slot],
    owner: Owner,
    status: dict[str, doxa.FactStatus],
    tallies: dict[str, Tally],
) -> None:
    facts: dict[int, list[tuple[Write, doxa.FactStatus]]] = {}
    for fact, write in owner.meaning.items():
        facts.setdefault(write.slot, []).append((write, status[fact]))
    live = doxa.FactStatus.LIVE
    for slot in slots:
        tally = tallies[slot.family.kind]
        mine = facts.get(slot.id, [])
        if slot.family.kind == "many":
            tally.control_facts += len(mine)
            tally.wrong_closings += sum(s is not live for _, s in mine)
            continue
        if len(slot.values) < 2:
            continue
        latest = slot.values[-1]
        tally.slots_changed += 1
        stale = [w.text for w, s in mine if w.value != latest and s is live]
        tally.stale_live += bool(stale)
        if stale:
            owner.stale.append({"slot": slot.family.name, "values": slot.values, "live": stale})
        tally.latest_missing += not any(w.value == latest and s is live for w, s in mine)
        for w, s in mine:
            if w.value != latest:
                tally.ended_superseded += s is doxa.FactStatus.SUPERSEDED
                tally.ended_retracted += s is doxa.FactStatus.RETRACTED


def _report(
    slots: list[Slot],
    writes: list[Write],
    owner: Owner,
    tallies: dict[str, Tally],
    seconds: float,
    alarms: int,
) -> dict[str, Any]:
    total = Tally()
    for tally in tallies.values():
        total.relations.update(tally.relations)
        for name, value in asdict(tally).items():
            if name != "relations":  # asdict copies a Counter wrongly: its pairs as keys
                setattr(total, name, getattr(total, name) + value)
    rows: dict[str, dict[str, Any]] = {}
    for kind, tally in [*tallies.items(), ("all", total)]:
        asked = [n for p, n in owner.questions.items() if kind in ("all", _kind_of(p))]
        row: dict[str, Any] = {k: v for k, v in asdict(tally).items() if k != "relations"}
        row["relations"] = dict(sorted(tally.relations.items()))
        row["stale_live_rate"] = (
            tally.stale_live / tally.slots_changed if tally.slots_changed else 0
        )
        row["patterns_written"] = sum(kind in ("all", _kind_of(p)) for p in owner.patterns)
        row["patterns_asked"] = len(asked)
        row["questions_per_pattern_max"] = max(asked, default=0)
        row["questions_per_pattern_mean"] = sum(asked) / len(asked) if asked else 0.0
        row["needless_holds_per_200"] = (
            200 * tally.needless_holds / tally.writes if tally.writes else 0
        )
        rows[kind] = row
    return {
        "rows": rows,
        "questions_by_pattern": dict(sorted(owner.questions.items())),
        "needless_holds": owner.needless,
        "stale_slots": owner.stale,
        "slots": len(slots),
        "families": len(FAMILIES),
        "writes": len(writes),
        "seconds": round(seconds, 2),
        "writes_per_second": round(len(writes) / seconds, 1) if seconds else None,
        "alarms": alarms,
    }


_KIND_OF = {f.name: f.kind for f in FAMILIES}


def _kind_of(pattern: str) -> str:
    return _KIND_OF.get(pattern.split(":", 1)[0], "note")


def _targets(rows: dict[str, dict[str, Any]]) -> dict[str, bool]:
    everything = rows["all"]
    changed = rows["one"]["slots_changed"] + rows["fixed"]["slots_changed"]
    stale = rows["one"]["stale_live"] + rows["fixed"]["stale_live"]
    return {
        "stale live <= 5%": stale <= 0.05 * changed,
        "0 wrong closings on many-valued controls": rows["many"]["wrong_closings"] == 0,
        "questions per pattern <= 1": everything["questions_per_pattern_max"] <= 1,
        "needless holds < 1 per 200 writes": everything["needless_holds_per_200"] < 1,
    }


def table(report: dict[str, Any]) -> str:
    rows = report["rows"]
    columns = ("one", "many", "fixed", "note", "all")
    lines = [f"{'':<34}" + "".join(f"{LABELS.get(c, c):>13}" for c in columns)]
    for label, key, fmt in (
        ("writes", "writes", "{}"),
        ("slots changed (one, unchanging)", "slots_changed", "{}"),
        ("stale live (slots)", "stale_live", "{}"),
        ("stale-live rate", "stale_live_rate", "{:.1%}"),
        ("latest value not live (slots)", "latest_missing", "{}"),
        ("old values superseded", "ended_superseded", "{}"),
        ("old values retracted", "ended_retracted", "{}"),
        ("control facts (many-valued)", "control_facts", "{}"),
        ("wrong closings", "wrong_closings", "{}"),
        ("holds", "holds", "{}"),
        ("owner questions", "questions", "{}"),
        ("patterns written", "patterns_written", "{}"),
        ("patterns asked", "patterns_asked", "{}"),
        ("questions per pattern, max", "questions_per_pattern_max", "{}"),
        ("questions per pattern, mean", "questions_per_pattern_mean", "{:.2f}"),
        ("needless holds", "needless_holds", "{}"),
        ("needless holds per 200 writes", "needless_holds_per_200", "{:.2f}"),
    ):
        cells = "".join(f"{fmt.format(rows[c][key]):>13}" for c in columns)
        lines.append(f"{label:<34}{cells}")
    return "\n".join(lines)


def plot(report: dict[str, Any], path: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot skipped: matplotlib is not installed (pip install matplotlib)"
    rows = report["rows"]
    figures = {
        "stale live %\n(one, unchanging)": 100
        * (
            (rows["one"]["stale_live"] + rows["fixed"]["stale_live"])
            / max(1, rows["one"]["slots_changed"] + rows["fixed"]["slots_changed"])
        ),
        "wrong closings\n(many-valued)": rows["many"]["wrong_closings"],
        "max questions\nper pattern": rows["all"]["questions_per_pattern_max"],
        "needless holds\nper 200 writes": rows["all"]["needless_holds_per_200"],
    }
    targets = [5, 0, 1, 1]
    fig, ax = plt.subplots(figsize=(8, 4))
    bars = ax.bar(list(figures), list(figures.values()), color="#4c72b0")
    ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.scatter(list(figures), targets, marker="_", s=600, color="#c44e52", label="target")
    ax.set_title(f"Plain sentences, {report['writes']} writes, {report['families']} families")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    return f"plot: {path}"


def _provenance() -> dict[str, Any]:
    """Which doxa ran: its path and the commit of the checkout it comes from."""
    source = Path(doxa.__file__).resolve().parent
    info: dict[str, Any] = {"doxa": str(source), "argv": sys.argv, "python": sys.version}
    try:
        out = subprocess.run(
            ["git", "-C", str(source), "log", "-1", "--format=%H %s"],
            capture_output=True, text=True, check=True, timeout=10,
        )  # fmt: skip
        info["commit"] = out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        info["commit"] = None
    return info


@click.command()
@click.option("--slots", default=2000, show_default=True, help="Subject-family slots.")
@click.option("--seed", default=7, show_default=True)
@click.option("--repeats", default=0.1, show_default=True, help="Share of values written twice.")
@click.option(
    "--reword",
    default=0.0,
    show_default=True,
    help="Share of later values written in another wording of the family (no alignment can "
    "line those up: reported, not targeted).",
)
@click.option("--notes", default=0.1, show_default=True, help="Share of one-off notes.")
@click.option("--review-every", default=1, show_default=True, help="Writes between reviews.")
@click.option("--quick", is_flag=True, help="A smoke run: 200 slots.")
@click.option(
    "--no-grant",
    is_flag=True,
    help="Grant no closing: every closing the judge decides waits for the owner (a check of "
    "the owner's side, not the judge's figures).",
)
@click.option(
    "--out", type=click.Path(path_type=Path), default=Path("bench/results"), show_default=True
)
def main(
    slots: int,
    seed: int,
    repeats: float,
    reword: float,
    notes: float,
    review_every: int,
    quick: bool,
    no_grant: bool,
    out: Path,
) -> None:
    """Stale-live rate, wrong closings, questions per pattern and needless holds, one run."""
    if quick:
        slots = 200
    made = make_slots(slots, seed)
    writes = make_stream(made, seed, repeats=repeats, reword=reword, notes=notes)
    report = run(made, writes, review_every, grant=not no_grant)
    met = _targets(report["rows"])
    report["targets"] = met
    report["options"] = {
        "slots": slots, "seed": seed, "repeats": repeats, "reword": reword, "notes": notes,
        "review_every": review_every, "grant": not no_grant,
    }  # fmt: skip
    report["provenance"] = _provenance()
    print(
        f"{report['writes']} writes, {len(made)} slots, {report['families']} families, "
        f"seed {seed}, doxa from {report['provenance']['doxa']} "
        f"({(report['provenance']['commit'] or '?')[:12]})"
    )
    print(table(report))
    for kind in KINDS:
        relations = report["rows"][kind]["relations"]
        print(f"{LABELS[kind]}: " + ", ".join(f"{k} {n}" for k, n in relations.items()))
    print(f"alarms: {report['alarms']}; {report['writes_per_second']} writes/s")
    for name, ok in met.items():
        print(f"target {name}: {'met' if ok else 'MISSED'}")
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = out / f"bench_patterns-{stamp}.json"
    path.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"json: {path}")
    print(plot(report, out / f"bench_patterns-{stamp}.png"))
    if not all(met.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
