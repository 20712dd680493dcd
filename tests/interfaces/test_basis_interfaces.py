"""Resting on facts over every interface: ``derived_from`` on the wire, the flags on reads,
``flagged`` and ``confirm`` for the owner (an agent's key may read, never confirm)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from fastapi.testclient import TestClient

import doxa
from doxa.interfaces.cli import main
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.mcp.server import fact_out
from doxa.store import EmbeddedStore

OWNER_KEY = "basis-owner-key-0123456789"
AGENT_KEY = "basis-agent-key-0123456789"


def cli(store: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        main,
        ["--store", str(store), "--scope", "alice", "--json", *args],
        env={"DOXA_STORE": None, "DOXA_SCOPE": None},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def init(store: Path) -> None:
    """Create the scope the CLI tests write to (a named scope must exist first)."""
    result = CliRunner().invoke(
        main, ["--store", str(store), "--scope", "alice", "init"],
        env={"DOXA_STORE": None, "DOXA_SCOPE": None},
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def test_cli_derived_from_flagged_and_confirm(tmp_path: Path) -> None:
    """``--derived-from`` is repeatable; ``flagged`` lists the dependents, ``confirm`` clears."""
    store = tmp_path / "memory"
    init(store)
    a = cli(store, "remember", "Call on Tuesday", "--topic", "m", "--authority", "owner")["fact"]
    b = cli(store, "remember", "Dentist on Tuesday", "--topic", "m", "--authority", "owner")
    c = cli(store, "remember", "They clash", "--topic", "m", "--derived-from", a,
            "--derived-from", b["fact"])["fact"]  # fmt: skip
    assert cli(store, "flagged") == []
    cli(store, "retract", a, "--reason", "cancelled")
    [flagged] = cli(store, "flagged")
    assert flagged["id"] == c
    assert flagged["needs_recheck"] is True
    assert flagged["basis_ended"][0]["basis"] == a
    assert cli(store, "confirm", c, "--reason", "checked")["outcome"] == "cleared"
    assert cli(store, "flagged") == []


def test_cli_confirm_without_reason_or_flag_fails(tmp_path: Path) -> None:
    """No reason: exit 2; a fact that is not flagged: exit 3."""
    store = tmp_path / "memory"
    init(store)
    a = cli(store, "remember", "Call on Tuesday", "--topic", "m", "--authority", "owner")["fact"]
    runner = CliRunner()
    env: dict[str, str | None] = {"DOXA_STORE": None, "DOXA_SCOPE": None}
    base = ["--store", str(store), "--scope", "alice", "confirm", a]
    assert runner.invoke(main, base, env=env).exit_code == 2
    assert runner.invoke(main, [*base, "--reason", "ok"], env=env).exit_code == 3


@pytest.fixture
def app() -> Iterator[FastAPI]:
    config = ServerConfig(
        scopes=(ScopeKeys(scope="alice", owner_key=OWNER_KEY, agent_keys=(AGENT_KEY,)),)
    )
    store = EmbeddedStore(None)
    yield create_app(store, config, rejudge_every=None)
    store.close()


def client(app: FastAPI, key: str) -> TestClient:
    return TestClient(
        app, headers={"Authorization": f"Bearer {key}"}, raise_server_exceptions=False
    )


def test_rest_derived_from_flagged_and_confirm(app: FastAPI) -> None:
    """The agent writes resting on a fact and reads the flag; only the owner confirms."""
    owner, agent = client(app, OWNER_KEY), client(app, AGENT_KEY)
    base = owner.post("/remember", json={"text": "Call on Tuesday", "topic": "m",
                                         "authority": "owner"}).json()["fact"]  # fmt: skip
    written = agent.post("/remember", json={"text": "It clashes", "topic": "m",
                                            "derived_from": [base]})  # fmt: skip
    assert written.status_code == 200, written.text
    derived = written.json()["fact"]
    bad = agent.post("/remember", json={"text": "x", "topic": "m", "derived_from": ["nope"]})
    assert bad.status_code == 404, bad.text
    assert owner.post(f"/facts/{base}/retract", json={"reason": "cancelled"}).status_code == 200
    listed = agent.get("/flagged").json()
    assert [f["id"] for f in listed] == [derived]
    assert agent.get(f"/facts/{derived}").json()["basis_ended"][0]["basis"] == base
    refused = agent.post(f"/facts/{derived}/confirm", json={"reason": "checked"})
    assert refused.status_code in (401, 403), refused.text
    confirmed = owner.post(f"/facts/{derived}/confirm", json={"reason": "checked"})
    assert confirmed.json()["outcome"] == "cleared"
    assert agent.get("/flagged").json() == []


def test_mcp_fact_carries_the_recheck_line() -> None:
    """A flagged fact tells the agent to re-check it; an unflagged one (control) does not."""
    mem = doxa.Memory.open(None, scope="alice")
    base = mem.remember("Call on Tuesday", topic="m", authority="owner").fact or ""
    derived = mem.remember("It clashes", topic="m", derived_from=[base]).fact or ""
    assert fact_out(mem.get(derived)).recheck is None
    mem.owner.retract(base, reason="cancelled")
    out = fact_out(mem.get(derived))
    assert out.derived_from == [base]
    assert out.recheck == f"re-check: the fact this rests on, {base}, was retracted"
