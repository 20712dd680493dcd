"""The scope's vocabulary through every interface: ``doxa vocabulary``, ``GET /vocabulary``
and the MCP ``vocabulary`` tool answer what ``Memory.vocabulary`` answers; a bad limit is a
clear error beside a good one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from tests.helpers import error_text, structured
from tests.interfaces.cli.test_cli import run, run_json
from tests.interfaces.test_mcp import session

import doxa

from .conftest import AGENT, Server, config_text


def seed(path: Path) -> None:
    with doxa.Memory.open(path, scope="alice") as mem:
        for who in ("Bob", "Ann"):
            mem.remember(
                f"{who}'s meeting day is Monday",
                topic="meetings",
                subject=who,
                predicate="meeting day",
                object="Monday",
                authority="owner",
            )
        mem.remember(
            "Bob's phone is 555", topic="contacts", subject="Bob", predicate="phone", object="555"
        )


def test_memory_vocabulary_lists_most_used_first(tmp_path: Path) -> None:
    """Predicates and entities come most used first; a search keeps only matching names."""
    seed(tmp_path / "s")
    with doxa.Memory.open(tmp_path / "s", scope="alice") as mem:
        found = mem.vocabulary()
        assert [(p.label, p.uses, p.values) for p in found.predicates] == [
            ("meeting day", 2, "unknown"),
            ("phone", 1, "unknown"),
        ]
        assert [(e.label, e.uses) for e in found.entities] == [("Bob", 2), ("Ann", 1)]
        only = mem.vocabulary("MEETING-day")
        assert [p.label for p in only.predicates] == ["meeting day"]
        assert only.entities == ()
        assert [e.label for e in mem.vocabulary(limit=1).entities] == ["Bob"]
        for bad in (0, 1001, True, "5"):
            with pytest.raises(doxa.InvalidInput, match="is not a whole number from 1 to 1000"):
                mem.vocabulary(limit=bad)  # type: ignore[arg-type]


def test_a_lesson_shows_as_one_or_many(tmp_path: Path) -> None:
    """After the owner answers "replace or add?", the predicate reads ``many``, said by the
    owner; the untaught one stays ``unknown`` (the control)."""
    seed(tmp_path / "s")
    with doxa.Memory.open(tmp_path / "s", scope="alice") as mem:
        held = mem.remember(
            "Bob's phone is 556", topic="contacts", subject="bob", predicate="Phone", object="556"
        )
        mem.owner.approve(held.held or "", as_relation="new")
        table = {p.label: (p.values, p.source) for p in mem.vocabulary().predicates}
        assert table == {"meeting day": ("unknown", "nobody"), "phone": ("many", "owner")}


def test_cli_vocabulary(tmp_path: Path) -> None:
    """``doxa vocabulary`` prints both tables, ``--json`` the same as the API; a bad
    ``--limit`` exits 2."""
    seed(tmp_path / "s")
    data = run_json(tmp_path / "s", "--scope", "alice", "vocabulary", "meeting")
    assert [p["label"] for p in data["predicates"]] == ["meeting day"]
    text = run(tmp_path / "s", "--scope", "alice", "vocabulary").stdout
    assert "meeting day" in text
    assert "Bob" in text
    bad = run(tmp_path / "s", "--scope", "alice", "vocabulary", "--limit", "0")
    assert bad.exit_code == 2
    assert "limit 0 is not a whole number from 1 to 1000" in bad.stderr


def test_rest_vocabulary(serve: Callable[..., Server]) -> None:
    """``GET /vocabulary`` answers any caller of the scope; a bad limit is a 400 (422 for a
    non-number), never a 500."""
    server = serve(config_text())
    with server.client(AGENT) as agent:
        agent.post(
            "/remember",
            json={
                "text": "Cleo's team is blue",
                "topic": "work",
                "subject": "Cleo",
                "predicate": "team colour",
                "object": "blue",
            },
        ).raise_for_status()
        found = agent.get("/vocabulary", params={"search": "team"}).json()
        assert [p["label"] for p in found["predicates"]] == ["team colour"]
        assert agent.get("/vocabulary", params={"limit": 0}).status_code == 400
        assert agent.get("/vocabulary", params={"limit": "x"}).status_code == 422


def test_mcp_vocabulary(tmp_path: Path) -> None:
    """The MCP tool returns the same lists; a bad limit is a tool error."""
    seed(tmp_path / "s")
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        seen["ok"] = structured(await client.call_tool("vocabulary", {"search": "bob"}))
        seen["bad"] = error_text(await client.call_tool("vocabulary", {"limit": 0}))

    session(tmp_path / "s", "alice", body)
    assert [e["label"] for e in seen["ok"]["entities"]] == ["Bob"]
    assert "limit 0 is not a whole number from 1 to 1000" in seen["bad"]
