"""The dataset rewrite: a query's own FROM clauses go, the scope's come in, nothing else moves.

Checked by running the rewritten text on a plain Oxigraph store with no dataset given, so the
rewritten clauses are the only thing that restricts what the query sees.
"""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rdflib import URIRef

from doxa.store.remote.rewrite import EMPTY_GRAPH, query_form, restrict, split_prologue

GRAPHS = [f"urn:test:g{i}" for i in range(4)]


def _store() -> ox.Store:
    store = ox.Store()
    for name in GRAPHS:
        graph = ox.NamedNode(name)
        store.add(ox.Quad(ox.NamedNode("urn:s"), ox.NamedNode("urn:p"), ox.Literal(name), graph))
    return store


STORE = _store()

# every form, with the words FROM and WHERE hidden in strings, IRIs and comments
TEMPLATES = [
    "SELECT ?o WHERE {{ ?s ?p ?o FILTER(?o != {noise}) }}",
    "SELECT ?o FROM <urn:test:g3> WHERE {{ ?s ?p ?o FILTER(?o != {noise}) }}",
    "PREFIX from: <urn:from#> SELECT ?o FROM NAMED <urn:test:g3> {{ GRAPH ?g {{ ?s ?p ?o "
    "FILTER(?o != {noise}) }} }} # FROM <urn:test:g3> {{",
    "SELECT ?o {{ {{ SELECT ?o WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }} }} FILTER(?o != {noise}) }}",
    "SELECT (COUNT(?o) AS ?n) ?o {{ ?s ?p ?o FILTER(?o != {noise}) }} GROUP BY ?o "
    "# WHERE {{ FROM <urn:test:g3>",
]
NOISE = st.sampled_from(
    ['"FROM <urn:test:g3>"', "'WHERE { }'", '"""FROM NAMED\n<urn:test:g3>"""', '"{"', '"}"']
)


@given(
    st.sampled_from(TEMPLATES),
    NOISE,
    st.lists(st.sampled_from(GRAPHS), max_size=3, unique=True),
    st.lists(st.sampled_from(GRAPHS), max_size=3, unique=True),
)
def test_rewritten_queries_see_only_the_given_graphs(
    template: str, noise: str, default: list[str], named: list[str]
) -> None:
    """Whatever the text says, only the given default and named graphs are read."""
    text = restrict(
        template.format(noise=noise), [URIRef(g) for g in default], [URIRef(g) for g in named]
    )
    solutions = STORE.query(text)
    assert isinstance(solutions, ox.QuerySolutions)
    seen = {s["o"].value for s in solutions if s["o"] is not None}
    assert seen <= set(default) | set(named), text
    if "GRAPH ?g" not in template and default:
        assert seen == set(default)  # control: the allowed graphs are all read


@pytest.mark.parametrize(
    ("sparql", "form"),
    [
        ("ASK { ?s ?p ?o }", "ask"),
        ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "construct"),
        ("CONSTRUCT WHERE { ?s ?p ?o }", "construct"),
        ("DESCRIBE <urn:s>", "describe"),
        ("PREFIX ask: <urn:ask#> SELECT * { ?s ask:p ?o }", "select"),
    ],
)
def test_every_form_gets_its_dataset(sparql: str, form: str) -> None:
    """ASK, CONSTRUCT (both forms), DESCRIBE and SELECT take the clauses and still parse."""
    assert query_form(sparql) == form
    text = restrict(sparql, [URIRef(GRAPHS[0])], [])
    assert f"FROM <{GRAPHS[0]}>" in text
    assert f"FROM NAMED <{EMPTY_GRAPH}>" in text
    STORE.query(text)  # parses


@pytest.mark.parametrize("end", ["\r", "\n", "\r\n"], ids=["CR", "LF", "CRLF"])
def test_a_comment_ends_where_the_server_ends_it(end: str) -> None:
    """A comment ends at a CR as at a LF (the SPARQL grammar's rule, and Oxigraph's): the FROM
    after ``# x\\r`` is a clause the server would read, so it is dropped; a FROM inside the
    comment stays a comment (control)."""
    sparql = f"SELECT ?o # x{end}FROM <{GRAPHS[3]}>\nWHERE {{ ?s ?p ?o }}"
    text = restrict(sparql, [URIRef(GRAPHS[0])], [])
    assert f"FROM <{GRAPHS[3]}>" not in text
    solutions = STORE.query(text)
    assert isinstance(solutions, ox.QuerySolutions)
    assert {s["o"].value for s in solutions if s["o"] is not None} == {GRAPHS[0]}
    commented = f"SELECT ?o # x FROM <{GRAPHS[3]}>{end}WHERE {{ ?s ?p ?o }}"
    assert f"# x FROM <{GRAPHS[3]}>" in restrict(commented, [URIRef(GRAPHS[0])], [])


def test_text_that_is_no_query_is_refused() -> None:
    """An update or garbage is not a query; a query is (control)."""
    with pytest.raises(ValueError, match="not a SPARQL query"):
        restrict("INSERT DATA { <urn:a> <urn:b> <urn:c> }", [], [])
    with pytest.raises(ValueError, match="not a SPARQL query"):
        split_prologue("PREFIX a: <urn:a#>")
    assert split_prologue("PREFIX a: <urn:a#> ASK {}") == ("PREFIX a: <urn:a#> ", "ASK {}")
