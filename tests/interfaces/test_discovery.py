"""The discovery file's guards, attacked: each refusal beside a file that is followed.

A command that finds its store locked trusts the file beside it only when it is a private
regular file of this user, one strict JSON object, naming an http(s) URL on a loopback
address and a running pid of this user. No server runs here: the file names this test's own
pid (running, ours), so only the attacked part differs from the control.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from tests.interfaces.conftest import _free_port

import doxa
from doxa.errors import InvalidInput
from doxa.interfaces import discovery
from doxa.interfaces.cli import main
from doxa.interfaces.discovery import (
    Discovered,
    Ignored,
    announced,
    discover,
    discovery_file,
    server_url,
)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "memory"


def plant(store: Path, text: str | bytes, mode: int = 0o600) -> Path:
    """Write ``text`` as the store's discovery file, with ``mode``."""
    path = discovery_file(store)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    path.chmod(mode)
    return path


def document(**changes: Any) -> str:
    found: dict[str, Any] = {
        "url": "http://127.0.0.1:8000",
        "pid": os.getpid(),
        "started": "2026-03-09T10:00:00+00:00",
        "tokens": {"alice": "local-token-0123456789"},
    }
    found.update(changes)
    return json.dumps(found)


def test_a_well_formed_file_is_followed(store: Path) -> None:
    """The control for every attack below."""
    plant(store, document())
    found = discover(store, "alice")
    assert isinstance(found, Discovered)
    assert (found.url, found.pid, found.token) == (
        "http://127.0.0.1:8000",
        os.getpid(),
        "local-token-0123456789",
    )
    other = discover(store, "bob")  # a scope the server does not serve: no token
    assert isinstance(other, Discovered)
    assert other.token is None
    discovery_file(store).unlink()
    assert discover(store, "alice") is None  # no file: no server, nothing to say


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org:8000",
        "http://10.0.0.1:8000",
        "http://0.0.0.0:8000",
        "http://127.0.0.1.nip.io:8000",
        "http://localhost.example.org:8000",
        "http://localhost.:8000",
        "http://\uff11\uff12\uff17.0.0.1:8000",  # full-width digits
        "http://127.0.0.1\u2024evil.org:8000",  # one dot leader, not a dot
        "http://127.1:8000",
        "http://0x7f.0.0.1:8000",
        "http://[::ffff:8.8.8.8]:8000",
        "ftp://127.0.0.1:8000",
        "file:///etc/passwd",
        "http://me:pw@127.0.0.1:8000",
        "http://127.0.0.1:8000/?next=http://evil.org",
        "http://127.0.0.1:99999",
        "",
    ],
)
def test_only_loopback_http_urls_are_followed(store: Path, url: str) -> None:
    plant(store, document(url=url))
    found = discover(store, "alice")
    assert isinstance(found, Ignored), found
    assert not found.stale


@pytest.mark.parametrize(
    "url",
    ["HTTP://LOCALHOST:8000", "http://[::1]:8000", "http://127.0.0.2:8000/", "https://127.0.0.1"],
)
def test_loopback_spellings_are_followed(store: Path, url: str) -> None:
    """The controls: other spellings of this machine, parsed, are this machine."""
    plant(store, document(url=url))
    assert isinstance(discover(store, "alice"), Discovered)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not json at all", "not valid JSON"),
        (b'{"url": "\xc3"}', "not UTF-8"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"pid": NaN}', "not a JSON number"),
        (document()[:-1] + ', "url": "http://evil.org:80"}', "repeats the key 'url'"),
        (document(pid=True), "no valid pid"),
        (document(pid=0), "no valid pid"),
        (document(pid=-1), "no valid pid"),
        (document(pid=str(os.getpid())), "no valid pid"),
        (document(url=None), "lacks the url"),
        (document(tokens=["x"]), "lacks the url"),
        (document(started="yesterday"), "Invalid isoformat"),
        ("{" + " " * 70_000 + "}", "too large"),
    ],
)
def test_garbage_is_ignored_with_the_reason(store: Path, text: str | bytes, says: str) -> None:
    plant(store, text)
    found = discover(store, "alice")
    assert isinstance(found, Ignored)
    assert says in found.reason


