"""Undated corrections through every interface (issue 36, first target): 0 stale values live
and 0 values true at once.

Each interface is driven the way its user drives it (Python, the ``doxa`` command, REST, the
MCP tools, memory files with ``sync``, the memory tool, the LangGraph store) on a store the
test also reads through the Python API. An owner's correction that names its line must move
the value: the old fact superseded (never retracted), only the new one live now, the old one
live before the change, and at every sampled instant exactly one of the two true. Beside each,
the control: the same correction as an agent's write waits for the owner (held, the old value
still the only one live) unless the kind is granted, and then moves the value the same way.

Every interface here takes doxa's clock (a :class:`doxa.FixedClock`), so the instants are
exact; they are read back from what the store recorded (the receipt), never from a sleep.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client
from mcp.types import CallToolResult
from tests.helpers import DOMAIN, EX, domain_memory

import doxa
from doxa.interfaces.cli import main
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.langgraph_store import DoxaStore
from doxa.interfaces.mcp.server import build_server
from doxa.interfaces.memory_tool import MemoryToolHandler
from doxa.store import EmbeddedStore

from .conftest import AGENT, OWNER

#: the old value is written; the correction is written (and received); the owner answers;
#: the reads are made
START = "2026-03-01T09:00:00Z"
CHANGE = "2026-03-09T09:00:00Z"
ANSWER = "2026-03-12T09:00:00Z"
READ = "2026-03-20T09:00:00Z"
FAR_PAST = datetime(1990, 1, 1, tzinfo=UTC)
TOPIC = "people"
#: the scope the ``doxa`` command writes to without --scope
CLI_SCOPE = "default"


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# -- the corrections ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """One correction: the old write and the new one, as the fields a client sends (strings
    only, so every interface takes them as they are)."""

    name: str
    old: dict[str, str]
    new: dict[str, str]

    @property
    def kind(self) -> str:
        """The kind the writes are of (what the owner grants)."""
        return self.old.get("kind", "general")


def text_edit(name: str, old: str, new: str) -> Edit:
    return Edit(name, {"text": old, "topic": TOPIC}, {"text": new, "topic": TOPIC})


def livesin(city: str) -> dict[str, str]:
    """``ex:livesIn`` holds one value at a time (tests/helpers.py's DOMAIN says so)."""
    return {
        "text": f"Bob lives in {city}",
        "topic": TOPIC,
        "kind": "location",
        "subject": EX + "bob",
        "predicate": EX + "livesIn",
        "object": EX + city,
    }


#: the same sentence with another value
ANOTHER_VALUE = text_edit("another-value", "Bob lives in Paris", "Bob lives in Berlin")
#: the new line only adds words: still a replacement of the line it names
MORE_WORDS = text_edit("more-words", "Alice prefers tea", "Alice prefers green tea")
#: a one-valued property of the domain ontology, given as a statement
STRUCTURED = Edit("structured", livesin("Paris"), livesin("Berlin"))

TEXT_EDITS = [pytest.param(e, id=e.name) for e in (ANOTHER_VALUE, MORE_WORDS)]
ALL_EDITS = [*TEXT_EDITS, pytest.param(STRUCTURED, id=STRUCTURED.name)]


# -- the end state, read through the Python API ------------------------------------------------


def live_ids(mem: doxa.Memory, **when: object) -> list[str]:
    return sorted(f.id for f in mem.facts(topic=TOPIC, **when))  # type: ignore[arg-type]


def receipt_of(mem: doxa.Memory, receipt_id: str) -> doxa.Receipt:
    [found] = [r for r in mem.receipts() if r.id == receipt_id]
    return found


def assert_moved(mem: doxa.Memory, old_id: str, new_id: str, received: datetime) -> None:
    """The correction moved the value at ``received`` (what the store recorded for it): the
    old fact superseded, not retracted; only the new one live now; the old one live before;
    at every sampled instant exactly one of them true, on both clocks."""
    old, new = mem.get(old_id), mem.get(new_id)
    assert old.status is doxa.FactStatus.SUPERSEDED, (old.status, new.status)
    assert new.status is doxa.FactStatus.LIVE
    assert old.successor == new_id
    kinds = [e.kind for e in mem.history(old_id).events]
    assert "superseded" in kinds
    assert "retracted" not in kinds
    # the undated new value starts when it was received; the old one ends there
    assert new.valid_from == received
    assert old.valid_until == received
    # what a reader sees now
    assert live_ids(mem) == [new_id]
    assert mem.held() == []
    # the old value stays true before the change (the belief clock agrees)
    second = timedelta(seconds=1)
    assert live_ids(mem, valid_at=received - second) == [old_id]
    assert live_ids(mem, as_of=received - second) == [old_id]
    # at no sampled instant are both true, and at each exactly one is
    first = old.valid_from or FAR_PAST
    now = mem.clock.now()
    assert first < received <= now
    samples = [
        first,
        first + (received - first) / 2,
        received - second,
        received,
        received + second,
        received + (now - received) / 2,
        now,
    ]
    for moment in samples:
        expected = [old_id] if moment < received else [new_id]
        assert live_ids(mem, valid_at=moment) == expected, moment
        assert live_ids(mem, valid_at=moment, as_of=now) == expected, moment
    if old.valid_from is not None:  # a dated first value: nothing before it (the grid's edge)
        assert live_ids(mem, valid_at=old.valid_from - second) == []


def assert_still_asks(mem: doxa.Memory, old_id: str, new_fact: str) -> None:
    """A plain approval of a "replace or add?" write was refused and changed nothing: the
    old value is still the only one live, and the write still waits on its question."""
    assert live_ids(mem) == [old_id]
    [held] = mem.held()
    assert held.fact == new_fact
    assert (held.relation, held.status) == (doxa.Relation.UNCLEAR, doxa.HoldStatus.AWAITING_OWNER)
    assert held.asks is not None


def assert_waits(mem: doxa.Memory, old_id: str, new_fact: str) -> None:
    """The agent's correction waits for the owner: the old value is still the only one live,
    now and at every instant; the correction is held as a replacement of it."""
    assert mem.get(old_id).status is doxa.FactStatus.LIVE
    assert live_ids(mem) == [old_id]
    later = mem.clock.now() + timedelta(days=365)
    assert live_ids(mem, valid_at=later) == [old_id]
    [held] = mem.held()
    assert held.fact == new_fact
    assert held.relation is doxa.Relation.REPLACES, held.reason
    assert held.targets == (old_id,)
    assert held.status is doxa.HoldStatus.AWAITING_OWNER


# -- fixtures ------------------------------------------------------------------------------------


@pytest.fixture
def mem(clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    """An empty in-memory scope 'alice' with the example domain ontology; the clock at START."""
    clock.set(START)
    memory = domain_memory(clock)
    yield memory
    memory.close()


# -- Python ----------------------------------------------------------------------------------


def python_write(
    mem: doxa.Memory, fields: dict[str, str], authority: str, revises: str | None = None
) -> doxa.Receipt:
    return mem.remember(**fields, authority=authority, revises=revises)  # type: ignore[arg-type]


@pytest.mark.parametrize("edit", ALL_EDITS)
def test_python_owner_revision_moves_the_value(
    mem: doxa.Memory, clock: doxa.FixedClock, edit: Edit
) -> None:
    """``Memory.remember(..., revises=...)`` as the owner, undated: applied at once."""
    old = python_write(mem, edit.old, "owner")
    clock.set(CHANGE)
    new = python_write(mem, edit.new, "owner", revises=old.fact)
    assert (new.relation, new.outcome) == (doxa.Relation.REPLACES, doxa.Outcome.ADMITTED)
    assert new.recorded_at == instant(CHANGE)
    clock.set(READ)
    assert_moved(mem, old.fact or "", new.fact or "", new.recorded_at)


@pytest.mark.parametrize("granted", [False, True], ids=["waits", "granted"])
@pytest.mark.parametrize("edit", ALL_EDITS)
def test_python_agent_revision_waits_unless_granted(
    mem: doxa.Memory, clock: doxa.FixedClock, edit: Edit, granted: bool
) -> None:
    """The agent's same revision waits for the owner, whose approval then moves the value as
    of when it was received; with the kind granted it moves at once."""
    if granted:
        mem.owner.grant(edit.kind)
    old = python_write(mem, edit.old, "agent")
    clock.set(CHANGE)
    new = python_write(mem, edit.new, "agent", revises=old.fact)
    assert new.relation is doxa.Relation.REPLACES, new.reason
    if not granted:
        assert new.outcome is doxa.Outcome.HELD
        assert_waits(mem, old.fact or "", new.fact or "")
        clock.set(ANSWER)
        mem.owner.approve(new.held or "")
    clock.set(READ)
    assert_moved(mem, old.fact or "", new.fact or "", new.recorded_at)


# -- the doxa command --------------------------------------------------------------------------


def cli_json(store: Path, clock: doxa.FixedClock, *args: str) -> Any:
    """Invoke ``doxa --json`` in-process at the clock's time (as tests/interfaces/cli/test_cli.py
    does) and parse its one JSON document."""
    result = CliRunner().invoke(
        main,
        ["--store", str(store), "--json", *args],
        prog_name="doxa",
        obj=clock,
        env={"DOXA_STORE": None, "DOXA_SCOPE": None},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cli_write(
    store: Path, clock: doxa.FixedClock, fields: dict[str, str], *more: str
) -> dict[str, Any]:
    options = [x for name, value in fields.items() if name != "text" for x in (f"--{name}", value)]
    written: dict[str, Any] = cli_json(store, clock, "remember", fields["text"], *options, *more)
    return written


@pytest.fixture
def cli_store(tmp_path: Path, clock: doxa.FixedClock) -> Path:
    """A store on disk made by the ``doxa`` command, with the example domain ontology."""
    clock.set(START)
    ontology = tmp_path / "domain.ttl"
    ontology.write_bytes(DOMAIN)
    path = tmp_path / "memory"
    cli_json(path, clock, "ontology", "add", str(ontology))
    return path


def opened(store: Path, clock: doxa.FixedClock) -> doxa.Memory:
    return doxa.Memory.open(store, scope=CLI_SCOPE, clock=clock)


@pytest.mark.parametrize("edit", ALL_EDITS)
def test_cli_owner_revision_moves_the_value(
    cli_store: Path, clock: doxa.FixedClock, edit: Edit
) -> None:
    """``doxa remember NEW --revises ID --authority owner``, undated: applied at once."""
    old = cli_write(cli_store, clock, edit.old, "--authority", "owner")
    clock.set(CHANGE)
    new = cli_write(cli_store, clock, edit.new, "--authority", "owner", "--revises", old["fact"])
    assert (new["relation"], new["outcome"]) == ("replaces", "admitted")
    clock.set(READ)
    with opened(cli_store, clock) as mem:
        assert_moved(mem, old["fact"], new["fact"], instant(new["recorded_at"]))


@pytest.mark.parametrize("granted", [False, True], ids=["waits", "granted"])
@pytest.mark.parametrize("edit", ALL_EDITS)
def test_cli_agent_revision_waits_unless_granted(
    cli_store: Path, clock: doxa.FixedClock, edit: Edit, granted: bool
) -> None:
    """The agent's revision (the command's default authority) waits; ``doxa approve`` then
    moves the value as of when it was received. ``doxa grant KIND`` first: it moves at once."""
    if granted:
        assert cli_json(cli_store, clock, "grant", edit.kind)["outcome"] == "granted"
    old = cli_write(cli_store, clock, edit.old)
    clock.set(CHANGE)
    new = cli_write(cli_store, clock, edit.new, "--revises", old["fact"])
    assert new["relation"] == "replaces"
    if not granted:
        assert new["outcome"] == "held"
        with opened(cli_store, clock) as mem:
            assert_waits(mem, old["fact"], new["fact"])
        clock.set(ANSWER)
        assert cli_json(cli_store, clock, "approve", new["held"])["outcome"] == "approved"
    clock.set(READ)
    with opened(cli_store, clock) as mem:
        assert_moved(mem, old["fact"], new["fact"], instant(new["recorded_at"]))


def test_cli_owner_answers_replace_or_add(cli_store: Path, clock: doxa.FixedClock) -> None:
    """An agent's plain sentence with another value, no ``--revises``: it asks "replace or
    add?" (held, the old value alone live); ``doxa approve ID --as replaces`` moves it as of
    when it was received."""
    old = cli_write(cli_store, clock, ANOTHER_VALUE.old)
    clock.set(CHANGE)
    new = cli_write(cli_store, clock, ANOTHER_VALUE.new)
    assert (new["relation"], new["outcome"]) == ("unclear", "held")
    with opened(cli_store, clock) as mem:
        assert live_ids(mem) == [old["fact"]]
    clock.set(ANSWER)
    # a plain approve cannot answer the question: refused, naming --as, nothing changed
    plain = CliRunner().invoke(
        main,
        ["--store", str(cli_store), "approve", new["held"]],
        prog_name="doxa",
        obj=clock,
        env={"DOXA_STORE": None, "DOXA_SCOPE": None},
    )
    assert plain.exit_code != 0
    assert "--as replaces" in plain.output, plain.output
    assert "Traceback" not in plain.output
    with opened(cli_store, clock) as mem:
        assert_still_asks(mem, old["fact"], new["fact"])
    cli_json(cli_store, clock, "approve", new["held"], "--as", "replaces")
    clock.set(READ)
    with opened(cli_store, clock) as mem:
        assert_moved(mem, old["fact"], new["fact"], instant(new["recorded_at"]))


# -- REST --------------------------------------------------------------------------------------


@dataclass
class Rest:
    """The JSON API in-process over one store, at the test's clock, and a client per key."""

    mem: doxa.Memory
    owner: TestClient
    agent: TestClient


@pytest.fixture
def rest(clock: doxa.FixedClock) -> Iterator[Rest]:
    clock.set(START)
    store = EmbeddedStore(None)
    mem = doxa.Memory(store, scope="alice", clock=clock)
    mem.schema.add_ontology(DOMAIN)
    config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=OWNER, agent_keys=(AGENT,)),))
    app = create_app(store, config, clock=clock, rejudge_every=None)

    def client(key: str) -> TestClient:
        return TestClient(app, headers={"Authorization": f"Bearer {key}"})

    with client(OWNER) as owner, client(AGENT) as agent:
        yield Rest(mem, owner, agent)
    mem.close()
    store.close()


