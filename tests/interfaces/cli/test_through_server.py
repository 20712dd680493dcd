"""`doxa export`, `doxa sparql` and `doxa audit` through a running `doxa serve` (they were
refused with "the REST API has no route", though the routes exist): the same file and the
same answers as the embedded store gives once the server stops."""

from __future__ import annotations

import json
import os
from pathlib import Path

import rdflib
from click.testing import CliRunner, Result
from rdflib.compare import isomorphic
from tests.interfaces.conftest import AGENT, OWNER, config_text, start_server, stop_server

import doxa
from doxa.interfaces.cli import main

CLEAN = {name: None for name in os.environ if name.startswith("DOXA_")}
SELECT = "SELECT ?t WHERE { ?f <https://w3id.org/doxa#text> ?t } ORDER BY ?t"
ASK = 'ASK { ?f <https://w3id.org/doxa#text> "Alice drinks tea" }'
AUDITS = {
    "audit-table": ("audit",),
    "audit-json": ("--json", "audit"),
    "audit-turtle": ("audit", "--format", "turtle"),
}
CONSTRUCT = "CONSTRUCT { ?f <urn:x:said> ?t } WHERE { ?f <https://w3id.org/doxa#text> ?t }"


def cli(*args: str, key: str | None = None) -> Result:
    env = {**CLEAN, **({"DOXA_KEY": key} if key else {})}
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_export_and_sparql_through_a_server_match_the_store(tmp_path: Path) -> None:
    server = start_server(tmp_path, config_text())
    store = Path(server.store)
    through: dict[str, str] = {}
    try:
        for note in ("Alice drinks tea", "Bob reads novels"):
            said = cli("--server", server.url, "remember", note, "--topic", "notes", key=OWNER)
            assert said.exit_code == 0, said.output
        for form in ("nq", "trig"):
            out = tmp_path / f"served.{form}"
            done = cli("--server", server.url, "export", str(out), key=OWNER)
            assert done.exit_code == 0, done.output
            through[form] = out.read_text(encoding="utf-8")
        audit = tmp_path / "served-audit.nq"
        assert (
            cli("--server", server.url, "export", str(audit), "--audit", key=OWNER).exit_code == 0
        )
        through["audit"] = audit.read_text(encoding="utf-8")
        for name, query in (("select", SELECT), ("ask", ASK), ("construct", CONSTRUCT)):
            answer = cli("--server", server.url, "--json", "sparql", query, key=OWNER)
            assert answer.exit_code == 0, answer.output
            through[name] = answer.stdout
        table = cli("--server", server.url, "sparql", SELECT, key=OWNER)
        through["table"] = table.stdout
        for name, args in AUDITS.items():
            audited = cli("--server", server.url, *args, key=OWNER)
            assert audited.exit_code == 0, audited.output
            through[name] = audited.stdout
        # the control: the agent's key may not audit, through the server as over REST
        assert cli("--server", server.url, "audit", key=AGENT).exit_code != 0
        # the control: a bad query fails before any request, as on the store
        bad = cli("--server", server.url, "sparql", "SELEC nothing", key=OWNER)
        assert bad.exit_code == 2
    finally:
        stop_server(server)
    assert "Bob reads novels" in through["table"]
    assert json.loads(through["ask"])["boolean"] is True
    with doxa.Memory.open(store, scope="alice") as memory:
        assert memory.verify() >= 2
    for form in ("nq", "trig"):
        local = tmp_path / f"local.{form}"
        assert cli("--store", str(store), "--scope", "alice", "export", str(local)).exit_code == 0
        assert through[form] == local.read_text(encoding="utf-8")
    local_audit = tmp_path / "local-audit.nq"
    assert cli("--store", str(store), "--scope", "alice", "export", str(local_audit),
               "--audit").exit_code == 0  # fmt: skip
    assert through["audit"] == local_audit.read_text(encoding="utf-8")
    for name, args in AUDITS.items():
        local_audit_answer = cli("--store", str(store), "--scope", "alice", *args)
        assert local_audit_answer.exit_code == 0, local_audit_answer.output
        if name == "audit-turtle":  # one report graph, its blank nodes named anew
            assert isomorphic(
                rdflib.Graph().parse(data=through[name], format="turtle"),
                rdflib.Graph().parse(data=local_audit_answer.stdout, format="turtle"),
            )
        else:
            assert through[name] == local_audit_answer.stdout, name
    assert "the scope conforms" in through["audit-table"]
    for name, query in (("select", SELECT), ("ask", ASK), ("construct", CONSTRUCT)):
        local = cli("--store", str(store), "--scope", "alice", "--json", "sparql", query)
        if name == "construct":  # a graph is a set: its triples in any order
            mine, theirs = json.loads(through[name]), json.loads(local.stdout)
            key = json.dumps
            assert sorted(mine["triples"], key=key) == sorted(theirs["triples"], key=key)
            assert len(mine["triples"]) == 2
        else:
            assert through[name] == local.stdout, name


def test_a_scope_the_key_does_not_reach_is_refused(tmp_path: Path) -> None:
    """``$DOXA_KEY`` decides the scope on a server: a ``--scope`` (or ``$DOXA_SCOPE``) it
    does not reach is refused before anything is read or written, instead of silently acting
    on the key's scope; the key's own scope, named or not, works (controls)."""
    server = start_server(tmp_path, config_text())
    try:
        wrote = cli(
            "--server", server.url, "--scope", "bob", "remember", "x", "--topic", "t", key=AGENT
        )
        assert wrote.exit_code == 2, wrote.output
        assert "reaches scope 'alice' (as agent), but the command names scope 'bob'" in wrote.output
        env_named = CliRunner().invoke(
            main,
            ["--server", server.url, "facts"],
            env={**CLEAN, "DOXA_KEY": AGENT, "DOXA_SCOPE": "bob"},
            catch_exceptions=False,
        )
        assert env_named.exit_code == 2, env_named.output
        named = cli(
            "--server", server.url, "--scope", "alice", "remember", "y", "--topic", "t", key=AGENT
        )
        assert named.exit_code == 0, named.output
        plain = cli("--server", server.url, "facts", key=AGENT)
        assert plain.exit_code == 0, plain.output
        assert [line.split()[-1] for line in plain.stdout.splitlines()[1:]] == ["y"]
    finally:
        stop_server(server)
