"""Each owner decision is defined once (doxa.memory.decisions.DECISIONS), and every interface
is held to that one row: the Python API's method, the CLI command, the REST route, the review
page's action, the MCP owner tool and the remote client's method.

A newcomer adds a decision with one row and one method: the last tests build every surface
from a row written here and call it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import click
import httpx
import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient

import doxa
from doxa.interfaces.cli import main
from doxa.interfaces.cli.decide import command
from doxa.interfaces.client import RemoteMemory, RemoteOwner, sent
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.http.rest import add_decision
from doxa.interfaces.http.rest import router as rest_router
from doxa.interfaces.mcp.server import OWNER_TOOLS, add_decision_tool, build_server
from doxa.memory import Owner
from doxa.memory.decisions import DECISIONS, Argument, Decision, Returns, Target
from doxa.store import EmbeddedStore
from doxa.writes import REQUIRED

OWNER_KEY = "owner-key-0123456789abcdef"
AGENT_KEY = "agent-key-0123456789abcdef"
NAMES = [d.name for d in DECISIONS]


def _parameters(decision: Decision[Any, Any]) -> list[inspect.Parameter]:
    """The method's own parameters: self and what only Python takes left out."""
    found = list(inspect.signature(decision.method).parameters.values())[1:]
    return [p for p in found if p.name not in decision.python_only]


@pytest.mark.parametrize("decision", DECISIONS, ids=NAMES)
def test_each_row_is_its_methods_signature(decision: Decision[Any, Any]) -> None:
    """The row names the method's target and keyword arguments with their defaults: the
    Python API (``memory.owner.<name>``) is the row."""
    parameters = _parameters(decision)
    if decision.target is not None:
        first = parameters.pop(0)
        assert first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert [p.name for p in parameters] == [a.name for a in decision.arguments]
    for parameter, argument in zip(parameters, decision.arguments, strict=True):
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
        expected = REQUIRED if parameter.default is inspect.Parameter.empty else parameter.default
        assert argument.default == expected, argument.name
    assert decision.doc, "every decision says what it does"
    assert decision.who is doxa.Authority.OWNER


def test_the_rows_are_the_owners_decisions() -> None:
    """Every public method of Owner that leaves a receipt is a row (control: the reads are
    not), and no two rows share a name, a route or a command."""
    receipts = {
        name
        for name, member in inspect.getmembers(Owner, inspect.isfunction)
        if not name.startswith("_")
        and inspect.signature(member).return_annotation in ("Receipt", "list[Receipt]")
        and name != "erase_many"  # erase's many-target form, for the CLI's `doxa erase A B`
    }
    assert receipts == set(NAMES)
    assert "quarantined" not in NAMES
    assert "alarms" not in NAMES
    assert len({d.rest for d in DECISIONS}) == len({d.cli for d in DECISIONS}) == len(DECISIONS)


# -- every interface has every decision, with the row's arguments --------------------------


def _cli_command(words: tuple[str, ...]) -> click.Command:
    found: click.Command = main
    for word in words:
        assert isinstance(found, click.Group), words
        found = found.commands[word]
    return found


@pytest.mark.parametrize("decision", DECISIONS, ids=NAMES)
def test_the_cli_has_each_decision(decision: Decision[Any, Any]) -> None:
    found = _cli_command(decision.cli)
    arguments = [p for p in found.params if isinstance(p, click.Argument)]
    options = {p.name: p for p in found.params if isinstance(p, click.Option)}
    if decision.target is not None:
        assert len(arguments) == 1 if not decision.cli_by_hand else len(arguments) >= 1
    for argument in decision.arguments:
        assert argument.name in options, (decision.name, argument.name)
        assert options[argument.name].required is (
            argument.required and not decision.cli_by_hand
        ) or (decision.cli_by_hand and argument.name == "reason")


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    app = FastAPI()
    app.include_router(rest_router)
    document: dict[str, Any] = app.openapi()
    return document


