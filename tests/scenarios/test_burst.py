"""A burst of closings by one agent that names no turn and no source, on every backend: the
minute keys and the query that counts by them (tests/gate/test_burst_writer.py has the rest)."""

from __future__ import annotations

from datetime import timedelta

from tests.conftest import EX

import doxa


def _calls(mem: doxa.Memory, who: str, day: str, start: str) -> doxa.Receipt:
    return mem.remember(
        f"{who} calls on {day}",
        topic="calls",
        kind="schedule",
        subject=EX + who,
        predicate=EX + "dayOfWeek",
        object=EX + day,
        valid_from=start,
    )


def test_three_closings_in_the_window_raise_the_alarm(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Closings 6½ minutes apart go in (control: at most two in any window); one more at the
    same instant as the last makes three in the window, and it is held with the alarm."""
    memory.owner.grant("schedule")
    for who in "abcd":
        _calls(memory, who, "Wednesday", "2026-01-05")
    spread = []
    for who in "ab":
        clock.advance(timedelta(minutes=6, seconds=30))
        spread.append(_calls(memory, who, "Thursday", "2026-03-01").outcome)
    assert spread == [doxa.Outcome.ADMITTED] * 2
    assert memory.owner.alarms() == []
    third = _calls(memory, "c", "Thursday", "2026-03-01")
    assert third.outcome is doxa.Outcome.HELD
    assert "3 closings within 10 minutes by one writer" in third.reason
    assert len(memory.owner.alarms()) == 1
