"""MCP over HTTP: a real ``doxa serve`` answers the SDK's Streamable HTTP client at /mcp.

The key decides everything, exactly as for REST: which scope the tools act on, and which
table they come from (an agent's key: the agent's tools; the owner's: those and the owner's
decisions on held writes). Every refusal has a control beside it that passes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client
from mcp.types import CallToolResult, TextContent
from tests.helpers import EX, error_text, structured
from tests.interfaces.conftest import (
    AGENT,
    BOB,
    OWNER,
    Server,
    config_text,
    start_server,
    stop_server,
)

from doxa.interfaces.answers import ANSWER_VALUES
from doxa.interfaces.cli.serving import MCP_PATH, mcp_mounts
from doxa.interfaces.mcp.server import AGENT_TOOLS, OWNER_TOOLS

#: a JSON-RPC request the endpoint accepts without a session (stateless)
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
#: what the Streamable HTTP transport asks a POST to accept
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("mcp-http"), config_text())
    yield running
    stop_server(running)


def with_client(server: Server, key: str, body: Callable[[Client], Awaitable[Any]]) -> Any:
    """Run ``body`` with the SDK's Streamable HTTP client, sending ``key`` as REST takes it."""

    async def run() -> Any:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
        async with http, Client(streamable_http_client(f"{server.url}/mcp", http_client=http)) as c:
            return await body(c)

    return anyio.run(run)


def tool_names(server: Server, key: str) -> set[str]:
    async def names(client: Client) -> set[str]:
        return {tool.name for tool in (await client.list_tools()).tools}

    result: set[str] = with_client(server, key, names)
    return result


