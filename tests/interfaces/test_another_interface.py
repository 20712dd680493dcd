"""Adding an interface is one module and its tests: a JSON-lines interface, written here.

It reads one request per line (``{"op": "remember", ...}`` or ``{"op": "facts"}``) and answers
one JSON line. Everything it knows about a write, a result's JSON form and an error's code
comes from the pieces every interface shares: :mod:`doxa.writes` (the one definition of a
write, and its one permission rule), :mod:`doxa.interfaces.presentation` and
:mod:`doxa.interfaces.failures`. The one thing it must say is who is on the other end (a
:class:`~doxa.writes.Role`, as a server knows it from the key): it holds no rule of its own,
so it refuses and accepts exactly what the CLI, REST and MCP do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mcp import Client
from mcp.types import TextContent

import doxa
from doxa.interfaces.failures import http_status
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.mcp.server import build_server, check_message
from doxa.interfaces.mcp.transport import tool_arguments
from doxa.interfaces.presentation import plain
from doxa.store import EmbeddedStore
from doxa.vocabulary import DOXA, XSD
from doxa.writes import FIELDS, Role, remember_arguments


def answer(memory: doxa.Memory, line: str, role: Role) -> str:
    """The whole interface: one request line from a caller in ``role``, one answer line out."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict):
            raise doxa.InvalidInput("A request is one JSON object per line.")
        op = request.pop("op", None)
        if op == "remember":
            arguments = remember_arguments(request, role=role, scope=memory.scope)
            result: Any = memory.remember(**arguments)
        elif op == "facts" and not request:
            result = memory.facts()
        else:
            raise doxa.InvalidInput(f"Unknown request {op!r}; use 'remember' or 'facts'.")
    except json.JSONDecodeError:
        return json.dumps({"error": "InvalidInput", "status": 400})
    except doxa.DoxaError as error:
        failed = {"error": type(error).__name__, "status": http_status(error)}
        return json.dumps(failed | {"message": str(error)})
    return json.dumps({"ok": plain(result)})


@pytest.fixture
def memory() -> doxa.Memory:
    return doxa.Memory.open(None, scope="alice")


def test_a_write_and_a_read_through_the_new_interface(memory: doxa.Memory) -> None:
    written = json.loads(
        answer(
            memory,
            json.dumps(
                {
                    "op": "remember",
                    "text": "Bob was born in 1990",
                    "topic": "bob",
                    "subject": "http://example.org/bob",
                    "predicate": "http://example.org/birthYear",
                    "literal": "1990",
                    "datatype": "xsd:gYear",
                }
            ),
            Role.AGENT,
        )
    )
    assert written["ok"]["outcome"] == "admitted"
    facts = json.loads(answer(memory, '{"op": "facts"}', Role.AGENT))["ok"]
    assert [f["object"] for f in facts] == ["1990"]
    assert memory.facts()[0].object == doxa.Literal("1990", datatype=XSD.gYear)


def test_it_refuses_what_every_interface_refuses(memory: doxa.Memory) -> None:
    """No caller can name the owner in another spelling: the parse is the shared one, and
    the owner is refused the same spellings (they are no value, not a permission). Control:
    the same write as the agent is stored."""
    for role in Role:
        for spelling in ("OWNER", "Owner", "\uff4fwner"):
            line = json.dumps({"op": "remember", "text": "t", "topic": "x", "authority": spelling})
            refused = json.loads(answer(memory, line, role))
            assert (refused["error"], refused["status"]) == ("InvalidInput", 400)
            assert "is not a valid authority" in refused["message"]
    line = json.dumps({"op": "remember", "text": "t", "topic": "x"})
    assert json.loads(answer(memory, line, Role.AGENT))["ok"]["outcome"] == "admitted"


def test_bad_requests_get_the_shared_status(memory: doxa.Memory) -> None:
    assert json.loads(answer(memory, "not json", Role.AGENT))["status"] == 400
    assert json.loads(answer(memory, '{"op": "drop"}', Role.AGENT))["status"] == 400
    missing_topic = json.loads(answer(memory, '{"op": "remember", "text": "t"}', Role.AGENT))
    assert missing_topic["status"] == 400
    assert memory.facts() == []  # nothing was written by any of them


def test_the_interface_takes_every_defined_field() -> None:
    """The fields it accepts are the definition's, not a list of its own."""
    names = {f.name for f in FIELDS}
    assert {"text", "topic", "attributed_to", "literal", "datatype", "language"} <= names


# -- the one permission rule: an agent's owner words, refused as REST and MCP refuse them ----

OWNER_KEY = "another-owner-key-0123456789"
AGENT_KEY = "another-agent-key-0123456789"
OWNER_POINT = "urn:doxa:scope:alice/standpoint/owner"
BASE = {"text": "No calls on Sunday", "topic": "calls"}

