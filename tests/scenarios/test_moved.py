"""Bob moved: a superseded address is still believed for the months before the move, and a
value written into those months meets it (on every backend: the past keys and the query
that finds them)."""

from __future__ import annotations

from tests.conftest import EX

import doxa


def _lives(mem: doxa.Memory, city: str, since: str | None, authority: str) -> doxa.Receipt:
    return mem.remember(
        f"Bob lives in {city}",
        topic="family",
        subject=EX + "bob",
        predicate=EX + "livesIn",
        object=EX + city,
        authority=authority,
        valid_from=since,
    )


def _cities(mem: doxa.Memory, when: str) -> list[str]:
    return [str(f.object) for f in mem.facts(subject=EX + "bob", valid_at=when)]


def test_a_backdated_value_ends_the_superseded_months_too(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    memory.owner.grant("general")
    paris = _lives(memory, "Paris", "2026-02-01", "owner")
    clock.set("2026-05-02T09:00:00Z")
    _lives(memory, "Lyon", "2026-05-01", "owner")
    assert _cities(memory, "2026-03-15") == [EX + "Paris"]
    # control: a value after Paris's months does not read it
    later = _lives(memory, "Nice", "2026-06-01", "agent")
    assert paris.fact not in later.consulted
    memory.owner.reject(later.fact, reason="not so")
    # an undated value starts when it is recorded, after Paris's months: nor does it
    undated = _lives(memory, "Nice", None, "agent")
    assert paris.fact not in undated.consulted
    memory.owner.reject(undated.fact, reason="not so")
    rome = _lives(memory, "Rome", "2026-03-01", "agent")
    assert rome.outcome is doxa.Outcome.HELD
    assert paris.fact in rome.consulted
    clock.set("2026-05-03T09:00:00Z")
    approval = memory.owner.approve(rome.fact)
    assert paris.fact in approval.targets
    assert _cities(memory, "2026-02-15") == [EX + "Paris"]  # the months before Rome stay
    for when in ("2026-03-15", "2026-04-15", "2026-06-15"):
        assert _cities(memory, when) == [EX + "Rome"], when
    assert memory.verify() > 0