def post(client: TestClient, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize("edit", ALL_EDITS)
def test_rest_owner_revision_moves_the_value(
    rest: Rest, clock: doxa.FixedClock, edit: Edit
) -> None:
    """POST /remember with ``revises`` and ``authority: owner`` on the owner key: applied."""
    old = post(rest.owner, "/remember", {**edit.old, "authority": "owner"})
    clock.set(CHANGE)
    body = {**edit.new, "authority": "owner", "revises": old["fact"]}
    new = post(rest.owner, "/remember", body)
    assert (new["relation"], new["outcome"]) == ("replaces", "admitted")
    assert new["matched"] == [{"fact": old["fact"], "text": edit.old["text"], "effect": "replaced"}]
    clock.set(READ)
    assert_moved(rest.mem, old["fact"], new["fact"], instant(new["recorded_at"]))
    # the reads over REST say the same
    before = rest.agent.get("/facts", params={"topic": TOPIC, "valid_at": "2026-03-05"}).json()
    assert [f["id"] for f in before] == [old["fact"]]
    assert [f["id"] for f in rest.agent.get("/facts", params={"topic": TOPIC}).json()] == [
        new["fact"]
    ]


@pytest.mark.parametrize("granted", [False, True], ids=["waits", "granted"])
@pytest.mark.parametrize("edit", ALL_EDITS)
def test_rest_agent_revision_waits_unless_granted(
    rest: Rest, clock: doxa.FixedClock, edit: Edit, granted: bool
) -> None:
    """The agent key's revision waits; the owner key's approve then moves the value as of
    when it was received. POST /kinds/KIND/grant first: it moves at once."""
    if granted:
        post(rest.owner, f"/kinds/{edit.kind}/grant")
    old = post(rest.agent, "/remember", edit.old)
    clock.set(CHANGE)
    new = post(rest.agent, "/remember", {**edit.new, "revises": old["fact"]})
    assert new["relation"] == "replaces"
    if not granted:
        assert new["outcome"] == "held"
        assert_waits(rest.mem, old["fact"], new["fact"])
        clock.set(ANSWER)
        assert post(rest.owner, f"/held/{new['held']}/approve")["outcome"] == "approved"
    clock.set(READ)
    assert_moved(rest.mem, old["fact"], new["fact"], instant(new["recorded_at"]))


def test_rest_owner_answers_replace_or_add(rest: Rest, clock: doxa.FixedClock) -> None:
    """An agent's plain sentence with another value asks "replace or add?"; the owner key's
    approve with ``as_relation: replaces`` moves it as of when it was received."""
    old = post(rest.agent, "/remember", ANOTHER_VALUE.old)
    clock.set(CHANGE)
    new = post(rest.agent, "/remember", ANOTHER_VALUE.new)
    assert (new["relation"], new["outcome"]) == ("unclear", "held")
    assert live_ids(rest.mem) == [old["fact"]]
    clock.set(ANSWER)
    plain = rest.owner.post(f"/held/{new['held']}/approve")
    assert plain.status_code == 400
    assert "as_relation" in plain.text, plain.text
    assert_still_asks(rest.mem, old["fact"], new["fact"])
    post(rest.owner, f"/held/{new['held']}/approve", {"as_relation": "replaces"})
    clock.set(READ)
    assert_moved(rest.mem, old["fact"], new["fact"], instant(new["recorded_at"]))


# -- MCP -----------------------------------------------------------------------------------------


def mcp_call(
    mem: doxa.Memory,
    calls: Callable[[Client], Awaitable[list[CallToolResult]]],
    *,
    owner: bool = False,
    files: bool = False,
) -> list[CallToolResult]:
    """Run ``calls`` with the SDK's client against the MCP server over ``mem``, in-process
    (as tests/interfaces/test_mcp_fit.py does); ``owner`` adds the owner key's tools."""

    async def run() -> list[CallToolResult]:
        async with Client(build_server(mem, owner=owner, files=files, quiet=True)) as client:
            return await calls(client)

    results: list[CallToolResult] = anyio.run(run)
    for result in results:
        assert not result.is_error, result.content
    return results


def answer(result: CallToolResult) -> dict[str, Any]:
    assert result.structured_content is not None
    return dict(result.structured_content)


async def one_call(client: Client, tool: str, arguments: dict[str, Any]) -> list[CallToolResult]:
    return [await client.call_tool(tool, arguments)]


def mcp_tool(mem: doxa.Memory, tool: str, arguments: dict[str, Any], **kw: bool) -> dict[str, Any]:
    """Call one tool; its structured answer."""
    [result] = mcp_call(mem, lambda client: one_call(client, tool, arguments), **kw)
    return answer(result)


@pytest.mark.parametrize("edit", ALL_EDITS)
def test_mcp_owner_approval_of_a_revision_moves_the_value(
    mem: doxa.Memory, clock: doxa.FixedClock, edit: Edit
) -> None:
    """MCP's ``remember`` writes as an agent (the owner has no owner-authority write there):
    the revision waits, and the owner key's ``approve`` tool moves the value as of when the
    revision was received, not when it was approved."""
    old = mcp_tool(mem, "remember", edit.old)
    clock.set(CHANGE)
    new = mcp_tool(mem, "remember", {**edit.new, "revises": old["fact"]})
    assert (new["relation"], new["outcome"]) == ("replaces", "held")
    assert_waits(mem, old["fact"], new["fact"])
    clock.set(ANSWER)
    [listed] = mcp_tool(mem, "held", {}, owner=True)["held"]
    assert listed["id"] == new["held"]
    assert mcp_tool(mem, "approve", {"held": listed["id"]}, owner=True)["outcome"] == "approved"
    clock.set(READ)
    assert_moved(mem, old["fact"], new["fact"], instant(new["recorded_at"]))


@pytest.mark.parametrize("tool", ["remember", "memory_str_replace"])
@pytest.mark.parametrize("granted", [False, True], ids=["waits", "granted"])
def test_mcp_agent_revision_waits_unless_granted(
    mem: doxa.Memory, clock: doxa.FixedClock, granted: bool, tool: str
) -> None:
    """The agent's revision over MCP, by ``remember`` with ``revises`` or by editing the
    line with the file tool: held, the old value alone live; with the kind granted it moves
    at once."""
    edit = ANOTHER_VALUE
    if granted:
        mem.owner.grant(edit.kind)
    old = mcp_tool(mem, "remember", edit.old)
    clock.set(CHANGE)
    if tool == "remember":
        new = mcp_tool(mem, "remember", {**edit.new, "revises": old["fact"]})
        new_fact, received = new["fact"], instant(new["recorded_at"])
    else:
        edited = {"path": f"/memories/{TOPIC}.md", "old_str": edit.old["text"],
                  "new_str": edit.new["text"]}  # fmt: skip
        said = mcp_call(mem, lambda client: one_call(client, tool, edited), files=True)[0]
        assert "revised" in str(said.content)
        last = mem.receipts()[-1]
        new_fact, received = last.fact or "", last.recorded_at
    if not granted:
        assert_waits(mem, old["fact"], new_fact)
        clock.set(ANSWER)
        mem.owner.approve(mem.held()[0])
    clock.set(READ)
    assert received == instant(CHANGE)
    assert_moved(mem, old["fact"], new_fact, received)


def test_mcp_owner_answers_replace_or_add(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """An agent's plain sentence with another value asks "replace or add?"; the owner key's
    ``approve`` tool with ``as_relation: replaces`` should move it as REST and the CLI do."""
    old = mcp_tool(mem, "remember", ANOTHER_VALUE.old)
    clock.set(CHANGE)
    new = mcp_tool(mem, "remember", ANOTHER_VALUE.new)
    assert (new["relation"], new["outcome"]) == ("unclear", "held")
    assert live_ids(mem) == [old["fact"]]
    clock.set(ANSWER)

    async def plain(client: Client) -> list[CallToolResult]:
        return [await client.call_tool("approve", {"held": new["held"]})]

    async def run_plain() -> CallToolResult:
        async with Client(build_server(mem, owner=True, quiet=True)) as client:
            return (await plain(client))[0]

    refused = anyio.run(run_plain)
    assert refused.is_error
    assert "as_relation" in str(refused.content), refused.content
    assert_still_asks(mem, old["fact"], new["fact"])
    answered = {"held": new["held"], "as_relation": "replaces"}
    assert mcp_tool(mem, "approve", answered, owner=True)["outcome"] == "approved"
    clock.set(READ)
    assert_moved(mem, old["fact"], new["fact"], instant(new["recorded_at"]))


# -- memory files --------------------------------------------------------------------------------


def edit_line(folder: Path, old: str, new: str) -> None:
    """Edit one line of the topic file in place, keeping its id comment."""
    path = folder / f"{TOPIC}.md"
    text = path.read_text(encoding="utf-8")
    assert text.count(f"- {old} <!-- doxa:") == 1
    path.write_text(text.replace(f"- {old} <!--", f"- {new} <!--"), encoding="utf-8")


def synced(mem: doxa.Memory, folder: Path, authority: str) -> doxa.Receipt:
    """``sync`` the folder in ``authority``'s words; the receipt of its one revision."""
    [item] = mem.files.sync(folder, authority=authority).items
    assert item.receipt is not None, item
    return receipt_of(mem, item.receipt)


@pytest.mark.parametrize("edit", TEXT_EDITS)
def test_files_owner_edit_moves_the_value(
    mem: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path, edit: Edit
) -> None:
    """Render the topic file, edit the line, ``sync`` as the owner: applied at once."""
    old = python_write(mem, edit.old, "owner")
    mem.files.render(tmp_path)
    edit_line(tmp_path, edit.old["text"], edit.new["text"])
    clock.set(CHANGE)
    new = synced(mem, tmp_path, "owner")
    assert (new.relation, new.outcome) == (doxa.Relation.REPLACES, doxa.Outcome.ADMITTED)
    clock.set(READ)
    assert_moved(mem, old.fact or "", new.fact or "", new.recorded_at)
    # the file shows the new line only
    text = (tmp_path / f"{TOPIC}.md").read_text(encoding="utf-8")
    assert f"- {edit.new['text']} <!-- doxa:{new.fact} -->" in text
    assert f"- {edit.old['text']} <!--" not in text


def test_files_owner_edit_by_the_command_moves_the_value(
    cli_store: Path, clock: doxa.FixedClock, tmp_path: Path
) -> None:
    """``doxa render FOLDER``, edit the line, ``doxa sync FOLDER --as owner``."""
    edit = ANOTHER_VALUE
    old = cli_write(cli_store, clock, edit.old, "--authority", "owner")
    folder = tmp_path / "files"
    cli_json(cli_store, clock, "render", str(folder))
    edit_line(folder, edit.old["text"], edit.new["text"])
    clock.set(CHANGE)
    [item] = cli_json(cli_store, clock, "sync", str(folder), "--as", "owner")["items"]
    assert item["outcome"].startswith("admitted"), item
    clock.set(READ)
    with opened(cli_store, clock) as mem:
        new = receipt_of(mem, item["receipt"])
        assert new.relation is doxa.Relation.REPLACES
        assert_moved(mem, old["fact"], item["new_fact"], new.recorded_at)


@pytest.mark.parametrize("granted", [False, True], ids=["waits", "granted"])
@pytest.mark.parametrize("edit", TEXT_EDITS)
def test_files_agent_edit_waits_unless_granted(
    mem: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path, edit: Edit, granted: bool
) -> None:
    """The same edit synced as the agent waits for the owner; granted, it moves at once."""
    if granted:
        mem.owner.grant(edit.kind)
    old = python_write(mem, edit.old, "agent")
    mem.files.render(tmp_path)
    edit_line(tmp_path, edit.old["text"], edit.new["text"])
    clock.set(CHANGE)
    new = synced(mem, tmp_path, "agent")
    assert new.relation is doxa.Relation.REPLACES
    if not granted:
        assert new.outcome is doxa.Outcome.HELD
        assert_waits(mem, old.fact or "", new.fact or "")
        clock.set(ANSWER)
        mem.owner.approve(mem.held()[0])
    clock.set(READ)
    assert_moved(mem, old.fact or "", new.fact or "", new.recorded_at)


# -- the memory tool -----------------------------------------------------------------------------


def memory_tool(mem: doxa.Memory, authority: str, sdk: bool) -> Callable[[dict[str, Any]], str]:
    """The memory tool's command runner: doxa's handler, or the Anthropic SDK's tool class."""
    if not sdk:
        return MemoryToolHandler(mem, authority=authority).execute
    pytest.importorskip("anthropic.lib.tools")
    from doxa.interfaces.anthropic_memory import anthropic_memory_tool

    tool = anthropic_memory_tool(mem, authority=authority)
    return lambda command: str(tool.call(command))


def str_replace(mem: doxa.Memory, authority: str, sdk: bool, edit: Edit) -> doxa.Receipt:
    """``str_replace`` of the old line by the new one; the receipt of the revision."""
    run = memory_tool(mem, authority, sdk)
    said = run(
        {
            "command": "str_replace",
            "path": f"/memories/{TOPIC}.md",
            "old_str": edit.old["text"],
            "new_str": edit.new["text"],
        }
    )
    assert said.startswith(f"revised {TOPIC}.md: {edit.new['text']!r}"), said
    return mem.receipts()[-1]


@pytest.mark.parametrize("sdk", [False, True], ids=["handler", "anthropic-sdk"])
@pytest.mark.parametrize("edit", TEXT_EDITS)
def test_memory_tool_owner_edit_moves_the_value(
    mem: doxa.Memory, clock: doxa.FixedClock, edit: Edit, sdk: bool
) -> None:
    """``str_replace`` of the line with owner authority: applied at once (the issue's
    "prefers tea" -> "prefers green tea" no longer stays beside its edit)."""
    old = python_write(mem, edit.old, "owner")
    clock.set(CHANGE)
    new = str_replace(mem, "owner", sdk, edit)
    assert (new.relation, new.outcome) == (doxa.Relation.REPLACES, doxa.Outcome.ADMITTED)
    clock.set(READ)
    assert_moved(mem, old.fact or "", new.fact or "", new.recorded_at)
    shown = MemoryToolHandler(mem).execute({"command": "view", "path": f"/memories/{TOPIC}.md"})
    assert edit.new["text"] in shown
    assert f"- {edit.old['text']} <!--" not in shown


@pytest.mark.parametrize("granted", [False, True], ids=["waits", "granted"])
@pytest.mark.parametrize("edit", TEXT_EDITS)
def test_memory_tool_agent_edit_waits_unless_granted(
    mem: doxa.Memory, clock: doxa.FixedClock, edit: Edit, granted: bool
) -> None:
    """The tool's default authority is the agent: the edit waits; granted, it moves."""
    if granted:
        mem.owner.grant(edit.kind)
    old = python_write(mem, edit.old, "agent")
    clock.set(CHANGE)
    new = str_replace(mem, "agent", False, edit)
    assert new.relation is doxa.Relation.REPLACES
    if not granted:
        assert new.outcome is doxa.Outcome.HELD
        assert_waits(mem, old.fact or "", new.fact or "")
        clock.set(ANSWER)
        mem.owner.approve(mem.held()[0])
    clock.set(READ)
    assert_moved(mem, old.fact or "", new.fact or "", new.recorded_at)


# -- the LangGraph store -------------------------------------------------------------------------

NAMESPACE = (TOPIC,)


def put_twice(mem: doxa.Memory, clock: doxa.FixedClock, store: DoxaStore) -> tuple[str, str]:
    """Put the key's value, then (at CHANGE) a new one; the two facts' ids."""
    store.put(NAMESPACE, "bob", {"home": "Paris"})
    first = store.last_receipt
    assert first is not None
    assert first.outcome is doxa.Outcome.ADMITTED
    clock.set(CHANGE)
    store.put(NAMESPACE, "bob", {"home": "Berlin"})
    second = store.last_receipt
    assert second is not None
    assert second.relation is doxa.Relation.REPLACES, second.reason
    assert second.recorded_at == instant(CHANGE)
    return first.fact or "", second.fact or ""


def home(store: DoxaStore, **when: str) -> object:
    item = store.get(NAMESPACE, "bob", **when)  # type: ignore[arg-type]
    return None if item is None else item.value["home"]


def test_langgraph_owner_put_moves_the_value(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A store built with ``authority="owner"``: the second put on the key revises its live
    fact and applies at once. (``put`` dates each value with the moment of the put, so the
    first value starts at START, not at an unknown time.)"""
    store = DoxaStore(mem, authority="owner")
    old, new = put_twice(mem, clock, store)
    clock.set(READ)
    assert_moved(mem, old, new, instant(CHANGE))
    assert mem.get(old).valid_from == instant(START)
    assert home(store) == "Berlin"
    assert home(store, as_of="2026-03-05") == "Paris"
    then = store.search(NAMESPACE, valid_at="2026-03-05")
    assert [i.value["home"] for i in then] == ["Paris"]


def test_langgraph_get_before_the_change_answers_the_old_value(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """``get(..., valid_at=...)`` should agree with ``search(..., valid_at=...)`` and
    ``Memory.facts(valid_at=...)`` (both answer Paris on 5 March, see the test above)."""
    store = DoxaStore(mem, authority="owner")
    put_twice(mem, clock, store)
    clock.set(READ)
    assert home(store, valid_at="2026-03-05") == "Paris"


@pytest.mark.parametrize("granted", [False, True], ids=["waits", "granted"])
def test_langgraph_agent_put_waits_unless_granted(
    mem: doxa.Memory, clock: doxa.FixedClock, granted: bool
) -> None:
    """``DoxaStore(memory)`` writes as the agent (its default): the second put waits, ``get``
    still answers the old value; approved, it moves as of the put. Granted, at once."""
    store = DoxaStore(mem)
    assert store.authority == "agent"
    if granted:
        mem.owner.grant("general")
    old, new = put_twice(mem, clock, store)
    if not granted:
        assert_waits(mem, old, new)
        assert home(store) == "Paris"
        clock.set(ANSWER)
        mem.owner.approve(mem.held()[0])
    clock.set(READ)
    assert_moved(mem, old, new, instant(CHANGE))
    assert home(store) == "Berlin"