def test_a_symlink_is_not_followed(store: Path, tmp_path: Path) -> None:
    """A link to a well-formed file (the control, read directly) is ignored."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    real = plant(elsewhere / "memory", document())
    assert isinstance(discover(elsewhere / "memory", "alice"), Discovered)
    discovery_file(store).symlink_to(real)
    found = discover(store, "alice")
    assert isinstance(found, Ignored)
    assert found.reason == "it is a symbolic link"


def test_a_file_others_may_read_is_ignored(store: Path) -> None:
    plant(store, document(), mode=0o644)
    found = discover(store, "alice")
    assert isinstance(found, Ignored)
    assert "0600" in found.reason
    discovery_file(store).chmod(0o600)
    assert isinstance(discover(store, "alice"), Discovered)


def test_another_users_file_is_ignored(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(store, document())
    mine = os.getuid()
    monkeypatch.setattr(discovery.os, "getuid", lambda: mine + 1)
    found = discover(store, "alice")
    assert isinstance(found, Ignored)
    assert found.reason == "it belongs to another user"
    monkeypatch.setattr(discovery.os, "getuid", lambda: mine)
    assert isinstance(discover(store, "alice"), Discovered)


def test_another_users_pid_is_ignored(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kill(pid, 0)`` answering EPERM: the process is not this user's, so not its server."""
    plant(store, document(pid=1))

    def not_yours(pid: int, signum: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(discovery.os, "kill", not_yours)
    found = discover(store, "alice")
    assert isinstance(found, Ignored)
    assert found.reason == "its pid 1 belongs to another user"
    assert not found.stale  # never removed by a command: it is not known to be dead
    monkeypatch.undo()
    plant(store, document())
    assert isinstance(discover(store, "alice"), Discovered)


def test_a_dead_pid_is_stale(store: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    plant(store, document(pid=child.pid))
    found = discover(store, "alice")
    assert isinstance(found, Ignored)
    assert found.stale
    assert found.reason == f"its server (pid {child.pid}) is not running"


def test_announced_writes_atomically_and_cleans_up(store: Path) -> None:
    """0600 from the first byte, no temporary left; removed at the end unless replaced."""
    with announced(store, "http://127.0.0.1:8123", {"alice": "t" * 20}) as path:
        assert (path.stat().st_mode & 0o777) == 0o600
        assert sorted(p.name for p in store.parent.iterdir()) == [path.name]
        assert isinstance(discover(store, "alice"), Discovered)
    assert not path.exists()
    with announced(store, "http://127.0.0.1:8123", {}) as path:
        plant(store, document(pid=os.getpid() + 1_000_000))  # another server's, since
    assert path.exists()  # not ours to remove


def test_server_url_refuses_and_accepts() -> None:
    assert server_url(" http://127.0.0.1:8000/ ") == "http://127.0.0.1:8000"
    assert server_url("http://[::1]:8000", loopback=True) == "http://[::1]:8000"
    with pytest.raises(InvalidInput, match="not on this machine"):
        server_url("http://192.168.1.2:8000", loopback=True)
    assert server_url("http://192.168.1.2:8000") == "http://192.168.1.2:8000"  # --server may


# -- what a command does with the file ------------------------------------------------------


@pytest.fixture
def locked(store: Path) -> Iterator[Path]:
    """The store held open by this process, as a server would hold it."""
    with doxa.Memory.open(store, scope="default"):
        yield store


def facts(store: Path) -> Any:
    env = {name: None for name in os.environ if name.startswith("DOXA_")}
    return CliRunner().invoke(main, ["--store", str(store), "facts"], env=env)


def test_a_locked_store_with_a_foreign_file_stays_locked(locked: Path) -> None:
    """A file naming another host is not followed: the command reports the lock, and why the
    file was ignored; the control, a loopback file, is followed (nobody listens there, so the
    command then says it cannot reach the server, never that the store is locked)."""
    plant(locked, document(url="http://203.0.113.7:8000", tokens={"default": "x" * 20}))
    result = facts(locked)
    assert result.exit_code == 4
    assert "not on this machine" in result.stderr
    assert "already open for writing in another process" in result.stderr
    plant(locked, document(url="http://127.0.0.1:9", tokens={"default": "x" * 20}))
    result = facts(locked)
    assert result.exit_code == 4
    assert "going through it" in result.stderr
    assert "Cannot reach the doxa server at http://127.0.0.1:9" in result.stderr


def test_a_free_store_removes_only_a_stale_file(store: Path) -> None:
    """With the lock held by the command no server runs on the store: a dead server's file
    is removed (and said so); a file of another user's pid is left alone."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    path = plant(store, document(pid=child.pid))
    result = facts(store)
    assert result.exit_code == 0
    assert "removed" in result.stderr
    assert not path.exists()
    path = plant(store, document(url="http://example.org"))  # not stale, only untrusted
    result = facts(store)
    assert (result.exit_code, result.stderr) == (0, "")
    assert path.exists()


def test_commands_that_serve_the_store_never_go_through_a_server(locked: Path) -> None:
    """`doxa mcp` and `doxa serve` need the store itself: --server is refused (exit 2), and a
    locked store stays locked for mcp even with a discovery file a plain command follows."""
    env = {name: None for name in os.environ if name.startswith("DOXA_")}
    runner = CliRunner()
    for command in (["mcp"], ["serve", "--port", "1"]):
        refused = runner.invoke(main, ["--server", "http://127.0.0.1:9", *command], env=env)
        assert refused.exit_code == 2, refused.output
        assert "leave out --server" in refused.stderr
    plant(locked, document(url="http://127.0.0.1:9", tokens={"default": "x" * 20}))
    served = runner.invoke(main, ["--store", str(locked), "mcp"], env=env)
    assert served.exit_code == 4
    assert "going through it" not in served.stderr
    assert "going through it" in facts(locked).stderr  # the control: a plain command does


def test_doxa_mcp_on_a_served_store_names_the_servers_mcp(locked: Path) -> None:
    """`doxa mcp` on a store a `doxa serve` holds points at that server's /mcp instead of
    the lock's "already open"; the control, the same held store with no discovery file,
    still reports the lock."""
    env = {name: None for name in os.environ if name.startswith("DOXA_")}
    plant(locked, document(url="http://127.0.0.1:8123", tokens={"default": "x" * 20}))
    result = CliRunner().invoke(main, ["--store", str(locked), "mcp"], env=env)
    assert result.exit_code == 4, result.output
    assert "served by doxa serve at http://127.0.0.1:8123" in result.stderr
    assert "http://127.0.0.1:8123/mcp" in result.stderr
    assert "already open" not in result.stderr
    discovery_file(locked).unlink()
    result = CliRunner().invoke(main, ["--store", str(locked), "mcp"], env=env)
    assert result.exit_code == 4
    assert "already open for writing in another process" in result.stderr


def test_serve_on_a_name_announces_the_address_it_listens_on(tmp_path: Path) -> None:
    """``doxa serve --host localhost`` listens on one address and its discovery file names
    that address, not the name: a client resolving ``localhost`` itself could reach ``::1``,
    where another local user may listen. The announced address answers (control)."""
    store = tmp_path / "memory"
    doxa.Memory.open(store, scope="alice").close()
    port = _free_port()
    command = [str(Path(sys.executable).with_name("doxa")), "serve", "--path", str(store)]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DOXA_")}
    process = subprocess.Popen(
        [*command, "--host", "localhost", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environ,
    )
    try:
        deadline = time.monotonic() + 60
        found = discover(store, "default")
        while not isinstance(found, Discovered) and time.monotonic() < deadline:
            assert process.poll() is None, "doxa serve exited early"
            time.sleep(0.1)
            found = discover(store, "default")
        assert isinstance(found, Discovered), found
        host = found.url.split("//", 1)[1].rsplit(":", 1)[0]
        assert host in ("127.0.0.1", "[::1]"), found.url
        assert httpx.get(f"{found.url}/health", timeout=5).status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_serve_on_a_port_in_use_announces_nothing(tmp_path: Path) -> None:
    """The socket is bound before the discovery file is written: a port another program
    holds stops ``doxa serve`` with uvicorn's start-up failure (3) and leaves no file that
    would send local commands to that other program. Control: the same command on a free
    port announces itself."""
    store = tmp_path / "memory"
    doxa.Memory.open(store, scope="alice").close()
    command = [str(Path(sys.executable).with_name("doxa")), "serve", "--path", str(store)]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DOXA_")}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [*command, "--port", str(port)], capture_output=True, env=environ, timeout=120
        )
        assert result.returncode == 3, result.stderr
        assert not discovery_file(store).exists()
    process = subprocess.Popen(
        [*command, "--port", str(_free_port())],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environ,
    )
    try:
        deadline = time.monotonic() + 60
        while not discovery_file(store).exists() and time.monotonic() < deadline:
            assert process.poll() is None, "doxa serve exited early"
            time.sleep(0.1)
        assert discovery_file(store).exists()
    finally:
        process.terminate()
        process.wait(timeout=30)
