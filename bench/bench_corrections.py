"""Is a gate worth having? An owner corrects facts over weeks while an agent re-asserts stale ones.

A seeded simulation, the same for each memory, run side by side:

- **doxa**: the gate with the rule judge. The owner writes each correction as text naming
  the fact it corrects (``revises``, looked up as the owner sees it: the answer the memory
  gave); the agent re-asserts text only, from its context, with ``authority`` agent. The
  owner grants closing once per kind at the start (one decision each, counted) and reviews
  the held queue each evening: approving what is true, rejecting the rest (``--no-grant``: no
  closing granted, so the owner approves each of their own corrections too). Beside it,
  **doxa-text** is the same run with the owner's corrections as text alone (no ``revises``):
  what the rule judge's text rule does without the writer's help.
- **plain**: an append-only log. Each entry keeps its time (``valid_from`` where the writer
  gave one, else when it was written); a question takes the latest entry for the statement
  recorded by then and starting by then, so it answers the past as well as a log can.
- **similarity**: a Mem0-style update, implemented here. Each write is compared with every
  stored memory by cosine similarity of word counts; at or above the threshold it replaces
  the most similar memory (identical text: nothing to do), below it is added. Search answers
  with the current memories only, as Mem0's does (its history table is for audit, not
  answers). The threshold is tuned in its favour: the run tries several and reports the one
  with the fewest repeated corrections.

The world: ``--statements`` one-value statements of five shapes (a team's weekly call day, a
phone number, a home city, a review room, a manager), written by the owner on day 0. Each
working day of ``--weeks`` weeks the owner changes ``--changes`` of them (a third backdated a
few days: "it changed on Monday"); the agent, whose context is loaded from the memory's own
answers at the start of each session (every ``--session-days`` days), re-asserts
``--reasserts`` statements a day from that context, stale or not. Each evening the owner asks
about every statement ("what is it now?"); a wrong answer about a statement the owner changed
in the last two weeks is a **correction the owner must repeat**, and the owner repeats it.

Counted per memory: corrections repeated; stale (or missing) answers about now; answers about
the past, both ``valid_at`` (what held then, as known at the end) and ``valid_at`` + ``as_of``
(what the owner had said by then); held writes the owner then approved unchanged (needless
holds) and all owner decisions. Which entry or fact answers a question is decided by the
bench's record of what each write meant (never by reading the text back), so the three
memories are scored alike. The plot goes to ``--plot-to`` when matplotlib is installed.

    python bench/bench_corrections.py             # the default run (~25 s on 2 cores)
    python bench/bench_corrections.py --quick     # a smoke run for the tests
"""

from __future__ import annotations

import math
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

import click

import doxa

START = datetime(2026, 3, 2, tzinfo=UTC)  # a Monday
TOPIC = "work"
PEOPLE = (
    "Alice Costa",
    "Bob Weber",
    "Maria Keller",
    "Jonas Silva",
    "Lena Novak",
    "Omar Haddad",
    "Yuki Tanaka",
    "Priya Rossi",
    "Tom Berg",
    "Ana Lopez",
    "Ravi Shah",
    "Eva Lind",
)
TEAMS = ("supplier", "design", "board", "sales", "platform", "hiring", "budget", "support")
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
CITIES = ("Paris", "Berlin", "Lisbon", "Vienna", "Oslo", "Madrid", "Prague", "Dublin")
ROOMS = ("Room 12", "Room 14", "the Boardroom", "Room 3B", "the Library", "Room 21")


@dataclass(frozen=True)
class Shape:
    """One kind of one-value statement: its first wording, the owner's wordings of a change,
    and the values it takes."""

    kind: str
    first: str
    changes: tuple[str, ...]
    subjects: tuple[str, ...]
    values: tuple[str, ...] | None  # None: a phone number


SHAPES = (
    Shape(
        "schedule",
        "The {s} weekly call is on {v}",
        ("The {s} weekly call moved to {v}", "The {s} weekly call is now on {v}"),
        TEAMS,
        DAYS,
    ),
    Shape(
        "contact",
        "{s}'s phone number is {v}",
        ("{s}'s phone number is now {v}", "{s}'s phone number changed to {v}"),
        PEOPLE,
        None,
    ),
    Shape(
        "address",
        "{s}'s home city is {v}",
        ("{s}'s home city is now {v}", "{s}'s home city changed to {v}"),
        PEOPLE,
        CITIES,
    ),
    Shape(
        "room",
        "The {s} review is in {v}",
        ("The {s} review is now in {v}", "The {s} review moved to {v}"),
        TEAMS,
        ROOMS,
    ),
    Shape(
        "org",
        "{s}'s manager is {v}",
        ("{s}'s manager is now {v}", "{s}'s manager changed to {v}"),
        PEOPLE,
        PEOPLE,
    ),
)


