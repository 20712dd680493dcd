"""The rule judge hands text it cannot decide to the LLM judge, which sees close facts too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.judges.fake_openai import FakeOpenAI, answer, data_of, running, status

import doxa
from doxa.judges import RuleJudge, configured_judge


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with running() as server:
        yield server


@pytest.fixture
def mem(fake: FakeOpenAI, clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    judge = configured_judge(
        {
            "DOXA_LLM_BASE_URL": fake.base_url,
            "DOXA_LLM_MODEL": "fake-model",
            "DOXA_LLM_TIMEOUT": "2",
        }
    )
    assert isinstance(judge, RuleJudge)
    assert judge.fallback is not None
    with doxa.Memory.open(None, scope="alice", clock=clock, judge=judge) as memory:
        memory.owner.grant("general")
        yield memory


def test_text_the_rules_cannot_decide_goes_to_the_llm(fake: FakeOpenAI, mem: doxa.Memory) -> None:
    lyon = mem.remember("Alice lives in Lyon", topic="home", authority="owner")
    fake.reply(answer("replaces", ["F1"], "she moved"))
    paris = mem.remember(
        "Alice moved to Paris; she lives in Paris now", topic="home", authority="owner"
    )
    assert paris.relation is doxa.Relation.REPLACES
    assert paris.targets == (lyon.fact,)
    assert paris.judge == "llm"  # the receipt names the judge that answered
    assert [f.text for f in mem.facts()] == ["Alice moved to Paris; she lives in Paris now"]
    # the LLM was shown the textually close fact, not only exact duplicates
    shown = data_of(fake.requests[-1])
    assert "Alice lives in Lyon" in str(shown)


def test_duplicates_never_reach_the_llm(fake: FakeOpenAI, mem: doxa.Memory) -> None:
    mem.remember("Alice lives in Lyon", topic="home", authority="owner")
    before = len(fake.requests)
    again = mem.remember("alice lives in lyon!", topic="home", authority="owner")
    assert again.relation is doxa.Relation.SAME
    assert again.judge == "rule"
    assert len(fake.requests) == before


def test_llm_down_holds_the_text_unchecked_and_rejudge_recovers(
    fake: FakeOpenAI, mem: doxa.Memory
) -> None:
    mem.remember("Alice lives in Lyon", topic="home", authority="owner")
    fake.reply(status(503))
    held = mem.remember("Alice lives in Paris now", topic="home", authority="owner")
    assert held.outcome is doxa.Outcome.HELD
    assert held.relation is None
    assert [f.text for f in mem.facts()] == ["Alice lives in Lyon"]
    fake.reply(answer("replaces", ["F1"], "she moved"))
    [receipt] = mem.owner.rejudge()
    assert receipt.outcome is doxa.Outcome.ADMITTED
    assert [f.text for f in mem.facts()] == ["Alice lives in Paris now"]