def call(server: Server, key: str, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    async def once(client: Client) -> CallToolResult:
        return await client.call_tool(tool, arguments)

    result: CallToolResult = with_client(server, key, once)
    return result


def raw_post(server: Server, body: bytes, headers: dict[str, Any], path: str = "/mcp") -> Any:
    return httpx.post(f"{server.url}{path}", content=body, headers={**ACCEPT, **headers})


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# -- the tool tables ------------------------------------------------------------------


def test_an_agent_key_lists_the_agents_tools_only(server: Server) -> None:
    assert tool_names(server, AGENT) == set(AGENT_TOOLS)


def test_the_owner_key_lists_the_owners_tools_too(server: Server) -> None:
    """Control for the test above: the owner's table is the agent's plus the decisions."""
    assert tool_names(server, OWNER) == set(AGENT_TOOLS) | set(OWNER_TOOLS)


def supplier(day: str) -> dict[str, Any]:
    return {
        "text": f"The supplier call is on {day}",
        "topic": "meetings",
        "subject": f"{EX}supplierCall",
        "predicate": f"{EX}dayOfWeek",
        "object": f"{EX}{day}",
    }


def test_an_agent_key_cannot_call_an_owner_tool(server: Server) -> None:
    """``approve`` by name with the agent's key is an unknown tool: the held write stays
    held; the owner's key approves the same write (control)."""
    structured(call(server, AGENT, "remember", supplier("Monday")))
    second = structured(call(server, AGENT, "remember", supplier("Tuesday")))
    assert second["outcome"] == "held", second
    refused = call(server, AGENT, "approve", {"held": second["held"]})
    assert refused.is_error
    assert "approve" in error_text(refused)
    assert second["held"] in {h["id"] for h in structured(call(server, OWNER, "held", {}))["held"]}
    approved = structured(call(server, OWNER, "approve", {"held": second["held"]}))
    assert approved["outcome"] == "approved"
    assert structured(call(server, OWNER, "held", {}))["held"] == []


def second_value_on(server: Server, predicate: str) -> tuple[str, str]:
    """Two values of a predicate no ontology describes, for one subject (the agent writes):
    the first fact's id and the held id of the second, which asks "replace or add?"."""

    def liking(value: str) -> dict[str, Any]:
        return {
            "text": f"Bob {predicate} {value}",
            "topic": "tastes",
            "subject": f"{EX}bob",
            "predicate": f"{EX}{predicate}",
            "object": value,
        }

    first = structured(call(server, AGENT, "remember", liking("tea")))
    second = structured(call(server, AGENT, "remember", liking("coffee")))
    assert (second["outcome"], second["relation"]) == ("held", "unclear"), second
    return first["fact"], second["held"]


def fact_status(server: Server, fact_id: str) -> str:
    with server.client(OWNER) as rest:
        found = rest.get(f"/facts/{fact_id}")
    assert found.status_code == 200, found.text
    status: str = found.json()["status"]
    return status


def test_approve_takes_the_owners_answer(server: Server) -> None:
    """``approve`` with ``as_relation="replaces"`` answers "replace or add?": the old value
    ends (superseded) and the answer is learned; a value that is no relation is a tool error
    naming the allowed values, and the write stays held (before the control approves it)."""
    old, held = second_value_on(server, "drinks")
    refused = call(server, OWNER, "approve", {"held": held, "as_relation": "REPLACES"})
    text = error_text(refused)
    assert "argument 'as_relation': 'REPLACES' is not one of" in text
    assert "replaces" in text
    assert "was_wrong" in text
    assert held in {h["id"] for h in structured(call(server, OWNER, "held", {}))["held"]}
    assert fact_status(server, old) == "live"

    approved = structured(call(server, OWNER, "approve", {"held": held, "as_relation": "replaces"}))
    assert (approved["outcome"], approved["relation"]) == ("approved", "replaces"), approved
    assert approved["targets"] == [old]
    assert "learned" in approved["reason"]
    assert fact_status(server, old) == "superseded"
    assert fact_status(server, held) == "live"


def test_approve_without_an_answer_is_refused_and_changes_nothing(server: Server) -> None:
    """Without ``as_relation`` the question is not answered: admitted as judged it would
    leave both values live and teach nothing, so the tool's answer is an error naming
    ``as_relation``, and the write still waits (the old value alone live). Control: with
    ``as_relation: new`` both values stay live, as the owner said."""
    old, held = second_value_on(server, "eats")
    refused = call(server, OWNER, "approve", {"held": held})
    assert "as_relation" in error_text(refused)
    assert held in {h["id"] for h in structured(call(server, OWNER, "held", {}))["held"]}
    assert fact_status(server, old) == "live"
    approved = structured(call(server, OWNER, "approve", {"held": held, "as_relation": "new"}))
    assert (approved["outcome"], approved["relation"]) == ("approved", "new"), approved
    assert fact_status(server, old) == fact_status(server, held) == "live"


def test_approve_lists_the_answers_rest_takes(server: Server) -> None:
    """The tool's ``as_relation`` offers exactly the values REST's body offers."""

    async def schemas(client: Client) -> dict[str, Any]:
        return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    approve = with_client(server, OWNER, schemas)["approve"]
    offered = approve["properties"]["as_relation"]
    assert offered["enum"] == [*ANSWER_VALUES, None]
    assert approve["required"] == ["held"]
    with server.client(OWNER) as rest:
        body = rest.get("/openapi.json").json()["components"]["schemas"]["ApproveBody"]
    assert body["properties"]["as_relation"]["enum"] == offered["enum"]


# -- the same memory as REST ----------------------------------------------------------


def test_remember_recall_and_facts_agree_with_rest(server: Server) -> None:
    """A write through MCP is the fact REST reads for the same scope, and MCP's reads list
    what REST's list (the control is REST itself)."""
    written = structured(
        call(server, AGENT, "remember", {"text": "Lunch is at noon", "topic": "food"})
    )
    assert written["outcome"] == "admitted"
    with server.client(AGENT) as rest:
        fact = rest.get(f"/facts/{written['fact']}").json()
        assert fact["text"] == "Lunch is at noon"
        recalled_rest = [f["id"] for f in rest.get("/recall", params={"q": "lunch"}).json()]
        facts_rest = [f["id"] for f in rest.get("/facts", params={"topic": "food"}).json()]
    recalled = structured(call(server, AGENT, "recall", {"text": "lunch"}))["facts"]
    assert [f["id"] for f in recalled] == recalled_rest
    listed = structured(call(server, AGENT, "facts", {"topic": "food"}))["facts"]
    assert [f["id"] for f in listed] == facts_rest == [written["fact"]]


def test_another_scopes_key_sees_another_scope(server: Server) -> None:
    """Bob's key reaches bob's memory only: alice's fact is not there, by search or by id;
    alice's key finds it (control)."""
    written = structured(call(server, OWNER, "remember", {"text": "Tea at four", "topic": "tea"}))
    assert structured(call(server, BOB, "recall", {"text": "tea"}))["facts"] == []
    missing = call(server, BOB, "why", {"fact": written["fact"]})
    assert "no fact" in error_text(missing).lower()
    assert structured(call(server, OWNER, "why", {"fact": written["fact"]}))["fact"]["text"]


def test_a_doxa_error_is_a_tool_error(server: Server) -> None:
    """A write the gate refuses (no topic) comes back as a tool error with doxa's message;
    the same write with a topic is admitted (control)."""
    refused = call(server, AGENT, "remember", {"text": "No topic here", "topic": ""})
    assert "topic" in error_text(refused).lower()
    assert structured(call(server, AGENT, "remember", {"text": "A topic", "topic": "misc"}))["fact"]


def test_an_agent_cannot_write_as_the_owner_over_http(server: Server) -> None:
    refused = call(server, AGENT, "remember", {"text": "x", "topic": "t", "authority": "OWNER"})
    assert refused.is_error
    ok = call(server, AGENT, "remember", {"text": "x", "topic": "t", "authority": "tool"})
    assert structured(ok)["outcome"] in {"admitted", "merged"}


def test_the_owner_key_writes_as_an_agent_over_mcp(server: Server) -> None:
    """MCP's ``remember`` is the agent's tool whoever calls it (the owner's words come through
    the owner's interfaces): with the owner's key the owner's standpoint and authority are
    refused there too, by the one rule (``Role.AGENT``). Control: REST with the same key
    writes them."""
    point = "urn:doxa:scope:alice/standpoint/owner"
    base = {"text": "Owner-key MCP writes stay the agent's", "topic": "mcpowner"}
    refused = call(server, OWNER, "remember", base | {"standpoint": point})
    assert refused.is_error
    [content] = refused.content
    assert isinstance(content, TextContent)
    assert "Only the owner may write in the owner's standpoint" in content.text
    assert call(server, OWNER, "remember", base | {"authority": "owner"}).is_error
    with server.client(OWNER) as rest:
        written = rest.post("/remember", json=base | {"authority": "owner", "standpoint": point})
    assert written.status_code == 200, written.text
    assert written.json()["outcome"] == "admitted"


# -- the key, attacked ------------------------------------------------------------------


def test_the_control_request_passes(server: Server) -> None:
    """Control for the refusals below: a well-formed request with the key is answered."""
    answer = raw_post(server, json.dumps(LIST).encode(), bearer(AGENT))
    assert answer.status_code == 200, answer.text
    assert {t["name"] for t in answer.json()["result"]["tools"]} == set(AGENT_TOOLS)


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no key"),
        pytest.param(bearer("not-a-key-of-this-server-000"), id="unknown key"),
        pytest.param(bearer(AGENT.upper()), id="another case"),
        pytest.param(bearer(AGENT[:8] + " " + AGENT[8:]), id="a space inside"),
        pytest.param({"Authorization": AGENT}, id="no scheme"),
        pytest.param({"Authorization": f"Basic {AGENT}"}, id="another scheme"),
        pytest.param(
            {"Authorization": f"B\u0435arer {AGENT}".encode()},  # a Cyrillic e, sent as UTF-8
            id="a look-alike scheme",
        ),
        pytest.param(bearer(f"{AGENT} {OWNER}"), id="two keys in one header"),
    ],
)
def test_a_request_without_a_known_key_is_refused(server: Server, headers: dict[str, Any]) -> None:
    answer = raw_post(server, json.dumps(LIST).encode(), headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    error = answer.json()["error"]
    assert error["type"] == "Unauthorized"
    assert error["status"] == 401
    assert "key" in error["message"]


def test_spaces_around_the_key_are_read_as_rest_reads_them(server: Server) -> None:
    """The one header parser REST uses: the scheme in any case, spaces before the key."""
    spaced = {"Authorization": f"bEaReR   {AGENT}"}
    answer = raw_post(server, json.dumps(LIST).encode(), spaced)
    assert answer.status_code == 200, answer.text
    with server.client(None) as rest:
        assert rest.get("/held", headers=spaced).is_success


def test_two_authorization_headers_are_refused(server: Server) -> None:
    headers = [*ACCEPT.items(), ("Authorization", f"Bearer {AGENT}")]
    one = httpx.post(f"{server.url}/mcp", content=json.dumps(LIST), headers=headers)
    assert one.status_code == 200  # control
    two = [*headers, ("Authorization", f"Bearer {OWNER}")]
    answer = httpx.post(f"{server.url}/mcp", content=json.dumps(LIST), headers=two)
    assert answer.status_code == 401
    assert "one Authorization header" in answer.json()["error"]["message"]


@pytest.mark.parametrize("second", [OWNER, AGENT, "not-a-key"], ids=["owner", "same", "unknown"])
@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/held"), ("GET", "/facts"), ("POST", "/sparql")]
)
def test_rest_refuses_two_authorization_headers_as_mcp_does(
    server: Server, second: str, method: str, path: str
) -> None:
    """REST and SPARQL read the key with MCP's parse: two Authorization headers are 401
    (whichever comes first), never the first one's caller; one header answers (control)."""
    sparql = path == "/sparql"
    content = b"ASK {}" if sparql else None
    kind = [("content-type", "application/sparql-query")] if sparql else []
    one = [("Authorization", f"Bearer {AGENT}"), *kind]
    with httpx.Client(base_url=server.url) as client:
        fine = client.request(method, path, headers=one, content=content)
        assert fine.status_code == 200, fine.text
        two = [*one, ("Authorization", f"Bearer {second}")]
        answer = client.request(method, path, headers=two, content=content)
    assert answer.status_code == 401, answer.text
    assert answer.headers["www-authenticate"] == "Bearer"
    assert "one Authorization header" in answer.json()["error"]["message"]


