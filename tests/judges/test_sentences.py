"""The text rule: the same sentence with another value is a change; many-valued sentences
are not. Each refused pair sits in a table beside the accepted ones."""

from __future__ import annotations

import pytest

import doxa
from doxa.judges.sentences import another_value, frame_key

CHANGES = [
    ("The weekly supplier call is on Wednesday", "The weekly supplier call moved to Thursday"),
    ("The weekly supplier call is on Wednesday", "the weekly supplier call is on THURSDAY"),
    ("Bob's phone number is 555-0101", "Bob's phone number is 555-0199"),
    ("Bob's phone number is 555-0101", "Bob's phone number is now 555-0199"),
    ("Our budget owner is Maria Costa", "Our budget owner changed to Jonas Weber"),
    ("The design review is in Room 12", "The design review has moved to Room 14"),
]
CONTROLS = [
    ("Alice speaks French", "Alice speaks German"),
    ("Alice's languages are French", "Alice's languages are German"),
    ("Alice Costa is fluent in French", "Alice Costa is fluent in German"),
    ("Alice Costa is a doctor", "Alice Costa is a teacher"),
    ("Alice is tall", "Alice is kind"),
    ("The call is on Monday", "The call is also on Friday"),
    ("The call is on Monday", "The call is not on Friday"),
    ("The call is on Monday", "The call is on Monday and Friday"),
    ("Alice prefers tea", "Alice likes coffee now, not tea"),
    ("The design review is in Room 12", "The sales review is in Room 14"),
]


@pytest.mark.parametrize(("old", "new"), CHANGES)
def test_another_value_of_the_same_subject(old: str, new: str) -> None:
    assert another_value(new, old)
    assert frame_key(new) == frame_key(old) is not None


@pytest.mark.parametrize(("old", "new"), CONTROLS)
def test_many_valued_and_other_sentences_are_not_changes(old: str, new: str) -> None:
    assert not another_value(new, old)


def remember(mem: doxa.Memory, text: str, start: str) -> doxa.Receipt:
    return mem.remember(
        text, topic="meetings", kind="schedule", authority="owner", valid_from=start
    )


@pytest.mark.parametrize(
    ("start", "relation"),
    [("2026-03-08", "replaces"), ("2026-01-05", "was_wrong"), ("2025-12-01", "unclear")],
    ids=["later", "same-start", "earlier"],
)
def test_text_writes_follow_the_clocks(memory: doxa.Memory, start: str, relation: str) -> None:
    """Later → replaces, same start → was_wrong, earlier → unclear, without naming a target."""
    old = remember(memory, "The weekly supplier call is on Wednesday", "2026-01-05")
    new = remember(memory, "The weekly supplier call moved to Thursday", start)
    assert new.relation is doxa.Relation.parse(relation)
    assert new.targets == (old.fact,)
    assert new.outcome is doxa.Outcome.HELD  # closing of kind 'schedule' is not earned yet


def test_a_granted_kind_closes_the_old_value(memory: doxa.Memory) -> None:
    memory.owner.grant("schedule")
    old = remember(memory, "The weekly supplier call is on Wednesday", "2026-01-05")
    new = remember(memory, "The weekly supplier call moved to Thursday", "2026-03-08")
    assert new.outcome is doxa.Outcome.ADMITTED
    assert memory.get(old.fact or "").status is doxa.FactStatus.SUPERSEDED


def test_many_valued_text_stays_new(memory: doxa.Memory) -> None:
    """Control: both languages stay live, even with closing granted. The pattern "<name>
    speaks <value>" is no "the X is Y" sentence, so the owner is asked once (never closed
    on a guess); answered "a second value", both stay."""
    memory.owner.grant("schedule")
    french = remember(memory, "Alice speaks French", "2026-01-05")
    german = remember(memory, "Alice speaks German", "2026-03-08")
    assert (german.relation, german.outcome) == (doxa.Relation.UNCLEAR, doxa.Outcome.HELD)
    assert memory.get(french.fact or "").status is doxa.FactStatus.LIVE
    memory.owner.approve(german.fact or "", as_relation=doxa.Relation.NEW)
    assert memory.get(french.fact or "").status is doxa.FactStatus.LIVE
    assert memory.get(german.fact or "").status is doxa.FactStatus.LIVE


def test_a_held_text_change_closes_the_old_value_when_approved(memory: doxa.Memory) -> None:
    old = remember(memory, "The weekly supplier call is on Wednesday", "2026-01-05")
    new = remember(memory, "The weekly supplier call moved to Thursday", "2026-03-08")
    memory.owner.approve(new.held or "")
    assert memory.get(old.fact or "").status is doxa.FactStatus.SUPERSEDED


def test_the_chain_verifies_with_value_keys(memory: doxa.Memory) -> None:
    """The value key is derived from the claim's own text: the auditor's check accepts it."""
    remember(memory, "The weekly supplier call is on Wednesday", "2026-01-05")
    assert memory.verify() >= 1