def _body_schema(openapi: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    content = operation.get("requestBody", {}).get("content", {})
    if not content:
        return {}
    reference = content["application/json"]["schema"]
    reference = reference.get("$ref") or next(
        s["$ref"] for s in reference.get("anyOf", []) if "$ref" in s
    )
    schema: dict[str, Any] = openapi["components"]["schemas"][reference.rsplit("/", 1)[1]]
    return schema


@pytest.mark.parametrize("decision", DECISIONS, ids=NAMES)
def test_rest_has_each_decision(openapi: dict[str, Any], decision: Decision[Any, Any]) -> None:
    name = decision.target.parameter if decision.target is not None else ""
    path = decision.rest.format("{" + name + "}")
    operation = openapi["paths"][path]["post"]
    assert operation["tags"] == ["owner"]
    body = _body_schema(openapi, operation)
    assert sorted(body.get("properties", {})) == sorted(a.name for a in decision.arguments)
    assert sorted(body.get("required", [])) == sorted(
        a.name for a in decision.arguments if a.required
    )
    parameters = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
    assert parameters == ([name] if decision.target is not None else [])


@pytest.fixture(scope="module")
def owner_tools() -> dict[str, Any]:
    with doxa.Memory.open(None, scope="alice") as memory:
        server = build_server(memory, owner=True, quiet=True)
        return {t.name: t for t in asyncio.run(server.list_tools())}


@pytest.mark.parametrize("decision", DECISIONS, ids=NAMES)
def test_mcp_has_each_decision(owner_tools: dict[str, Any], decision: Decision[Any, Any]) -> None:
    tool = owner_tools[decision.name]
    assert OWNER_TOOLS[decision.name] is False  # it writes
    schema = tool.input_schema
    expected = [a.name for a in decision.arguments]
    required = [a.name for a in decision.arguments if a.required]
    if decision.target is not None:
        expected.insert(0, decision.target.parameter)
        required.insert(0, decision.target.parameter)
    assert list(schema["properties"]) == expected
    assert schema.get("required", []) == required


@pytest.mark.parametrize("decision", DECISIONS, ids=NAMES)
def test_the_remote_client_has_each_decision(decision: Decision[Any, Any]) -> None:
    """RemoteOwner's method is the row's: the same signature as Owner's, sent to the row's
    route (mypy checks each call against Owner's method as well)."""
    remote = getattr(RemoteOwner, decision.name)
    assert inspect.signature(remote) == inspect.signature(decision.method)


def test_the_review_page_posts_each_of_its_decisions() -> None:
    """A row the page offers has its form's route (it asks for the owner's sign-in); the
    control: a row it does not offer has none."""
    config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=OWNER_KEY),))
    store = EmbeddedStore(None)
    try:
        page = TestClient(create_app(store, config, rejudge_every=None))
        for decision in DECISIONS:
            answer = page.post("/review" + decision.rest.format("x"), data={"csrf": "x"})
            assert (answer.status_code == 401) is decision.review, (decision.name, answer)
            if not decision.review:
                assert answer.status_code in (404, 405), decision.name
    finally:
        store.close()
    assert {d.name for d in DECISIONS if d.review} >= {"approve", "reject", "release", "discard"}


# -- the decisions work, and only the owner makes them -------------------------------------


@pytest.fixture
def app() -> Iterator[FastAPI]:
    config = ServerConfig(
        scopes=(ScopeKeys(scope="alice", owner_key=OWNER_KEY, agent_keys=(AGENT_KEY,)),)
    )
    store = EmbeddedStore(None)
    yield create_app(store, config, rejudge_every=None)
    store.close()


def test_an_agent_key_makes_no_decision(app: FastAPI) -> None:
    """Every row's route refuses an agent key (403) and, the control, answers the owner's."""
    agent = TestClient(app, headers={"Authorization": f"Bearer {AGENT_KEY}"})
    owner = TestClient(app, headers={"Authorization": f"Bearer {OWNER_KEY}"})
    for decision in DECISIONS:
        path = decision.rest.format("preference" if decision.target is Target.KIND else "x")
        body = {a.name: "because" for a in decision.arguments if a.required}
        assert agent.post(path, json=body).status_code == 403, decision.name
        answer = owner.post(path, json=body)
        assert answer.status_code in (200, 404), (decision.name, answer.text)
    granted = owner.post("/kinds/preference/grant", json={})
    assert granted.status_code == 200
    assert granted.json()["reason"] == "granted by the owner"  # the row's default


# -- a new decision: one row and one method -------------------------------------------------


