"""MCP fit for a model (issue 16, item 6): instructions, schemas with formats, patterns, enums
and bounds, and a ``remember`` answer that names the stored fact it matched.

The server runs in-process behind the SDK's own client (``Client(server)``); the stdio
transport's refusal of unknown arguments is checked through :func:`check_message`, which
``doxa mcp`` runs on every line (``tests/interfaces/test_mcp.py`` drives it end to end).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import jsonschema
import pytest
from click.testing import CliRunner
from mcp import Client
from tests.helpers import EX, error_text, structured

import doxa
from doxa.errors import InvalidInput, NotFound
from doxa.interfaces.cli import main
from doxa.interfaces.http.rest import RememberBody
from doxa.interfaces.mcp.server import INSTRUCTIONS, build_server, check_message
from doxa.interfaces.mcp.transport import tool_arguments
from doxa.interfaces.presentation import Effect, Match, matches, written
from doxa.scope import check_name
from doxa.terms import language_tag
from doxa.writes import FACT_ID_PATTERN, FIELDS, LANGUAGE_PATTERN, NAME_PATTERN, field

#: date-time and uri checked as a strict client would (jsonschema's own checks for them need
#: optional packages)
FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    return not isinstance(value, str) or (
        "T" in value and datetime.fromisoformat(value).tzinfo is not None
    )


@FORMATS.checks("uri")
def _uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme) and " " not in value


def call_day(day: str, **more: Any) -> dict[str, Any]:
    """A structured write of the supplier call's day."""
    return {
        "text": f"The supplier call is on {day}",
        "topic": "meetings",
        "subject": f"{EX}supplierCall",
        "predicate": f"{EX}dayOfWeek",
        "object": f"{EX}{day}",
        **more,
    }


def with_client(memory: doxa.Memory, body: Callable[[Client], Awaitable[None]]) -> None:
    """Run ``body`` against the MCP server over ``memory``, in-process."""

    async def run() -> None:
        async with Client(build_server(memory)) as client:
            await body(client)

    anyio.run(run)


def remember_schema(memory: doxa.Memory) -> dict[str, Any]:
    tools = anyio.run(build_server(memory).list_tools)
    [remember] = [t for t in tools if t.name == "remember"]
    return dict(remember.input_schema)


@pytest.fixture
def memory() -> Any:
    with doxa.Memory.open(None, scope="alice") as opened:
        opened.schema.add_ontology(
            f"@prefix owl: <http://www.w3.org/2002/07/owl#> . <{EX}dayOfWeek> a "
            "owl:ObjectProperty, owl:FunctionalProperty .".encode()
        )
        yield opened


# -- instructions -------------------------------------------------------------------------------


def test_the_instructions_say_when_to_give_structure_revises_and_sources(
    memory: doxa.Memory,
) -> None:
    """The model reads them at initialize: structure, revises, sources and the answer's
    ``matched`` are each explained."""
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["instructions"] = client.instructions

    with_client(memory, body)
    assert seen["instructions"] == INSTRUCTIONS
    for word in ("`subject`", "`predicate`", "`object`", "`revises`", "`sources`", "`matched`"):
        assert word in INSTRUCTIONS
    assert "never guess an id" in INSTRUCTIONS


# -- input schemas ------------------------------------------------------------------------------


def test_the_schemas_are_valid_json_schema_with_formats_patterns_and_bounds(
    memory: doxa.Memory,
) -> None:
    """MCP's tool and REST's body carry the same hints, each declared once on the Field."""
    for schema in (remember_schema(memory), RememberBody.model_json_schema()):
        jsonschema.Draft202012Validator.check_schema(schema)
        props = schema["properties"]
        assert props["valid_from"]["format"] == "date-time"
        assert props["valid_until"]["format"] == "date-time"
        assert props["standpoint"]["format"] == "uri"
        assert props["attributed_to"]["format"] == "uri"
        assert props["sources"]["items"] == {"type": "string", "format": "uri"}
        assert props["revises"]["pattern"] == FACT_ID_PATTERN
        assert props["language"]["pattern"] == LANGUAGE_PATTERN
        assert props["topic"]["pattern"] == props["kind"]["pattern"] == NAME_PATTERN
        assert (props["confidence"]["minimum"], props["confidence"]["maximum"]) == (0, 1)
        for item in FIELDS:
            if item.name in props:
                assert props[item.name]["description"] == item.doc


