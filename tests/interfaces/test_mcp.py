"""``doxa mcp`` end to end: the SDK's own client talks to ``python -m doxa mcp`` over stdio."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
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
from mcp.client.stdio import StdioServerParameters, get_default_environment
from rdflib import Literal
from rdflib.namespace import XSD
from tests.helpers import error_text, structured

from doxa import Memory
from doxa.interfaces.cli import main
from doxa.interfaces.mcp.server import AGENT_TOOLS

OWNER_VERBS = {"approve", "reject", "retract", "erase", "grant", "revoke", "clear_alarm"}


@asynccontextmanager
async def connect(store: Path, scope: str) -> AsyncIterator[Client]:
    """Spawn ``doxa mcp --path STORE --scope SCOPE`` and connect the SDK's client to it."""
    # the SDK gives the server a minimal environment; keep PYTHONPATH, so the server runs the
    # doxa under test (a source tree) and not whichever doxa is installed
    path = {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "doxa", "mcp", "--path", str(store), "--scope", scope],
        env={**get_default_environment(), **path},
    )
    async with Client(params) as client:
        yield client


def session(store: Path, scope: str, body: Callable[[Client], Awaitable[None]]) -> None:
    """Run ``body`` against a fresh server process, then stop it (stdin closed)."""

    async def run() -> None:
        async with connect(store, scope) as client:
            await body(client)

    anyio.run(run)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store where scopes alice and bob were created (`doxa mcp --scope` refuses others)."""
    path = tmp_path / "memory"
    for scope in ("alice", "bob"):
        with Memory.open(path, scope=scope) as memory:
            memory.admin.create_scope()
    return path


def test_the_tool_table_is_pinned(store: Path) -> None:
    """The agent sees exactly seven tools, reads marked read-only, each with both schemas."""
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
        "vocabulary": True,
        "forget": False,
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


def test_forget_files_a_retraction_request_the_owner_decides(store: Path) -> None:
    """An agent asks to forget a fact: a request waits for the owner and the fact stays live;
    asking again files nothing new; the owner's approval retracts it. Controls: a fact that
    does not exist, and an empty reason, are tool errors that file nothing."""
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        written = structured(
            await client.call_tool("remember", {"text": "Bob's desk is 4B", "topic": "office"})
        )
        fact = written["fact"]
        asked = structured(
            await client.call_tool("forget", {"fact": fact, "reason": "Bob moved to 5C"})
        )
        jsonschema.validate(asked, tools["forget"].output_schema)
        assert asked["requested"] is True
        assert asked["receipt"]["outcome"] == "held"
        assert asked["receipt"]["relation"] == "was_wrong"
        again = structured(await client.call_tool("forget", {"fact": fact, "reason": "again"}))
        assert again["requested"] is False
        assert again["receipt"] is None
        missing = await client.call_tool("forget", {"fact": "nosuchfact", "reason": "x"})
        assert missing.is_error
        empty = await client.call_tool("forget", {"fact": fact, "reason": "  "})
        assert empty.is_error
        seen["fact"], seen["held"] = fact, asked["receipt"]["held"]

    session(store, "alice", body)
    with Memory.open(store, scope="alice") as memory:
        assert [h.id for h in memory.held()] == [seen["held"]]
        assert memory.get(seen["fact"]).status.value == "live"  # nothing ends until approved
        memory.owner.approve(seen["held"])
        assert memory.get(seen["fact"]).status.value == "retracted"


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
            "argument 'authority': 'owner' is not one of 'agent', 'tool', 'external'",
            id="owner-authority",
        ),
        pytest.param({"text": "x", "topic": "Bad Topic"}, "not a valid topic name", id="topic"),
        pytest.param({"topic": "drinks"}, "'text' is a required property", id="no-text"),
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
            "'alice'; list ids with the `facts` tool."
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


# -- enum arguments (issue 14, finding 2) ----------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(
            {"authority": "OWNER"}, "'OWNER' is not one of 'agent', 'tool', 'external'", id="name"
        ),
        pytest.param(
            {"authority": "Agent"}, "'Agent' is not one of 'agent', 'tool', 'external'", id="case"
        ),
        pytest.param(
            {"authority": "\u0430gent"},
            "'\u0430gent' is not one of 'agent', 'tool', 'external'",
            id="cyrillic",
        ),
        pytest.param({"support": "STATED"}, "'STATED' is not one of 'stated'", id="support-name"),
        pytest.param(
            {"standpoint": "urn:doxa:scope:alice/standpoint/owner"},
            "Only the owner may write in the owner's standpoint; leave out 'standpoint'",
            id="owner-standpoint",
        ),
    ],
)
def test_an_agent_cannot_write_as_the_owner_over_mcp(
    store: Path, arguments: dict[str, Any], message: str
) -> None:
    """Every other spelling of an enum argument, a rule, or the owner's standpoint is a tool
    error and writes nothing; the exact value ``agent`` is written (control)."""
    texts: list[str] = []

    async def body(client: Client) -> None:
        call = {"text": "Calls are on Monday", "topic": "calls"} | arguments
        texts.append(error_text(await client.call_tool("remember", call)))
        good = {"text": "Calls are on Monday", "topic": "calls", "authority": "agent"}
        texts.append(structured(await client.call_tool("remember", good))["outcome"])

    session(store, "alice", body)
    assert message in texts[0]
    assert texts[1] == "admitted"
    with Memory.open(store, scope="alice") as memory:
        assert [f.authority.value for f in memory.facts()] == ["agent"]
        assert [r.outcome.value for r in memory.receipts()] == ["admitted"]


# -- messages the server will not read (issue 14, finding 11) --------------------------------


class RawSession:
    """``doxa mcp`` driven line by line, for messages the SDK's client would never send."""

    def __init__(self, store: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "doxa", "mcp", "--path", str(store), "--scope", "alice"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        assert self.receive()["id"] == 0
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def receive(self, timeout: float = 30) -> dict[str, Any]:
        assert self.process.stdout is not None
        # a selector, not select(): a long test run may hold descriptors past 1024
        with selectors.DefaultSelector() as waiting:
            waiting.register(self.process.stdout, selectors.EVENT_READ)
            assert waiting.select(timeout), "no reply within the timeout"
        reply: dict[str, Any] = json.loads(self.process.stdout.readline())
        return reply

    def close(self) -> None:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)
        self.process.stdout.close()


