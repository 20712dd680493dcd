"""`doxa audit`, `doxa shapes` and `GET /audit`: the same audit through the CLI and REST."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rdflib import Graph
from rdflib.namespace import RDF, SH
from tests.helpers import EX
from tests.interfaces.cli.test_cli import run

from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.store import EmbeddedStore

OWNER = "owner-key-for-the-audit-test"
AGENT = "agent-key-for-the-audit-test"
CITY_SHAPE = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://example.org/> .
ex:LivesInCity a sh:NodeShape ; sh:targetSubjectsOf ex:livesIn ;
    sh:property [ sh:path ex:livesIn ; sh:class ex:City ] .
"""
LIVES = ["--subject", EX + "alice", "--predicate", EX + "livesIn", "--object", EX + "paris"]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    where = tmp_path / "store"
    assert run(where, "init").exit_code == 0
    written = run(
        where, "remember", "alice lives in paris", "--topic", "home", *LIVES, "--authority", "owner"
    )
    assert written.exit_code == 0, written.stderr
    return where


def test_the_cli_audits_with_the_owners_shapes(store: Path, tmp_path: Path) -> None:
    """Conforms (exit 0) with doxa's shapes only; with a city shape the table names the fact
    and the command exits 1; removing the shape conforms again."""
    clean = run(store, "audit")
    assert clean.exit_code == 0, clean.stderr
    assert "the scope conforms" in clean.stdout
    shapes = tmp_path / "City.TTL"
    shapes.write_text(CITY_SHAPE, encoding="utf-8")
    added = run(store, "shapes", "add", str(shapes))
    assert added.exit_code == 0, added.stderr
    assert "source 'city.ttl'" in added.stdout
    assert run(store, "shapes", "list").stdout == "city.ttl\t7 triple(s)\n"
    failed = run(store, "audit")
    assert failed.exit_code == 1
    assert "Value does not have class <http://example.org/City>" in failed.stdout
    assert "the scope does not conform" in failed.stdout
    as_json = json.loads(run(store, "--json", "audit").stdout)
    assert as_json["conforms"] is False
    (violation,) = as_json["violations"]
    assert violation["focus_node"] == EX + "alice"
    assert len(violation["facts"]) == 1
    turtle = run(store, "audit", "--format", "TURTLE")
    assert turtle.exit_code == 1
    graph = Graph().parse(data=turtle.stdout, format="turtle")
    assert (None, RDF.type, SH.ValidationReport) in graph
    removed = run(store, "shapes", "remove", "CITY.ttl")
    assert removed.exit_code == 0, removed.stderr
    assert run(store, "audit").exit_code == 0


def test_the_cli_refuses_a_bad_shapes_file_and_an_unknown_name(store: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("not turtle at all", encoding="utf-8")
    refused = run(store, "shapes", "add", str(bad))
    assert refused.exit_code == 2
    assert "is not valid turtle" in refused.stderr
    assert run(store, "shapes", "list").stdout.startswith("No shapes were added")
    missing = run(store, "shapes", "remove", "nothing.ttl")
    assert missing.exit_code == 3
    assert "No shapes source is named 'nothing.ttl'" in missing.stderr


@pytest.fixture
def client() -> TestClient:
    config = ServerConfig(scopes=(ScopeKeys(scope="alice", owner_key=OWNER, agent_keys=(AGENT,)),))
    app = create_app(EmbeddedStore(None), config, owns_store=True)
    return TestClient(app)


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_get_audit_is_the_owners(client: TestClient) -> None:
    """The owner key gets the audit in JSON, Turtle or JSON-LD; an agent key gets 403; an
    unknown format is a 400 with the formats named."""
    with client:
        body = {
            "text": "alice lives in paris",
            "topic": "home",
            "subject": EX + "alice",
            "predicate": EX + "livesIn",
            "object": EX + "paris",
            "authority": "owner",
        }
        assert client.post("/remember", json=body, headers=_bearer(OWNER)).status_code == 200
        answer = client.get("/audit", headers=_bearer(OWNER))
        assert answer.status_code == 200, answer.text
        assert answer.json()["conforms"] is True
        turtle = client.get("/audit", params={"format": "Turtle"}, headers=_bearer(OWNER))
        assert turtle.status_code == 200
        assert turtle.headers["content-type"].startswith("text/turtle")
        jsonld = client.get(
            "/audit", params={"format": "json-ld", "infer": "true"}, headers=_bearer(OWNER)
        )
        assert jsonld.headers["content-type"].startswith("application/ld+json")
        assert isinstance(json.loads(jsonld.text), list)
        agent = client.get("/audit", headers=_bearer(AGENT))
        assert agent.status_code == 403
        bad = client.get("/audit", params={"format": "xml"}, headers=_bearer(OWNER))
        assert bad.status_code == 400
        assert "use json, turtle or json-ld" in bad.text
        assert bad.json()["error"]["type"] == "InvalidInput"  # the error table's, no space
