"""Bursts are counted per writer: a writer that names no source and no turn is still seen.

A writer is the write's authority in its scope (every authority but the owner's): the one
part of a write every interface checks against the caller. Its turn, sources, standpoint and
attribution are its own word, so changing them on every write must not split a burst.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import pytest
from tests.conftest import EX

import doxa

JAN, MAR = "2026-01-05", "2026-03-01"
WINDOW = doxa.ClosingPolicy().burst_window


def seed(mem: doxa.Memory, who: str, *, authority: str = "agent", **extra: object) -> None:
    """A first value (closes nothing), written by the authority that will change it."""
    receipt = call(mem, who, "Wednesday", JAN, authority=authority, **extra)
    assert (receipt.relation, receipt.outcome) == (doxa.Relation.NEW, doxa.Outcome.ADMITTED)


def call(
    mem: doxa.Memory, who: str, value: str, start: str, *, authority: str = "agent", **extra: object
) -> doxa.Receipt:
    """A structured write of ``who``'s call day (``ex:dayOfWeek`` is functional): a later
    value replaces the earlier one, automatically where the kind is granted."""
    return mem.remember(
        f"{who} calls on {value}",
        topic="calls",
        kind="schedule",
        subject=EX + who,
        predicate=EX + "dayOfWeek",
        object=EX + value,
        valid_from=start,
        authority=authority,
        **extra,
    )


def move(mem: doxa.Memory, who: str, *, authority: str = "agent", **extra: object) -> doxa.Receipt:
    """The change of ``who``'s call day: a closing."""
    return call(mem, who, "Thursday", MAR, authority=authority, **extra)


@pytest.fixture
def granted(memory: doxa.Memory) -> doxa.Memory:
    memory.owner.grant("schedule")
    memory.owner.grant("other")
    return memory


def outcomes(receipts: list[doxa.Receipt]) -> list[doxa.Outcome]:
    return [r.outcome for r in receipts]


ADMIT, HOLD = doxa.Outcome.ADMITTED, doxa.Outcome.HELD


@pytest.mark.parametrize("authority", ["agent", "tool"])
def test_a_burst_with_no_turn_and_no_source_raises_the_alarm(
    granted: doxa.Memory, clock: doxa.FixedClock, authority: str
) -> None:
    """Three closings by one writer that names nothing (the REST and MCP default): the third
    raises the alarm; two (control) do not."""
    mem = granted
    for who in "abc":
        seed(mem, who, authority=authority)
    first, second = move(mem, "a", authority=authority), move(mem, "b", authority=authority)
    assert outcomes([first, second]) == [ADMIT, ADMIT]
    assert mem.owner.alarms() == []  # control: two closings are no burst
    third = move(mem, "c", authority=authority)
    assert third.outcome is HOLD
    assert "alarm raised, 3 closings within 10 minutes by one writer" in third.reason
    [alarm] = mem.owner.alarms()
    assert alarm.fact == third.fact
    assert [str(f.object) for f in mem.facts(subject=EX + "c")] == [EX + "Wednesday"]
    # the alarm stops every automatic closing in the scope, whoever writes, whatever the kind
    seed(mem, "d", authority="tool" if authority == "agent" else "agent")
    stopped = call(mem, "d", "Friday", MAR, authority="tool" if authority == "agent" else "agent")
    assert stopped.outcome is HOLD
    assert "an alarm is open in this scope" in stopped.reason
    # until the owner clears it; clearing does not forget the window's closings, so the
    # writer's next closing in the window is stopped again, and one after it goes in
    mem.owner.clear_alarm(alarm.id, reason="the agent was told of three moves at once")
    for who in "ef":
        seed(mem, who, authority=authority)
    assert move(mem, "e", authority=authority).outcome is HOLD
    [again] = mem.owner.alarms()
    mem.owner.clear_alarm(again.id, reason="the same three moves")
    clock.advance(WINDOW + timedelta(seconds=1))
    assert move(mem, "f", authority=authority).outcome is ADMIT
    assert mem.verify() == len(mem.receipts())


# how a writer may label its writes, each different on every write (an attempt to look like
# several writers): none of it splits the writer's burst
LABELS: dict[str, Callable[[int], dict[str, object]]] = {
    "one turn": lambda n: {"turn": EX + "turn/1"},
    "a new turn each write": lambda n: {"turn": EX + f"turn/{n}"},
    "a new source each write": lambda n: {"sources": [f"https://news{n}.example/"]},
    "a new standpoint each write": lambda n: {"standpoint": EX + f"view/{n}"},
    "a new attribution each write": lambda n: {"attributed_to": EX + f"bot/{n}"},
    "the attribution respelt": lambda n: {
        "attributed_to": [
            "http://example.org/bot",
            "HTTP://EXAMPLE.ORG/bot",
            "http://example.org/%62ot",
        ][n]
    },
    "all of it at once": lambda n: {
        "turn": EX + f"turn/{n}",
        "sources": [f"https://news{n}.example/"],
        "standpoint": EX + f"view/{n}",
        "attributed_to": EX + f"bot/{n}",
    },
}


@pytest.mark.parametrize("label", list(LABELS))
def test_a_writer_that_relabels_each_write_is_still_one_writer(
    granted: doxa.Memory, label: str
) -> None:
    mem, labelled = granted, LABELS[label]
    for who in "abc":
        seed(mem, who)
    moves = [move(mem, who, **labelled(n)) for n, who in enumerate("abc")]
    assert outcomes(moves) == [ADMIT, ADMIT, HOLD]
    assert len(mem.owner.alarms()) == 1


