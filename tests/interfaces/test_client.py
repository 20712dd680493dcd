"""The REST client's parts without a server: JSON back to result objects, errors back to
doxa's errors, and the requests it refuses to make."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import httpx
import pytest
from rdflib import Literal, URIRef

from doxa.errors import DoxaError, Forbidden, InvalidInput, StoreError
from doxa.interfaces.client import RemoteMemory
from doxa.interfaces.failures import FAILURES, Failure, error_from, exit_code
from doxa.interfaces.presentation import plain
from doxa.interfaces.revive import revive
from doxa.model import (
    Authority,
    BasisEnd,
    Fact,
    FactStatus,
    History,
    HistoryEvent,
    Outcome,
    Receipt,
    Relation,
    RuleMode,
    Support,
)
from doxa.reads.stats import KindStats, Stats

NOW = datetime(2026, 3, 9, 10, 30, tzinfo=UTC)
FACT = Fact(
    "f1",
    URIRef("urn:doxa:scope:alice/fact/f1"),
    "The call is on Thursday",
    "meetings",
    "schedule",
    Authority.OWNER,
    URIRef("urn:doxa:scope:alice/standpoint/owner"),
    Support.STATED,
    NOW,
    status=FactStatus.SUPERSEDED,
    subject=URIRef("http://example.org/call"),
    object=Literal("12", datatype=URIRef("http://www.w3.org/2001/XMLSchema#integer")),
    sources=(URIRef("https://page.example/"),),
    valid_from=datetime(2026, 3, 8, tzinfo=UTC),
    confidence=Decimal("0.9"),
    rule_mode=RuleMode.REQUIRES,
    refines=("f0",),
    score=0.75,
    basis_ended=(BasisEnd("e1", "f0", "retracted", "f0 was retracted", NOW),),
)


@pytest.mark.parametrize(
    "value",
    [
        FACT,
        Receipt("r1", 3, None, Outcome.REJECTED, NOW, "rule", "3", "bad", failures=("x: y",)),
        Receipt("r2", 4, Relation.REPLACES, Outcome.HELD, NOW, "rule", "3", "", targets=("f0",)),
        History(FACT, (HistoryEvent("superseded", NOW, "f1", "f2", NOW, "moved"),), ("f2",)),
        Stats((KindStats("schedule", {"admitted": 2}, {"new": 2}, 1),), (), 0),
    ],
)
def test_plain_and_back_is_the_same_json(value: object) -> None:
    """What the server sends (``plain``) reads back into an object whose JSON is the same:
    derived keys (``needs_rerun``, ``quotation``, ``writes``) come back computed."""
    sent = plain(value)
    assert plain(revive(type(value), sent)) == sent


def test_revive_refuses_a_shape_it_does_not_know() -> None:
    with pytest.raises(InvalidInput, match="does not read as Receipt"):
        revive(Receipt, {"id": "r1", "sequence": "three"})
    with pytest.raises(InvalidInput, match="does not read as Fact"):
        revive(Fact, ["not", "an", "object"])


@pytest.mark.parametrize("row", FAILURES, ids=lambda row: row.error.__name__)
def test_every_row_reads_back_to_its_exit_code(row: Failure) -> None:
    """The one table read backwards: an answer naming a row's error with its status ends the
    command with that row's exit code (ShapeViolation is rebuilt by the client itself)."""
    name, status = row.error.__name__, row.status
    error = error_from(name, "message", status)
    if name != "ShapeViolation":
        assert exit_code(error) == row.exit_code
        assert str(error) == "message"


def test_http_refusals_are_invalid_input() -> None:
    """401/403/413 and a body that does not fit are usage errors (exit 2): 403 ``Forbidden``
    is doxa's own :class:`~doxa.Forbidden` (an invalid input); a 5xx without a doxa type is
    the status's row; a type outside doxa's errors never picks a class."""
    for name, status in (("Unauthorized", 401), ("InvalidRequest", 422)):
        assert type(error_from(name, "m", status)) is InvalidInput
    forbidden = error_from("Forbidden", "m", 403)
    assert type(forbidden) is Forbidden
    assert isinstance(forbidden, InvalidInput)
    assert exit_code(forbidden) == 2
    assert type(error_from("QueryTimeout", "m", 503)) is StoreError
    assert type(error_from("InternalError", "m", 500)) is DoxaError
    assert type(error_from("SystemExit", "m", 400)) is InvalidInput
    assert type(error_from("Listing", "m", 404)) is not type  # a name in errors, not an error


def test_not_found_names_the_cli_listing() -> None:
    error = error_from("NotFound", "There is no fact 'x'; list ids with `GET /facts`.", 404)
    assert str(error) == "There is no fact 'x'; list ids with `doxa facts`."


def _client(handler: httpx.MockTransport) -> RemoteMemory:
    return RemoteMemory("http://127.0.0.1:8000", "key-0123456789abcdef", transport=handler)


def test_ids_stay_one_path_segment() -> None:
    """An id with slashes or dots cannot move the request to another route."""
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path.decode())
        return httpx.Response(404, json={"error": {"type": "NotFound", "message": "no"}})

    with _client(httpx.MockTransport(answer)) as client, pytest.raises(DoxaError):
        client.history("../../held/h1/approve")
    assert seen == ["/facts/..%2F..%2Fheld%2Fh1%2Fapprove/history"]


def test_redirects_are_not_followed_and_non_json_is_an_error() -> None:
    """The key is never sent on to another address; an answer that is not doxa's JSON is a
    store error saying so (the control: a JSON list reads)."""
    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        if request.url.path == "/held":
            return httpx.Response(302, headers={"Location": "http://evil.example/steal"})
        if request.url.path == "/receipts":
            return httpx.Response(200, text="<html>a proxy</html>")
        return httpx.Response(200, json=[])

    with _client(httpx.MockTransport(answer)) as client:
        with pytest.raises(StoreError, match="no JSON"):
            client.held()
        with pytest.raises(StoreError, match="no JSON"):
            client.receipts()
        assert client.flagged() == []
    assert not any("evil" in url for url in calls)


def test_what_has_no_route_is_not_there() -> None:
    """The client has no method for what the REST API does not offer (a type checker sees
    it: the CLI runs such commands with ``run_store``, which refuses them through a server);
    the scope is asked of the server, never guessed."""

    def answer(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request is made")

    with _client(httpx.MockTransport(answer)) as client:
        assert not hasattr(client, "export")
        assert not hasattr(client.admin, "backup")  # the admin's export only: it has a route
        assert not hasattr(client.admin, "load_export")
        assert hasattr(client.admin, "export")  # the control: what has routes is there
        assert hasattr(client, "owner")
        with pytest.raises(AssertionError, match="no request is made"):
            _ = client.scope  # asked of the server (GET /key), not made up here
        with pytest.raises(AttributeError):
            _ = client._private  # a private name is a plain AttributeError