@pytest.mark.parametrize("query", ["key=" + AGENT, "api_key=" + OWNER, "x=1"])
def test_a_query_string_is_refused(server: Server, query: str) -> None:
    """A key in the URL would land in logs: refused even beside a good header."""
    answer = raw_post(server, json.dumps(LIST).encode(), bearer(AGENT), path=f"/mcp?{query}")
    assert answer.status_code == 400
    assert "Authorization: Bearer" in answer.json()["error"]["message"]


def test_a_key_in_the_query_string_alone_is_not_a_key(server: Server) -> None:
    answer = httpx.post(f"{server.url}/mcp?key={AGENT}", content=json.dumps(LIST), headers=ACCEPT)
    assert answer.status_code in {400, 401}
    assert "result" not in answer.json()


# -- the body, attacked -----------------------------------------------------------------


def test_an_oversized_body_gets_the_rest_limit(server: Server) -> None:
    """The server's max_body_bytes (64 KiB here) applies to /mcp as to REST: 413 with
    doxa's error document; a body under it is served (control above)."""
    call_ = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": {"text": "x" * 70_000, "topic": "t"}},
    }
    answer = raw_post(server, json.dumps(call_).encode(), bearer(AGENT))
    assert answer.status_code == 413
    assert answer.json()["error"]["type"] == "PayloadTooLarge"