def test_the_agents_schema_lists_only_the_agents_values(memory: doxa.Memory) -> None:
    """Enums: owner left out of the agent's authority, no rule field; REST lists every value
    (control: the owner's interface)."""
    props = remember_schema(memory)["properties"]
    assert props["authority"]["enum"] == ["agent", "tool", "external"]
    assert "rule" not in props
    rest = RememberBody.model_json_schema()["properties"]
    assert "owner" in rest["authority"]["enum"]
    assert rest["rule"]["enum"] == ["requires", "forbids", None]


@pytest.mark.parametrize(
    ("arguments", "ok"),
    [
        ({"valid_from": "2026-03-09T14:00:00Z"}, True),
        ({"valid_from": "next tuesday"}, False),
        ({"sources": ["https://example.org/page"]}, True),
        ({"sources": ["not an iri"]}, False),
        ({"revises": "019ac4f2b0e3a1b2c3d4"}, True),
        ({"revises": "019ac4f2 b0e3"}, False),
        ({"language": "de-CH"}, True),
        ({"language": "de_CH"}, False),
        ({"confidence": 0.7}, True),
        ({"confidence": 1.5}, False),
        ({"confidence": -0.1}, False),
        ({"topic": "meetings"}, True),
        ({"topic": "Meetings"}, False),
        ({"authority": "tool"}, True),
        ({"authority": "owner"}, False),
        ({"authority": "OWNER"}, False),
        ({"authority": "\u043ewner"}, False),  # a Cyrillic o
        ({"text": 5}, False),
        ({"sources": "https://example.org/page"}, False),
    ],
)
def test_a_schema_validator_tells_good_arguments_from_bad(
    memory: doxa.Memory, arguments: dict[str, Any], ok: bool
) -> None:
    """What a client or model checking against the schema would see, each bad value beside a
    good one of the same field."""
    schema = remember_schema(memory)
    call = {"text": "The supplier call is on Monday", "topic": "meetings", **arguments}
    errors = list(jsonschema.Draft202012Validator(schema, format_checker=FORMATS).iter_errors(call))
    assert (not errors) is ok, errors


@pytest.mark.parametrize(
    "name",
    [
        "meetings",
        "a",
        "m" * 64,
        "m" * 65,
        "Meetings",
        "_x",
        "x y",
        "x\n",
        "\u0430bc",
        "",
        "a.b-c_d",
    ],
)
def test_the_name_pattern_agrees_with_the_guard(name: str) -> None:
    """The schema's pattern for topic and kind accepts exactly what check_name accepts
    (ECMA and Python read this pattern alike: no trailing-newline ``$`` in fullmatch)."""
    try:
        check_name(name, "topic")
        accepted = True
    except InvalidInput:
        accepted = False
    assert (re.fullmatch(NAME_PATTERN, name) is not None) is accepted


@pytest.mark.parametrize(
    "tag", ["en", "de-CH", "zh-Hant-TW", "de-CH-1996", "i-klingon", "x-private", "sgn-BE-FR"]
)
def test_every_tag_the_guard_accepts_fits_the_language_pattern(tag: str) -> None:
    """A model aiming at the pattern never has a good tag refused by the hint; the guard
    still decides (control: a tag the pattern lets by is refused by the parse)."""
    language_tag(tag)
    assert re.fullmatch(LANGUAGE_PATTERN, tag)
    assert re.fullmatch(LANGUAGE_PATTERN, "abcdefgh-a-b")
    with pytest.raises(InvalidInput, match="not a BCP 47 language tag"):
        language_tag("abcdefgh-a-b")


def test_the_fact_id_pattern_is_the_gates_reader(memory: doxa.Memory) -> None:
    """``revises`` outside the pattern is InvalidInput before any lookup; inside it, an id
    that does not exist is NotFound (so the schema hint and the gate agree)."""
    assert field("revises").pattern == FACT_ID_PATTERN
    with pytest.raises(InvalidInput, match="is not a fact id"):
        memory.remember("x", topic="t", revises="bad id!")
    with pytest.raises(NotFound):
        memory.remember("x", topic="t", revises="019ac4f2b0e3a1b2c3d4")
    assert memory.receipts() == []


