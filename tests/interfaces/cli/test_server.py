"""The CLI while the server runs: ``--server URL`` and a local server found on the store.

A real ``doxa serve`` (uvicorn, a subprocess) holds a store; the same commands run through
it and, as the control, on an embedded store set up the same way; their outputs (text and
``--json``) must be the same once ids, hashes and instants are numbered in order.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result
from tests.helpers import DAY_OF_WEEK, EX
from tests.interfaces.conftest import (
    AGENT,
    OWNER,
    Server,
    config_text,
    start_server,
    stop_server,
)

import doxa
from doxa.interfaces.cli import main
from doxa.interfaces.discovery import discovery_file

#: no DOXA_* from the test's environment reaches the command
CLEAN = {name: None for name in os.environ if name.startswith("DOXA_")}


def doxa_cli(*args: str, key: str | None = None) -> Result:
    """``doxa ARGS`` in-process, with ``$DOXA_KEY`` set to ``key``."""
    env: dict[str, str | None] = {**CLEAN, "DOXA_KEY": key}
    return CliRunner().invoke(main, list(args), prog_name="doxa", env=env, catch_exceptions=False)


def supplier_call(day: str, since: str) -> list[str]:
    return [
        f"The weekly supplier call is on {day}",
        "--topic=meetings",
        "--kind=schedule",
        "--authority=owner",
        f"--subject={EX}supplierCall",
        f"--predicate={EX}dayOfWeek",
        f"--object={EX}{day}",
        f"--valid-from={since}",
    ]


_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?")
#: the footprint's machine figures in `stats` (text and --json)
_BYTES = re.compile(
    r'(store on disk: |resident memory: |"disk_bytes": |"resident_bytes": )'
    r"(?:[\d.,]+ MiB(?: \([^)]*\))?|\d+)"
)
_NAME = re.compile(r"\b[0-9a-f]{16,}\b")


class Transcript:
    """Every command's exit code and output, ids and instants numbered in order of first
    appearance, so two runs of the same story on two stores compare equal."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.lines: list[str] = []

    def _name(self, match: re.Match[str]) -> str:
        return self.names.setdefault(match.group(0), f"<id{len(self.names)}>")

    def add(self, result: Result) -> Result:
        output = result.stdout
        if output.startswith(("{", "[")):
            # keys sorted: a count per outcome comes in the store's SPARQL group order,
            # which two stores need not share (the same store through either way does)
            output = json.dumps(json.loads(output), indent=2, sort_keys=True)
        shown = _MOMENT.sub("<when>", f"{result.exit_code}\n{output}\n{result.stderr}")
        # the footprint's bytes are the machine's (two processes, two stores); its claims
        # count is the memory's and must agree
        shown = _BYTES.sub(r"\1<bytes>", shown)
        self.lines.append(_NAME.sub(self._name, shown))
        return result


def story(run: list[str], key: str | None) -> Transcript:
    """The commands of issue 18's list, run with global options ``run``."""
    out = Transcript()

    def do(*args: str) -> Result:
        return out.add(doxa_cli(*run, *args, key=key))

    wednesday = json.loads(
        do("--json", "remember", *supplier_call("Wednesday", "2026-01-01")).stdout
    )
    do("remember", *supplier_call("Thursday", "2026-03-08"))
    held = json.loads(do("--json", "held").stdout)
    do("held")
    do("approve", held[0]["id"])
    do("remember", *supplier_call("Friday", "2026-04-01"))
    friday = json.loads(do("--json", "held").stdout)[0]["id"]
    do("--json", "reject", friday, "--reason", "no, it stays on Thursday")
    lunch = json.loads(do("--json", "remember", "Lunch is at noon", "--topic", "food").stdout)
    do("retract", lunch["fact"], "--reason", "it never was")
    do("remember", "Lunch is at one", "--topic", "food")
    for args in (
        ["facts"],
        ["--json", "facts"],
        ["facts", "--include-ended"],
        ["facts", "--valid-at", "2026-03-05"],
        ["recall", "supplier call"],
        ["--json", "recall", "lunch"],
        ["history", wednesday["fact"]],
        ["--json", "history", wednesday["fact"]],
        ["why", wednesday["fact"]],
        ["held"],
        ["receipts"],
        ["--json", "receipts"],
        ["stats"],
        ["--json", "stats"],
        ["alarms"],
        ["flagged"],
        ["vocabulary"],
        ["verify"],
        ["history", "no-such-fact"],
        ["--json", "approve", "no-such-write"],
        ["remember", "Tea", "--topic", "food", "--confidence", "7"],
    ):
        do(*args)
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = start_server(tmp_path_factory.mktemp("served"), config_text())
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An embedded store set up as the server's is (scope alice, the example ontology)."""
    path = tmp_path_factory.mktemp("control") / "memory"
    with doxa.Memory.open(path, scope="alice") as memory:
        memory.schema.add_ontology(DAY_OF_WEEK)
        memory.admin.create_scope()  # named by --scope below, so it must exist
    return path