def test_a_batch_is_refused(server: Server) -> None:
    """The MCP revisions since 2025-06-18 have no JSON-RPC batches: an array is refused
    with a JSON-RPC error, no tool runs."""
    batch = [LIST, {**LIST, "id": 2}]
    answer = raw_post(server, json.dumps(batch).encode(), bearer(AGENT))
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].startswith("Invalid Request")


def test_a_repeated_key_and_an_unknown_argument_are_refused(server: Server) -> None:
    """Checked as stdio checks a line: a JSON object repeating a key, and an argument the
    tool does not take (``rule`` on remember would be dropped by the SDK), never reach the
    tool; the same call without them is answered (control)."""
    twice = b'{"jsonrpc": "2.0", "id": 3, "id": 4, "method": "tools/list"}'
    assert raw_post(server, twice, bearer(AGENT)).status_code == 400
    arguments = {"text": "Rule?", "topic": "rules", "rule": "requires"}
    smuggled = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": arguments},
    }
    answer = raw_post(server, json.dumps(smuggled).encode(), bearer(AGENT))
    # a tool's answer the model reads (isError), not a failed POST (MCP 2025-11-25)
    assert answer.status_code == 200
    assert answer.json()["id"] == 5
    assert answer.json()["result"]["isError"] is True
    assert "'rule'" in answer.json()["result"]["content"][0]["text"]
    sdk = call(server, AGENT, "remember", arguments)
    assert sdk.is_error
    assert "takes no argument 'rule'" in error_text(sdk)
    del arguments["rule"]
    assert raw_post(server, json.dumps(smuggled).encode(), bearer(AGENT)).status_code == 200


