"""An agent's note that repeats outside text without naming its source waits (issue 33).

A web page's sentence is a quotation forever. A tricked (or careless) agent that writes the
same sentence as its own note under another topic would turn it into the agent's words:
recalled as the agent's memory and ranked as such. The rule judge holds such a note for the
owner with the outside fact named; naming the source admits it as attributed, and the same
text in the same topic is the same fact (merged). Each case sits beside its control.
"""

from __future__ import annotations

import pytest

import doxa

PAGE = "https://acme.example/contact"
LINE = "Acme's support line is 555-0199"


@pytest.fixture
def mem(clock: doxa.FixedClock) -> doxa.Memory:
    memory = doxa.Memory.open(None, scope="alice", clock=clock)
    quoted = memory.remember(LINE, topic="web", authority="external", sources=[PAGE])
    assert quoted.outcome is doxa.Outcome.ADMITTED
    return memory


def outside_id(mem: doxa.Memory) -> str:
    [fact] = mem.facts(topic="web")
    return fact.id


@pytest.mark.parametrize(
    "copy",
    [
        LINE,
        LINE + ".",
        "ACME'S  support line is 555-0199",
        "Acme\u200b's support line is 555-0199",
        "\u0410cm\u0435's supp\u043ert line is 555-0199",  # Cyrillic А, е and о
        "Acme's support line is 555\u20100199",  # a Unicode hyphen
    ],
    ids=["as-is", "full-stop", "case-and-spaces", "zero-width", "look-alikes", "hyphen"],
)
def test_an_agents_copy_in_another_topic_waits_naming_the_outside_fact(
    mem: doxa.Memory, copy: str
) -> None:
    receipt = mem.remember(copy, topic="notes", authority="agent")
    assert (receipt.outcome, receipt.relation) == (doxa.Outcome.HELD, doxa.Relation.UNCLEAR)
    assert "repeats outside text without naming its source" in receipt.reason
    assert outside_id(mem) in receipt.reason
    assert receipt.targets == (outside_id(mem),)
    # nothing the agent wrote is recalled as its own words: only the quotation comes back
    assert [f.authority for f in mem.recall("Acme support line")] == [doxa.Authority.EXTERNAL]
    # control: the agent's own sentence in the same topic is admitted as usual
    own = mem.remember("Acme answered our ticket on Monday", topic="notes", authority="agent")
    assert own.outcome is doxa.Outcome.ADMITTED


def test_naming_the_source_admits_the_note_as_attributed(mem: doxa.Memory) -> None:
    receipt = mem.remember(LINE, topic="notes", authority="agent", sources=[PAGE])
    assert receipt.outcome is doxa.Outcome.ADMITTED
    # control: another source is not the outside fact's, so it still waits
    other = mem.remember(
        LINE + "!", topic="travel", authority="agent", sources=["https://other.example/"]
    )
    assert other.outcome is doxa.Outcome.HELD


def test_the_same_text_in_the_same_topic_is_the_same_fact(mem: doxa.Memory) -> None:
    receipt = mem.remember(LINE, topic="web", authority="agent")
    assert (receipt.outcome, receipt.relation) == (doxa.Outcome.MERGED, doxa.Relation.SAME)


@pytest.mark.parametrize("authority", ["owner", "tool"])
def test_the_owners_and_a_tools_words_are_not_held(mem: doxa.Memory, authority: str) -> None:
    """Only the agent's own notes are held: the owner (or a tool) saying the same thing is
    their word, with their authority."""
    receipt = mem.remember(LINE, topic="notes", authority=authority)
    assert receipt.outcome is doxa.Outcome.ADMITTED


def test_another_sentence_about_the_same_thing_is_not_a_copy(mem: doxa.Memory) -> None:
    """Control for the key: the same subject with another value is not the same text."""
    receipt = mem.remember("Acme's support line is 555-0100", topic="notes", authority="agent")
    assert receipt.outcome is doxa.Outcome.ADMITTED


def test_the_owner_decides_the_held_copy(mem: doxa.Memory) -> None:
    held = mem.remember(LINE, topic="notes", authority="agent")
    assert held.held is not None
    approved = mem.owner.approve(held.held)
    assert approved.outcome is doxa.Outcome.APPROVED
    assert [f.authority for f in mem.facts(topic="notes")] == [doxa.Authority.AGENT]
    assert mem.get(outside_id(mem)).status is doxa.FactStatus.LIVE  # the quotation stays
    again = mem.remember(LINE, topic="travel", authority="agent")
    assert again.held is not None
    mem.owner.reject(again.held, reason="a quotation, not our note")
    assert mem.facts(topic="travel") == []
    assert mem.verify() == len(mem.receipts())


def test_a_plain_copy_of_outside_text_with_look_alikes_waits_too(mem: doxa.Memory) -> None:
    """A page that spoofs letters (to slip past screens), copied as it is or in plain
    letters (what a model writing the note back tends to do): the same text, held. A note
    in another script, which folds to other letters, is its own (control)."""
    spoofed = "The Acme off\u0456ce opens at n\u0456ne"  # Ukrainian і
    mem.remember(spoofed, topic="web", authority="external", sources=[PAGE])
    for copy, topic in [(spoofed, "notes"), ("The Acme office opens at nine", "plans")]:
        held = mem.remember(copy, topic=topic, authority="agent")
        assert (held.outcome, held.relation) == (doxa.Outcome.HELD, doxa.Relation.UNCLEAR), copy
        assert "repeats outside text" in held.reason
    russian = mem.remember("Офис Acme открывается в девять", topic="notes", authority="agent")
    assert russian.outcome is doxa.Outcome.ADMITTED
    own = mem.remember("The Acme office opens at ten", topic="plans", authority="agent")
    assert own.outcome is doxa.Outcome.ADMITTED
    assert mem.verify() == len(mem.receipts())


def test_a_copy_with_other_look_alikes_than_the_page_waits(mem: doxa.Memory) -> None:
    """Attack: the page spoofs with a Cyrillic о, the note with a Greek ο; both fold to the
    same letters. Control: the page's own words as a plain note of another sentence pass."""
    mem.remember(
        "The Acme \u043eff\u0456ce opens at nine", topic="web", authority="external", sources=[PAGE]
    )
    held = mem.remember("The Acme \u03bfff\u0456ce opens at nine", topic="notes", authority="agent")
    assert (held.outcome, held.relation) == (doxa.Outcome.HELD, doxa.Relation.UNCLEAR)
    own = mem.remember("The Acme office closes at six", topic="notes", authority="agent")
    assert own.outcome is doxa.Outcome.ADMITTED
