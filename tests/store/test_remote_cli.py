"""``doxa --store URL``: the CLI on a SPARQL server, with the update endpoint and credentials."""

from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner
from tests.servers import Server

import doxa
from doxa.interfaces.cli import main
from doxa.interfaces.location import open_memory
from doxa.store import RemoteStore

NO_ENV = {"DOXA_STORE": None, "DOXA_SCOPE": None, "DOXA_UPDATE_URL": None}


def _doxa(*args: str, env: dict[str, str | None] | None = None) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["--json", *args], prog_name="doxa", env={**NO_ENV, **(env or {})}
    )
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert isinstance(found, dict | list)
    return found  # type: ignore[return-value]


def test_cli_writes_and_reads_through_an_oxigraph_server(oxigraph: Server) -> None:
    """remember then facts through --store URL --update-url URL, and the env var form."""
    oxigraph.clear()
    store = ["--store", oxigraph.query_url, "--update-url", oxigraph.update_url, "--scope", "cli"]
    _doxa(*store, "init")
    receipt = _doxa(
        *store, "remember", "Alice prefers tea", "--topic", "drinks", "--authority", "owner"
    )
    assert receipt["outcome"] == "admitted"
    env: dict[str, str | None] = {
        "DOXA_STORE": oxigraph.query_url,
        "DOXA_UPDATE_URL": oxigraph.update_url,
    }
    facts = _doxa("--scope", "cli", "facts", env=env)
    assert [f["text"] for f in facts] == ["Alice prefers tea"]  # type: ignore[union-attr, index]
    # control: another scope on the same server sees nothing
    _doxa("--scope", "other", "init", env=env)
    assert _doxa("--scope", "other", "facts", env=env) == []


def test_cli_without_the_update_url_says_what_to_fix(oxigraph: Server) -> None:
    """Oxigraph takes updates on /update only: without --update-url the write fails clearly."""
    oxigraph.clear()
    result = CliRunner().invoke(
        main,
        ["--store", oxigraph.query_url, "--scope", "cli", "remember", "x", "--topic", "t"],
        prog_name="doxa",
        env=NO_ENV,
    )
    assert result.exit_code in (2, 4), result.output
    assert result.stderr.startswith("error: The SPARQL server")


def test_credentials_come_from_the_environment(oxigraph: Server) -> None:
    """DOXA_STORE_USER / DOXA_STORE_PASSWORD become HTTP basic auth on the connection."""
    oxigraph.clear()
    env = {"DOXA_STORE_USER": "reader", "DOXA_STORE_PASSWORD": "s3cret"}
    with open_memory(
        oxigraph.query_url, oxigraph.update_url, scope="cli", clock=None, environ=env
    ) as mem:
        assert isinstance(mem.store, RemoteStore)
        auth = mem.store.client.auth
        assert auth is not None
        request = next(auth.auth_flow(httpx.Request("GET", oxigraph.query_url)))
        assert request.headers["Authorization"] == "Basic cmVhZGVyOnMzY3JldA=="
    with open_memory(
        oxigraph.query_url, oxigraph.update_url, scope="cli", clock=None, environ={}
    ) as mem:
        assert isinstance(mem.store, RemoteStore)
        assert mem.store.client.auth is None


@pytest.mark.parametrize("url", ["ftp://host/sparql", "localhost:7878/query"])
def test_a_url_that_is_not_http_is_a_directory_or_refused(url: str) -> None:
    """Only http(s) URLs reach a server; Memory.connect refuses anything else clearly."""
    with pytest.raises(doxa.InvalidInput, match="is not an HTTP"):
        doxa.Memory.connect(url, scope="cli")
