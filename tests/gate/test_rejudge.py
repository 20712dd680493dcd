"""A judge that is down holds writes ``unchecked``; ``rejudge`` decides them when it is back."""

from __future__ import annotations

from tests.conftest import DOMAIN, EX, FlakyJudge

import doxa


def test_unchecked_writes_wait_and_are_judged_again(clock: doxa.FixedClock) -> None:
    judge = FlakyJudge()
    with doxa.Memory.open(None, scope="s", clock=clock, judge=judge) as mem:
        mem.schema.add_ontology(DOMAIN)
        mem.owner.grant("schedule")
        judge.up = True
        mem.remember(
            "Wednesday",
            topic="c",
            kind="schedule",
            subject=EX + "bob",
            predicate=EX + "dayOfWeek",
            object=EX + "Wednesday",
            valid_from="2026-01-05",
            authority="owner",
        )
        judge.up = False
        waiting = mem.remember(
            "Thursday",
            topic="c",
            kind="schedule",
            subject=EX + "bob",
            predicate=EX + "dayOfWeek",
            object=EX + "Thursday",
            valid_from="2026-02-01",
            authority="owner",
        )
        note = mem.remember("bob likes tea", topic="c", authority="agent")
        assert waiting.outcome is doxa.Outcome.HELD
        assert waiting.relation is None
        assert "timed out" in waiting.reason
        # nothing was closed unchecked: Wednesday is still the live value
        assert [str(f.object) for f in mem.facts(subject=EX + "bob")] == [EX + "Wednesday"]
        assert {h.status for h in mem.held()} == {doxa.HoldStatus.UNCHECKED}
        # readable on request, flagged; ordinary reads leave them out
        assert "bob likes tea" not in {f.text for f in mem.facts()}
        flagged = {f.text: f.status for f in mem.facts(include_unchecked=True)}
        assert flagged["bob likes tea"] is doxa.FactStatus.UNCHECKED
        assert flagged["Wednesday"] is doxa.FactStatus.LIVE
        assert [f.text for f in mem.recall("tea")] == []
        assert [f.text for f in mem.recall("tea", include_unchecked=True)] == ["bob likes tea"]
        # still down: nothing changes, nothing is lost
        assert mem.owner.rejudge() == []
        assert len(mem.held()) == 2
        judge.up = True
        receipts = mem.owner.rejudge()
        assert sorted((r.fact, r.outcome) for r in receipts) == sorted(
            [(waiting.fact, doxa.Outcome.ADMITTED), (note.fact, doxa.Outcome.ADMITTED)]
        )
        assert {r.relation for r in receipts} == {doxa.Relation.REPLACES, doxa.Relation.NEW}
        assert mem.held() == []
        assert [str(f.object) for f in mem.facts(subject=EX + "bob")] == [EX + "Thursday"]
        assert mem.verify() == len(mem.receipts())


def test_rejudge_leaves_owner_holds_alone(memory: doxa.Memory) -> None:
    """Writes held for the owner are the owner's to decide, not the judge's."""
    memory.remember(
        "born 1977",
        topic="b",
        subject=EX + "dan",
        predicate=EX + "birthYear",
        object=1977,
        authority="owner",
    )
    held = memory.remember(
        "born 1971",
        topic="b",
        subject=EX + "dan",
        predicate=EX + "birthYear",
        object=1971,
        authority="agent",
    )
    assert held.outcome is doxa.Outcome.HELD
    assert memory.owner.rejudge() == []
    assert [h.id for h in memory.held()] == [held.held]