def test_rest_still_answers_beside_mcp(server: Server) -> None:
    with server.client(AGENT) as rest:
        assert rest.get("/health").json()["status"] == "ok"
        assert rest.post("/mcp/other", json=LIST).status_code == 404


@pytest.mark.parametrize("key", [AGENT, OWNER])
def test_two_threads_at_once_each_get_their_own_table(server: Server, key: str) -> None:
    """Concurrent requests with different keys never cross: each sees its own table."""
    results: dict[str, set[str]] = {}

    async def both() -> None:
        async def one(name: str, k: str) -> None:
            async with httpx.AsyncClient() as client:
                answer = await client.post(
                    f"{server.url}/mcp", content=json.dumps(LIST), headers={**ACCEPT, **bearer(k)}
                )
            results[name] = {t["name"] for t in answer.json()["result"]["tools"]}

        async with anyio.create_task_group() as group:
            for i in range(4):
                group.start_soon(one, f"agent{i}", AGENT)
                group.start_soon(one, f"owner{i}", OWNER)

    anyio.run(both)
    assert key  # both parametrisations run the same mix
    for name, names in results.items():
        expected = set(AGENT_TOOLS) | (set(OWNER_TOOLS) if name.startswith("owner") else set())
        assert names == expected


def test_serve_runs_without_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the MCP SDK, ``doxa serve`` mounts nothing (REST still runs); with it, the
    tools are at /mcp (control)."""
    assert set(mcp_mounts()) == {MCP_PATH} == {"/mcp"}
    monkeypatch.setitem(sys.modules, "doxa.interfaces.mcp.server", None)
    assert mcp_mounts() == {}


@pytest.mark.parametrize("sdk", [True, False])
def test_serves_banner_names_mcp_only_where_it_is_served(
    monkeypatch: pytest.MonkeyPatch, sdk: bool
) -> None:
    """Found by running scripts/start on a fresh clone: without the SDK the banner still
    listed /mcp beside the log's "no MCP". The banner now says what is served."""
    import uvicorn
    from click.testing import CliRunner

    from doxa.interfaces.cli import main

    served: list[object] = []

    def run(self: uvicorn.Server, sockets: list[object] | None = None) -> None:
        served.append(self.config.app)  # instead of serving until stopped
        self.started = True

    monkeypatch.setattr(uvicorn.Server, "run", run)
    if not sdk:
        monkeypatch.setitem(sys.modules, "doxa.interfaces.mcp.server", None)
    # port 0: the socket bound before the banner is any free port, never another's
    result = CliRunner().invoke(
        main, ["--store", ":memory:", "--scope", "s", "serve", "--port", "0"]
    )
    assert result.exit_code == 0, result.output
    assert served  # the server would have run
    assert ("MCP (Streamable HTTP)" in result.output) is sdk
    assert ("no MCP: pip install 'doxa[mcp]'" in result.output) is not sdk


