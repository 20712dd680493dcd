"""Each relation's outcome end to end through Memory.remember, each beside a control."""

from __future__ import annotations

import threading

import pytest
from tests.conftest import EX, statement

import doxa
from doxa.judges.base import Evidence
from doxa.model import Proposal


def test_new_is_admitted(memory: doxa.Memory) -> None:
    """A first statement is 'new' and admitted, readable with its provenance."""
    r = statement(memory, "Bob likes tea", "bob", "likes", EX + "tea", authority="owner")
    assert (r.relation, r.outcome) == (doxa.Relation.NEW, doxa.Outcome.ADMITTED)
    fact = memory.get(r.fact)
    assert (fact.authority, fact.support, fact.status) == (
        doxa.Authority.OWNER,
        doxa.Support.STATED,
        doxa.FactStatus.LIVE,
    )
    assert fact.standpoint == doxa.IRI("urn:doxa:scope:alice/standpoint/owner")


def test_same_adds_evidence_not_a_fact(memory: doxa.Memory) -> None:
    """'same' admits no new fact; a corroboration event records the new source."""
    first = statement(memory, "Bob likes tea", "bob", "likes", EX + "tea")
    again = statement(
        memory,
        "Bob really likes tea",
        "bob",
        "likes",
        EX + "tea",
        sources=["https://ex.org/chat/2"],
    )
    assert (again.relation, again.outcome) == (doxa.Relation.SAME, doxa.Outcome.MERGED)
    assert again.targets == (first.fact,)
    # a merged receipt names the fact it merged into, one that can be read, as read back too
    assert again.fact == first.fact
    assert memory.get(again.fact).text == "Bob likes tea"
    assert [r.fact for r in memory.receipts()] == [first.fact, first.fact]
    assert [f.id for f in memory.facts()] == [first.fact]
    assert memory.why(first.fact).corroborations == (doxa.IRI("https://ex.org/chat/2"),)
    # control: a different object is a new fact (likes is not functional)
    other = statement(memory, "Bob likes coffee", "bob", "likes", EX + "coffee")
    assert other.relation is doxa.Relation.NEW
    assert len(memory.facts()) == 2


def test_text_only_duplicate_is_same(memory: doxa.Memory) -> None:
    """A normalised duplicate text in the topic is 'same'; another text is 'new' (control)."""
    first = memory.remember("Alice prefers window seats.", topic="travel")
    again = memory.remember("  alice PREFERS window-seats ", topic="travel")
    assert (again.relation, again.targets) == (doxa.Relation.SAME, (first.fact,))
    elsewhere = memory.remember("Alice prefers window seats.", topic="trains")
    assert elsewhere.relation is doxa.Relation.NEW
    different = memory.remember("Bob books his trains early.", topic="travel")
    assert different.relation is doxa.Relation.NEW


def test_adds_detail_links_and_keeps_the_old_fact(memory: doxa.Memory) -> None:
    """The same statement with an end the old one lacked refines it; both stay live."""
    old = statement(
        memory, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", valid_from="2020-01-01"
    )
    detail = statement(
        memory,
        "Bob lives in Lyon until June",
        "bob",
        "livesIn",
        EX + "Lyon",
        valid_from="2020-01-01",
        valid_until="2026-06-30",
    )
    assert (detail.relation, detail.outcome, detail.targets) == (
        doxa.Relation.ADDS_DETAIL,
        doxa.Outcome.ADMITTED,
        (old.fact,),
    )
    assert memory.get(detail.fact).refines == (old.fact,)
    assert {f.id for f in memory.facts(valid_at="2026-03-01")} == {old.fact, detail.fact}
    assert [e.kind for e in memory.history(old.fact).events] == ["recorded", "refined"]