def test_same_commands_same_output(server: Server, control: Path) -> None:
    """Each command through --server prints what it prints on an embedded store: text and
    --json, exit codes, errors (not found, rejected) included."""
    through = story(["--server", server.url], OWNER)
    direct = story(["--store", str(control), "--scope", "alice"], None)
    assert len(through.lines) == len(direct.lines) > 30
    for remote, embedded in zip(through.lines, direct.lines, strict=True):
        assert remote == embedded
    assert "held  fact <id" in "".join(direct.lines)  # the story reached a held write
    assert any(line.startswith("3\n") for line in direct.lines)  # and a not-found one
    assert any(line.startswith("1\n") for line in direct.lines)  # and a rejection


def test_agent_key_cannot_approve(server: Server) -> None:
    """An agent key through --server is refused approve as REST refuses it (403 there, exit 2
    here, the same words); the owner key approves the same write (control)."""

    # a call of its own, with a first day: the module's story may run in another worker
    def standup(day: str, since: str) -> list[str]:
        return [
            f"--subject={EX}teamStandup" if a.startswith("--subject=") else a
            for a in supplier_call(day, since)
        ]

    first = doxa_cli(
        "--server", server.url, "remember", *standup("Sunday", "2026-04-01"), key=OWNER
    )
    assert first.exit_code == 0, first.stderr
    receipt = json.loads(
        doxa_cli(
            "--server",
            server.url,
            "--json",
            "remember",
            *standup("Monday", "2026-05-01"),
            key=OWNER,
        ).stdout
    )
    assert receipt["outcome"] == "held"
    refused = doxa_cli("--server", server.url, "approve", receipt["held"], key=AGENT)
    with server.client(AGENT) as client:
        rest = client.post(f"/held/{receipt['held']}/approve")
    assert (refused.exit_code, rest.status_code) == (2, 403)
    assert refused.stderr == f"error: {rest.json()['error']['message']}\n"
    # the agent reads and writes through the same server
    assert doxa_cli("--server", server.url, "held", key=AGENT).exit_code == 0
    approved = doxa_cli("--server", server.url, "approve", receipt["held"], key=OWNER)
    assert approved.exit_code == 0, approved.stderr
    assert approved.stdout.startswith(f"approved  fact {receipt['held']}  replaces ")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("ftp://127.0.0.1:8000", "not an http(s) URL"),
        ("127.0.0.1:8000", "not an http(s) URL"),
        ("http://", "not an http(s) URL"),
        ("http://user:pw@127.0.0.1:8000", "carries credentials"),
        ("http://127.0.0.1:port", "cannot be read"),
        ("http://127.0.0.1:8000/?key=x", "query or fragment"),
    ],
)
def test_server_url_is_parsed(url: str, says: str) -> None:
    """A --server that is not an http(s) URL with a host is refused before any request."""
    result = doxa_cli("--server", url, "facts", key=OWNER)
    assert result.exit_code == 2
    assert says in result.stderr


