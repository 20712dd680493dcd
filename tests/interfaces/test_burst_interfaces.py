"""A burst of closings over REST and MCP as they are used by default: an agent key or an
agent's MCP session sending no ``turn`` and no ``sources``; the third closing in the window
raises the alarm (tests/gate/test_burst_writer.py has the rest)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mcp import Client
from tests.helpers import DOMAIN, EX

import doxa
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.mcp.server import build_server
from doxa.store import EmbeddedStore

OWNER_KEY = "burst-owner-key-0123456789"
AGENT_KEY = "burst-agent-key-0123456789"


def price(item: str, value: str, start: str) -> dict[str, Any]:
    """A write as an agent sends it by default: no turn, no sources, no authority."""
    return {
        "text": f"{item} costs {value}",
        "topic": "prices",
        "kind": "price",
        "subject": EX + item,
        "predicate": EX + "dayOfWeek",  # functional in the test domain: one value at a time
        "object": EX + value,
        "valid_from": start,
    }


@pytest.fixture
def app() -> Iterator[FastAPI]:
    config = ServerConfig(
        scopes=(ScopeKeys(scope="alice", owner_key=OWNER_KEY, agent_keys=(AGENT_KEY,)),)
    )
    store = EmbeddedStore(None)
    clock = doxa.FixedClock("2026-03-01T09:00:00Z")
    app = create_app(store, config, clock=clock, rejudge_every=None)
    memory = app.state.memories["alice"]
    memory.schema.add_ontology(DOMAIN)
    memory.owner.grant("price")
    yield app
    store.close()


def test_rest_agent_key_burst_raises_the_alarm(app: FastAPI) -> None:
    agent = TestClient(app, headers={"Authorization": f"Bearer {AGENT_KEY}"})
    for item in ("tea", "milk", "bread"):
        first = agent.post("/remember", json=price(item, "Old", "2026-01-01"))
        assert first.json()["outcome"] == "admitted", first.text
    moves = [
        agent.post("/remember", json=price(item, "New", "2026-02-01")).json()
        for item in ("tea", "milk", "bread")
    ]
    # control: the first two closings go in
    assert [(m["relation"], m["outcome"]) for m in moves] == [
        ("replaces", "admitted"),
        ("replaces", "admitted"),
        ("replaces", "held"),
    ]
    assert "by one writer" in moves[2]["reason"]
    owner = TestClient(app, headers={"Authorization": f"Bearer {OWNER_KEY}"})
    [alarm] = owner.get("/alarms").json()
    assert alarm["fact"] == moves[2]["held"]


def test_mcp_agent_session_burst_raises_the_alarm() -> None:
    clock = doxa.FixedClock("2026-03-01T09:00:00Z")
    with doxa.Memory.open(None, scope="alice", clock=clock) as memory:
        memory.schema.add_ontology(DOMAIN)
        memory.owner.grant("price")

        async def body() -> list[dict[str, Any]]:
            async with Client(build_server(memory)) as client:
                for item in ("tea", "milk", "bread"):
                    await client.call_tool("remember", price(item, "Old", "2026-01-01"))
                moves = []
                for item in ("tea", "milk", "bread"):
                    result = await client.call_tool("remember", price(item, "New", "2026-02-01"))
                    assert not result.is_error, result.content
                    assert result.structured_content is not None
                    moves.append(result.structured_content)
                return moves

        moves = anyio.run(body)
        # control: the first two closings go in
        assert [m["outcome"] for m in moves] == ["admitted", "admitted", "held"]
        assert len(memory.owner.alarms()) == 1
