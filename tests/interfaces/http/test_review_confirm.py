"""Confirming a flagged fact from the review page: the owner's signed-in form clears the flag
with a receipt; a forged token, a bearer key, another scope's owner or a missing reason
leave it flagged (each refusal beside the form that works)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import closing

import pytest
from tests.interfaces.conftest import AGENT, BOB, OWNER, Server, config_text
from tests.interfaces.http.test_review_attacks import signed_in


@pytest.fixture(scope="module")
def server(serve: Callable[[str], Server]) -> Server:
    return serve(config_text())


@pytest.fixture
def flagged(server: Server) -> str:
    """A fresh fact of scope alice resting on one the owner then retracted."""
    with server.client(OWNER) as owner:
        tag = uuid.uuid4().hex
        base = owner.post("/remember", json={"text": f"Call {tag} on Tuesday", "topic": "m"})
        basis = base.json()["fact"]
        rest = owner.post(
            "/remember",
            json={"text": f"Call {tag} clashes", "topic": "m", "derived_from": [basis]},
        )
        fact = rest.json()["fact"]
        assert owner.post(f"/facts/{basis}/retract", json={"reason": "cancelled"}).is_success
        return str(fact)


def is_flagged(server: Server, fact: str) -> bool:
    with server.client(OWNER) as owner:
        return fact in [f["id"] for f in owner.get("/flagged").json()]


def test_the_page_lists_the_fact_with_its_confirm_form(server: Server, flagged: str) -> None:
    client, _ = signed_in(server, OWNER)
    with closing(client):
        page = client.get("/review").text
        assert f'action="/review/facts/{flagged}/confirm"' in page


def test_the_owner_confirms_and_a_forged_token_does_not(server: Server, flagged: str) -> None:
    client, token = signed_in(server, OWNER)
    with closing(client):
        path = f"/review/facts/{flagged}/confirm"
        forged = client.post(path, data={"csrf": "forged", "reason": "checked"})
        assert forged.status_code == 403
        assert is_flagged(server, flagged)
        done = client.post(path, data={"csrf": token, "reason": "checked the call"})
        assert done.status_code == 303
        assert "confirmed" in done.headers["location"]
        assert not is_flagged(server, flagged)  # control: the page's own form acts


def test_a_missing_reason_leaves_it_flagged(server: Server, flagged: str) -> None:
    client, token = signed_in(server, OWNER)
    with closing(client):
        path = f"/review/facts/{flagged}/confirm"
        answer = client.post(path, data={"csrf": token})
        assert 400 <= answer.status_code < 500
        assert "reason" in answer.text
        assert is_flagged(server, flagged)
        assert client.post(path, data={"csrf": token, "reason": "ok"}).status_code == 303


@pytest.mark.parametrize("key", [AGENT, OWNER])
def test_a_bearer_key_is_no_session(server: Server, flagged: str, key: str) -> None:
    with server.client(key) as client:
        answer = client.post(f"/review/facts/{flagged}/confirm", data={"reason": "x"})
        assert answer.status_code == 401
    assert is_flagged(server, flagged)


def test_another_scopes_owner_cannot_confirm_here(server: Server, flagged: str) -> None:
    client, token = signed_in(server, BOB)
    with closing(client):
        answer = client.post(
            f"/review/facts/{flagged}/confirm", data={"csrf": token, "reason": "x"}
        )
        assert answer.status_code == 404  # bob's memory has no such fact
    assert is_flagged(server, flagged)
