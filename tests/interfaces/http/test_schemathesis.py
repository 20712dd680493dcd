"""Schemathesis against the server's own OpenAPI description: whatever the generated request,
the server answers in its documented error shape and never with a 5xx."""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.store import EmbeddedStore

OWNER = "schemathesis-owner-key-0123456789"

app = create_app(
    EmbeddedStore(None),
    ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=OWNER),)),
    rejudge_every=None,
)
schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_makes_the_server_fail(case: schemathesis.Case) -> None:
    response = case.call(headers={"Authorization": f"Bearer {OWNER}"})
    case.validate_response(response, checks=(not_a_server_error,))
    content_type = " ".join(response.headers.get("content-type") or [])
    if response.status_code >= 400 and content_type.startswith("application/json"):
        body = response.json()
        assert set(body) == {"error"}, body  # one error shape everywhere
        assert body["error"]["status"] == response.status_code
