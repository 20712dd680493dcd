"""A judge declares what the gate gathers for it (``Judge.needs``); the gate reads only that.

Each refusal sits beside a control that is accepted.
"""

from __future__ import annotations

import pytest

import doxa
from doxa.judges import Judge, LLMConfig, LLMJudge, Needs, RuleJudge
from doxa.judges.base import Evidence


class Recording(Judge):
    """Says ``new`` to everything and keeps the evidence it was given."""

    name = "recording"
    version = "1"

    def __init__(self, needs: Needs | None = None) -> None:
        self._needs = needs or Needs()
        self.seen: list[Evidence] = []

    @property
    def needs(self) -> Needs:
        return self._needs

    def judge(self, proposal: doxa.Proposal, evidence: Evidence) -> doxa.Verdict:
        self.seen.append(evidence)
        return doxa.Verdict(doxa.Relation.NEW, (), "recorded")


class Undeclared:
    """A judge written before ``needs`` existed: it never says what it needs."""

    name = "undeclared"
    version = "1"

    def judge(self, proposal: doxa.Proposal, evidence: Evidence) -> doxa.Verdict:
        return doxa.Verdict(doxa.Relation.NEW, (), "new")


class Declared(Undeclared):
    """The same judge, saying so without subclassing ``Judge``."""

    needs = Needs()


def llm() -> LLMJudge:
    return LLMJudge(LLMConfig(base_url="http://127.0.0.1:9/v1", model="m"))


def test_the_built_in_judges_declare_their_needs() -> None:
    with llm() as model:
        assert model.needs == Needs(similar_texts=True)
        assert RuleJudge(fallback=model).needs.similar_texts  # its fallback reads text
        assert isinstance(model, Judge)
    assert RuleJudge().needs == Needs()  # structure only
    assert not RuleJudge(fallback=RuleJudge()).needs.similar_texts  # a fallback that doesn't
    assert isinstance(RuleJudge(), Judge)


def test_a_subclass_of_judge_inherits_structure_only() -> None:
    class Plain(Judge):
        name = "plain"
        version = "1"

        def judge(self, proposal: doxa.Proposal, evidence: Evidence) -> doxa.Verdict:
            return doxa.Verdict(doxa.Relation.NEW, (), "new")

    assert Plain().needs == Needs()
    with doxa.Memory.open(None, scope="s", judge=Plain()) as mem:
        assert mem.remember("Alice likes tea", topic="t").outcome is doxa.Outcome.ADMITTED


def test_a_judge_that_does_not_declare_its_needs_is_refused() -> None:
    assert not isinstance(Undeclared(), Judge)
    with pytest.raises(doxa.InvalidInput, match=r"Subclass doxa\.Judge"):
        doxa.Memory.open(None, scope="s", judge=Undeclared())  # type: ignore[arg-type]
    # control: the same judge declaring needs as a plain class attribute is accepted
    assert isinstance(Declared(), Judge)
    with doxa.Memory.open(None, scope="s", judge=Declared()) as mem:
        assert mem.remember("Alice likes tea", topic="t").outcome is doxa.Outcome.ADMITTED


def test_the_rule_judge_refuses_a_fallback_that_does_not_declare_its_needs() -> None:
    with pytest.raises(doxa.InvalidInput, match=r"fallback Undeclared is not a doxa\.Judge"):
        RuleJudge(fallback=Undeclared())  # type: ignore[arg-type]
    assert RuleJudge(fallback=Declared()).needs == Needs()  # control


def shown_texts(judge: Recording) -> list[str]:
    return [f.text for f in judge.seen[-1].same_topic]


def test_a_judge_that_reads_text_is_shown_similar_texts() -> None:
    judge = Recording(Needs(similar_texts=True))
    with doxa.Memory.open(None, scope="s", judge=judge) as mem:
        mem.remember("Alice lives in Lyon", topic="home", authority="owner")
        mem.remember("Alice lives in Paris now", topic="home", authority="owner")
    assert shown_texts(judge) == ["Alice lives in Lyon"]


def test_a_judge_of_structure_is_shown_only_duplicates_and_other_values() -> None:
    """No text search: only exact duplicates and the texts that share its first words (the
    same sentence with another value, found through one index key)."""
    judge = Recording(Needs())
    with doxa.Memory.open(None, scope="s", judge=judge) as mem:
        mem.remember("Alice lives in Lyon", topic="home", authority="owner")
        mem.remember("Alice works in Paris", topic="home", authority="owner")
        assert shown_texts(judge) == []
        mem.remember("alice lives in lyon", topic="home", authority="owner")
        assert shown_texts(judge) == ["Alice lives in Lyon"]  # control: a duplicate is shown
        judge.seen.clear()
        mem.remember("Alice lives in Paris now", topic="home", authority="owner")
    # and the texts it is another value of (both, as the recording judge admitted both)
    assert sorted(shown_texts(judge)) == ["Alice lives in Lyon", "alice lives in lyon"]


@pytest.mark.parametrize(("reads_text", "shown"), [(True, ["Alice lives in Lyon"]), (False, [])])
def test_bulk_import_shows_what_the_judge_needs(reads_text: bool, shown: list[str]) -> None:
    """In bulk, a judge that reads text sees the batch's earlier close text (the batch is
    published before it), exactly as one by one; a judge of structure does not."""
    judge = Recording(Needs(similar_texts=reads_text))
    rows = [
        {"text": "Alice lives in Lyon", "topic": "home", "authority": "owner"},
        {"text": "Alice works in Paris", "topic": "home", "authority": "owner"},
    ]
    with doxa.Memory.open(None, scope="s", judge=judge) as mem:
        report = mem.admin.import_claims(rows)
    assert len(report.receipts) == 2
    assert shown_texts(judge) == shown