def test_an_authority_in_another_spelling_is_refused_not_a_new_writer(
    granted: doxa.Memory,
) -> None:
    """The authority names the writer, so it is never folded from another spelling: each is
    refused and stores nothing; the exact value (control) is a write."""
    mem = granted
    seed(mem, "a")
    before = len(mem.receipts())
    for spelling in ("Agent", "AGENT", " agent", "agent ", "аgent"):  # the last: Cyrillic а
        with pytest.raises(doxa.InvalidInput, match="is not a valid authority"):
            move(mem, "a", authority=spelling)
    assert len(mem.receipts()) == before
    assert move(mem, "a", authority="agent").outcome is ADMIT


def test_a_burst_spread_over_authorities_is_one_writers(granted: doxa.Memory) -> None:
    """One closing each as an agent, a tool and an external page (its own source): an agent
    key may write as any of them, so they are one writer and the third raises the alarm.
    Control: the owner's closing between two of the agent's counts for no writer."""
    mem = granted
    page = {"sources": ["https://shop.example/prices"]}
    seed(mem, "a")
    seed(mem, "b", authority="tool")
    seed(mem, "c", authority="external", **page)
    moves = [move(mem, "a"), move(mem, "b", authority="tool")]
    moves.append(move(mem, "c", authority="external", sources=["https://other.example/"]))
    assert outcomes(moves) == [ADMIT, ADMIT, HOLD]
    assert [a for a in mem.owner.alarms() if a.open]


def test_the_owner_between_an_agents_closings_is_no_burst(granted: doxa.Memory) -> None:
    """Control for the test above: agent, owner, agent is two closings by one writer."""
    mem = granted
    seed(mem, "a")
    seed(mem, "b", authority="owner")
    seed(mem, "c")
    moves = [move(mem, "a"), move(mem, "b", authority="owner"), move(mem, "c")]
    assert outcomes(moves) == [ADMIT, ADMIT, ADMIT]
    assert mem.owner.alarms() == []


def test_the_owners_own_closings_are_not_a_writer_burst(granted: doxa.Memory) -> None:
    """The owner's writes are the owner's: an alarm on them would ask the owner's leave for
    their own writes. Control: the owner's closings from one source still are a burst."""
    mem = granted
    for who in "abcd":
        seed(mem, who, authority="owner")
    moves = [move(mem, who, authority="owner") for who in "abcd"]
    assert outcomes(moves) == [ADMIT] * 4
    assert mem.owner.alarms() == []
    feed = {"sources": ["https://calendar.example/feed"]}
    for who in "efg":
        seed(mem, who, authority="owner")
    assert outcomes([move(mem, who, authority="owner", **feed) for who in "efg"]) == [
        ADMIT,
        ADMIT,
        HOLD,
    ]


@pytest.mark.parametrize(
    ("last_after", "alarm"),
    [(WINDOW, True), (WINDOW + timedelta(seconds=1), False)],
    ids=["third at the window's end", "third past it"],
)
def test_the_window_is_exact_to_the_second(
    granted: doxa.Memory,
    clock: doxa.FixedClock,
    last_after: timedelta,
    alarm: bool,
) -> None:
    """Closings at t, t + 5 min and t + 10 min are a burst (the window includes its start);
    one second later the first has left the window. ``t`` is mid-minute, so the count must
    reach into the minute the window starts in."""
    mem = granted
    for who in "abc":
        seed(mem, who)
    clock.advance(timedelta(seconds=30))
    first = move(mem, "a")
    clock.advance(timedelta(minutes=5))
    second = move(mem, "b")
    clock.advance(last_after - timedelta(minutes=5))
    third = move(mem, "c")
    assert outcomes([first, second, third]) == [ADMIT, ADMIT, HOLD if alarm else ADMIT]
    assert bool(mem.owner.alarms()) is alarm


def test_closings_spread_out_in_time_are_no_burst(
    granted: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """One writer closing every six minutes all day (two in any window): never an alarm.
    Control: one more closing at the same instant as the last (three in the window) is."""
    mem = granted
    for n in range(12):
        seed(mem, f"p{n}")
        clock.advance(timedelta(minutes=6))
        assert move(mem, f"p{n}").outcome is ADMIT
    assert mem.owner.alarms() == []
    seed(mem, "x")
    assert move(mem, "x").outcome is HOLD


def in_threads(mem: doxa.Memory, jobs: list[tuple[str, str]]) -> list[doxa.Receipt]:
    """Each job (authority, subjects) in its own thread, all started at once; every subject
    is seeded first by the job's authority, then moved."""
    for authority, subjects in jobs:
        for who in subjects:
            seed(mem, who, authority=authority)
    results: list[doxa.Receipt] = []
    barrier = threading.Barrier(len(jobs))

    def run(authority: str, subjects: str) -> None:
        barrier.wait()
        for who in subjects:
            results.append(move(mem, who, authority=authority))

    threads = [threading.Thread(target=run, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == sum(len(subjects) for _, subjects in jobs)
    return results


def test_one_writer_in_two_threads_is_one_writer(granted: doxa.Memory) -> None:
    """Three closings in each of two threads by one writer: exactly two go in and one alarm
    is raised, however the threads interleave."""
    results = in_threads(granted, [("agent", "abc"), ("agent", "xyz")])
    assert sum(r.outcome is ADMIT for r in results) == 2
    assert len(granted.owner.alarms()) == 1
    assert granted.verify() == len(granted.receipts())


def test_two_writers_in_two_threads_raise_no_alarm(granted: doxa.Memory) -> None:
    """Control: two closings each by an agent and the owner in two threads all go in."""
    results = in_threads(granted, [("agent", "ab"), ("owner", "xy")])
    assert outcomes(results) == [ADMIT] * 4
    assert granted.owner.alarms() == []
