"""Judges chosen by name (``rule``, ``llm``, ``rule+llm``) and the DOXA_LLM_* configuration.

Each refusal sits beside the control that is accepted.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.judges.fake_openai import FakeOpenAI, answer, running

import doxa
from doxa.judges import (
    JudgeName,
    LLMConfig,
    LLMJudge,
    RuleJudge,
    configured_judge,
    judge_named,
)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with running() as server:
        yield server


def env(fake: FakeOpenAI) -> dict[str, str]:
    return {
        "DOXA_LLM_BASE_URL": fake.base_url,
        "DOXA_LLM_MODEL": "fake-model",
        "DOXA_LLM_TIMEOUT": "2",
    }


@pytest.mark.parametrize("member", list(JudgeName))
def test_each_name_parses_from_its_exact_value(member: JudgeName) -> None:
    assert JudgeName.parse(member.value) is member
    assert JudgeName.parse(member) is member


class Sneaky(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


@pytest.mark.parametrize(
    "value",
    [
        "Rule",  # another case
        "RULE",  # the member's Python name
        "RULE_WITH_LLM",
        "rule_with_llm",
        " rule",  # surrounding space
        "rule ",
        "rule + llm",  # inner space
        "llm+rule",  # another order
        "rul\u0435",  # Cyrillic e
        "\uff52ule",  # fullwidth r
        "",
        None,
        1,
        ["rule"],
    ],
)
def test_look_alike_names_are_refused(value: object) -> None:
    with pytest.raises(doxa.InvalidInput, match="use one of: rule, llm, rule\\+llm"):
        JudgeName.parse(value)


def test_a_str_subclass_is_read_as_its_plain_value() -> None:
    assert JudgeName.parse(Sneaky("llm")) is JudgeName.LLM
    with pytest.raises(doxa.InvalidInput):
        JudgeName.parse(Sneaky("anything"))  # its __eq__ says yes to all: not asked


def test_rule_needs_no_llm(fake: FakeOpenAI) -> None:
    judge = judge_named("rule", None)
    assert isinstance(judge, RuleJudge)
    assert judge.fallback is None
    # the rule judge ignores an LLM configured for something else
    judge = configured_judge(env(fake), name="rule")
    assert isinstance(judge, RuleJudge)
    assert judge.fallback is None
    broken = {"DOXA_LLM_BASE_URL": fake.base_url}  # no model: a configuration error
    assert isinstance(configured_judge(broken, name="rule"), RuleJudge)
    with pytest.raises(doxa.InvalidInput, match="DOXA_LLM_MODEL is not set"):
        configured_judge(broken)  # control: the default reads the configuration


@pytest.mark.parametrize("name", ["llm", "rule+llm", JudgeName.LLM, JudgeName.RULE_WITH_LLM])
def test_a_judge_that_asks_an_llm_needs_one_configured(fake: FakeOpenAI, name: object) -> None:
    with pytest.raises(doxa.InvalidInput, match="set DOXA_LLM_MODEL") as refused:
        configured_judge({}, name=name)  # type: ignore[arg-type]
    assert isinstance(refused.value, doxa.DoxaError)
    with pytest.raises(doxa.InvalidInput, match="set DOXA_LLM_MODEL"):
        judge_named(name, None)  # type: ignore[arg-type]
    # control: the same name with an endpoint configured builds the judge
    judge = configured_judge(env(fake), name=name)  # type: ignore[arg-type]
    assert isinstance(judge, LLMJudge | RuleJudge)
    assert judge.needs.similar_texts


def test_an_unknown_name_is_refused_before_the_configuration_is_read() -> None:
    broken = {"DOXA_LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    with pytest.raises(doxa.InvalidInput, match="not a valid judge name"):
        configured_judge(broken, name="gpt")


def test_the_default_is_the_rule_judge_with_an_llm_fallback_when_configured(
    fake: FakeOpenAI,
) -> None:
    plain = configured_judge({})
    assert isinstance(plain, RuleJudge)
    assert plain.fallback is None
    with_llm = configured_judge(env(fake))
    assert isinstance(with_llm, RuleJudge)
    assert isinstance(with_llm.fallback, LLMJudge)
    named = configured_judge(env(fake), name="rule+llm")
    assert isinstance(named, RuleJudge)
    assert isinstance(named.fallback, LLMJudge)


def test_llm_alone_judges_structured_writes_too(fake: FakeOpenAI, clock: doxa.FixedClock) -> None:
    """Chosen by name, the LLM judge decides every write; under rule+llm the rule judge
    decides the structured ones and the model is never asked."""
    ex = "https://example.org/"
    statement = {"subject": ex + "alice", "predicate": ex + "likes", "object": ex + "tea"}
    with doxa.Memory.open(
        None, scope="a", clock=clock, judge=configured_judge(env(fake), name="llm")
    ) as mem:
        fake.reply(answer("new", [], "the model says new"))
        receipt = mem.remember("Alice likes tea", topic="drinks", **statement)
        assert (receipt.judge, receipt.reason) == ("llm", "the model says new")
    assert len(fake.requests) == 1
    fake.reset()
    judge = configured_judge(env(fake), name="rule+llm")
    with doxa.Memory.open(None, scope="a", clock=clock, judge=judge) as mem:
        receipt = mem.remember("Alice likes tea", topic="drinks", **statement)
        assert receipt.judge == "rule"
    assert fake.requests == []


def test_judge_named_takes_a_config_directly(fake: FakeOpenAI) -> None:
    config = LLMConfig(base_url=fake.base_url, model="fake-model")
    judge = judge_named(JudgeName.LLM, config)
    assert isinstance(judge, LLMJudge)
    assert judge.config is config
    judge.close()
