"""Every backend keeps the store's contract: scoped datasets, atomic and conditional changes,
the same terms back as the embedded store, and clear errors.

Runs on the embedded store, the Oxigraph server and Virtuoso 7 (see tests/conftest.py).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import XSD
from tests.servers import Server

import doxa
from doxa.store import Change, Dataset, EmbeddedStore, RemoteStore, Store
from doxa.store.base import bind_values

G1, G2 = URIRef("urn:test:g1"), URIRef("urn:test:g2")
S, P = URIRef("urn:test:s"), URIRef("urn:test:p")
EVERYTHING = Dataset(default=(G1, G2), named=(G1, G2))

SCOPE_ESCAPES = {
    "default graph": "SELECT ?o WHERE { ?s ?p ?o }",
    "any named graph": "SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } }",
    "FROM": "SELECT ?o FROM <urn:test:g2> WHERE { ?s ?p ?o }",
    "FROM NAMED": "SELECT ?o FROM NAMED <urn:test:g2> WHERE { GRAPH ?g { ?s ?p ?o } }",
    "GRAPH <iri>": "SELECT ?o WHERE { GRAPH <urn:test:g2> { ?s ?p ?o } }",
}


def _values(store: Store, sparql: str, dataset: Dataset) -> set[str]:
    return {str(row["o"]) for row in store.select(sparql, dataset=dataset)}


@pytest.mark.parametrize("sparql", SCOPE_ESCAPES.values(), ids=SCOPE_ESCAPES.keys())
def test_dataset_restricts_default_and_named_graphs(store: Store, sparql: str) -> None:
    """A query sees only its dataset's graphs, whatever FROM / FROM NAMED / GRAPH ask for."""
    store.apply(Change(insert=[(S, P, Literal("one"), G1), (S, P, Literal("two"), G2)]))
    only_g1 = Dataset(default=(G1,), named=(G1,))
    assert "two" not in _values(store, sparql, only_g1)
    # control: the same query over both graphs sees the second one
    if "<urn:test:g2>" in sparql or "GRAPH ?g" in sparql:
        assert "two" in _values(store, sparql, EVERYTHING)
    assert _values(store, SCOPE_ESCAPES["default graph"], only_g1) == {"one"}


def test_empty_default_graph_is_empty(store: Store) -> None:
    """A dataset with no default graph sees no triples outside GRAPH, not the whole store."""
    store.apply(Change(insert=[(S, P, Literal("one"), G1)]))
    named_only = Dataset(default=(), named=(G1,))
    assert store.select("SELECT ?o WHERE { ?s ?p ?o }", dataset=named_only) == []
    rows = store.select("SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } }", dataset=named_only)
    assert [str(r["o"]) for r in rows] == ["one"]


# Which servers honour the Protocol's default-graph-uri / named-graph-uri over a query's own
# dataset clauses: that is why the remote store also writes the dataset into the text.
PROTOCOL_LEAKS = {"oxigraph": set(), "virtuoso": {"FROM", "FROM NAMED"}}


@pytest.mark.parametrize("name", sorted(PROTOCOL_LEAKS))
def test_which_servers_honour_the_protocol_dataset(
    name: str, request: pytest.FixtureRequest
) -> None:
    """Oxigraph lets the Protocol parameters win; Virtuoso 7 adds the query's FROM graphs."""
    server = request.getfixturevalue(name)
    assert isinstance(server, Server)
    server.clear()
    rewriting = server.store()
    protocol = RemoteStore(server.query_url, server.update_url, restriction="protocol")
    rewriting.apply(Change(insert=[(S, P, Literal("one"), G1), (S, P, Literal("two"), G2)]))
    only_g1 = Dataset(default=(G1,), named=(G1,))
    leaks = {k for k, q in SCOPE_ESCAPES.items() if "two" in _values(protocol, q, only_g1)}
    assert leaks == PROTOCOL_LEAKS[name]
    # the store's own mode (rewrite and protocol) never leaks, on the same server
    assert not any("two" in _values(rewriting, q, only_g1) for q in SCOPE_ESCAPES.values())
    protocol.close()
    rewriting.close()


