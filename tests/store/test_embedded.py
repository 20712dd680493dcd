"""The embedded store: on disk, one writer per directory, scoped datasets, atomic changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Literal, URIRef

import doxa
from doxa.store import Change, Dataset, EmbeddedStore
from doxa.store.base import bind_values

G1, G2 = URIRef("urn:test:g1"), URIRef("urn:test:g2")
S, P = URIRef("urn:test:s"), URIRef("urn:test:p")


def test_facts_survive_reopening(tmp_path: Path, clock: doxa.FixedClock) -> None:
    """A fact written to a directory is there after closing and reopening it."""
    with doxa.Memory.open(tmp_path / "mem", scope="alice", clock=clock) as mem:
        fact = mem.remember("Alice prefers tea", topic="drinks", authority="owner").fact
    with doxa.Memory.open(tmp_path / "mem", scope="alice", clock=clock) as mem:
        assert [f.id for f in mem.facts()] == [fact]
        assert mem.verify() == 1


def test_second_process_gets_a_clear_error(tmp_path: Path) -> None:
    """A second process opening the same directory gets StoreLocked, not a traceback."""
    path = tmp_path / "mem"
    store = EmbeddedStore(path)
    code = (
        "import doxa\n"
        "try:\n"
        f"    doxa.Memory.open({str(path)!r}, scope='alice')\n"
        "except doxa.StoreLocked as e:\n"
        "    print('LOCKED', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("LOCKED The store at ")
    assert "already open for writing in another process" in out.stdout
    store.close()
    del store
    # control: once the first process lets go, the directory opens
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import doxa; doxa.Memory.open({str(path)!r}, scope='a'); print('OK')",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "OK"


def test_dataset_restricts_default_and_named_graphs() -> None:
    """A query sees only its dataset's graphs, whatever FROM / FROM NAMED / GRAPH ask for."""
    store = EmbeddedStore()
    store.apply(Change(insert=[(S, P, Literal("one"), G1), (S, P, Literal("two"), G2)]))
    only_g1 = Dataset(default=(G1,), named=(G1,))
    queries = [
        "SELECT ?o WHERE { ?s ?p ?o }",
        "SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } }",
        "SELECT ?o FROM <urn:test:g2> WHERE { ?s ?p ?o }",
        "SELECT ?o FROM NAMED <urn:test:g2> WHERE { GRAPH ?g { ?s ?p ?o } }",
        "SELECT ?o WHERE { GRAPH <urn:test:g2> { ?s ?p ?o } }",
    ]
    for sparql in queries:
        values = {str(row["o"]) for row in store.select(sparql, dataset=only_g1)}
        assert "two" not in values, sparql
    assert {str(r["o"]) for r in store.select(queries[0], dataset=only_g1)} == {"one"}


def test_change_with_a_bad_term_applies_nothing() -> None:
    """A change holding an invalid IRI applies none of its quads; a good one applies all."""
    store = EmbeddedStore()
    everything = Dataset(default=(G1,))
    bad = Change(delete=[(S, P, Literal("x"), G1)], insert=[(S, P, Literal("y"), G1)])
    bad.delete.append((S, P, Literal("z"), URIRef("not an iri")))
    with pytest.raises(doxa.InvalidInput, match="not valid RDF"):
        store.apply(bad)
    assert store.select("SELECT * WHERE { ?s ?p ?o }", dataset=everything) == []
    store.apply(Change(insert=[(S, P, Literal("y"), G1)]))
    assert len(store.select("SELECT * WHERE { ?s ?p ?o }", dataset=everything)) == 1


def test_bind_values_forms() -> None:
    """Single values, UNDEF and lists become VALUES blocks at the top of WHERE."""
    text = bind_values(
        "SELECT ?s WHERE { ?s ?p ?o }", {"p": None, "o": [Literal("a"), Literal("b")]}
    )
    assert text == 'SELECT ?s WHERE { VALUES (?p) { (UNDEF) } VALUES ?o { "a" "b" } ?s ?p ?o }'


def test_bad_rdf_is_a_clear_error_and_loads_nothing() -> None:
    """Malformed Turtle raises InvalidInput with the parser's position; good Turtle loads."""
    store = EmbeddedStore()
    with pytest.raises(doxa.InvalidInput, match="The RDF data could not be parsed"):
        store.load(b"<urn:a> <urn:b> .", format="turtle", graph=G1)
    assert store.load(b"<urn:a> <urn:b> <urn:c> .", format="turtle", graph=G1) == 1
    with pytest.raises(doxa.InvalidInput, match="'yaml' is not a known RDF format"):
        store.load(b"", format="yaml", graph=G1)


@pytest.mark.parametrize("fmt", ["nquads", "trig"])
def test_loading_quads_into_a_graph_is_refused(clock: doxa.FixedClock, fmt: str) -> None:
    """An 'ontology' in N-Quads/TriG cannot plant claims in another scope; Turtle loads (control)."""
    store = EmbeddedStore()
    alice = doxa.Memory(store, scope="alice", clock=clock)
    bob = doxa.Memory(store, scope="bob", clock=clock)
    evil = (
        b'<urn:doxa:scope:bob/fact/evil> <https://w3id.org/doxa#text> "bob owes alice" '
        b"<urn:doxa:scope:bob/topic/t> .\n"
    )
    if fmt == "trig":
        evil = b'<urn:doxa:scope:bob/topic/t> { <urn:doxa:scope:bob/fact/evil> <https://w3id.org/doxa#text> "bob owes alice" . }\n'
    with pytest.raises(doxa.InvalidInput, match="names its own graphs"):
        alice.add_ontology(evil, format=fmt)
    assert bob.sparql("ASK { ?s ?p ?o }").boolean is False
    added = alice.add_ontology(
        b"<http://ex.org/p> a <http://www.w3.org/2002/07/owl#FunctionalProperty> ."
    )
    assert added == 1
