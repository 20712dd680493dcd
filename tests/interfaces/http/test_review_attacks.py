"""Attacks on the review page's owner actions, over plain HTTP: each refused request leaves
the held write held, and the owner's own form (the control) then acts."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import closing

import httpx
import pytest
from tests.interfaces.conftest import AGENT, BOB, OWNER, Server, config_text
from tests.interfaces.http.test_review import _hidden_csrf, day


@pytest.fixture(scope="module")
def server(serve: Callable[[str], Server]) -> Server:
    return serve(config_text())


def signed_in(server: Server, key: str) -> tuple[httpx.Client, str]:
    """A browser-like client signed in to the review page with ``key``, and its CSRF token."""
    client = httpx.Client(base_url=server.url, timeout=30)
    token = _hidden_csrf(client.get("/review").text)
    assert client.post("/review/login", data={"key": key, "csrf": token}).status_code == 303
    return client, _hidden_csrf(client.get("/review").text)


@pytest.fixture
def held(server: Server) -> Iterator[str]:
    """A fresh held write of scope alice (a second day for a functional property)."""
    with server.client(OWNER) as owner:
        call = f"call{uuid.uuid4().hex}"
        owner.post("/remember", json=day("On Monday", "Monday", "2026-01-01", call))
        answer = owner.post("/remember", json=day("On Friday", "Friday", "2026-05-01", call))
        assert answer.json()["outcome"] == "held"
        yield answer.json()["held"]


def still_held(server: Server, held_id: str) -> bool:
    with server.client(OWNER) as owner:
        return held_id in [h["id"] for h in owner.get("/held").json()]


def test_get_instead_of_post_acts_on_nothing(server: Server, held: str) -> None:
    client, _ = signed_in(server, OWNER)
    with closing(client):
        for verb in ("approve", "reject"):
            assert client.get(f"/review/held/{held}/{verb}").status_code == 405
        assert still_held(server, held)


@pytest.mark.parametrize("token", [None, "", "forged", "0" * 64])
def test_a_missing_or_forged_token_is_refused(server: Server, held: str, token: str | None) -> None:
    client, real = signed_in(server, OWNER)
    with closing(client):
        form = {} if token is None else {"csrf": token}
        assert client.post(f"/review/held/{held}/approve", data=form).status_code == 403
        assert still_held(server, held)
        assert client.post(f"/review/held/{held}/approve", data={"csrf": real}).status_code == 303
        assert not still_held(server, held)  # control: the page's own token acts


def test_a_token_of_another_session_is_refused(server: Server, held: str) -> None:
    first, token = signed_in(server, OWNER)
    second, own = signed_in(server, OWNER)
    with closing(first), closing(second):
        assert second.post(f"/review/held/{held}/approve", data={"csrf": token}).status_code == 403
        assert still_held(server, held)
        assert second.post(f"/review/held/{held}/reject", data={"csrf": own}).status_code == 303


@pytest.mark.parametrize("key", [AGENT, OWNER])
def test_a_bearer_key_is_no_session(server: Server, held: str, key: str) -> None:
    """The page acts on its session cookie only: an agent key (or even the owner key) sent as
    a header, as an API client would, does not approve anything."""
    with server.client(key) as client:
        answer = client.post(f"/review/held/{held}/approve", data={"csrf": "x"})
        assert answer.status_code == 401
    assert still_held(server, held)


def test_an_agent_key_cannot_sign_in(server: Server, held: str) -> None:
    with httpx.Client(base_url=server.url) as client:
        token = _hidden_csrf(client.get("/review").text)
        refused = client.post("/review/login", data={"key": AGENT, "csrf": token})
        assert refused.status_code == 403
        assert "doxa_review" not in client.cookies
    assert still_held(server, held)


def test_another_scopes_owner_cannot_act_here(server: Server, held: str) -> None:
    client, token = signed_in(server, BOB)
    with closing(client):
        answer = client.post(f"/review/held/{held}/approve", data={"csrf": token})
        assert answer.status_code == 404  # bob's memory has no such held write
    assert still_held(server, held)


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "HTTP://127.0.0.1"])
def test_a_post_from_another_origin_is_refused(server: Server, held: str, origin: str) -> None:
    client, token = signed_in(server, OWNER)
    with closing(client):
        answer = client.post(
            f"/review/held/{held}/approve", data={"csrf": token}, headers={"Origin": origin}
        )
        assert answer.status_code == 403
        assert still_held(server, held)
        same = client.post(
            f"/review/held/{held}/approve", data={"csrf": token}, headers={"Origin": server.url}
        )
        assert same.status_code == 303


@pytest.mark.parametrize("path", ["/review/HELD/{id}/approve", "/review/held/{id}/Approve"])
def test_other_spellings_of_an_action_do_nothing(server: Server, held: str, path: str) -> None:
    client, token = signed_in(server, OWNER)
    with closing(client):
        assert client.post(path.format(id=held), data={"csrf": token}).status_code in (404, 405)
    assert still_held(server, held)


def test_clearing_an_alarm_needs_the_token_too(server: Server) -> None:
    client, _ = signed_in(server, OWNER)
    with closing(client):
        assert client.post("/review/alarms/nope/clear", data={"reason": "x"}).status_code == 403
        for verb in ("release", "discard"):
            assert client.post(f"/review/quarantine/nope/{verb}", data={}).status_code == 403