def test_change_with_a_bad_term_applies_nothing(store: Store) -> None:
    """A change holding an invalid IRI applies none of its quads; a good one applies all."""
    bad = Change(delete=[(S, P, Literal("x"), G1)], insert=[(S, P, Literal("y"), G1)])
    bad.delete.append((S, P, Literal("z"), URIRef("not an iri")))
    with pytest.raises(doxa.InvalidInput, match="not valid RDF"):
        store.apply(bad)
    assert store.select("SELECT * WHERE { ?s ?p ?o }", dataset=EVERYTHING) == []
    store.apply(Change(insert=[(S, P, Literal("y"), G1)]))
    assert len(store.select("SELECT * WHERE { ?s ?p ?o }", dataset=EVERYTHING)) == 1


def test_a_claimed_slot_refuses_the_second_change(store: Store) -> None:
    """Two changes claiming one slot: the first applies, the second raises and applies nothing."""
    slot = URIRef("urn:test:slot:1")
    store.apply(Change(insert=[(S, P, Literal("first"), G1)], slot=slot))
    second = Change(
        delete=[(S, P, Literal("first"), G1)], insert=[(S, P, Literal("second"), G1)], slot=slot
    )
    with pytest.raises(doxa.WriteConflict, match="published to this scope first"):
        store.apply(second)
    assert _values(store, "SELECT ?o WHERE { ?s ?p ?o }", EVERYTHING) == {"first"}
    # control: the next slot is free
    second.slot = URIRef("urn:test:slot:2")
    store.apply(second)
    assert _values(store, "SELECT ?o WHERE { ?s ?p ?o }", EVERYTHING) == {"second"}


def test_deletions_and_insertions_apply_together(store: Store) -> None:
    """One change deletes and inserts in the same step; deleting what is absent is harmless."""
    store.apply(Change(insert=[(S, P, Literal("old"), G1)]))
    store.apply(
        Change(
            delete=[(S, P, Literal("old"), G1), (S, P, Literal("never there"), G2)],
            insert=[(S, P, Literal("new"), G1), (S, P, Literal("also"), G2)],
        )
    )
    assert _values(store, "SELECT ?o WHERE { ?s ?p ?o }", EVERYTHING) == {"new", "also"}


def test_bind_values_forms() -> None:
    """Single values, UNDEF and lists become VALUES blocks at the top of WHERE."""
    text = bind_values(
        "SELECT ?s WHERE { ?s ?p ?o }", {"p": None, "o": [Literal("a"), Literal("b")]}
    )
    assert text == 'SELECT ?s WHERE { VALUES (?p) { (UNDEF) } VALUES ?o { "a" "b" } ?s ?p ?o }'


def test_bad_rdf_is_a_clear_error_and_loads_nothing(store: Store) -> None:
    """Malformed Turtle raises InvalidInput; good Turtle loads and counts its triples."""
    with pytest.raises(doxa.InvalidInput, match="The RDF data could not be parsed"):
        store.load(b"<urn:a> <urn:b> .", format="turtle", graph=G1)
    assert store.load(b"<urn:a> <urn:b> <urn:c> .", format="turtle", graph=G1) == 1
    with pytest.raises(doxa.InvalidInput, match="'yaml' is not a known RDF format"):
        store.load(b"", format="yaml", graph=G1)


