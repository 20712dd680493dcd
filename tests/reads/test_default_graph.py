"""The default graph of a scope holds each statement once (the integrity review).

``doxa:topic`` and ``doxa:recordedAt`` sit in a claim's topic graph and again in the word
index ``<scope>/search``; the default graph is the union of its graphs with duplicates kept,
so ``SELECT ?f ?t ?topic WHERE { ?f doxa:text ?t ; doxa:topic ?topic }`` returned every fact
twice. The index is now a named graph only. Each count below is held against the facts, and
the control beside it names the index in the dataset and sees the duplicates come back.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import URIRef

import doxa
from doxa.vocabulary import DOXA

EX = "http://example.org/"
PREFIX = "PREFIX doxa: <https://w3id.org/doxa#> "
TEXT_AND_TOPIC = PREFIX + "SELECT ?f ?t ?topic WHERE { ?f doxa:text ?t ; doxa:topic ?topic }"
EVERY = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
DISTINCT = "SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?s ?p ?o WHERE { ?s ?p ?o } }"


def count(memory: doxa.Memory, query: str, **dataset: list[str]) -> int:
    rows = memory.rdf.sparql(query, **dataset).rows  # type: ignore[arg-type]
    return int(rows[0][0])


def stored_claims(memory: doxa.Memory) -> int:
    """Every claim of the topic graphs, live or ended, as the memory itself lists them."""
    return len(memory.facts(include_ended=True))


@pytest.fixture
def memory() -> Iterator[doxa.Memory]:
    with doxa.Memory.open(None, scope="alice") as mem:
        mem.remember(
            "The weekly supplier call is on Wednesday",
            topic="meetings",
            subject=EX + "call",
            predicate=EX + "day",
            object=URIRef(EX + "Wednesday"),
            authority="owner",
        )
        moved = mem.remember(
            "The weekly supplier call is on Thursday",
            topic="meetings",
            subject=EX + "call",
            predicate=EX + "day",
            object=URIRef(EX + "Thursday"),
            authority="owner",
        )
        if moved.held is not None:
            mem.owner.approve(moved.held, as_relation=doxa.Relation.REPLACES)
        mem.remember("Bob prefers aisle seats", topic="travel")
        mem.remember("Carol's phone is 555-0101", topic="people")
        yield mem


def test_a_fact_is_one_row_of_text_and_topic(memory: doxa.Memory) -> None:
    """The review's query returns one row per claim (the superseded one included)."""
    rows = memory.rdf.sparql(TEXT_AND_TOPIC).rows
    assert len(rows) == stored_claims(memory) == 4
    assert len({tuple(row) for row in rows}) == len(rows)


def test_the_default_graph_holds_each_statement_once(memory: doxa.Memory) -> None:
    """Every triple pattern of the default graph: as many rows as distinct statements.
    Control: with the word index named into the default graph, the duplicates return."""
    assert count(memory, EVERY) == count(memory, DISTINCT)
    graphs = [str(memory.scope.search), str(memory.scope.topic("meetings"))]
    assert count(memory, EVERY, default_graphs=graphs) > count(
        memory, DISTINCT, default_graphs=graphs
    )


def test_the_word_index_stays_readable_as_a_named_graph(memory: doxa.Memory) -> None:
    """Recall's index is still there for whoever asks for it by name."""
    rows = memory.rdf.sparql(
        PREFIX + f"SELECT ?f WHERE {{ GRAPH <{memory.scope.search}> {{ ?f doxa:topic ?t }} }}"
    ).rows
    assert len(rows) == stored_claims(memory)
    assert memory.recall("aisle seats")  # recall reads the index as before


def test_the_rdflib_view_counts_each_fact_once(memory: doxa.Memory) -> None:
    """``memory.rdf.dataset()`` (its default graph the same union) agrees."""
    view = memory.rdf.dataset()
    assert len(list(view.triples((None, DOXA.topic, None)))) == stored_claims(memory)


@settings(max_examples=12, deadline=None)
@given(
    notes=st.lists(
        st.tuples(st.sampled_from(["tea", "coffee", "juice"]), st.sampled_from(["a", "b"])),
        min_size=1,
        max_size=6,
    )
)
def test_no_sequence_of_writes_makes_a_duplicate_row(notes: list[tuple[str, str]]) -> None:
    """Whatever was written (merged, admitted, held), the default graph has no duplicate
    statement and the review's query one row per stored claim."""
    with doxa.Memory.open(None, scope="alice") as mem:
        for drink, topic in notes:
            mem.remember(f"Alice drinks {drink}", topic=topic)
        assert count(mem, EVERY) == count(mem, DISTINCT)
        assert len(mem.rdf.sparql(TEXT_AND_TOPIC).rows) == stored_claims(mem)