def _deep(levels: int) -> bytes:
    arguments = b'{"text": ' + b"[" * levels + b"]" * levels + b', "topic": "t"}'
    return (
        b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "remember", '
        b'"arguments": ' + arguments + b"}}"
    )


@pytest.mark.parametrize(
    ("line", "code", "message"),
    [
        pytest.param(
            _deep(100_000),
            -32700,
            "Parse error: The JSON nests arrays or objects more than 64 levels deep; send a "
            "flat document.",
            id="deep-100000",
        ),
        pytest.param(
            _deep(150),
            -32700,
            "Parse error: The JSON nests arrays or objects more than 64 levels deep; send a "
            "flat document.",
            id="deep-150",
        ),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 7, "method": "x"' + b" " * 1_100_000 + b"}",
            -32600,
            "The message is larger than this server's limit of 1048576 bytes; send less per "
            "request.",
            id="over-1-MiB",
        ),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 7,',
            -32700,
            "Parse error: The body is not valid JSON (Expecting property name enclosed in "
            "double quotes at line 1, column 28); send one JSON document.",
            id="not-json",
        ),
        pytest.param(
            b'{"jsonrpc": "2.0", "id": 7, "id": 8, "method": "tools/list"}',
            -32700,
            "Parse error: The JSON repeats the key 'id'; send each key once.",
            id="repeated-key",
        ),
        pytest.param(
            b'{"hello": "world"}',
            -32600,
            "Invalid Request: this is not a JSON-RPC 2.0 message; send a request such as "
            '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}.',
            id="not-json-rpc",
        ),
    ],
)
def test_an_unreadable_message_gets_an_error_and_the_session_goes_on(
    store: Path, line: bytes, code: int, message: str
) -> None:
    """A message nested too deep, too long, or not JSON-RPC is answered with a JSON-RPC error
    (id null: it could not be read); the next tool call in the same session works (control)."""
    raw = RawSession(store)
    try:
        raw.send(line)
        assert raw.receive() == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": code, "message": message},
        }
        raw.send(
            {
                "jsonrpc": "2.0",
                "id": 8,
                "method": "tools/call",
                "params": {"name": "remember", "arguments": {"text": "still here", "topic": "t"}},
            }
        )
        reply = raw.receive()
        assert reply["id"] == 8
        assert reply["result"]["structuredContent"]["outcome"] == "admitted"
    finally:
        raw.close()


