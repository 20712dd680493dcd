"""One definition of the reads' parameters (doxa.reads.parameters): every interface has
exactly its parameters.

``GET /facts`` and ``GET /recall`` (the OpenAPI document), the MCP ``facts`` and ``recall``
tools (their input schemas), ``doxa facts`` and ``doxa recall`` (their options) and the
Python API (``Memory.facts`` and ``Memory.recall``) are each compared with
:data:`doxa.reads.parameters.READS`: names, order, required, defaults and docs. Then the
parameters that had drifted (``include_unchecked``, ``limit`` on facts) are used through
each interface.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import click
import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mcp import Client
from tests.conftest import FlakyJudge

import doxa
from doxa.interfaces.cli import main
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.mcp.server import build_server
from doxa.reads.parameters import FACTS, READS, RECALL, Parameter, Read, newest
from doxa.store import EmbeddedStore
from doxa.writes import REQUIRED, Wire

KEY = "reads-owner-key-0123456789"
IDS = [read.name for read in READS]


def python_mismatches(
    read: Read, signature: inspect.Signature, *, leave_out: str = ""
) -> list[str]:
    """How ``signature`` differs from ``read``'s parameters: names, order, kinds, defaults,
    annotations (``leave_out``: a parameter the comparison skips)."""
    wanted = [p for p in read.parameters if p.name != leave_out]
    found = [p for p in signature.parameters.values() if p.name != "self"]
    problems = []
    if [p.name for p in found] != [p.name for p in wanted]:
        problems.append(f"names {[p.name for p in found]} != {[p.name for p in wanted]}")
    for item, parameter in zip(wanted, found, strict=False):
        default = inspect.Parameter.empty if item.required else item.default
        if parameter.default != default:
            problems.append(f"{item.name}: default {parameter.default!r} != {default!r}")
        if parameter.annotation != item.python:
            problems.append(f"{item.name}: annotation {parameter.annotation!r} != {item.python!r}")
        keyword = inspect.Parameter.KEYWORD_ONLY
        if not item.required and parameter.kind is not keyword:
            problems.append(f"{item.name}: {parameter.kind} is not keyword-only")
    return problems


# -- the Python API ---------------------------------------------------------------------------


def test_memory_recall_takes_exactly_the_defined_parameters() -> None:
    assert python_mismatches(RECALL, inspect.signature(doxa.Memory.recall)) == []


def test_memory_facts_takes_the_defined_parameters() -> None:
    """``Memory.facts`` takes every defined parameter, ``limit`` (the newest that many, by
    :func:`doxa.reads.parameters.newest`) included."""
    assert python_mismatches(FACTS, inspect.signature(doxa.Memory.facts)) == []


def test_a_drifted_signature_is_caught() -> None:
    """Control for the tests above: a parameter left out, renamed default or positional."""
    real = inspect.signature(doxa.Memory.recall)
    parameters = list(real.parameters.values())
    without = real.replace(parameters=[p for p in parameters if p.name != "include_unchecked"])
    assert any("names" in m for m in python_mismatches(RECALL, without))
    changed = real.replace(
        parameters=[p.replace(default=20) if p.name == "limit" else p for p in parameters]
    )
    assert python_mismatches(RECALL, changed) == ["limit: default 20 != 10"]


# -- REST ----------------------------------------------------------------------------------------


@pytest.fixture
def app() -> Iterator[FastAPI]:
    config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=KEY, agent_keys=()),))
    store = EmbeddedStore(None)
    yield create_app(store, config, rejudge_every=None)
    store.close()


def openapi_parameters(app: FastAPI, read: Read) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = app.openapi()["paths"][f"/{read.name}"]["get"]["parameters"]
    return found


@pytest.mark.parametrize("read", READS, ids=IDS)
def test_the_rest_route_takes_exactly_the_defined_parameters(app: FastAPI, read: Read) -> None:
    """GET /facts and /recall: one query parameter per defined one, in order, named as
    defined (recall's words are ``q``), required, defaulted and described as defined."""
    shown = openapi_parameters(app, read)
    assert [p["name"] for p in shown] == [p.http_name or p.name for p in read.parameters]
    for item, parameter in zip(read.parameters, shown, strict=True):
        assert parameter["in"] == "query"
        assert parameter["required"] is item.required, item.name
        assert parameter["description"] == item.doc
        if not item.required and item.default is not None:
            assert parameter["schema"]["default"] == item.default, item.name
        else:
            assert "default" not in parameter["schema"] or parameter["schema"]["default"] is None
        for key, value in item.constraints.items():
            assert parameter["schema"][key] == value


# -- MCP ---------------------------------------------------------------------------------------


def tool_schemas() -> dict[str, dict[str, Any]]:
    with doxa.Memory.open(None, scope="alice") as memory:
        tools = anyio.run(build_server(memory).list_tools)
    return {t.name: dict(t.input_schema) for t in tools}


@pytest.mark.parametrize("read", READS, ids=IDS)
def test_the_mcp_tool_takes_exactly_the_defined_parameters(read: Read) -> None:
    """The facts and recall tools: one argument per defined parameter, in order, with the
    agent's defaults (100 facts unless asked for more) and the definition's docs."""
    schema = tool_schemas()[read.name]
    properties = schema["properties"]
    assert list(properties) == [p.name for p in read.parameters]
    assert schema.get("required", []) == [p.name for p in read.parameters if p.required]
    for item in read.parameters:
        shown = properties[item.name]
        assert shown["description"] == item.doc
        if not item.required:
            assert shown["default"] == item.default_for(agent=True), item.name
        for key, value in item.constraints.items():
            assert shown[key] == value
    assert FACTS.parameter("limit").default_for(agent=True) == 100
    assert FACTS.parameter("limit").default_for(agent=False) is None


# -- the CLI -----------------------------------------------------------------------------------


@pytest.mark.parametrize("read", READS, ids=IDS)
def test_the_cli_command_takes_exactly_the_defined_parameters(read: Read) -> None:
    """``doxa facts`` and ``doxa recall``: recall's TEXT an argument, every other parameter
    an option ``--name-with-dashes`` (a switch a flag) with the definition's default and doc."""
    command = main.commands[read.name]
    assert [p.name for p in command.params if p.name != "help"] == [p.name for p in read.parameters]
    # what the command receives when an option is left out
    given = command.make_context(read.name, ["words"] if read is RECALL else []).params
    for item, parameter in zip(read.parameters, command.params, strict=False):
        if item.required:
            assert isinstance(parameter, click.Argument)
            continue
        assert isinstance(parameter, click.Option)
        assert parameter.opts == ["--" + item.name.replace("_", "-")]
        assert parameter.help == item.doc
        assert parameter.is_flag is (item.wire is Wire.FLAG)
        expected = False if item.wire is Wire.FLAG else item.default
        assert given[item.name] == expected, item.name


def test_every_parameter_has_a_doc_and_a_known_wire() -> None:
    """The definition itself: one line each, a wire the builders know, required only text."""
    for read in READS:
        for item in read.parameters:
            assert isinstance(item, Parameter)
            assert item.doc.endswith(".")
            assert "\n" not in item.doc
            assert item.wire in (Wire.TEXT, Wire.INSTANT, Wire.FLAG, Wire.COUNT)
            assert (item.default is REQUIRED) is (item.name == "text")


# -- the drifted parameters, used through each interface ---------------------------------------


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with three admitted facts of topic c and one write waiting unchecked."""
    path = tmp_path / "store"
    judge = FlakyJudge()
    with doxa.Memory.open(path, scope="alice", judge=judge) as memory:
        judge.up = True
        for word in ("tea", "coffee", "juice"):
            memory.remember(f"Bob drinks {word} in the morning", topic=f"c{word}")
        judge.up = False
        memory.remember("Bob likes tea", topic="notes")
    return path


def texts(found: list[Any]) -> list[str]:
    return [f["text"] if isinstance(f, dict) else f.text for f in found]


def test_every_interface_takes_include_unchecked_and_a_facts_limit(store: Path) -> None:
    """include_unchecked (Python and REST only before) and a facts limit (MCP only before)
    through the CLI, REST, MCP and Python: the same answers, and the controls without them."""
    with doxa.Memory.open(store, scope="alice") as memory:
        python_all = texts(memory.facts())
        python_unchecked = texts(memory.facts(include_unchecked=True))
        python_recall = texts(memory.recall("tea", include_unchecked=True))
        assert "Bob likes tea" not in python_all  # control: left out unless asked for
        assert python_unchecked[-1] == "Bob likes tea"
        assert "Bob likes tea" in python_recall

        config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=KEY, agent_keys=()),))
        app = create_app(memory.store, config, rejudge_every=None)
        headers = {"Authorization": f"Bearer {KEY}"}
        with TestClient(app, headers=headers) as http:
            assert texts(http.get("/facts").json()) == python_all
            every = http.get("/facts", params={"include_unchecked": "true"}).json()
            assert texts(every) == python_unchecked
            newest_two = http.get("/facts", params={"limit": 2}).json()
            assert texts(newest_two) == python_all[-2:]
            refused = http.get("/facts", params={"limit": 0})
            assert refused.status_code == 400
            assert "out of range" in refused.json()["error"]["message"]
            found = http.get("/recall", params={"q": "tea", "include_unchecked": "true"}).json()
            assert texts(found) == python_recall

        pages: list[dict[str, Any]] = []

        async def calls() -> None:
            async with Client(build_server(memory)) as client:
                for name, arguments in (
                    ("facts", {}),
                    ("facts", {"include_unchecked": True}),
                    ("facts", {"limit": 2}),
                    ("recall", {"text": "tea", "include_unchecked": True}),
                ):
                    result = await client.call_tool(name, arguments)
                    assert not result.is_error, result.content
                    assert result.structured_content is not None
                    pages.append(result.structured_content)

        anyio.run(calls)
        assert texts(pages[0]["facts"]) == python_all
        assert texts(pages[1]["facts"]) == python_unchecked
        assert (texts(pages[2]["facts"]), pages[2]["more"]) == (python_all[-2:], 1)
        assert texts(pages[3]["facts"]) == python_recall

    def cli(*args: str) -> list[str]:
        result = CliRunner().invoke(
            main, ["--store", str(store), "--scope", "alice", "--json", *args]
        )
        assert result.exit_code == 0, result.output
        return texts(json.loads(result.stdout))

    assert cli("facts") == python_all
    assert cli("facts", "--include-unchecked") == python_unchecked
    assert cli("facts", "--limit", "2") == python_all[-2:]
    assert cli("recall", "tea", "--include-unchecked") == python_recall
    refused = CliRunner().invoke(
        main, ["--store", str(store), "--scope", "alice", "facts", "--limit", "0"]
    )
    assert refused.exit_code == 2
    assert "out of range" in refused.stderr


@pytest.mark.parametrize("limit", [0, -1, 1001, True, 2.0, "2"])
def test_a_facts_limit_out_of_range_is_refused(limit: object) -> None:
    """The one cut every interface makes: a whole number from 1 to 1000, or none (control)."""
    with pytest.raises(doxa.InvalidInput, match="out of range; use a whole number from 1 to 1000"):
        newest([1, 2, 3], limit)  # type: ignore[arg-type]
    assert newest([1, 2, 3], 1000) == [1, 2, 3]
    assert newest([1, 2, 3], None) == [1, 2, 3]
