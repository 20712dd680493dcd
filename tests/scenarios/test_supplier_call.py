"""The supplier-call story: the world changed, and both clocks still answer."""

from __future__ import annotations

from tests.conftest import EX

import doxa


def _call(mem: doxa.Memory, day: str, valid_from: str) -> doxa.Receipt:
    return mem.remember(
        f"The weekly supplier call is on {day}",
        topic="meetings",
        subject=EX + "supplierCall",
        predicate=EX + "dayOfWeek",
        object=EX + day,
        authority="owner",
        kind="schedule",
        valid_from=valid_from,
    )


def _texts(facts: list[doxa.Fact]) -> list[str]:
    return [f.text for f in facts]


def test_the_move_is_held_until_the_owner_approves(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Closing is not earned for 'schedule', so the replacement waits and nothing changes yet."""
    wednesday = _call(memory, "Wednesday", "2026-01-01")
    clock.set("2026-03-09T10:00:00Z")
    thursday = _call(memory, "Thursday", "2026-03-08")
    assert (thursday.relation, thursday.outcome) == (doxa.Relation.REPLACES, doxa.Outcome.HELD)
    assert thursday.targets == (wednesday.fact,)
    assert [h.id for h in memory.held()] == [thursday.fact]
    # still Wednesday, and the held Thursday is in no ordinary read
    assert _texts(memory.facts(valid_at="2026-03-10")) == [
        "The weekly supplier call is on Wednesday"
    ]


def test_approved_move_supersedes_and_both_clocks_answer(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """After approval Wednesday ends on 8 March, points to Thursday, and nothing is deleted."""
    wednesday = _call(memory, "Wednesday", "2026-01-01")
    clock.set("2026-03-09T10:00:00Z")
    thursday = _call(memory, "Thursday", "2026-03-08")
    approval = memory.owner.approve(thursday.fact)
    assert (approval.outcome, approval.targets) == (doxa.Outcome.APPROVED, (wednesday.fact,))
    assert memory.held() == []

    clock.set("2026-03-10T12:00:00Z")
    assert _texts(memory.facts(valid_at="2026-03-05")) == [
        "The weekly supplier call is on Wednesday"
    ]
    assert _texts(memory.facts(valid_at="2026-03-10")) == [
        "The weekly supplier call is on Thursday"
    ]
    assert _texts(memory.facts(valid_at="2026-03-10", as_of="2026-03-05")) == [
        "The weekly supplier call is on Wednesday"
    ]

    everything = {f.id: f for f in memory.facts(include_ended=True)}
    old = everything[wednesday.fact]
    assert old.status is doxa.FactStatus.SUPERSEDED
    assert old.valid_until is not None
    assert old.valid_until.date().isoformat() == "2026-03-08"
    assert old.successor == thursday.fact
    assert everything[thursday.fact].status is doxa.FactStatus.LIVE

    kinds = [(e.kind, e.fact, e.other) for e in memory.history(wednesday.fact).events]
    assert ("superseded", wednesday.fact, thursday.fact) in kinds
    assert memory.verify() == 3


def test_earned_closing_supersedes_without_a_hold(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """With closing granted for 'schedule', the replacement is admitted and supersedes at once."""
    memory.owner.grant("schedule")
    wednesday = _call(memory, "Wednesday", "2026-01-01")
    clock.set("2026-03-09T10:00:00Z")
    thursday = _call(memory, "Thursday", "2026-03-08")
    assert (thursday.relation, thursday.outcome) == (doxa.Relation.REPLACES, doxa.Outcome.ADMITTED)
    assert thursday.targets == (wednesday.fact,)
    assert memory.held() == []
    assert _texts(memory.facts(valid_at="2026-03-10")) == [
        "The weekly supplier call is on Thursday"
    ]
    assert _texts(memory.facts(valid_at="2026-03-05")) == [
        "The weekly supplier call is on Wednesday"
    ]


def test_a_grant_for_another_kind_does_not_earn_closing(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Closing is earned per kind: a grant for 'contact' leaves 'schedule' held."""
    memory.owner.grant("contact")
    _call(memory, "Wednesday", "2026-01-01")
    clock.set("2026-03-09T10:00:00Z")
    assert _call(memory, "Thursday", "2026-03-08").outcome is doxa.Outcome.HELD
    memory.owner.revoke("contact")
    assert not memory.owner.closing_earned("contact")