@pytest.mark.parametrize("fmt", ["nquads", "trig"])
def test_loading_quads_into_a_graph_is_refused(
    store: Store, clock: doxa.FixedClock, fmt: str
) -> None:
    """An 'ontology' in N-Quads/TriG cannot plant claims in another scope; Turtle loads (control)."""
    alice = doxa.Memory(store, scope="alice", clock=clock)
    bob = doxa.Memory(store, scope="bob", clock=clock)
    evil = (
        b'<urn:doxa:scope:bob/fact/evil> <https://w3id.org/doxa#text> "bob owes alice" '
        b"<urn:doxa:scope:bob/topic/t> .\n"
    )
    if fmt == "trig":
        evil = b'<urn:doxa:scope:bob/topic/t> { <urn:doxa:scope:bob/fact/evil> <https://w3id.org/doxa#text> "bob owes alice" . }\n'
    with pytest.raises(doxa.InvalidInput, match="names its own graphs"):
        alice.schema.add_ontology(evil, format=fmt)
    assert bob.rdf.sparql("ASK { ?s ?p ?o }").boolean is False
    added = alice.schema.add_ontology(
        b"<http://ex.org/p> a <http://www.w3.org/2002/07/owl#FunctionalProperty> ."
    )
    assert added == 1


LITERALS = [
    Literal("plain"),
    Literal('say "hi"\nand \\ go, é 中文 🙂'),
    Literal("hello", lang="en"),
    Literal("abc", datatype=XSD.string),
    Literal("true", datatype=XSD.boolean),
    Literal("false", datatype=XSD.boolean),
    Literal("1.5E0", datatype=XSD.double),
    Literal("0.50", datatype=XSD.decimal),
    Literal("1971", datatype=XSD.integer),
    Literal("-7", datatype=XSD.integer),
    Literal("1971", datatype=XSD.gYear),
    Literal("2026-03-01T09:00:00Z", datatype=XSD.dateTime),
    Literal("2026-03-01T09:00:00.250+00:00", datatype=XSD.dateTime),
    Literal("2026-03-01", datatype=XSD.date),
    Literal("0.75", datatype=XSD.decimal),
]


def _round_trip(store: Store, terms: list[Literal]) -> dict[int, object]:
    change = Change(insert=[(S, URIRef(f"urn:test:p{i}"), t, G1) for i, t in enumerate(terms)])
    store.apply(change)
    rows = store.select("SELECT ?p ?o WHERE { ?s ?p ?o }", dataset=Dataset(default=(G1,)))
    store.clear_graph(G1)
    return {int(str(r["p"]).rsplit("p", 1)[1]): r["o"] for r in rows}