@dataclass(frozen=True)
class Statement:
    key: int
    shape: Shape
    subject: str

    def text(self, value: str, wording: str | None = None) -> str:
        return (wording or self.shape.first).format(s=self.subject, v=value)

    def another(self, rng: random.Random, current: str) -> str:
        while True:
            if self.shape.values is None:
                value = f"555-{rng.randrange(100, 10000):04d}"
            else:
                value = rng.choice([v for v in self.shape.values if v != self.subject])
            if value != current:
                return value


@dataclass(frozen=True)
class Said:
    """One write, and what it meant: which statement, which value, from when."""

    key: int
    value: str
    text: str
    at: datetime
    valid_from: datetime | None
    owner: bool
    kind: str
    revises: bool = False  # the owner corrects (doxa names the fact it corrects)


class Memory(Protocol):
    """What the simulation needs of a memory under test."""

    name: str

    def write(self, said: Said, now: datetime) -> None: ...
    def answer(self, key: int, valid_at: datetime, as_of: datetime) -> str | None: ...
    def review(self, truth: dict[int, str], now: datetime) -> None: ...


@dataclass
class Score:
    repeats: int = 0
    stale_now: int = 0
    missing_now: int = 0
    questions_now: int = 0
    wrong_past_valid: int = 0
    wrong_past_believed: int = 0
    questions_past: int = 0
    needless_holds: int = 0
    decisions: int = 0
    holds: int = 0
    writes: int = 0
    seconds: float = 0.0
    detail: str = ""


# -- the three memories ---------------------------------------------------------------------------


class Plain:
    """An append-only log: every write kept, the latest that applies answers."""

    name = "plain"

    def __init__(self, score: Score) -> None:
        self.entries: dict[int, list[tuple[datetime, datetime, str]]] = {}
        self.score = score

    def write(self, said: Said, now: datetime) -> None:
        when = said.valid_from or now
        self.entries.setdefault(said.key, []).append((when, now, said.value))

    def answer(self, key: int, valid_at: datetime, as_of: datetime) -> str | None:
        seen = [e for e in self.entries.get(key, ()) if e[1] <= as_of and e[0] <= valid_at]
        return max(seen)[2] if seen else None

    def review(self, truth: dict[int, str], now: datetime) -> None:
        pass


_WORD = re.compile(r"[a-z0-9]+")


def _vector(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text.lower()))