def test_replaces_is_held_without_earned_closing(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """A later value of a functional property is 'replaces' and waits for the owner."""
    lyon = statement(
        memory, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", valid_from="2020-01-01"
    )
    clock.set("2026-04-01")
    paris = statement(
        memory, "Bob lives in Paris", "bob", "livesIn", EX + "Paris", valid_from="2026-03-15"
    )
    assert (paris.relation, paris.outcome, paris.targets) == (
        doxa.Relation.REPLACES,
        doxa.Outcome.HELD,
        (lyon.fact,),
    )
    assert [f.id for f in memory.facts()] == [lyon.fact]
    rejected = memory.owner.reject(paris.fact, reason="he only visited")
    assert rejected.outcome is doxa.Outcome.DISCARDED
    assert memory.held() == []
    assert [f.id for f in memory.facts()] == [lyon.fact]
    with pytest.raises(doxa.NotFound, match="There is no held write"):
        memory.owner.approve(paris.fact)


def test_earlier_start_is_unclear(memory: doxa.Memory) -> None:
    """A new value that starts before the value it would replace is 'unclear' and held."""
    statement(memory, "Bob lives in Paris", "bob", "livesIn", EX + "Paris", valid_from="2026-03-15")
    earlier = statement(
        memory, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", valid_from="2020-01-01"
    )
    assert (earlier.relation, earlier.outcome) == (doxa.Relation.UNCLEAR, doxa.Outcome.HELD)


def test_rule_requires_clashes(memory: doxa.Memory) -> None:
    """A value the owner's 'requires' rule contradicts is held as clashes_with_rule."""
    rule = statement(
        memory,
        "The supplier call is always on Wednesday",
        "call",
        "dayOfWeek",
        EX + "Wednesday",
        authority="owner",
        rule="requires",
    )
    assert (rule.relation, rule.outcome) == (doxa.Relation.NEW, doxa.Outcome.ADMITTED)
    clash = statement(
        memory, "The call is on Friday", "call", "dayOfWeek", EX + "Friday", authority="owner"
    )
    assert (clash.relation, clash.outcome, clash.targets) == (
        doxa.Relation.CLASHES_WITH_RULE,
        doxa.Outcome.HELD,
        (rule.fact,),
    )
    agree = statement(memory, "The call is on Wednesday", "call", "dayOfWeek", EX + "Wednesday")
    assert agree.relation is doxa.Relation.NEW


def test_rule_forbids_any_subject(memory: doxa.Memory) -> None:
    """A 'forbids' rule on doxa:Anything catches every subject; other values pass (control)."""
    memory.remember(
        "No meetings on Friday",
        topic="meetings",
        subject="https://w3id.org/doxa#Anything",
        predicate=EX + "dayOfWeek",
        object=EX + "Friday",
        authority="owner",
        rule="forbids",
    )
    clash = statement(memory, "Standup on Friday", "standup", "dayOfWeek", EX + "Friday")
    assert clash.relation is doxa.Relation.CLASHES_WITH_RULE
    fine = statement(memory, "Standup on Monday", "standup", "dayOfWeek", EX + "Monday")
    assert fine.relation is doxa.Relation.NEW


def test_rules_are_read_back_as_rules(memory: doxa.Memory) -> None:
    """Rules live in the rules graph and come back with their mode; a repeat is 'same'."""
    rule = statement(
        memory,
        "No meetings on Friday",
        "call",
        "dayOfWeek",
        EX + "Friday",
        authority="owner",
        rule="forbids",
    )
    fact = memory.get(rule.fact)
    assert fact.rule_mode is doxa.RuleMode.FORBIDS
    assert fact.is_rule
    again = statement(
        memory,
        "No meetings on Friday",
        "call",
        "dayOfWeek",
        EX + "Friday",
        authority="owner",
        rule="forbids",
    )
    assert again.relation is doxa.Relation.SAME


class _DownJudge(doxa.Judge):
    name = "down"
    version = "0"

    def judge(self, proposal: Proposal, evidence: Evidence) -> doxa.Verdict:
        raise doxa.JudgeUnavailable("connection refused")


def test_judge_down_leaves_the_write_unchecked(clock: doxa.FixedClock) -> None:
    """When the judge cannot answer, the write waits in pending marked unchecked."""
    mem = doxa.Memory.open(None, scope="alice", clock=clock, judge=_DownJudge())
    r = mem.remember("Bob likes tea", topic="drinks")
    assert (r.relation, r.outcome) == (None, doxa.Outcome.HELD)
    [held] = mem.held()
    assert held.status is doxa.HoldStatus.UNCHECKED
    assert held.id == r.fact
    assert mem.facts() == []
    approved = mem.owner.approve(held)
    assert approved.relation is doxa.Relation.NEW
    assert [f.text for f in mem.facts()] == ["Bob likes tea"]


def test_receipt_fields_name_what_was_read(memory: doxa.Memory) -> None:
    """The receipt records the facts the judge consulted and the input digest."""
    first = statement(memory, "Bob likes tea", "bob", "likes", EX + "tea")
    second = statement(memory, "Bob likes tea", "bob", "likes", EX + "tea")
    assert first.consulted == ()
    assert second.consulted == (first.fact,)
    assert first.input_digest == second.input_digest
    assert len(first.input_digest) == 64
    third = statement(memory, "Bob likes jam", "bob", "likes", EX + "jam")
    assert third.input_digest != first.input_digest


def test_retract_unknown_fact_is_not_found(memory: doxa.Memory) -> None:
    """Retracting an unknown id raises NotFound; a known one retracts (control)."""
    with pytest.raises(doxa.NotFound, match="There is no unretracted fact 'nope'"):
        memory.owner.retract("nope", reason="x")
    fact = statement(memory, "Bob likes tea", "bob", "likes", EX + "tea")
    assert memory.owner.retract(fact.fact, reason="x").outcome is doxa.Outcome.CLOSED
    with pytest.raises(doxa.NotFound):
        memory.owner.retract(fact.fact, reason="twice")


def test_concurrent_writers_never_leave_two_live_values(memory: doxa.Memory) -> None:
    """Threads writing one functional predicate at once: never two live values, all receipted."""
    memory.owner.grant("general")
    errors: list[BaseException] = []

    def write(index: int) -> None:
        try:
            statement(
                memory,
                f"Bob lives in city {index}",
                "bob",
                "livesIn",
                EX + f"city{index}",
                valid_from=f"2026-01-{index + 1:02d}",
            )
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    live = memory.facts(subject=EX + "bob", valid_at="2030-01-01")
    assert len(live) == 1
    receipts = memory.receipts()
    assert len(receipts) == 13  # the grant and one per write
    admitted = [r for r in receipts if r.outcome is doxa.Outcome.ADMITTED]
    held = [r for r in receipts if r.outcome is doxa.Outcome.HELD]
    assert len(admitted) + len(held) == 12
    assert len(admitted) >= 1
    assert memory.verify() == 13


def _steps(mem: doxa.Memory, steps: list[tuple[int, int] | None]) -> None:
    """Owner writes of "p lives in city C from month M" (None: approve the first held)."""
    for step in steps:
        if step is None:
            mem.owner.approve(mem.held()[0])
            continue
        city, month = step
        mem.remember(
            f"p lives in city {city} from month {month}",
            topic="t",
            subject=EX + "p",
            predicate=EX + "livesIn",
            object=f"{EX}c{city}",
            authority="owner",
            valid_from=f"2026-{month:02d}-01",
        )


def _current(mem: doxa.Memory) -> set[str]:
    rows = mem.rdf.sparql("SELECT ?o WHERE { GRAPH <urn:doxa:scope:s/current> { ?s ?p ?o } }").rows
    return {str(row[0]) for row in rows}


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param([(1, 11), (0, 2), (0, 11), None, (1, 10), None], id="two-ways"),
        pytest.param([(1, 11), (0, 2)], id="control-one-way"),
    ],
)
def test_an_approval_ending_two_claims_two_ways_takes_their_statement_out_of_current(
    steps: list[tuple[int, int] | None],
) -> None:
    """An approval that supersedes one claim and retracts another, both stating the same
    triple, leaves that triple out of ``current`` (found by the derived-graph check of
    ``verify``); current holds exactly the live facts' statements (control: one ending)."""
    mem = doxa.Memory.open(None, scope="s", clock=doxa.FixedClock("2026-12-01"))
    mem.schema.add_ontology(
        b"@prefix ex: <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> ."
        b" ex:livesIn a owl:ObjectProperty, owl:FunctionalProperty ."
    )
    mem.owner.grant("general")
    _steps(mem, steps)
    assert mem.verify() == len(mem.receipts())
    assert _current(mem) == {str(f.object) for f in mem.facts()}


def test_a_weaker_contradiction_names_its_authority_with_the_right_article(
    memory: doxa.Memory,
) -> None:
    """The rule judge's reason reads "an agent write" (it read "a agent write"); the owner's
    fact stays, the agent's write is held for the owner (control)."""
    statement(memory, "The call is on Wednesday", "call", "dayOfWeek", EX + "Wednesday",
              authority="owner", valid_from="2026-01-01")  # fmt: skip
    weaker = statement(memory, "The call is on Friday", "call", "dayOfWeek", EX + "Friday",
                       valid_from="2026-01-01")  # fmt: skip
    assert weaker.outcome is doxa.Outcome.HELD
    assert weaker.reason.startswith(
        "an agent write contradicts a fact of higher authority (owner); the owner decides"
    )
