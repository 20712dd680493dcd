"""`doxa render` / `doxa sync` on the command line, and `GET /render` (the owner's only)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from fastapi.testclient import TestClient

from doxa.interfaces.cli import main
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.store import EmbeddedStore

OWNER_KEY = "files-owner-key-0123456789"
AGENT_KEY = "files-agent-key-0123456789"
ENV: dict[str, str | None] = {"DOXA_STORE": None, "DOXA_SCOPE": None}


def doxa(store: Path, *args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, ["--store", str(store), *args], env=ENV)
    assert result.exit_code == code, result.output
    return result.stdout


def test_cli_render_edit_sync_render(tmp_path: Path) -> None:
    """The round trip on the command line: the edit is a revision; a second sync does
    nothing; --json gives the report's items."""
    store, folder = tmp_path / "memory", tmp_path / "files"
    doxa(store, "init")
    doxa(store, "remember", "Alice prefers tea", "--topic", "drinks", "--authority", "owner")
    assert "rendered 1 topic file(s)" in doxa(store, "render", str(folder))
    page = folder / "drinks.md"
    page.write_text(page.read_text().replace("tea", "green tea"))
    said = doxa(store, "sync", str(folder), "--as", "owner")
    assert said.startswith("revised drinks.md: 'Alice prefers green tea'")
    again = json.loads(doxa(store, "--json", "sync", str(folder)))
    assert again == {"items": [], "dropped": {}, "skipped": [], "left_alone": []}


def test_cli_sync_refuses_a_bad_folder_and_authority(tmp_path: Path) -> None:
    """No manifest: exit 2 with the fix; --as tool: a usage error; the control passes."""
    store, folder = tmp_path / "memory", tmp_path / "files"
    doxa(store, "init")
    folder.mkdir()
    doxa(store, "sync", str(folder), code=2)
    doxa(store, "sync", str(folder), "--as", "tool", code=2)
    doxa(store, "render", str(folder))
    assert "Nothing to sync" in doxa(store, "sync", str(folder), "--as", "owner")


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


def test_rest_render_is_the_owners(app: FastAPI) -> None:
    """The owner reads the files; an agent's key is refused (the control is the owner)."""
    owner, agent = client(app, OWNER_KEY), client(app, AGENT_KEY)
    body = {"text": "Alice prefers tea", "topic": "drinks", "authority": "owner"}
    fact = owner.post("/remember", json=body).json()["fact"]
    shown = owner.get("/render")
    assert shown.status_code == 200, shown.text
    assert f"- Alice prefers tea <!-- doxa:{fact} -->" in shown.json()["files"]["drinks.md"]
    assert json.loads(shown.json()["manifest"])["scope"] == "alice"
    assert agent.get("/render").status_code == 403
    assert owner.get("/render", params={"as_of": "not a time"}).status_code == 400


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")
def test_cli_render_git_commits_each_render_with_its_receipts(tmp_path: Path) -> None:
    """Each render with --git is a commit naming the receipt of each fact it shows first; a
    render that changes nothing commits nothing (the control)."""
    store, folder = tmp_path / "memory", tmp_path / "files"
    doxa(store, "init")
    written = json.loads(
        doxa(
            store,
            "--json",
            "remember",
            "Alice prefers tea",
            "--topic",
            "drinks",
            "--authority",
            "owner",
        )
    )
    assert "committed" in doxa(store, "render", "--git", str(folder))
    log = subprocess.run(
        ["git", "-C", str(folder), "log", "--format=%B"], capture_output=True, text=True, check=True
    ).stdout
    assert f"+ {written['fact']}: admitted by receipt {written['id']}" in log
    assert "nothing to commit" in doxa(store, "render", "--git", str(folder))
    doxa(store, "remember", "Alice likes mint", "--topic", "drinks", "--authority", "owner")
    assert "committed" in doxa(store, "render", "--git", str(folder))
    count = subprocess.run(
        ["git", "-C", str(folder), "rev-list", "--count", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert count.strip() == "2"