#: an agent's way to speak as the owner, and the error every interface answers it with: the
#: rule's (Forbidden) for what parses as the owner's, the parse's (InvalidInput) for the rest
OWNER_WORDS: list[tuple[dict[str, Any], str]] = [
    ({"authority": "owner"}, "Forbidden"),
    ({"authority": "https://w3id.org/doxa#Owner"}, "Forbidden"),
    ({"authority": "OWNER"}, "InvalidInput"),
    ({"authority": " owner"}, "InvalidInput"),
    ({"authority": "\u043ewner"}, "InvalidInput"),
    ({"rule": "forbids"}, "Forbidden"),
    ({"rule": "forbids", "authority": "agent"}, "Forbidden"),
    ({"standpoint": OWNER_POINT}, "Forbidden"),
]
IDS = [json.dumps(fields, ensure_ascii=True) for fields, _ in OWNER_WORDS]


@pytest.fixture
def app() -> Iterator[FastAPI]:
    config = ServerConfig(
        scopes=(ScopeKeys(scope="alice", owner_key=OWNER_KEY, agent_keys=(AGENT_KEY,)),)
    )
    store = EmbeddedStore(None)
    yield create_app(store, config, rejudge_every=None)
    store.close()


def rest(app: FastAPI, key: str, body: dict[str, Any]) -> dict[str, Any]:
    """POST /remember with ``key``: the receipt, or the error object."""
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(app, headers=headers, raise_server_exceptions=False) as http:
        sent = http.post("/remember", json=body)
    found: dict[str, Any] = sent.json()
    return found.get("error", found)


def mcp(memory: doxa.Memory, arguments: dict[str, Any]) -> tuple[bool, str]:
    """The MCP ``remember`` tool as ``doxa mcp`` serves it: the transport's check of each
    message (a key the tool does not take is refused by name), then the tool, in-process.
    Whether it failed, and its text."""
    server = build_server(memory)
    tools = anyio.run(server.list_tools)
    takes = tool_arguments(tools)
    params = {"name": "remember", "arguments": arguments}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    refusal = check_message(json.dumps(call).encode(), arguments=takes)
    if refusal is not None:
        return True, str(refusal.message.result["content"][0]["text"])  # type: ignore[union-attr]
    seen: list[tuple[bool, str]] = []

    async def run() -> None:
        async with Client(server) as client:
            result = await client.call_tool("remember", arguments)
            [content] = result.content
            assert isinstance(content, TextContent)
            seen.append((bool(result.is_error), content.text))

    anyio.run(run)
    return seen[0]


def owners_words_in(memory: doxa.Memory) -> list[Any]:
    """Every stored quad that says the owner's authority or sits in the rules graph."""
    return [
        q
        for q in memory.store.quads()
        if (q[1] == DOXA.authority and q[2] == DOXA.Owner) or q[3] == memory.scope.rules
    ]


@pytest.mark.parametrize(("fields", "kind"), OWNER_WORDS, ids=IDS)
def test_an_agents_owner_words_are_refused_as_rest_and_mcp_refuse_them(
    app: FastAPI, memory: doxa.Memory, fields: dict[str, Any], kind: str
) -> None:
    """The JSON-lines interface answers an agent's owner words with REST's error for an
    agent key, type, status and message alike (one parse, one rule, one table); MCP refuses
    each too (its schema already refuses what is not the agent's, the same rule the rest),
    and nothing owner-like is stored by any of them."""
    line = json.dumps({"op": "remember", **BASE, **fields})
    ours = json.loads(answer(memory, line, Role.AGENT))
    theirs = rest(app, AGENT_KEY, BASE | fields)
    assert (ours["error"], ours["status"]) == (kind, 403 if kind == "Forbidden" else 400)
    assert (theirs["type"], theirs["status"], theirs["message"]) == (
        ours["error"],
        ours["status"],
        ours["message"],
    )
    failed, text = mcp(memory, BASE | fields)
    assert failed, text
    if "standpoint" in fields:  # the only owner word the agent's schema lets reach the rule
        assert text.endswith(ours["message"])
    assert owners_words_in(memory) == []
    assert owners_words_in(app.state.memories["alice"]) == []
    assert memory.receipts() == []


#: the owner's words of :data:`OWNER_WORDS` (a rule is the owner's: its authority is owner)
OWNERS_WORDS = [
    {"authority": "owner"},
    {"authority": "https://w3id.org/doxa#Owner"},
    {"authority": "owner", "rule": "forbids"},
    {"authority": "owner", "standpoint": OWNER_POINT},
]


@pytest.mark.parametrize("fields", OWNERS_WORDS, ids=[json.dumps(f) for f in OWNERS_WORDS])
def test_the_owner_role_is_admitted_where_the_agent_is_refused(
    app: FastAPI, memory: doxa.Memory, fields: dict[str, Any]
) -> None:
    """The control: the same owner words from the owner (this interface's owner role, REST's
    owner key) are written, each as the owner's fact or rule."""
    owners = BASE | fields
    ours = json.loads(answer(memory, json.dumps({"op": "remember", **owners}), Role.OWNER))
    theirs = rest(app, OWNER_KEY, owners)
    assert ours["ok"]["outcome"] == theirs["outcome"] == "admitted"
    assert owners_words_in(memory) != []
    assert owners_words_in(app.state.memories["alice"]) != []