@pytest.mark.parametrize(
    "id", [{"a": 1}, [1], 1.5, True, None], ids=["object", "array", "fraction", "bool", "null"]
)
def test_a_request_whose_id_is_no_id_is_invalid(server: Server, id: object) -> None:
    """A request whose id is an object, array, fraction, boolean or null is -32600 (400), not
    taken for a notification (202, no answer); the same request with id 1 answers (control)."""
    request = LIST | {"id": id}
    answer = raw_post(server, json.dumps(request).encode(), bearer(AGENT))
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == -32600
    assert "id is a string or an integer" in answer.json()["error"]["message"]
    control = raw_post(server, json.dumps(LIST).encode(), bearer(AGENT))
    assert control.status_code == 200
    assert control.json()["id"] == 1


def test_a_notification_without_an_id_is_still_accepted(server: Server) -> None:
    """A notification has no id at all: it is read as one (202), as the protocol says."""
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert raw_post(server, json.dumps(note).encode(), bearer(AGENT)).status_code == 202


@pytest.mark.parametrize("key", [AGENT, OWNER])
def test_get_opens_no_event_stream(server: Server, key: str) -> None:
    """GET /mcp is 405 with ``Allow: POST`` at once (the endpoint is stateless and offers no
    SSE stream, which the SDK's GET would hold open forever); POST answers (control)."""
    headers = {"Accept": "text/event-stream", **bearer(key)}
    answer = httpx.get(f"{server.url}/mcp", headers=headers, timeout=5)
    assert answer.status_code == 405, answer.text
    assert answer.headers["allow"] == "POST"
    assert answer.json()["error"]["type"] == "MethodNotAllowed"
    assert raw_post(server, json.dumps(LIST).encode(), bearer(key)).status_code == 200


# -- Host and Origin (DNS rebinding) ------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "evil.example"},
        {"Host": "evil.example:8765"},
        {"Host": "localhost.evil.example"},
        {"Host": "l\u043ecalhost".encode()},  # a Cyrillic o, sent as UTF-8
        {"Host": "localhost."},
        {"Host": "user@localhost"},
        {"Origin": "http://evil.example"},
        {"Origin": "http://127.0.0.1.evil.example"},
        {"Origin": "null"},
        {"Origin": "file://"},
        {"Origin": "http://user@127.0.0.1"},
        {"Origin": "HTTP://EVIL.example"},
    ],
    ids=[
        "other-host",
        "other-host-port",
        "suffix",
        "look-alike",
        "trailing-dot",
        "user-part",
        "other-origin",
        "glued-origin",
        "null-origin",
        "file-origin",
        "user-origin",
        "upper-case-origin",
    ],
)
def test_a_foreign_host_or_origin_is_refused(server: Server, headers: dict[str, Any]) -> None:
    """A server on a loopback address answers /mcp only for its loopback names, and only
    to pages of those hosts (the MCP transport: servers MUST validate Origin, 403), even
    with a good key; the same request with the loopback name and origin is answered."""
    body = json.dumps(LIST).encode()
    answer = raw_post(server, body, {**bearer(AGENT), **headers})
    assert answer.status_code == 403, answer.text
    assert answer.json()["error"]["type"] == "Forbidden"
    port = server.url.rsplit(":", 1)[1]
    for good in (
        {},
        {"Host": f"localhost:{port}"},
        {"Origin": f"http://localhost:{port}"},
        {"Origin": f"http://127.0.0.1:{port}"},
        {"Origin": f"HTTP://LOCALHOST:{port}"},
    ):
        assert raw_post(server, body, {**bearer(AGENT), **good}).status_code == 200, good
