"""The owner's answer to a held write: one set on every surface, and which held writes ask
"replace or add?" (those the review page offers the answers for)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import click
import httpx
import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from tests.helpers import DAY_OF_WEEK, EX

from doxa import Memory
from doxa.errors import DoxaError, InvalidInput
from doxa.interfaces.answers import (
    ANSWER_VALUES,
    REPLACE_OR_ADD,
    asks_replace_or_add,
    parse_answer,
)
from doxa.interfaces.cli import main
from doxa.interfaces.client import RemoteMemory
from doxa.interfaces.http.rest import router
from doxa.model import Relation


def test_every_surface_offers_the_same_answers() -> None:
    """The CLI's ``--as`` choices, REST's body (which the remote client and the MCP tool's
    schema share, see test_mcp_http) and the set itself are one list: the judge's relations,
    with the three answers to "replace or add?" among them."""
    approve = main.commands["approve"]
    [option] = [p for p in approve.params if p.name == "as_relation"]
    assert isinstance(option.type, click.Choice)
    assert list(option.type.choices) == list(ANSWER_VALUES)
    app = FastAPI()
    app.include_router(router)
    body = app.openapi()["components"]["schemas"]["ApproveBody"]
    schema = body["properties"]["as_relation"]
    assert schema["enum"] == [*ANSWER_VALUES, None]
    assert set(ANSWER_VALUES) == {m.value for m in Relation}
    assert [a.relation.value for a in REPLACE_OR_ADD] == ["replaces", "new", "was_wrong"]
    assert [a.ends for a in REPLACE_OR_ADD] == [True, False, True]


@pytest.mark.parametrize("value", ["replaces", "new", "was_wrong", Relation.NEW])
def test_an_answer_is_parsed_into_the_enum(value: object) -> None:
    assert parse_answer(value) is Relation.parse(value)
    assert isinstance(parse_answer(value), Relation)


@pytest.mark.parametrize("value", ["REPLACES", "Replaces", " new", "was-wrong", "add", "", 3])
def test_an_answer_that_is_no_relation_is_refused(value: object) -> None:
    """Only the exact values pass (the control is the test above); the message lists them."""
    with pytest.raises(InvalidInput, match="use one of: new, same, adds_detail, replaces"):
        parse_answer(value)


def test_no_answer_leaves_the_judges_relation() -> None:
    assert parse_answer(None) is None


def test_the_client_sends_the_parsed_answer() -> None:
    """The remote client sends each answer as its value (a member or its string); a bad one
    is refused before anything is sent."""
    sent: list[object] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content)["as_relation"])
        return httpx.Response(404, json={"error": {"type": "NotFound", "message": "no"}})

    transport = httpx.MockTransport(answer)
    with RemoteMemory("http://127.0.0.1:8000", "key-0123456789abcdef", transport=transport) as c:
        for given in ("was_wrong", Relation.NEW, "replaces", None):
            with pytest.raises(DoxaError):
                c.owner.approve("h1", as_relation=given)
        with pytest.raises(InvalidInput, match="is not a valid relation"):
            c.owner.approve("h1", as_relation="Was_Wrong")
    assert sent == ["was_wrong", "new", "replaces", None]


# -- the CLI takes each answer ----------------------------------------------------------


def cli(store: Path, *args: str) -> click.testing.Result:
    env = {"DOXA_STORE": None, "DOXA_SCOPE": None}
    return CliRunner().invoke(
        main, ["--store", str(store), *args], prog_name="doxa", env=env, catch_exceptions=False
    )


def held_second_value(store: Path, predicate: str) -> tuple[str, str]:
    """Two owner values of ``predicate`` for Bob through the CLI: the first id, the held id."""
    ids = []
    for value in ("tea", "coffee"):
        result = cli(
            store,
            "--json",
            "remember",
            f"Bob {predicate} {value}",
            "--topic=tastes",
            f"--subject={EX}bob",
            f"--predicate={EX}{predicate}",
            f"--object={value}",
            "--authority=owner",
        )
        assert result.exit_code == 0, result.output
        receipt = json.loads(result.stdout)
        ids.append(receipt["fact"] or receipt["held"])
    return ids[0], ids[1]


@pytest.mark.parametrize("answer", ["new", "was_wrong", "replaces"])
def test_the_cli_takes_each_answer(tmp_path: Path, answer: str) -> None:
    """``doxa approve --as`` takes ``new`` and ``was_wrong`` as well as ``replaces``; a
    spelling that is no relation exits 2 and leaves the write held (before the control)."""
    store = tmp_path / "memory"
    assert cli(store, "init").exit_code == 0
    old, held = held_second_value(store, "drinks")
    refused = cli(store, "approve", held, "--as", answer.upper())
    assert refused.exit_code == 2
    assert "is not a valid relation" in refused.output
    approved = cli(store, "--json", "approve", held, "--as", answer)
    assert approved.exit_code == 0, approved.output
    receipt = json.loads(approved.stdout)
    assert (receipt["outcome"], receipt["relation"]) == ("approved", answer)
    assert receipt["targets"] == ([] if answer == "new" else [old])


# -- which held writes ask "replace or add?" ------------------------------------------------


@pytest.fixture
def memory() -> Iterator[Memory]:
    with Memory.open(None, scope="alice") as opened:
        opened.schema.add_ontology(DAY_OF_WEEK)
        yield opened


def write(memory: Memory, text: str, predicate: str, obj: str, **fields: str) -> None:
    memory.remember(
        text,
        topic="tastes",
        subject=EX + "bob",
        predicate=EX + predicate,
        object=obj,
        **({"authority": "owner"} | fields),
    )


def test_a_second_value_of_an_unknown_predicate_asks(memory: Memory) -> None:
    write(memory, "Bob drinks tea", "drinks", "tea")
    write(memory, "Bob drinks coffee", "drinks", "coffee")
    [held] = memory.held()
    assert held.relation is Relation.UNCLEAR
    assert asks_replace_or_add(held)


def test_a_clash_on_a_one_valued_property_does_not_ask(memory: Memory) -> None:
    """Unclear too (an agent against the owner's value), with a target of the same subject
    and predicate, but the ontology says one value: the plain Approve stays. Control: the
    test above."""
    write(memory, "Bob meets on Wednesday", "dayOfWeek", EX + "Wednesday")
    write(memory, "Bob meets on Thursday", "dayOfWeek", EX + "Thursday", authority="agent")
    [held] = memory.held()
    assert held.relation is Relation.UNCLEAR
    assert held.targets
    assert not asks_replace_or_add(held)


def test_once_answered_the_predicate_asks_no_more(memory: Memory) -> None:
    """After the owner's "many", a held write of that predicate (waiting from before) is
    judged again at once: it no longer waits, nor asks."""
    write(memory, "Bob drinks tea", "drinks", "tea")
    write(memory, "Bob drinks coffee", "drinks", "coffee")
    write(memory, "Bob drinks water", "drinks", "water")
    first, second = memory.held()
    assert asks_replace_or_add(second)
    memory.owner.approve(first, as_relation="new")
    assert memory.held() == []