TAKES = (
    "attributed_to, authority, confidence, correction, datatype, derived_from, kind, "
    "language, literal, object, predicate, query, revises, sources, standpoint, subject, "
    "support, text, topic, turn, valid_from, valid_until"
)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        pytest.param(
            {"text": "No calls on Sunday", "topic": "calls", "rule": "forbids"}, "'rule'", id="rule"
        ),
        pytest.param(
            {"text": "No calls on Sunday", "topic": "calls", "Authority": "owner"},
            "'Authority'",
            id="other-case-name",
        ),
        pytest.param(
            {"text": "No calls on Sunday", "topic": "calls", "scope": "bob"}, "'scope'", id="scope"
        ),
    ],
)
def test_an_argument_the_tool_does_not_take_is_refused(
    store: Path, arguments: dict[str, Any], named: str
) -> None:
    """A rule (or any argument) smuggled into ``remember`` is refused by name instead of
    being dropped: a tool result with isError (MCP 2025-11-25, SEP-1303: the model reads it
    and can call again), with the request's id, not a JSON-RPC error the model never sees;
    the same call without it is written (control)."""
    raw = RawSession(store)
    try:
        call = {"name": "remember", "arguments": arguments}
        raw.send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": call})
        reply = raw.receive()
        assert (reply["id"], reply["result"]["isError"]) == (5, True)
        assert reply["result"]["content"] == [
            {
                "type": "text",
                "text": f"Tool 'remember' takes no argument {named}; call it again with only "
                f"the arguments it takes: {TAKES}.",
            }
        ]
        known = {k: v for k, v in arguments.items() if k in ("text", "topic")}
        call = {"name": "remember", "arguments": known}
        raw.send({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": call})
        assert raw.receive()["result"]["structuredContent"]["outcome"] == "admitted"
    finally:
        raw.close()
    with Memory.open(store, scope="alice") as memory:
        assert [(f.is_rule, f.authority.value) for f in memory.facts()] == [(False, "agent")]


def test_an_agent_writes_a_typed_literal_and_who_said_it(store: Path) -> None:
    """MCP takes the whole write an agent may give: an xsd:gYear literal, a language tag and
    attributed_to are stored as given; a datatype without a literal is a tool error that
    writes nothing (control)."""
    texts: list[str] = []
    ex = "http://example.org/"

    async def body(client: Client) -> None:
        year = {
            "text": "Bob was born in 1971",
            "topic": "bio",
            "subject": f"{ex}bob",
            "predicate": f"{ex}birthYear",
            "literal": "1971",
            "datatype": "xsd:gYear",
            "attributed_to": f"{ex}alice",
        }
        assert structured(await client.call_tool("remember", year))["outcome"] == "admitted"
        day = {
            "text": "Bob's day off is Mittwoch",
            "topic": "bio",
            "subject": f"{ex}bob",
            "predicate": f"{ex}dayOff",
            "literal": "Mittwoch",
            "language": "de",
        }
        assert structured(await client.call_tool("remember", day))["outcome"] == "admitted"
        alone = {"text": "x", "topic": "bio", "datatype": "xsd:gYear"}
        texts.append(error_text(await client.call_tool("remember", alone)))

    session(store, "alice", body)
    assert texts == ["Error executing tool remember: 'datatype' types a 'literal'; add 'literal'."]
    with Memory.open(store, scope="alice") as memory:
        objects = {f.text: f.object for f in memory.facts()}
        [born] = [f for f in memory.facts() if f.text.startswith("Bob was born")]
        attributed = memory.why(born.id).attributed_to
    assert objects == {
        "Bob was born in 1971": Literal("1971", datatype=XSD.gYear),
        "Bob's day off is Mittwoch": Literal("Mittwoch", lang="de"),
    }
    assert str(attributed) == f"{ex}alice"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("remember", {"text": 5, "topic": "t"}),
        ("remember", {"text": "x", "topic": ["t"]}),
        ("remember", {"text": "x", "topic": "t", "sources": "a"}),
        ("recall", {"text": None}),
        ("facts", {"limit": "two"}),
        ("why", {}),
        ("forget", {"fact": 5, "reason": "x"}),
    ],
)
def test_a_wrong_argument_is_told_in_doxas_words(
    store: Path, tool: str, arguments: dict[str, Any]
) -> None:
    """An argument of the wrong type, or a missing one, is a tool error the model reads, in
    the schema's words: never pydantic's text with its documentation link."""
    texts: list[str] = []

    async def body(client: Client) -> None:
        texts.append(error_text(await client.call_tool(tool, arguments)))
        good = await client.call_tool("remember", {"text": "x", "topic": "t"})  # the control
        texts.append(structured(good)["outcome"])

    session(store, "alice", body)
    assert texts[0].startswith(f"Tool {tool!r} cannot take these arguments: "), texts[0]
    assert "pydantic" not in texts[0]
    assert texts[1] == "admitted"
