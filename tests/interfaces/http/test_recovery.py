"""The server judges again, on its own, what a judge that was down left unchecked."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient
from tests.helpers import FlakyJudge

from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.store import EmbeddedStore

OWNER = "owner-key-for-the-recovery-test"


def held_count(client: TestClient) -> int:
    response = client.get("/held", headers={"Authorization": f"Bearer {OWNER}"})
    assert response.status_code == 200, response.text
    return len(response.json())


def run_server(judge: FlakyJudge, every: float | None) -> tuple[TestClient, EmbeddedStore]:
    store = EmbeddedStore(None)
    config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=OWNER),))
    app = create_app(store, config, judge=judge, owns_store=True, rejudge_every=every)
    return TestClient(app), store


def test_the_server_rejudges_when_the_judge_is_back() -> None:
    judge = FlakyJudge()
    client, _ = run_server(judge, 0.05)
    with client:
        body = {"text": "bob likes tea", "topic": "t", "authority": "owner"}
        written = client.post("/remember", json=body, headers={"Authorization": f"Bearer {OWNER}"})
        assert written.status_code == 200, written.text
        assert written.json()["outcome"] == "held"
        time.sleep(0.3)
        assert held_count(client) == 1  # still down: it waits, nothing lost
        judge.up = True
        deadline = time.monotonic() + 10
        while held_count(client) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held_count(client) == 0
        facts = client.get("/facts", headers={"Authorization": f"Bearer {OWNER}"}).json()
        assert [f["text"] for f in facts] == ["bob likes tea"]


def test_without_the_loop_the_write_waits_for_the_owner() -> None:
    """Control: with recovery off, the judge coming back changes nothing by itself."""
    judge = FlakyJudge()
    client, _ = run_server(judge, None)
    with client:
        body = {"text": "bob likes tea", "topic": "t", "authority": "owner"}
        client.post("/remember", json=body, headers={"Authorization": f"Bearer {OWNER}"})
        judge.up = True
        time.sleep(0.3)
        assert held_count(client) == 1
