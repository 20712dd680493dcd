"""The birth-year story: a guess turns out to have never been true."""

from __future__ import annotations

from tests.conftest import EX

import doxa


def _birth_year(mem: doxa.Memory, year: int, authority: str) -> doxa.Receipt:
    return mem.remember(
        f"Bob was born in {year}",
        topic="family",
        kind="biographical",
        subject=EX + "bob",
        predicate=EX + "birthYear",
        object=year,
        authority=authority,
    )


def test_owner_correction_is_was_wrong_and_held(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """The owner's 1977 against the agent's 1971 is 'was_wrong', held until closing is earned."""
    guess = _birth_year(memory, 1971, "agent")
    clock.set("2026-03-20T09:00:00Z")
    correction = _birth_year(memory, 1977, "owner")
    assert (correction.relation, correction.outcome) == (doxa.Relation.WAS_WRONG, doxa.Outcome.HELD)
    assert correction.targets == (guess.fact,)


def test_retracted_year_is_true_at_no_time_but_was_believed(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """After the retraction 1971 is true at no time, yet the day before it was believed."""
    guess = _birth_year(memory, 1971, "agent")
    clock.set("2026-03-20T09:00:00Z")
    correction = _birth_year(memory, 1977, "owner")
    memory.owner.approve(correction.fact)
    clock.set("2026-03-21T09:00:00Z")

    def years(**kwargs: str) -> list[str]:
        return [str(f.object) for f in memory.facts(subject=EX + "bob", **kwargs)]

    assert years() == ["1977"]
    for when in ("1971-06-01", "2000-01-01", "2026-03-10", "2026-03-21"):
        assert years(valid_at=when) == ["1977"], when
    assert years(valid_at="2000-01-01", as_of="2026-03-19") == ["1971"]
    retracted = {f.id: f.status for f in memory.facts(include_ended=True)}
    assert retracted == {
        guess.fact: doxa.FactStatus.RETRACTED,
        correction.fact: doxa.FactStatus.LIVE,
    }


def test_agent_cannot_overturn_the_owner(memory: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A lower authority contradicting the owner is 'unclear' and held; the owner's fact stays."""
    owner = _birth_year(memory, 1977, "owner")
    clock.set("2026-03-20T09:00:00Z")
    memory.owner.grant("biographical")
    guess = _birth_year(memory, 1971, "agent")
    assert (guess.relation, guess.outcome) == (doxa.Relation.UNCLEAR, doxa.Outcome.HELD)
    assert [f.id for f in memory.facts(subject=EX + "bob")] == [owner.fact]


def test_owner_retracts_directly(memory: doxa.Memory, clock: doxa.FixedClock) -> None:
    """``retract`` ends belief with an event; the sibling fact stays live (control)."""
    guess = _birth_year(memory, 1971, "agent")
    sibling = memory.remember(
        "Bob lives in Lyon",
        topic="family",
        subject=EX + "bob",
        predicate=EX + "livesIn",
        object=EX + "Lyon",
    )
    clock.set("2026-03-20T09:00:00Z")
    receipt = memory.owner.retract(guess.fact, reason="Bob said 1977")
    assert (receipt.outcome, receipt.targets) == (doxa.Outcome.CLOSED, (guess.fact,))
    live = [f.id for f in memory.facts(subject=EX + "bob")]
    assert live == [sibling.fact]
    assert {f.id for f in memory.facts(subject=EX + "bob", as_of="2026-03-19")} == {
        guess.fact,
        sibling.fact,
    }
