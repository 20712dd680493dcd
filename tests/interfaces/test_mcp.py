"""``doxa mcp`` end to end: the SDK's own client talks to ``python -m doxa mcp`` over stdio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from doxa import Memory
from doxa.interfaces.cli import main
from doxa.interfaces.mcp_server import AGENT_TOOLS

OWNER_VERBS = {"approve", "reject", "retract", "erase", "grant", "revoke", "clear_alarm"}


@asynccontextmanager
async def connect(store: Path, scope: str) -> AsyncIterator[Client]:
    """Spawn ``doxa mcp --path STORE --scope SCOPE`` and connect the SDK's client to it."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "doxa", "mcp", "--path", str(store), "--scope", scope],
    )
    async with Client(params) as client:
        yield client


def session(store: Path, scope: str, body: Callable[[Client], Awaitable[None]]) -> None:
    """Run ``body`` against a fresh server process, then stop it (stdin closed)."""

    async def run() -> None:
        async with connect(store, scope) as client:
            await body(client)

    anyio.run(run)


def error_text(result: CallToolResult) -> str:
    assert result.is_error
    [content] = result.content
    assert isinstance(content, TextContent)
    return content.text


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "memory"


def test_the_tool_table_is_pinned(store: Path) -> None:
    """The agent sees exactly five tools, reads marked read-only, each with both schemas."""
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["tools"] = (await client.list_tools()).tools

    session(store, "alice", body)
    table = {t.name: bool(t.annotations and t.annotations.read_only_hint) for t in seen["tools"]}
    assert table == {
        "remember": False,
        "recall": True,
        "facts": True,
        "history": True,
        "why": True,
    }
    assert table == AGENT_TOOLS
    assert not OWNER_VERBS & set(table)
    for tool in seen["tools"]:
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"
        assert tool.description
    remember = next(t for t in seen["tools"] if t.name == "remember")
    # the agent cannot speak as the owner, nor write a standing rule
    assert remember.input_schema["properties"]["authority"]["enum"] == ["agent", "tool", "external"]
    assert "rule" not in remember.input_schema["properties"]
    assert remember.input_schema["required"] == ["text", "topic"]


def test_remember_then_recall_and_the_reads(store: Path) -> None:
    """A write through MCP is found by recall and facts; history and why follow it."""

    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        written = await client.call_tool(
            "remember",
            {"text": "Alice prefers green tea", "topic": "drinks", "kind": "preference"},
        )
        receipt = structured(written)
        jsonschema.validate(receipt, tools["remember"].output_schema)
        assert (receipt["outcome"], receipt["relation"]) == ("admitted", "new")
        fact = receipt["fact"]

        found = structured(await client.call_tool("recall", {"text": "green tea"}))
        jsonschema.validate(found, tools["recall"].output_schema)
        assert [(f["id"], f["text"], f["status"]) for f in found["facts"]] == [
            (fact, "Alice prefers green tea", "live")
        ]
        # control: a query with no matching word finds nothing
        assert structured(await client.call_tool("recall", {"text": "coffee"})) == {"facts": []}

        listed = structured(await client.call_tool("facts", {"topic": "drinks"}))
        jsonschema.validate(listed, tools["facts"].output_schema)
        assert [f["id"] for f in listed["facts"]] == [fact]
        assert listed["more"] == 0

        history = structured(await client.call_tool("history", {"fact": fact}))
        jsonschema.validate(history, tools["history"].output_schema)
        assert history["fact"]["id"] == fact
        assert [e["kind"] for e in history["events"]] == ["recorded"]

        why = structured(await client.call_tool("why", {"fact": fact}))
        jsonschema.validate(why, tools["why"].output_schema)
        assert why["receipt"]["id"] == receipt["id"]

    session(store, "alice", body)


def test_bad_input_is_a_tool_error_and_nothing_is_written(store: Path) -> None:
    """An unreadable date comes back as a tool error with doxa's message; nothing is stored."""
    messages: list[str] = []

    async def body(client: Client) -> None:
        bad = await client.call_tool(
            "remember", {"text": "Lunch with Bob", "topic": "meetings", "valid_from": "someday"}
        )
        messages.append(error_text(bad))

    session(store, "alice", body)
    assert messages == [
        "Error executing tool remember: 'someday' is not a date or datetime; use ISO 8601 "
        "such as 2026-03-05 or 2026-03-05T10:00:00Z."
    ]
    with Memory.open(store, scope="alice") as memory:
        assert memory.receipts() == []
        assert memory.facts() == []

    async def control(client: Client) -> None:
        good = await client.call_tool(
            "remember", {"text": "Lunch with Bob", "topic": "meetings", "valid_from": "2026-03-05"}
        )
        assert structured(good)["outcome"] == "admitted"

    session(store, "alice", control)
    with Memory.open(store, scope="alice") as memory:
        assert [f.text for f in memory.facts(include_ended=True)] == ["Lunch with Bob"]


