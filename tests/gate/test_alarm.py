"""The alarm: the first burst of suspicious closings stops automatic closing in the scope."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
from tests.conftest import EX

import doxa
from doxa.judges.base import Evidence

JAN, MAR = "2026-01-05", "2026-03-01"


def day(
    mem: doxa.Memory,
    who: str,
    value: str,
    start: str,
    *,
    source: str | None = None,
    authority: str = "owner",
    kind: str = "schedule",
) -> doxa.Receipt:
    extra: dict[str, object] = {"sources": [source]} if source else {}
    return mem.remember(
        f"{who} calls on {value}",
        topic="calls",
        kind=kind,
        subject=EX + who,
        predicate=EX + "dayOfWeek",
        object=EX + value,
        valid_from=start,
        authority=authority,
        **extra,
    )


@pytest.fixture
def granted(memory: doxa.Memory) -> doxa.Memory:
    memory.owner.grant("schedule")
    memory.owner.grant("other")
    return memory


def test_a_burst_from_one_source_raises_the_alarm(granted: doxa.Memory) -> None:
    mem, page = granted, "https://calendar.example/feed"
    for who in ("a", "b", "c"):
        day(mem, who, "Wednesday", JAN)
    first = day(mem, "a", "Thursday", MAR, source=page)
    second = day(mem, "b", "Thursday", MAR, source=page)
    third = day(mem, "c", "Thursday", MAR, source=page)
    assert [r.outcome for r in (first, second, third)] == [
        doxa.Outcome.ADMITTED,
        doxa.Outcome.ADMITTED,
        doxa.Outcome.HELD,
    ]
    assert "alarm raised" in third.reason
    [alarm] = mem.owner.alarms()
    assert alarm.fact == third.fact
    assert "3 closings within 10 minutes" in alarm.reason
    # the third fact was not closed: c's Wednesday is still live
    assert [str(f.object) for f in mem.facts(subject=EX + "c")] == [EX + "Wednesday"]
    # every closing in the scope now waits, whatever the kind or source ...
    day(mem, "d", "Wednesday", JAN, kind="other")
    stopped = day(mem, "d", "Thursday", MAR, kind="other")
    assert stopped.outcome is doxa.Outcome.HELD
    assert "alarm is open" in stopped.reason
    # ... while writes that close nothing still go in
    assert day(mem, "e", "Monday", JAN).outcome is doxa.Outcome.ADMITTED
    # clearing leaves a receipt and closing resumes
    cleared = mem.owner.clear_alarm(alarm.id, reason="the calendar feed was migrated")
    assert cleared.outcome is doxa.Outcome.CLEARED
    assert mem.owner.alarms() == []
    assert (
        mem.owner.alarms(include_cleared=True)[0].cleared_reason == "the calendar feed was migrated"
    )
    day(mem, "f", "Wednesday", JAN)
    assert day(mem, "f", "Thursday", MAR).outcome is doxa.Outcome.ADMITTED
    assert mem.verify() == len(mem.receipts())


def test_ordinary_traffic_raises_no_alarm(granted: doxa.Memory, clock: doxa.FixedClock) -> None:
    """Closings from different sources, or from one source spread out in time, are normal."""
    mem = granted
    for i, who in enumerate("abcdef"):
        day(mem, who, "Wednesday", JAN)
        day(mem, who, "Thursday", MAR, source=f"https://site{i}.example/")
    for who in "ghij":
        day(mem, who, "Wednesday", JAN)
        clock.advance(timedelta(minutes=11))
        assert day(mem, who, "Thursday", MAR, source="https://one.example/").outcome is (
            doxa.Outcome.ADMITTED
        )
    assert mem.owner.alarms() == []
    assert mem.stats().open_alarms == 0


def test_a_burst_within_one_turn_raises_the_alarm(granted: doxa.Memory) -> None:
    mem = granted
    for who in "abc":
        day(mem, who, "Wednesday", JAN)
    outcomes = [
        mem.remember(
            f"{who} moved",
            topic="calls",
            kind="schedule",
            subject=EX + who,
            predicate=EX + "dayOfWeek",
            object=EX + "Friday",
            valid_from=MAR,
            authority="owner",
            turn=EX + "turn/7",
        ).outcome
        for who in "abc"
    ]
    assert outcomes == [doxa.Outcome.ADMITTED, doxa.Outcome.ADMITTED, doxa.Outcome.HELD]
    assert len(mem.owner.alarms()) == 1


class OverEagerJudge(doxa.Judge):
    """A judge with a bug: it says every contradiction replaces, whoever wrote what."""

    name = "eager"
    version = "1"

    def __init__(self) -> None:
        self.rules = doxa.RuleJudge()

    def judge(self, proposal: doxa.Proposal, evidence: Evidence) -> doxa.Verdict:
        verdict = self.rules.judge(proposal, evidence)
        if verdict.relation is doxa.Relation.UNCLEAR:
            return replace(verdict, relation=doxa.Relation.REPLACES)
        return verdict


def test_a_lower_authority_closing_a_higher_one_raises_the_alarm(
    clock: doxa.FixedClock,
) -> None:
    from tests.conftest import DOMAIN

    with doxa.Memory.open(None, scope="s", clock=clock, judge=OverEagerJudge()) as mem:
        mem.schema.add_ontology(DOMAIN)
        mem.owner.grant("schedule")
        day(mem, "bob", "Wednesday", JAN, authority="owner")
        attempt = day(mem, "bob", "Thursday", MAR, authority="agent")
        assert attempt.outcome is doxa.Outcome.HELD
        [alarm] = mem.owner.alarms()
        assert "an agent write would close an owner fact" in alarm.reason
        assert [str(f.object) for f in mem.facts(subject=EX + "bob")] == [EX + "Wednesday"]
        # control: the same judge replacing an agent's fact by an agent is fine (after clearing)
        mem.owner.clear_alarm(alarm.id, reason="checked")
        day(mem, "eve", "Wednesday", JAN, authority="agent")
        assert day(mem, "eve", "Thursday", MAR, authority="agent").outcome is (
            doxa.Outcome.ADMITTED
        )


def test_closing_a_fact_a_rule_requires_raises_the_alarm(clock: doxa.FixedClock) -> None:
    from tests.conftest import DOMAIN

    class Replacer(OverEagerJudge):
        def judge(self, proposal: doxa.Proposal, evidence: Evidence) -> doxa.Verdict:
            same = [f.id for f in evidence.same_topic if f.object != proposal.object]
            if same:
                return doxa.Verdict(doxa.Relation.REPLACES, tuple(same), "buggy")
            return self.rules.judge(proposal, evidence)

    with doxa.Memory.open(None, scope="s", clock=clock, judge=Replacer()) as mem:
        mem.schema.add_ontology(DOMAIN)
        mem.owner.grant("preference")
        mem.remember(
            "alice must keep liking tea",
            topic="rules",
            rule="requires",
            subject=EX + "alice",
            predicate=EX + "likes",
            object=EX + "Tea",
            authority="owner",
        )
        mem.remember(
            "alice likes tea",
            topic="t",
            kind="preference",
            subject=EX + "alice",
            predicate=EX + "likes",
            object=EX + "Tea",
            authority="owner",
        )
        mem.remember(
            "alice likes jazz",
            topic="t",
            kind="preference",
            subject=EX + "bob",
            predicate=EX + "likes",
            object=EX + "Jazz",
            authority="owner",
        )
        attempt = mem.remember(
            "alice likes coffee",
            topic="t",
            kind="preference",
            subject=EX + "alice",
            predicate=EX + "likes",
            object=EX + "Coffee",
            authority="owner",
        )
        assert attempt.outcome is doxa.Outcome.HELD
        assert "requires" in mem.owner.alarms()[0].reason
        # control: bob's like has no rule behind it; with the alarm cleared it may close
        mem.owner.clear_alarm(mem.owner.alarms()[0].id, reason="ok")
        other = mem.remember(
            "bob likes opera",
            topic="t",
            kind="preference",
            subject=EX + "bob",
            predicate=EX + "likes",
            object=EX + "Opera",
            authority="owner",
        )
        assert other.outcome is doxa.Outcome.ADMITTED


def test_clearing_needs_an_open_alarm_and_a_reason(memory: doxa.Memory) -> None:
    with pytest.raises(doxa.NotFound, match="no open alarm"):
        memory.owner.clear_alarm("019ac4f2b0e3a1b2c3d4", reason="x")
    with pytest.raises(doxa.InvalidInput, match="needs a reason"):
        memory.owner.clear_alarm("019ac4f2b0e3a1b2c3d4", reason="")
    assert memory.receipts() == []  # nothing written by either refusal
