"""Earned closing: the judge closes facts of a kind on its own only with a record to show.

The ledger is summed from receipts: owner decisions on held closings and calibrations on
owner-labelled sets. Each test pairs the held case with its admitted control.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.conftest import DOMAIN, EX

import doxa
from doxa.evaluation import Case

JAN, MAR, APR = "2026-01-05", "2026-03-08", "2026-04-01"


def open_memory(clock: doxa.FixedClock, **policy: object) -> doxa.Memory:
    mem = doxa.Memory.open(
        None,
        scope="alice",
        clock=clock,
        policy=doxa.ClosingPolicy(**policy),  # type: ignore[arg-type]
    )
    mem.schema.add_ontology(DOMAIN)
    return mem


@pytest.fixture
def mem(clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    memory = open_memory(clock, min_decisions=10)
    yield memory
    memory.close()


def day(mem: doxa.Memory, who: str, value: str, start: str, kind: str = "schedule") -> doxa.Receipt:
    return mem.remember(
        f"{who} calls on {value}",
        topic="calls",
        kind=kind,
        subject=EX + who,
        predicate=EX + "dayOfWeek",
        object=EX + value,
        valid_from=start,
        authority="owner",
    )


def labelled(count: int, *, wrong: int = 0, kind: str = "schedule") -> list[Case]:
    """``count`` replaces cases; the last ``wrong`` of them labelled (wrongly) as new."""
    cases = []
    for i in range(count):
        who = f"{EX}call{i}"
        given = {
            "text": "Wednesday",
            "topic": "calls",
            "kind": kind,
            "subject": who,
            "predicate": EX + "dayOfWeek",
            "object": EX + "Wednesday",
            "valid_from": JAN,
            "authority": "owner",
        }
        write = {**given, "text": "Thursday", "object": EX + "Thursday", "valid_from": MAR}
        expect = doxa.Relation.NEW if i >= count - wrong else doxa.Relation.REPLACES
        cases.append(Case(id=f"c{i}", kind=kind, given=(given,), write=write, expect=expect))
    return cases


def test_closing_waits_until_calibration_earns_it(mem: doxa.Memory) -> None:
    day(mem, "bob", "Wednesday", JAN)
    held = day(mem, "bob", "Thursday", MAR)
    assert held.outcome is doxa.Outcome.HELD
    assert held.relation is doxa.Relation.REPLACES
    assert "0 of 10 labelled decisions" in held.reason
    report = mem.admin.calibrate(labelled(10), ontology=[DOMAIN])
    assert report.accuracy() == 1.0
    [standing] = mem.owner.ledger()
    assert (standing.kind, standing.agreements, standing.decisions, standing.earned) == (
        "schedule",
        10,
        10,
        True,
    )
    closed = day(mem, "bob", "Friday", APR)
    assert closed.outcome is doxa.Outcome.ADMITTED
    assert [str(f.object) for f in mem.facts(subject=EX + "bob", valid_at="2026-04-02")] == [
        EX + "Friday"
    ]
    # control: another kind has earned nothing
    day(mem, "eve", "Wednesday", JAN, kind="meeting")
    assert day(mem, "eve", "Thursday", MAR, kind="meeting").outcome is doxa.Outcome.HELD


@pytest.mark.parametrize(("wrong", "earned"), [(1, True), (2, False)])
def test_the_bar_is_98_percent_of_50(clock: doxa.FixedClock, wrong: int, earned: bool) -> None:
    """49 of 50 (98%) earns closing; 48 of 50 (96%) does not."""
    with open_memory(clock) as mem:
        report = mem.admin.calibrate(labelled(50, wrong=wrong), ontology=[DOMAIN])
        assert report.accuracy() == pytest.approx(1 - wrong / 50)
        assert report.wrong_closings != []  # the mislabelled ones: the judge closed
        assert mem.owner.closing_earned("schedule") is earned


def test_too_few_decisions_do_not_earn(clock: doxa.FixedClock) -> None:
    with open_memory(clock) as mem:
        mem.admin.calibrate(labelled(49), ontology=[DOMAIN])
        assert not mem.owner.closing_earned("schedule")
        assert "49 of 50 labelled decisions at 100% agreement" in (
            mem.owner.closing_refusal("schedule") or ""
        )
        one_more = labelled(1)[0]
        mem.admin.calibrate([Case(**{**one_more.__dict__, "id": "extra"})], ontology=[DOMAIN])
        assert mem.owner.closing_earned("schedule")


def test_a_labelled_set_counts_once(mem: doxa.Memory, tmp_path: object) -> None:
    cases = labelled(10)
    mem.admin.calibrate(cases, ontology=[DOMAIN])
    with pytest.raises(doxa.InvalidInput, match="already counted"):
        mem.admin.calibrate(cases, ontology=[DOMAIN])
    assert mem.owner.ledger()[0].decisions == 10
    # control: a different set counts
    mem.admin.calibrate(labelled(11)[10:] + labelled(3, kind="other"), ontology=[DOMAIN])
    assert {(s.kind, s.decisions) for s in mem.owner.ledger()} == {("schedule", 11), ("other", 3)}


def test_owner_decisions_on_held_closings_feed_the_ledger(clock: doxa.FixedClock) -> None:
    with open_memory(clock, min_decisions=4) as mem:
        for i in range(3):
            day(mem, f"p{i}", "Wednesday", JAN)
            held = day(mem, f"p{i}", "Thursday", MAR)
            mem.owner.approve(held.held or "")
        day(mem, "q", "Wednesday", JAN)
        mem.owner.reject(day(mem, "q", "Thursday", MAR).held or "", reason="not true")
        [standing] = mem.owner.ledger()
        assert (standing.agreements, standing.decisions, standing.earned) == (3, 4, False)
        # approvals that change the relation are disagreements too
        day(mem, "r", "Wednesday", JAN)
        mem.owner.approve(day(mem, "r", "Thursday", MAR).held or "", as_relation="was_wrong")
        assert mem.owner.ledger()[0].agreements == 3
        assert mem.owner.ledger()[0].decisions == 5
        stats = mem.stats().kind("schedule")
        assert stats.needless_holds == 3
        assert stats.held == 5


def test_approvals_as_judged_earn_closing(clock: doxa.FixedClock) -> None:
    """Control for the test above: four approvals as judged earn the kind."""
    with open_memory(clock, min_decisions=4) as mem:
        for i in range(4):
            day(mem, f"p{i}", "Wednesday", JAN)
            mem.owner.approve(day(mem, f"p{i}", "Thursday", MAR).held or "")
        assert mem.owner.closing_earned("schedule")
        day(mem, "z", "Wednesday", JAN)
        assert day(mem, "z", "Thursday", MAR).outcome is doxa.Outcome.ADMITTED


def test_the_owners_revocation_overrides_the_ledger(mem: doxa.Memory) -> None:
    mem.admin.calibrate(labelled(10), ontology=[DOMAIN])
    assert mem.owner.closing_earned("schedule")
    mem.owner.revoke("schedule", reason="I want to see every change")
    day(mem, "bob", "Wednesday", JAN)
    held = day(mem, "bob", "Thursday", MAR)
    assert held.outcome is doxa.Outcome.HELD
    assert "revoked" in held.reason
    mem.owner.grant("schedule")
    day(mem, "cat", "Wednesday", JAN)
    assert day(mem, "cat", "Thursday", MAR).outcome is doxa.Outcome.ADMITTED


def test_the_owners_own_correction_waits_where_not_earned(mem: doxa.Memory) -> None:
    """Even the owner's correction closes automatically only where the judge earned it."""
    mem.remember(
        "born 1971",
        topic="bio",
        kind="biographical",
        subject=EX + "dan",
        predicate=EX + "birthYear",
        object=1971,
        authority="agent",
    )
    held = mem.remember(
        "born 1977",
        topic="bio",
        kind="biographical",
        subject=EX + "dan",
        predicate=EX + "birthYear",
        object=1977,
        authority="owner",
    )
    assert (held.relation, held.outcome) == (doxa.Relation.WAS_WRONG, doxa.Outcome.HELD)
    assert [str(f.object) for f in mem.facts(subject=EX + "dan")] == ["1971"]
    mem.owner.grant("biographical")
    mem.remember(
        "born 1978",
        topic="bio",
        kind="biographical",
        subject=EX + "eve",
        predicate=EX + "birthYear",
        object=1978,
        authority="agent",
    )
    done = mem.remember(
        "born 1979",
        topic="bio",
        kind="biographical",
        subject=EX + "eve",
        predicate=EX + "birthYear",
        object=1979,
        authority="owner",
    )
    assert done.outcome is doxa.Outcome.ADMITTED
    assert [str(f.object) for f in mem.facts(subject=EX + "eve")] == ["1979"]


def test_ledger_receipts_are_in_the_chain(mem: doxa.Memory) -> None:
    mem.admin.calibrate(labelled(10), ontology=[DOMAIN])
    receipts = mem.receipts()
    assert [r.outcome for r in receipts][-1] is doxa.Outcome.CALIBRATED
    assert mem.verify() == len(receipts)