# -- bad arguments are clear tool errors ----------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"text": 5}, "Input should be a valid string"),
        ({"confidence": [1]}, "confidence"),
        ({"confidence": "lots"}, "confidence"),
        ({"confidence": 1.5}, "confidence"),  # a shape: its rejection receipt is kept
        ({"sources": "https://example.org/page"}, "Input should be a valid list"),
        ({"sources": ["not an iri"]}, "not an absolute IRI"),
        ({"valid_from": "next tuesday"}, "is not a date or datetime; use ISO 8601"),
        ({"revises": 12}, "Input should be a valid string"),
        ({"revises": "bad id!"}, "is not a fact id"),
        # a Python schema validator's ``$`` lets a trailing newline by; the gate's reader not
        ({"revises": "019ac4f2b0e3a1b2c3d4\n"}, "is not a fact id"),
        ({"revises": "019AC4F2B0E3A1B2C3D4"}, "019AC4F2B0E3A1B2C3D4"),
        ({"revises": "019ac4f2b0e3a1b2c3d4"}, "019ac4f2b0e3a1b2c3d4"),
        ({"language": "de_CH", "literal": "x"}, "not a BCP 47 language tag"),
        ({"authority": "owner"}, "Input should be 'agent', 'tool' or 'external'"),
        ({"authority": "OWNER"}, "Input should be 'agent', 'tool' or 'external'"),
        ({"authority": "\u043ewner"}, "Input should be 'agent', 'tool' or 'external'"),
        ({"authority": "owner "}, "Input should be 'agent', 'tool' or 'external'"),
        ({"standpoint": "urn:doxa:scope:alice/standpoint/owner"}, "owner's standpoint"),
        ({"standpoint": "URN:doxa:scope:alice/standpoint/owner"}, "another spelling of"),
        ({"standpoint": "urn:DOXA:scope:alice/standpoint/owner"}, "another spelling of"),
        ({"standpoint": "urn:doxa:scope:alice/standpoint/%6Fwner"}, "another spelling of"),
    ],
)
def test_a_bad_argument_is_a_clear_tool_error_and_nothing_is_written(
    memory: doxa.Memory, arguments: dict[str, Any], message: str
) -> None:
    """Wrong types, values outside the hints, owner-only values from an agent: each is a
    tool error naming the problem, and the same call without it is written (control)."""
    texts: list[str] = []

    async def body(client: Client) -> None:
        call = {"text": "The supplier call is on Monday", "topic": "meetings"}
        texts.append(error_text(await client.call_tool("remember", call | arguments)))
        texts.append(structured(await client.call_tool("remember", call))["outcome"])

    with_client(memory, body)
    assert message in texts[0], texts[0]
    assert texts[1] == "admitted"
    assert [f.authority.value for f in memory.facts()] == ["agent"]
    kept = [r.outcome.value for r in memory.receipts() if r.outcome.value != "rejected"]
    assert kept == ["admitted"]


@pytest.mark.parametrize("extra", ["rule", "Revises", "revise", "revises ", "r\u0435vises"])
def test_an_extra_key_is_refused_by_name(memory: doxa.Memory, extra: str) -> None:
    """The stdio transport's check (``doxa mcp`` runs it on every line) refuses a key the
    tool does not take, other spellings and look-alikes of ``revises`` among them; the exact
    key passes (control)."""
    tools = anyio.run(build_server(memory).list_tools)
    takes = tool_arguments(tools)

    def message(arguments: dict[str, Any]) -> bytes:
        params = {"name": "remember", "arguments": arguments}
        return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params})

    base = {"text": "x", "topic": "t"}
    refusal = check_message(message(base | {extra: "requires"}).encode(), arguments=takes)
    assert refusal is not None
    answer = refusal.message.result  # type: ignore[union-attr]
    assert answer["isError"] is True
    assert "takes no argument" in answer["content"][0]["text"]
    assert repr(extra) in answer["content"][0]["text"]
    good = message(base | {"revises": "019ac4f2b0e3a1b2c3d4"}).encode()
    assert check_message(good, arguments=takes) is None