def test_a_shape_violation_is_a_tool_error_and_stores_no_fact(store: Path) -> None:
    """A confidence above 1 breaks a shape: tool error listing it; only a rejection receipt."""
    messages: list[str] = []

    async def body(client: Client) -> None:
        bad = await client.call_tool(
            "remember", {"text": "Bob likes jazz", "topic": "music", "confidence": 1.5}
        )
        messages.append(error_text(bad))
        good = await client.call_tool(
            "remember", {"text": "Bob likes jazz", "topic": "music", "confidence": 0.5}
        )
        assert structured(good)["outcome"] == "admitted"

    session(store, "alice", body)
    assert messages == [
        "Error executing tool remember: The write was rejected by 1 constraint(s): confidence "
        "must be one decimal between 0 and 1 (leave it out for 'not rated'). Fix the listed "
        "fields and write again."
    ]
    with Memory.open(store, scope="alice") as memory:
        assert [r.outcome.value for r in memory.receipts()] == ["rejected", "admitted"]
        assert [f.confidence for f in memory.facts()] == [pytest.approx(0.5)]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"text": "x", "topic": "drinks", "authority": "owner"},
            "Input should be 'agent', 'tool' or 'external'",
            id="owner-authority",
        ),
        pytest.param({"text": "x", "topic": "Bad Topic"}, "not a valid topic name", id="topic"),
        pytest.param({"topic": "drinks"}, "text\n  Field required", id="no-text"),
    ],
)
def test_invalid_arguments_are_tool_errors(
    store: Path, arguments: dict[str, Any], message: str
) -> None:
    """Arguments outside the input schema or the gate's rules are refused before any write."""
    texts: list[str] = []

    async def body(client: Client) -> None:
        texts.append(error_text(await client.call_tool("remember", arguments)))

    session(store, "alice", body)
    assert message in texts[0]
    with Memory.open(store, scope="alice") as memory:
        assert memory.receipts() == []


def test_reads_of_missing_facts_are_tool_errors(store: Path) -> None:
    """history/why of an unknown id: a tool error saying how to list ids; a real id works."""

    async def body(client: Client) -> None:
        missing = error_text(await client.call_tool("history", {"fact": "0123456789abcdef0123"}))
        assert missing == (
            "Error executing tool history: There is no fact '0123456789abcdef0123' in scope "
            "'alice'; list ids with `doxa facts`."
        )
        assert error_text(await client.call_tool("why", {"fact": "nope/../x"})).endswith(
            "ids are like '019ac4f2b0e3a1b2c3d4'."
        )
        receipt = structured(await client.call_tool("remember", {"text": "a", "topic": "t"}))
        assert structured(await client.call_tool("why", {"fact": receipt["fact"]}))

    session(store, "alice", body)


def test_the_scope_binding_holds(store: Path) -> None:
    """A server bound to scope bob cannot see alice's facts; alice's own server can."""
    found: dict[str, list[str]] = {}

    async def write(client: Client) -> None:
        await client.call_tool("remember", {"text": "Alice's door code is 4711", "topic": "home"})

    def reader(scope: str) -> Callable[[Client], Awaitable[None]]:
        async def read(client: Client) -> None:
            recalled = structured(await client.call_tool("recall", {"text": "door code"}))
            listed = structured(await client.call_tool("facts", {}))
            found[scope] = [f["text"] for f in recalled["facts"] + listed["facts"]]

        return read

    session(store, "alice", write)
    session(store, "bob", reader("bob"))
    session(store, "alice", reader("alice"))
    assert found == {"bob": [], "alice": ["Alice's door code is 4711"] * 2}


def test_mcp_command_reports_a_bad_scope() -> None:
    """`doxa mcp` with an invalid scope name exits 2 with doxa's message; nothing is served."""
    result = CliRunner().invoke(main, ["--store", ":memory:", "mcp", "--scope", "Not A Scope"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: 'Not A Scope' is not a valid scope name")


def test_facts_returns_the_newest_up_to_its_limit(store: Path) -> None:
    """An agent's context is small: ``facts`` keeps the newest ``limit`` and counts the rest."""

    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for n in range(5):
            await client.call_tool("remember", {"text": f"Errand number {n}", "topic": "todo"})
        page = structured(await client.call_tool("facts", {"topic": "todo", "limit": 2}))
        jsonschema.validate(page, tools["facts"].output_schema)
        assert [f["text"] for f in page["facts"]] == ["Errand number 3", "Errand number 4"]
        assert page["more"] == 3
        whole = structured(await client.call_tool("facts", {"topic": "todo"}))
        assert len(whole["facts"]) == 5  # control: the default limit holds them all
        assert whole["more"] == 0
        for bad in (0, 1001):
            refused = await client.call_tool("facts", {"limit": bad})
            assert refused.is_error
            assert "out of range" in error_text(refused)

    session(store, "alice", body)
