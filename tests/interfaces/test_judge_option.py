"""``--judge`` / ``DOXA_JUDGE``: every command, ``doxa serve`` and ``doxa mcp`` choose the judge by
name, through the one parse in :mod:`doxa.judges.named`.

Each refused spelling sits beside the accepted one; the LLM judge is a local fake
OpenAI-compatible server, never a real model.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner, Result
from tests.judges.fake_openai import FakeOpenAI, answer, running

from doxa.interfaces.cli import main

NO_ENV = {"DOXA_STORE": None, "DOXA_SCOPE": None, "DOXA_JUDGE": None, "DOXA_LLM_MODEL": None}


def doxa(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(
        main,
        ["--store", ":memory:", "--json", *args],
        prog_name="doxa",
        env={**NO_ENV, **(env or {})},
        catch_exceptions=False,
    )


WRITE = ("remember", "Bob prefers tea", "--topic", "bob")


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with running() as server:
        server.always(answer("new"))
        yield server


def llm_env(fake: FakeOpenAI) -> dict[str, str | None]:
    return {
        "DOXA_LLM_BASE_URL": fake.base_url,
        "DOXA_LLM_MODEL": "fake-model",
        "DOXA_LLM_TIMEOUT": "2",
    }


def test_the_rule_judge_by_name_decides() -> None:
    result = doxa("--judge", "rule", *WRITE)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["judge"] == "rule"


def test_no_name_keeps_the_default_judge() -> None:
    result = doxa(*WRITE)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["judge"] == "rule"


@pytest.mark.parametrize(
    "name",
    [
        "RULE",  # the member's Python name
        "Rule",  # another case
        "rule ",  # trailing space
        "\uff52ule",  # fullwidth r
        "r\u0443le",  # Cyrillic u
        "rule+LLM",
        "rule,llm",
        "",
    ],
)
def test_a_judge_name_that_is_not_exact_is_an_invalid_input(name: str) -> None:
    result = doxa("--judge", name, *WRITE)
    assert result.exit_code == 2, result.stdout
    assert "is not a valid judge name; use one of: rule, llm, rule+llm" in result.stdout


def test_the_environment_names_the_judge_too() -> None:
    refused = doxa(*WRITE, env={"DOXA_JUDGE": "RULE"})
    assert refused.exit_code == 2
    accepted = doxa(*WRITE, env={"DOXA_JUDGE": "rule"})
    assert accepted.exit_code == 0, accepted.stderr


def test_an_llm_judge_without_an_endpoint_says_what_to_set() -> None:
    result = doxa("--judge", "llm", *WRITE)
    assert result.exit_code == 2
    assert "DOXA_LLM_MODEL" in result.stdout


def test_the_llm_judge_by_name_asks_the_model(fake: FakeOpenAI) -> None:
    result = doxa("--judge", "llm", *WRITE, env=llm_env(fake))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["judge"] == "llm"
    assert fake.requests, "the LLM judge was not asked"


def test_rule_by_name_asks_no_model_even_when_one_is_configured(fake: FakeOpenAI) -> None:
    result = doxa("--judge", "rule", *WRITE, env=llm_env(fake))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["judge"] == "rule"
    assert fake.requests == []


def test_serve_refuses_a_wrong_judge_name_before_it_listens() -> None:
    result = CliRunner().invoke(
        main,
        ["--store", ":memory:", "--judge", "RULE", "serve", "--port", "1"],
        prog_name="doxa",
        env=NO_ENV,
        catch_exceptions=False,
    )
    assert result.exit_code == 2
    assert "is not a valid judge name" in result.stderr


def test_mcp_refuses_a_wrong_judge_name() -> None:
    pytest.importorskip("mcp")
    result = doxa("--judge", "ＲULE", "mcp")
    assert result.exit_code == 2
    assert "is not a valid judge name" in result.stdout