# -- the answer names the fact it matched ----------------------------------------------------------


def test_remember_names_the_fact_it_matched_or_would_replace(memory: doxa.Memory) -> None:
    """A new fact matches nothing (control); the same statement again is ``matched``; a new
    value is held as ``would_replace``; naming the fact and denying its value is
    ``would_retract``: each with the stored fact's id and text."""
    answers: list[dict[str, Any]] = []

    async def body(client: Client) -> None:
        for call in (
            call_day("Wednesday", valid_from="2026-01-01T00:00:00Z"),
            call_day("Wednesday", valid_from="2026-01-01T00:00:00Z"),
            call_day("Thursday", valid_from="2026-03-08T00:00:00Z"),
        ):
            answers.append(structured(await client.call_tool("remember", call)))
        first = answers[0]["fact"]
        fix = {"text": "The supplier call was never on Wednesday", "topic": "meetings"}
        answers.append(structured(await client.call_tool("remember", fix | {"revises": first})))

    with_client(memory, body)
    new, same, later, revised = answers
    wednesday = {"fact": new["fact"], "text": "The supplier call is on Wednesday"}
    assert (new["outcome"], new["matched"]) == ("admitted", [])
    assert same["outcome"] == "merged"
    assert same["matched"] == [wednesday | {"effect": "matched"}]
    assert (later["outcome"], later["relation"]) == ("held", "replaces")
    assert later["matched"] == [wednesday | {"effect": "would_replace"}]
    # text alone naming the fact and denying its value ("never on Wednesday"): it was wrong,
    # held for the owner (an agent's closing is not earned)
    assert (revised["outcome"], revised["relation"]) == ("held", "was_wrong")
    assert revised["matched"] == [wednesday | {"effect": "would_retract"}]


def test_matches_cover_every_effect_and_an_erased_target() -> None:
    """The one presentation: admitted replaces/was_wrong/adds_detail name what they ended or
    refined; an unreadable (erased) target keeps its id with no text; a rejection names none."""
    from doxa.model import Outcome, Receipt, Relation

    stored = {"f0": "Calls are on Monday"}

    def get(fact: str) -> Any:
        if fact not in stored:
            raise NotFound(f"no fact {fact}")
        return type("F", (), {"text": stored[fact]})()

    def receipt(outcome: Outcome, relation: Relation | None, *targets: str) -> Receipt:
        at = datetime(2026, 3, 9)
        return Receipt("r", 1, relation, outcome, at, "rule", "1", "", "f1", tuple(targets))

    cases = {
        (Outcome.ADMITTED, Relation.REPLACES): Effect.REPLACED,
        (Outcome.ADMITTED, Relation.WAS_WRONG): Effect.RETRACTED,
        (Outcome.ADMITTED, Relation.ADDS_DETAIL): Effect.REFINED,
        (Outcome.HELD, Relation.UNCLEAR): Effect.IN_QUESTION,
        (Outcome.HELD, Relation.CLASHES_WITH_RULE): Effect.IN_QUESTION,
    }
    for (outcome, relation), effect in cases.items():
        assert matches(receipt(outcome, relation, "f0", "gone"), get) == (
            Match("f0", "Calls are on Monday", effect),
            Match("gone", None, effect),
        )
    assert matches(receipt(Outcome.REJECTED, None), get) == ()
    assert matches(receipt(Outcome.ADMITTED, Relation.NEW), get) == ()
    assert written(receipt(Outcome.ADMITTED, Relation.NEW), ())["matched"] == []


def test_the_cli_shows_the_fact_it_would_replace(tmp_path: Path) -> None:
    """``doxa remember`` prints the matched fact's id and text; ``--json`` carries
    ``matched`` like REST and MCP."""
    store = tmp_path / "memory"
    runner = CliRunner()

    def remember(*args: str) -> Any:
        result = runner.invoke(main, ["--store", str(store), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    first = json.loads(remember("--json", "remember", "Bob likes tea", "--topic", "food"))
    assert first["matched"] == []
    again = remember("remember", "Bob likes tea", "--topic", "food")
    assert f"matched {first['fact']}: 'Bob likes tea'" in again