def test_terms_come_back_as_the_embedded_store_returns_them(store: Store) -> None:
    """Literals of every kind doxa writes read back exactly as from the embedded store."""
    expected = _round_trip(EmbeddedStore(), LITERALS)
    found = _round_trip(store, LITERALS)
    for index, term in enumerate(LITERALS):
        assert (found[index], type(found[index])) == (expected[index], type(expected[index])), term
        assert found[index].n3() == expected[index].n3(), term  # type: ignore[attr-defined]


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.text(
            st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=30
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_text_round_trips(store: Store, texts: list[str]) -> None:
    """Any text written as a literal reads back unchanged (Virtuoso and Oxigraph alike)."""
    terms = [Literal(t) for t in texts]
    found = _round_trip(store, terms)
    assert [str(found[i]) for i in range(len(terms))] == texts


def test_results_longer_than_the_servers_row_cap_come_back_whole(store: Store) -> None:
    """10,050 rows come back whole, although Virtuoso sends at most 10,000 per answer."""
    count = 10_050
    store.apply(
        Change(insert=[(URIRef(f"urn:test:n{i}"), P, Literal(i), G1) for i in range(count)])
    )
    dataset = Dataset(default=(G1,))
    try:
        rows = store.column("SELECT ?s WHERE { ?s ?p ?o }", "s", dataset=dataset)
        assert len(rows) == count
        assert len(set(rows)) == count
        # control: a query that asks for fewer gets fewer
        limited = store.column("SELECT ?s WHERE { ?s ?p ?o } LIMIT 10", "s", dataset=dataset)
        assert len(limited) == 10
    finally:
        # dropped here: after the paged reads, Virtuoso took 16 to 19 s (more than 30 under
        # three test processes: the next test's setup timed out) to list the graphs while
        # these 10,050 quads stayed; dropped, the listing takes 0.07 s
        store.clear_graph(G1)


def test_graphs_quads_and_clear(store: Store) -> None:
    """Graphs list what holds quads; quads come back per graph; clearing empties one graph."""
    store.apply(Change(insert=[(S, P, Literal("one"), G1), (S, P, URIRef("urn:test:o"), G2)]))
    assert {G1, G2} <= set(store.graphs())
    assert list(store.quads(G2)) == [(S, P, URIRef("urn:test:o"), G2)]
    store.clear_graph(G1)
    assert list(store.quads(G1)) == []
    assert G1 not in store.graphs()
    assert G2 in store.graphs()  # control: the other graph stays


def test_hand_written_query_forms(store: Store) -> None:
    """run() answers SELECT, ASK and CONSTRUCT inside the dataset."""
    store.apply(Change(insert=[(S, P, Literal("one"), G1), (S, P, Literal("two"), G2)]))
    only_g1 = Dataset(default=(G1,), named=(G1,))
    selected = store.run("SELECT ?o WHERE { ?s ?p ?o }", dataset=only_g1)
    assert (selected.form, selected.variables, selected.rows) == (
        "select",
        ("o",),
        ((Literal("one"),),),
    )
    assert store.run("ASK { ?s ?p 'one' }", dataset=only_g1).boolean is True
    assert store.run("ASK { ?s ?p 'two' }", dataset=only_g1).boolean is False
    built = store.run("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", dataset=only_g1)
    assert (built.form, built.triples) == ("construct", ((S, P, Literal("one")),))


def test_blank_nodes_in_an_ontology_load(store: Store) -> None:
    """An ontology with blank nodes (owl:unionOf lists) loads on every backend."""
    data = b"""@prefix owl: <http://www.w3.org/2002/07/owl#> .
    <http://ex.org/A> owl:unionOf ( <http://ex.org/B> <http://ex.org/C> ) ."""
    assert store.load(data, format="turtle", graph=G1) == 5
    objects = [o for _, _, o, _ in store.quads(G1)]
    assert len(objects) == 5
    assert not any(isinstance(o, BNode) and not str(o) for o in objects)


def test_unreachable_server_is_a_clear_error() -> None:
    """A server that does not answer raises StoreError saying what to check."""
    store = RemoteStore("http://127.0.0.1:9/query", timeout=2)
    with pytest.raises(doxa.StoreError, match=r"could not be reached.*check that it is running"):
        store.ask("ASK { ?s ?p ?o }", dataset=Dataset(default=(G1,)))
    store.close()
    with pytest.raises(doxa.InvalidInput, match="is not an HTTP"):
        RemoteStore("file:///etc/passwd")


def test_referrers_find_subjects_by_iri_or_literal_object(store: Store) -> None:
    """Referrers find the subjects of an IRI or a literal object in one graph only; objects
    nobody refers to (and other graphs' triples) are left out."""
    other = URIRef("urn:test:other")
    store.apply(
        Change(
            insert=[
                (S, P, Literal("@key"), G1),
                (other, P, Literal("@key"), G1),
                (S, P, URIRef("urn:test:o"), G1),
                (S, P, Literal("~@key"), G2),  # another graph: not found in G1
            ]
        )
    )
    found = store.referrers(P, [Literal("@key"), URIRef("urn:test:o"), Literal("~@key")], G1)
    assert {k: sorted(v) for k, v in found.items()} == {
        "@key": sorted([str(S), str(other)]),
        "urn:test:o": [str(S)],
    }
    assert store.referrers(P, [Literal("~@key")], G2) == {"~@key": [str(S)]}  # control
    assert store.referrers(P, [], G1) == {}