class _TrustingOwner(Owner):
    def trust(self, kind: str, *, reason: str = "trusted by the owner") -> doxa.Receipt:
        """Let the judge close facts of ``kind`` on its own, and say so in the receipt."""
        return self.grant(kind, reason=reason)


TRUST = Decision(
    _TrustingOwner.trust,
    Target.KIND,
    (Argument("reason", "Why (kept in the receipt).", default="trusted by the owner"),),
    Returns.RECEIPT,
    rest="/kinds/{}/trust",
    cli=("trust",),
)


def test_a_new_row_gives_a_cli_command() -> None:
    built = command(TRUST)
    assert built.name == "trust"
    assert [p.name for p in built.params] == ["kind", "reason"]
    assert "Let the judge close facts of kind" in (built.help or "")


def test_a_new_row_gives_a_rest_route() -> None:
    router = APIRouter()
    add_decision(router, TRUST)
    app = FastAPI()
    app.include_router(router)
    assert "post" in app.openapi()["paths"]["/kinds/{kind}/trust"]


class _Trusting(doxa.Memory):
    @property
    def owner(self) -> _TrustingOwner:  # type: ignore[override]
        return _TrustingOwner(self)


def test_a_new_row_gives_an_mcp_tool_that_decides() -> None:
    from mcp.server.mcpserver import MCPServer

    with _Trusting.open(None, scope="alice") as memory:
        server = MCPServer("test")
        add_decision_tool(server, memory, TRUST)
        answer = asyncio.run(server.call_tool("trust", {"kind": "preference"}))
        assert memory.owner.closing_earned("preference")
    text = json.dumps(answer, default=str)
    assert "trusted by the owner" in text


def test_a_new_row_gives_a_remote_method() -> None:
    seen: list[tuple[str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, json.loads(request.content)))
        return httpx.Response(404, json={"error": {"type": "NotFound", "message": "no"}})

    class _RemoteTrusting(RemoteOwner):
        trust = sent(TRUST)

    transport = httpx.MockTransport(answer)
    client = RemoteMemory("http://127.0.0.1:8000", OWNER_KEY, transport=transport)
    with client, pytest.raises(doxa.NotFound):
        _RemoteTrusting(client).trust("preference")
    assert seen == [("/kinds/preference/trust", {"reason": "trusted by the owner"})]


# -- attacks on the ids a decision names ------------------------------------------------


@pytest.mark.parametrize(
    "decision", [d for d in DECISIONS if d.target is not None], ids=lambda d: d.name
)
@pytest.mark.parametrize("suffix", ["\n", "\r\n", " ", "\t"])
def test_an_id_with_a_trailing_space_or_newline_is_no_id(
    app: FastAPI, decision: Decision[Any, Any], suffix: str
) -> None:
    """``re.match`` with ``$`` let ``x\\n`` pass as an id and reach the store's IRI parse (a
    500); every decision now answers it as the plain id is answered (the control)."""
    owner = TestClient(
        app, headers={"Authorization": f"Bearer {OWNER_KEY}"}, raise_server_exceptions=False
    )
    body = {a.name: "because" for a in decision.arguments if a.required}
    name = "preference" if decision.target is Target.KIND else "x0123"
    plain = owner.post(decision.rest.format(name), json=body)
    padded = owner.post(decision.rest.format(quote(name + suffix, safe="")), json=body)
    assert padded.status_code < 500, padded.text
    assert padded.status_code in (400, 404), padded.text
    if decision.target is not Target.KIND:  # the control: the plain id is not found either
        assert plain.status_code == 404 if decision.name != "erase" else plain.status_code < 500
        assert padded.json()["error"]["type"] in ("NotFound", "InvalidInput")
    else:  # the control: the plain kind is a kind (granted or revoked)
        assert plain.status_code == 200, plain.text


def test_the_python_api_refuses_a_padded_id_before_the_store() -> None:
    with doxa.Memory.open(None, scope="alice") as memory:
        with pytest.raises(doxa.NotFound, match="There is no held write"):
            memory.owner.approve("x0123\n")
        with pytest.raises(doxa.NotFound, match="There is no fact"):
            memory.owner.retract("x0123\n", reason="because")
        held = memory.remember("Bob lives in Paris", topic="t", authority="owner")
        assert held.admitted  # the control: an id as doxa returns it reaches the store
        assert memory.owner.retract(held.fact or "", reason="because").fact == held.fact
