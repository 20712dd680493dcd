"""Provenance-gated reads (issue 33): an agent may ask for the owner's words only, recall
never ranks a weaker speaker above a stronger one on the same topic, and a write still
waiting for the judge comes back marked, through every interface that reads.

Each test has its control beside it: without ``authority`` every speaker's fact comes back;
another topic keeps its place in the ranking; a judged agent note carries no mark."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client
from tests.helpers import FlakyJudge

import doxa
from doxa.interfaces.cli import main
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.mcp.server import build_server
from doxa.interfaces.presentation import quotation
from doxa.store import EmbeddedStore

from .conftest import AGENT, OWNER

PAGE = "Transfer fee: 30 euros per transfer."
NOTE = "The agent read somewhere in the bank letter that the fee for transfers was 20 euros."
OWNERS = "I pay 5 euros per transfer, I checked with the bank."


@pytest.fixture
def mem() -> Iterator[doxa.Memory]:
    """One topic with the three speakers, outside text written first (so the words alone
    would rank it highest), and another topic's fact on the same words."""
    memory = doxa.Memory(EmbeddedStore(), scope="alice")
    memory.remember(
        PAGE,
        topic="bank",
        authority="external",
        sources=["https://bank.example/fees"],
    )
    memory.remember(NOTE, topic="bank", authority="agent")
    memory.remember(OWNERS, topic="bank", authority="owner")
    memory.remember("Transfers of the fee for the gym are due monthly.", topic="gym")
    yield memory
    memory.close()


def speakers(facts: list[Any]) -> list[str]:
    return [str(f["authority"] if isinstance(f, dict) else f.authority.value) for f in facts]


def test_python_authority_filter_keeps_the_owners_words(mem: doxa.Memory) -> None:
    assert speakers(mem.facts(topic="bank", authority="owner")) == ["owner"]
    assert sorted(speakers(mem.facts(topic="bank", authority="owner, tool, agent"))) == [
        "agent",
        "owner",
    ]
    assert speakers(mem.recall("transfer fee", authority=[doxa.Authority.OWNER])) == ["owner"]
    # the control: no filter, every speaker
    assert sorted(speakers(mem.facts(topic="bank"))) == ["agent", "external", "owner"]


@pytest.mark.parametrize("bad", ["", "owners", "OWNER", "admin", 3, ["owner", "me"]])
def test_an_unknown_speaker_is_refused_by_name(mem: doxa.Memory, bad: object) -> None:
    with pytest.raises(doxa.InvalidInput) as refused:
        mem.facts(authority=bad)
    assert "owner" in str(refused.value)
    assert mem.facts(authority="owner")  # the control: a speaker's name


def test_recall_ranks_the_owner_first_on_a_topic(mem: doxa.Memory) -> None:
    """The page repeats the words, so by words alone it ranks first; on its topic the
    owner's words come first, then the agent's, then the page; the gym's fact (another
    topic) keeps the place the words gave it."""
    ranked = mem.recall("transfers fee", limit=10)
    bank = [f.authority.value for f in ranked if f.topic == "bank"]
    assert bank == ["owner", "agent", "external"]
    assert [f.topic for f in ranked].count("gym") == 1
    # the control: by the words alone (the owner-first order undone) the page ranks first
    # among the bank's facts
    words = sorted((f for f in ranked if f.topic == "bank"), key=lambda f: -(f.score or 0))
    assert words[0].authority is doxa.Authority.EXTERNAL


def test_an_unchecked_write_comes_back_marked(clock: doxa.FixedClock) -> None:
    """A write the judge could not answer comes back, with include_unchecked, marked as not
    yet judged; a judged agent note beside it carries no mark."""
    judge = FlakyJudge()
    judge.up = True
    memory = doxa.Memory(EmbeddedStore(), scope="alice", clock=clock, judge=judge)
    memory.remember("Bob's desk is by the window.", topic="office")
    judge.up = False
    memory.remember("Bob's desk moved to room 4.", topic="office")
    found = memory.facts(topic="office", include_unchecked=True)
    marks = {f.text: quotation(f) for f in found}
    assert marks["Bob's desk is by the window."] is None
    waiting = marks["Bob's desk moved to room 4."]
    assert waiting is not None
    assert waiting.startswith("unchecked agent text")
    memory.close()


def test_rest_cli_and_mcp_take_the_same_filter(mem: doxa.Memory, tmp_path: Any) -> None:
    config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=OWNER, agent_keys=(AGENT,)),))
    app = create_app(mem.store, config, rejudge_every=None)
    with TestClient(app, headers={"Authorization": f"Bearer {AGENT}"}) as agent:
        owner_only = agent.get("/recall", params={"q": "transfer fee", "authority": "owner"})
        everyone = agent.get("/facts", params={"topic": "bank"})
        refused = agent.get("/facts", params={"authority": "ownr"})
    assert speakers(owner_only.json()) == ["owner"]
    assert len(everyone.json()) == 3
    assert refused.status_code == 400
    assert "owner" in refused.json()["error"]["message"]

    async def tools() -> tuple[Any, Any]:
        async with Client(build_server(mem, quiet=True)) as client:
            only = await client.call_tool("facts", {"topic": "bank", "authority": "owner"})
            every = await client.call_tool("recall", {"text": "transfer fee"})
            return only.structured_content, every.structured_content

    only, every = anyio.run(tools)
    assert speakers(only["facts"]) == ["owner"]
    page = next(f for f in every["facts"] if f["authority"] == "external")
    assert page["quotation"].startswith("quoted from https://bank.example/fees")

    store = tmp_path / "store"
    with doxa.Memory.open(store, scope="default") as disk:
        disk.remember(OWNERS, topic="bank", authority="owner")
        disk.remember(NOTE, topic="bank")
    env = {"DOXA_STORE": None, "DOXA_SCOPE": None, "DOXA_KEY": None, "DOXA_SERVER": None}
    result = CliRunner().invoke(
        main, ["--store", str(store), "--json", "facts", "--authority", "owner"], env=env
    )
    assert result.exit_code == 0, result.output
    assert speakers(json.loads(result.stdout)) == ["owner"]
    control = CliRunner().invoke(main, ["--store", str(store), "--json", "facts"], env=env)
    assert sorted(speakers(json.loads(control.stdout))) == ["agent", "owner"]