def test_server_needs_a_key_and_an_answer(server: Server) -> None:
    """No $DOXA_KEY: exit 2 saying where the key goes; a wrong key: the server's 401 words;
    nothing listening: exit 4; the right key reads (control)."""
    missing = doxa_cli("--server", server.url, "facts")
    assert missing.exit_code == 2
    assert "$DOXA_KEY" in missing.stderr
    wrong = doxa_cli("--server", server.url, "facts", key="not-a-key-of-this-server")
    assert wrong.exit_code == 2
    assert "not known to this server" in wrong.stderr
    nobody = doxa_cli("--server", "http://127.0.0.1:9", "facts", key=OWNER)
    assert nobody.exit_code == 4
    assert "Cannot reach the doxa server" in nobody.stderr
    assert doxa_cli("--server", server.url.upper(), "facts", key=OWNER).exit_code == 0


@pytest.mark.parametrize(
    "args",
    [
        ["init"],
        ["backup"],
        ["backups"],
        ["restore", "somewhere"],
        ["erase", "f1", "--reason", "gone"],
    ],
)
def test_what_rest_cannot_do_is_refused(
    server: Server, args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commands with no REST route stop with a clear error naming what to do; nothing opens
    the store behind the server's back (the control: facts goes through)."""
    monkeypatch.chdir(tmp_path)
    result = doxa_cli("--server", server.url, *args, key=OWNER)
    assert result.exit_code == 2, result.stderr
    assert "stop the server" in result.stderr
    assert doxa_cli("--server", server.url, "facts", key=OWNER).exit_code == 0


# -- a local server found on the store --------------------------------------------------------


def _wait_gone(path: Path, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not path.exists():
            return True
        time.sleep(0.1)
    return False


def test_discovery_then_sigkill(tmp_path: Path) -> None:
    """With the server running, plain `doxa --store DIR facts` goes through it (one line on
    stderr says so); killed with SIGKILL, the file it left is stale: the next command opens
    the store itself, prints the same table, and says it removed the file."""
    running = start_server(tmp_path, config_text())
    store = Path(running.store)
    try:
        found = discovery_file(store)
        assert found.exists()
        assert (found.stat().st_mode & 0o777) == 0o600
        wrote = doxa_cli(
            "--store", str(store), "--scope", "alice", "remember", "Tea at four", "--topic", "food"
        )
        assert wrote.exit_code == 0, wrote.stderr
        through = doxa_cli("--store", str(store), "--scope", "alice", "facts")
        assert through.exit_code == 0, through.stderr
        assert "Tea at four" in through.stdout
        assert through.stderr == (
            f"note: the store is held by the doxa server at {running.url} "
            f"(pid {running.process.pid}); going through it\n"
        )
        # a scope the server does not serve is not guessed: the lock is the answer's reason
        other = doxa_cli("--store", str(store), "--scope", "carol", "facts")
        assert other.exit_code == 2
        assert "does not serve scope 'carol'" in other.stderr
        os.kill(running.process.pid, signal.SIGKILL)
        running.process.wait(timeout=15)
        assert found.exists()  # a kill -9 leaves the file behind
        direct = doxa_cli("--store", str(store), "--scope", "alice", "facts")
        assert direct.exit_code == 0, direct.stderr
        assert direct.stdout == through.stdout
        assert "is not running" in direct.stderr
        assert "removed" in direct.stderr
        assert not found.exists()
    finally:
        stop_server(running)


def test_clean_shutdown_removes_the_file(tmp_path: Path) -> None:
    """The file holds a fresh local token, never the configured owner key, readable by the
    user only; SIGTERM (a clean stop) removes it. Without it, a locked store stays locked."""
    running = start_server(tmp_path, config_text())
    store = Path(running.store)
    found = discovery_file(store)
    try:
        text = found.read_text(encoding="utf-8")
        assert OWNER not in text
        assert AGENT not in text
        token = json.loads(text)["tokens"]["alice"]
        # the local token is the owner of alice while the server runs
        answer = httpx.get(
            f"{running.url}/quarantine", headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 200
    finally:
        running.process.send_signal(signal.SIGTERM)
        running.process.wait(timeout=30)
        stop_server(running)
    assert _wait_gone(found)
    # the store is free again: the command opens it itself, with no note
    direct = doxa_cli("--store", str(store), "facts")
    assert (direct.exit_code, direct.stdout, direct.stderr) == (0, "No facts.\n", "")