def _cosine(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(n * b[w] for w, n in a.items())
    return dot / math.sqrt(sum(n * n for n in a.values()) * sum(n * n for n in b.values()))


@dataclass
class _Entry:
    text: str
    vector: Counter[str]
    key: int
    value: str
    when: datetime


class Similarity:
    """Mem0-style: the most similar memory at or above the threshold is replaced."""

    def __init__(self, threshold: float, score: Score) -> None:
        self.threshold = threshold
        self.name = f"similarity@{threshold:.2f}"
        self.memories: list[_Entry] = []
        self.score = score

    def write(self, said: Said, now: datetime) -> None:
        vector = _vector(said.text)
        best, similarity = None, 0.0
        for entry in self.memories:
            s = _cosine(vector, entry.vector)
            if s > similarity:
                best, similarity = entry, s
        if best is not None and best.text == said.text:
            return  # NOOP: the same memory
        if best is not None and similarity >= self.threshold:
            best.text, best.vector, best.key, best.value = said.text, vector, said.key, said.value
            best.when = said.valid_from or now
            return
        self.memories.append(
            _Entry(said.text, vector, said.key, said.value, said.valid_from or now)
        )

    def answer(self, key: int, valid_at: datetime, as_of: datetime) -> str | None:
        found = [m for m in self.memories if m.key == key and m.when <= valid_at]
        return max(found, key=lambda m: m.when).value if found else None

    def review(self, truth: dict[int, str], now: datetime) -> None:
        pass


class Gate:
    """doxa: the rule judge, ``revises`` for the owner's corrections, text-only agent writes;
    ``revises=False``: the owner's corrections are text only too (the text rule alone)."""

    def __init__(self, score: Score, *, revises: bool = True, grant: bool = True) -> None:
        self.name = "doxa" if revises else "doxa-text"
        self.revises = revises
        self.clock = doxa.FixedClock(START)
        self.memory = doxa.Memory.open(None, scope="owner", clock=self.clock)
        self.meaning: dict[str, tuple[int, str]] = {}  # fact id -> (statement, value)
        self.held: dict[str, tuple[int, str]] = {}  # held id -> (statement, value)
        self.score = score
        for shape in SHAPES if grant else ():
            self.memory.owner.grant(shape.kind)
            score.decisions += 1

    def live(self, key: int, valid_at: datetime, as_of: datetime) -> doxa.Fact | None:
        facts = self.memory.facts(valid_at=valid_at, as_of=as_of, topic=TOPIC)
        mine = [f for f in facts if self.meaning.get(f.id, (None,))[0] == key]
        return max(mine, key=_recency) if mine else None

    def write(self, said: Said, now: datetime) -> None:
        self.clock.set(now)
        revises = None
        if said.revises and self.revises:
            current = self.live(said.key, now, now)
            revises = current.id if current is not None else None
        receipt = self.memory.remember(
            said.text,
            topic=TOPIC,
            kind=said.kind,
            authority="owner" if said.owner else "agent",
            valid_from=said.valid_from,
            revises=revises,
        )
        if receipt.outcome is doxa.Outcome.ADMITTED and receipt.fact is not None:
            self.meaning[receipt.fact] = (said.key, said.value)
        elif receipt.outcome is doxa.Outcome.HELD and receipt.held is not None:
            self.score.holds += 1
            self.held[receipt.held] = (said.key, said.value)

    def answer(self, key: int, valid_at: datetime, as_of: datetime) -> str | None:
        fact = self.live(key, valid_at, as_of)
        return None if fact is None else self.meaning[fact.id][1]

    def answers(self, valid_at: datetime, as_of: datetime) -> dict[int, str]:
        """Every statement's answer from one read (the per-question read, batched)."""
        best: dict[int, doxa.Fact] = {}
        for f in self.memory.facts(valid_at=valid_at, as_of=as_of, topic=TOPIC):
            if f.id in self.meaning:
                key = self.meaning[f.id][0]
                if key not in best or _recency(f) > _recency(best[key]):
                    best[key] = f
        return {key: self.meaning[f.id][1] for key, f in best.items()}

    def review(self, truth: dict[int, str], now: datetime) -> None:
        """The owner's evening review: approve a held write that says what is true (the hold
        was needless), reject the rest."""
        self.clock.set(now)
        for item in self.memory.held():
            key, value = self.held.pop(item.id)
            self.score.decisions += 1
            if truth[key] == value:
                self.score.needless_holds += 1
                # "replace or add?" needs the owner's answer: each key holds one value
                answer = doxa.Relation.REPLACES if item.asks is not None else None
                receipt = self.memory.owner.approve(item.id, as_relation=answer)
                if receipt.fact is not None:
                    self.meaning[receipt.fact] = (key, value)
            else:
                self.memory.owner.reject(item.id, reason="stale: the owner corrected it")


def _recency(fact: doxa.Fact) -> tuple[datetime, datetime]:
    return (fact.valid_from or fact.recorded_at, fact.recorded_at)


# -- the simulation -----------------------------------------------------------------------------


@dataclass
class World:
    """The seeded scenario: every write the owner and the agent make, day by day."""

    statements: list[Statement]
    days: int
    changes: int
    reasserts: int
    session_days: int
    seed: int
    #: per statement: (valid_from, recorded_at, value) of each owner statement, in order
    timeline: dict[int, list[tuple[datetime, datetime, str]]] = field(default_factory=dict)


def make_world(
    statements: int, weeks: int, changes: int, reasserts: int, session: int, seed: int
) -> World:
    rng = random.Random(seed)
    made: list[Statement] = []
    pairs = [(shape, s) for shape in SHAPES for s in shape.subjects]
    rng.shuffle(pairs)
    for key, (shape, subject) in enumerate(pairs[:statements]):
        made.append(Statement(key, shape, subject))
    return World(made, weeks * 5, changes, reasserts, session, seed)


def day_start(day: int) -> datetime:
    """Working day ``day`` (0 is the first Monday) at midnight: weekends skipped."""
    return START + timedelta(days=day // 5 * 7 + day % 5)


def truth_at(world: World, key: int, valid_at: datetime, as_of: datetime) -> str | None:
    said = [e for e in world.timeline[key] if e[1] <= as_of and e[0] <= valid_at]
    return max(said, key=lambda e: (e[0], e[1]))[2] if said else None


def simulate(world: World, memory: Memory, score: Score) -> None:
    """Run the weeks against ``memory``, scoring as it goes, then ask about the past."""
    rng = random.Random(world.seed + 1)
    world.timeline = {}
    value: dict[int, str] = {}
    changed_on: dict[int, int] = {}
    started = time.perf_counter()
    first = day_start(0) + timedelta(hours=8)
    for st in world.statements:
        value[st.key] = st.another(rng, "")
        world.timeline[st.key] = [(first, first, value[st.key])]
        text = st.text(value[st.key])
        memory.write(Said(st.key, value[st.key], text, first, first, True, st.shape.kind), first)
        score.writes += 1
    context: dict[int, str] = {}
    for day in range(1, world.days):
        morning = day_start(day)
        if (day - 1) % world.session_days == 0:  # a new agent session: context from memory
            at = morning + timedelta(hours=7)
            context = _answers(memory, world, at, at)
        for n, st in enumerate(rng.sample(world.statements, world.changes)):
            at = morning + timedelta(hours=9, minutes=30 * n)
            new = st.another(rng, value[st.key])
            back = rng.random() < 1 / 3
            since = max(at - timedelta(days=rng.randint(1, 3)), world.timeline[st.key][-1][0])
            valid_from = since + timedelta(minutes=1) if back else at
            value[st.key] = new
            changed_on[st.key] = day
            world.timeline[st.key].append((valid_from, at, new))
            text = st.text(new, rng.choice(st.shape.changes))
            said = Said(st.key, new, text, at, valid_from, True, st.shape.kind, revises=True)
            memory.write(said, at)
            score.writes += 1
        for n, key in enumerate(rng.sample(sorted(context), min(world.reasserts, len(context)))):
            at = morning + timedelta(hours=11, minutes=20 * n)
            st = world.statements[key]
            # an agent words it its own way: the first wording or one of the owner's
            text = st.text(context[key], rng.choice((st.shape.first, *st.shape.changes)))
            said = Said(key, context[key], text, at, None, False, st.shape.kind)
            memory.write(said, at)
            score.writes += 1
        evening = morning + timedelta(hours=18)
        memory.review(value, evening)
        answers = _answers(memory, world, evening, evening)
        for n, st in enumerate(world.statements):
            score.questions_now += 1
            got = answers.get(st.key)
            if got == value[st.key]:
                continue
            score.stale_now += got is not None
            score.missing_now += got is None
            if day - changed_on.get(st.key, -99) <= 10:  # the owner notices, and repeats it
                score.repeats += 1
                at = evening + timedelta(minutes=n)
                last = world.timeline[st.key][-1]
                text = st.text(value[st.key], st.shape.changes[0])
                said = Said(st.key, value[st.key], text, at, last[0], True, st.shape.kind, True)
                memory.write(said, at)
                score.writes += 1
        memory.review(value, evening + timedelta(hours=2))
    end = day_start(world.days) + timedelta(hours=8)
    for day in range(1, world.days):
        t = day_start(day) + timedelta(hours=17)
        known = _answers(memory, world, t, end)
        believed = _answers(memory, world, t, t)
        for st in world.statements:
            score.questions_past += 1
            score.wrong_past_valid += known.get(st.key) != truth_at(world, st.key, t, end)
            score.wrong_past_believed += believed.get(st.key) != truth_at(world, st.key, t, t)
    score.seconds = time.perf_counter() - started


def _answers(memory: Memory, world: World, valid_at: datetime, as_of: datetime) -> dict[int, str]:
    if isinstance(memory, Gate):
        return memory.answers(valid_at, as_of)
    return {
        st.key: found
        for st in world.statements
        if (found := memory.answer(st.key, valid_at, as_of)) is not None
    }


def run_one(
    kind: str, world: World, threshold: float = 0.0, *, grant: bool = True
) -> tuple[str, Score]:
    score = Score()
    memory: Memory
    if kind in ("doxa", "doxa-text"):
        gate = Gate(score, revises=kind == "doxa", grant=grant)
        memory = gate
        try:
            simulate(world, memory, score)
        finally:
            gate.memory.close()
    elif kind == "plain":
        memory = Plain(score)
        simulate(world, memory, score)
    else:
        memory = Similarity(threshold, score)
        simulate(world, memory, score)
    return memory.name, score


def _ratio(a: float, b: float) -> str:
    return "inf" if b == 0 and a else ("-" if b == 0 else f"{a / b:.2f}")


def _rows(results: list[tuple[str, Score]]) -> Iterator[tuple[str, list[str]]]:
    for label, attr in (
        ("corrections the owner repeats", "repeats"),
        ("stale answers about now", "stale_now"),
        ("missing answers about now", "missing_now"),
        ("wrong answers, valid_at (past)", "wrong_past_valid"),
        ("wrong answers, valid_at+as_of", "wrong_past_believed"),
        ("held writes", "holds"),
        ("needless holds", "needless_holds"),
        ("owner decisions (grants, reviews)", "decisions"),
        ("writes", "writes"),
    ):
        yield label, [str(getattr(s, attr)) for _, s in results]


def plot(results: list[tuple[str, Score]], path: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plot skipped: matplotlib is not installed (pip install matplotlib)"
    labels = [
        "repeats",
        "stale now",
        "wrong past (valid_at)",
        "wrong past (as_of)",
        "needless holds",
    ]
    attrs = ["repeats", "stale_now", "wrong_past_valid", "wrong_past_believed", "needless_holds"]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(results)
    for i, (name, s) in enumerate(results):
        xs = [j + i * width for j in range(len(attrs))]
        bars = ax.bar(xs, [getattr(s, a) for a in attrs], width, label=name)
        ax.bar_label(bars, fontsize=7)  # a zero shows as "0", not as no bar at all
    ax.set_xticks([j + width * (len(results) - 1) / 2 for j in range(len(attrs))], labels)
    ax.set_ylabel("count over the run")
    ax.set_title("An owner's corrections against an agent's stale context")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    return f"plot: {path}"


@click.command()
@click.option(
    "--statements", default=50, show_default=True, help="One-value statements (at most 52)."
)
@click.option("--weeks", default=8, show_default=True, help="Simulated weeks (5 days each).")
@click.option("--changes", default=2, show_default=True, help="Owner changes per day.")
@click.option("--reasserts", default=8, show_default=True, help="Agent re-assertions per day.")
@click.option("--session-days", default=5, show_default=True, help="Days per agent session.")
@click.option("--seed", default=7, show_default=True)
@click.option(
    "--thresholds",
    default="0.6,0.7,0.8,0.9",
    show_default=True,
    help="Similarity thresholds tried; the best for the baseline is reported.",
)
@click.option("--quick", is_flag=True, help="A smoke run: 20 statements, 2 weeks.")
@click.option(
    "--no-grant",
    is_flag=True,
    help="The owner grants no closing: every closing is held for the owner to approve.",
)
@click.option("--plot-to", type=click.Path(path_type=Path), default=Path("bench/corrections.png"))
def main(
    statements: int,
    weeks: int,
    changes: int,
    reasserts: int,
    session_days: int,
    seed: int,
    thresholds: str,
    quick: bool,
    no_grant: bool,
    plot_to: Path,
) -> None:
    """Run the same seeded weeks against doxa, a plain log and a similarity update."""
    if quick:
        statements, weeks = 20, 2
    world = make_world(statements, weeks, changes, reasserts, session_days, seed)
    doxa_run = run_one("doxa", world, grant=not no_grant)
    plain_run = run_one("plain", world)
    tried = [run_one("similarity", world, float(t)) for t in thresholds.split(",")]
    best = min(tried, key=lambda r: (r[1].repeats, r[1].stale_now))
    results = [doxa_run, plain_run, best, run_one("doxa-text", world, grant=not no_grant)]
    print(
        f"{len(world.statements)} statements, {weeks} weeks ({world.days} working days), "
        f"{changes} owner changes and {reasserts} agent re-assertions a day, agent sessions "
        f"of {session_days} days, seed {seed}"
    )
    print(
        "similarity thresholds tried (repeats): "
        + ", ".join(f"{name.split('@')[1]}: {s.repeats}" for name, s in tried)
    )
    names = [name for name, _ in results]
    print(f"{'':<36}" + "".join(f"{n:>16}" for n in names))
    for label, cells in _rows(results):
        print(f"{label:<36}" + "".join(f"{c:>16}" for c in cells))
    d, p, s, t = (r[1] for r in results)
    print(
        f"questions about now: {d.questions_now}; about the past: {d.questions_past} of each kind"
    )
    print(
        f"repeated corrections, doxa / plain: {_ratio(d.repeats, p.repeats)}; "
        f"doxa / {best[0]}: {_ratio(d.repeats, s.repeats)}"
    )
    print(
        f"stale answers now, doxa / plain: {_ratio(d.stale_now, p.stale_now)}; "
        f"wrong past (valid_at), doxa / plain: {_ratio(d.wrong_past_valid, p.wrong_past_valid)}"
    )
    print(f"repeated corrections, doxa-text / plain: {_ratio(t.repeats, p.repeats)}")
    verdict = "met" if d.repeats * 5 <= p.repeats else "MISSED"
    print(f"target: doxa's repeated corrections <= 1/5 of the plain store's: {verdict}")
    print("seconds: " + ", ".join(f"{n} {r.seconds:.1f}" for n, r in results))
    print(plot(results, plot_to))
    if verdict != "met":
        sys.exit(1)


if __name__ == "__main__":
    main()
