"""Scope isolation: two people's memories in one store never see each other.

Runs on every backend, so a SPARQL server is held to the same promise as the embedded store.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import DOMAIN, EX

import doxa
from doxa.store import Store

ESCAPES = [
    "SELECT ?t WHERE { ?c <https://w3id.org/doxa#text> ?t }",
    "SELECT ?t WHERE { GRAPH ?g { ?c <https://w3id.org/doxa#text> ?t } }",
    "SELECT ?t FROM <urn:doxa:scope:bob/topic/drinks> WHERE { ?c <https://w3id.org/doxa#text> ?t }",
    "SELECT ?t FROM NAMED <urn:doxa:scope:bob/topic/drinks> WHERE { GRAPH ?g { ?c ?p ?t } }",
    "SELECT ?t WHERE { GRAPH <urn:doxa:scope:bob/topic/drinks> { ?c ?p ?t } }",
]


@pytest.fixture
def pair(store: Store, clock: doxa.FixedClock) -> tuple[doxa.Memory, doxa.Memory]:
    alice = doxa.Memory(store, scope="alice", clock=clock)
    bob = doxa.Memory(store, scope="bob", clock=clock)
    alice.schema.add_ontology(DOMAIN)
    return alice, bob


def test_reads_stay_in_their_scope(pair: tuple[doxa.Memory, doxa.Memory]) -> None:
    """facts, recall, held and receipts show each scope only its own writes."""
    alice, bob = pair
    tea = alice.remember("Alice prefers green tea", topic="drinks", authority="owner")
    coffee = bob.remember("Bob prefers black coffee", topic="drinks", authority="owner")
    held = bob.remember(
        "Bob was born in 1971",
        topic="family",
        subject=EX + "bob",
        predicate=EX + "birthYear",
        object=1971,
        authority="agent",
    )
    bob.remember(
        "Bob was born in 1977",
        topic="family",
        subject=EX + "bob",
        predicate=EX + "birthYear",
        object=1977,
        authority="owner",
    )
    assert [f.id for f in alice.facts()] == [tea.fact]
    assert coffee.fact in [f.id for f in bob.facts()]
    assert [f.id for f in alice.recall("prefers")] == [tea.fact]
    assert [f.id for f in bob.recall("coffee")] == [coffee.fact]
    assert alice.recall("coffee") == []
    assert alice.held() == []
    assert len(bob.held()) == 1  # control: bob's correction waits for bob
    assert held.fact not in [f.id for f in alice.facts(include_ended=True)]
    assert (alice.verify(), bob.verify()) == (1, 3)
    with pytest.raises(doxa.NotFound, match="in scope 'alice'"):
        alice.get(coffee.fact)
    assert bob.get(coffee.fact).text == "Bob prefers black coffee"


@pytest.mark.parametrize("sparql", ESCAPES)
def test_hand_written_sparql_cannot_reach_another_scope(
    pair: tuple[doxa.Memory, doxa.Memory], sparql: str
) -> None:
    """FROM, FROM NAMED and GRAPH naming bob's graphs find nothing of bob's from alice."""
    alice, bob = pair
    alice.remember("marker-alpha", topic="drinks")
    bob.remember("marker-bravo", topic="drinks")
    seen = {str(v) for row in alice.rdf.sparql(sparql).rows for v in row}
    assert "marker-bravo" not in seen
    mine = {str(v) for row in bob.rdf.sparql(sparql).rows for v in row}
    if "GRAPH <" in sparql or "FROM" in sparql:
        assert "marker-bravo" in mine  # control: the same text finds it in bob's own scope


def test_export_holds_one_scope(pair: tuple[doxa.Memory, doxa.Memory], tmp_path: Path) -> None:
    """An export of alice holds alice's graphs only, and verifies on its own."""
    alice, bob = pair
    alice.remember("Alice prefers tea", topic="drinks")
    bob.remember("Bob prefers coffee", topic="drinks")
    target = tmp_path / "alice.nq"
    assert alice.admin.export(target) > 0
    text = target.read_text(encoding="utf-8")
    assert "urn:doxa:scope:alice/" in text
    assert "urn:doxa:scope:bob" not in text
    assert "Bob prefers coffee" not in text
