"""Exports, verifications and audits read a whole scope: one at a time per scope, two in
the server (issue 34: eight exports from one scope made another scope's writes 46x slower).
A request beyond its slot gets 503 Busy with Retry-After at once, beside a request of
another scope that is answered (control)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.http.runner import QueryRunner
from doxa.store import EmbeddedStore

ALICE = "alice-owner-key-for-the-slots"
BOB = "bob-owner-key-for-the-slots"
CAROL = "carol-owner-key-for-the-slots"


def key(owner: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {owner}"}


@pytest.fixture
def client() -> Iterator[TestClient]:
    config = ServerConfig(
        scopes=(
            ScopeKeys(scope="alice", owner_key=ALICE),
            ScopeKeys(scope="bob", owner_key=BOB),
            ScopeKeys(scope="carol", owner_key=CAROL),
        )
    )
    app = create_app(EmbeddedStore(None), config, owns_store=True, rejudge_every=None)
    with TestClient(app) as running:
        yield running


def occupy(runner: QueryRunner, scope: str) -> threading.Event:
    """Hold one of ``scope``'s heavy slots until the returned event is set."""
    release = threading.Event()
    started = threading.Event()

    def work(_stop: object) -> None:
        started.set()
        release.wait(30)

    threading.Thread(target=runner.run, args=(work,), kwargs={"scope": scope}, daemon=True).start()
    assert started.wait(10)
    return release


@pytest.mark.parametrize("path", ["/export", "/export?audit=true", "/verify", "/audit"], ids=str)
def test_one_heavy_request_per_scope(client: TestClient, path: str) -> None:
    runner: QueryRunner = client.app.state.heavy  # type: ignore[attr-defined]
    release = occupy(runner, "alice")
    try:
        busy = client.get(path, headers=key(ALICE))
        assert busy.status_code == 503, busy.text
        assert busy.json()["error"]["type"] == "Busy"
        assert busy.headers["retry-after"] == "5"
        other = client.get(path, headers=key(BOB))  # another scope is answered meanwhile
        assert other.status_code == 200, other.text
    finally:
        release.set()
    for _ in range(100):  # the slot comes back when the work ends
        if runner.running("alice") == 0:
            break
        time.sleep(0.05)
    assert client.get(path, headers=key(ALICE)).status_code == 200


def test_two_heavy_requests_in_the_server(client: TestClient) -> None:
    runner: QueryRunner = client.app.state.heavy  # type: ignore[attr-defined]
    releases = [occupy(runner, "alice"), occupy(runner, "bob")]
    try:
        busy = client.get("/export", headers=key(CAROL))
        assert busy.status_code == 503
        assert "heavy workers are busy" in busy.json()["error"]["message"]
        assert client.get("/facts", headers=key(CAROL)).status_code == 200  # reads go on
    finally:
        for release in releases:
            release.set()
