"""Reads: filters, recall ranking, history, why, and hand-written SPARQL held in its scope."""

from __future__ import annotations

import pytest
from tests.conftest import EX, statement

import doxa


def test_facts_filters_by_topic_subject_and_predicate(memory: doxa.Memory) -> None:
    """Each filter keeps its matches and drops the rest; no filter returns all (control)."""
    tea = statement(memory, "Bob likes tea", "bob", "likes", EX + "tea", topic="drinks")
    lyon = statement(memory, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", topic="places")
    ann = statement(memory, "Ann likes jam", "ann", "likes", EX + "jam", topic="food")
    assert {f.id for f in memory.facts()} == {tea.fact, lyon.fact, ann.fact}
    assert [f.id for f in memory.facts(topic="drinks")] == [tea.fact]
    assert {f.id for f in memory.facts(subject=EX + "bob")} == {tea.fact, lyon.fact}
    assert {f.id for f in memory.facts(predicate=EX + "likes")} == {tea.fact, ann.fact}
    assert [f.id for f in memory.facts(subject=EX + "bob", predicate=EX + "likes")] == [tea.fact]
    assert memory.facts(topic="nothing-here") == []


def test_valid_time_bounds_are_respected(memory: doxa.Memory) -> None:
    """A fact is true from validFrom up to (not including) validUntil."""
    stay = memory.remember(
        "Bob stays in Rome", topic="travel", valid_from="2026-05-01", valid_until="2026-05-10"
    )
    assert memory.facts(valid_at="2026-04-30") == []
    assert [f.id for f in memory.facts(valid_at="2026-05-01")] == [stay.fact]
    assert [f.id for f in memory.facts(valid_at="2026-05-09T23:59:59Z")] == [stay.fact]
    assert memory.facts(valid_at="2026-05-10") == []


def test_belief_time_hides_later_records(memory: doxa.Memory, clock: doxa.FixedClock) -> None:
    """as_of before a fact was recorded does not see it; as_of after does (control)."""
    clock.set("2026-03-05T12:00:00Z")
    fact = memory.remember("Alice prefers tea", topic="drinks")
    assert memory.facts(as_of="2026-03-04") == []
    assert memory.facts(as_of="2026-03-05T11:59:59Z") == []
    assert [f.id for f in memory.facts(as_of="2026-03-05")] == [fact.fact]


def test_recall_ranks_by_matched_words(memory: doxa.Memory) -> None:
    """The fact matching more query words ranks first; unrelated facts are absent."""
    both = memory.remember("The supplier call is on Thursday", topic="meetings")
    one = memory.remember("Call the dentist on Monday", topic="health")
    memory.remember("Alice prefers tea", topic="drinks")
    results = memory.recall("supplier call")
    assert [f.id for f in results] == [both.fact, one.fact]
    # BM25 over the best a claim of exactly the query's stems would get
    assert [f.score for f in results] == [0.9313, 0.4434]
    assert [f.id for f in memory.recall("supplier call", topic="health")] == [one.fact]
    assert memory.recall("the of and") == []
    assert memory.recall("giraffe") == []


def test_recall_hides_ended_facts_unless_asked(memory: doxa.Memory) -> None:
    """A retracted fact leaves recall; include_ended brings it back with its status."""
    fact = memory.remember("Bob owns a red bicycle", topic="things")
    memory.owner.retract(fact.fact, reason="it was Carl's")
    assert memory.recall("bicycle") == []
    [ended] = memory.recall("bicycle", include_ended=True)
    assert (ended.id, ended.status) == (fact.fact, doxa.FactStatus.RETRACTED)


def test_recall_limit_is_checked(memory: doxa.Memory) -> None:
    """A limit outside 1..500 is refused; a valid limit caps the results (control)."""
    for i in range(3):
        memory.remember(f"Note number {i} about gardening", topic="notes")
    with pytest.raises(doxa.InvalidInput, match="limit 0 is out of range"):
        memory.recall("gardening", limit=0)
    assert len(memory.recall("gardening", limit=2)) == 2


def test_absent_support_is_flagged_for_rerun(memory: doxa.Memory) -> None:
    """An empty search result is stored with its query and marked 're-run before trusting'."""
    absent = memory.remember(
        "No dentist appointment found in March",
        topic="health",
        authority="tool",
        support="absent",
        query="calendar search: dentist, March 2026",
    )
    fact = memory.get(absent.fact)
    assert fact.needs_rerun
    assert fact.query == "calendar search: dentist, March 2026"
    stated = memory.remember("Dentist on 3 April", topic="health", authority="owner")
    assert not memory.get(stated.fact).needs_rerun


def test_why_names_sources_and_the_admitting_receipt(memory: doxa.Memory) -> None:
    """why() returns the sources, attribution and the receipt that admitted the fact."""
    r = memory.remember(
        "Prices rise in May",
        topic="news",
        authority="external",
        sources=["https://news.example.com/a"],
        attributed_to="https://news.example.com/",
    )
    answer = memory.why(r.fact)
    assert answer.sources == (doxa.IRI("https://news.example.com/a"),)
    assert answer.attributed_to == doxa.IRI("https://news.example.com/")
    assert answer.receipt is not None
    assert answer.receipt.id == r.id
    assert answer.fact.standpoint == doxa.IRI("https://news.example.com/a")
    assert answer.fact.support is doxa.Support.QUOTED
    with pytest.raises(doxa.NotFound, match="There is no fact 'nope' in scope 'alice'"):
        memory.why("nope")


def test_sparql_sees_only_its_scope(clock: doxa.FixedClock) -> None:
    """Hand-written SPARQL as scope A never reaches scope B's marker, but finds A's own."""
    store = doxa.Memory.open(None, scope="a", clock=clock).store
    a = doxa.Memory(store, scope="a", clock=clock)
    b = doxa.Memory(store, scope="b", clock=clock)
    a.remember("marker-alpha", topic="t")
    b.remember("marker-bravo", topic="t")
    queries = [
        "SELECT ?t WHERE { ?c <https://w3id.org/doxa#text> ?t }",
        "SELECT ?t WHERE { GRAPH ?g { ?c <https://w3id.org/doxa#text> ?t } }",
        "SELECT ?t FROM <urn:doxa:scope:b/topic/t> WHERE { ?c <https://w3id.org/doxa#text> ?t }",
        "SELECT * FROM NAMED <urn:doxa:scope:b/topic/t> WHERE { GRAPH ?g { ?c ?p ?t } }",
        "SELECT ?t WHERE { GRAPH <urn:doxa:scope:b/topic/t> { ?c ?p ?t } }",
    ]
    for sparql in queries:
        values = {str(v) for row in a.rdf.sparql(sparql).rows for v in row}
        assert "marker-bravo" not in values, sparql
    found = {str(v) for row in a.rdf.sparql(queries[0]).rows for v in row}
    assert "marker-alpha" in found


@pytest.mark.parametrize(
    ("sparql", "message"),
    [
        (
            "SELECT * WHERE { SERVICE <http://evil.example/sparql> { ?s ?p ?o } }",
            "SERVICE is not allowed",
        ),
        ("INSERT DATA { <urn:a> <urn:b> <urn:c> }", "This is a SPARQL update"),
        ("LOAD <http://evil.example/data.ttl>", "This is a SPARQL update"),
        ("DROP ALL", "This is a SPARQL update"),
    ],
    ids=["service", "insert", "load", "drop"],
)
def test_sparql_refuses_network_and_updates(memory: doxa.Memory, sparql: str, message: str) -> None:
    """SERVICE and updates are refused; the word 'service' inside a string is fine (control)."""
    with pytest.raises(doxa.ScopeViolation, match=message):
        memory.rdf.sparql(sparql)
    result = memory.rdf.sparql('SELECT ?x WHERE { BIND("SERVICE and INSERT" AS ?x) }')
    assert [str(v) for v in result.rows[0]] == ["SERVICE and INSERT"]


def test_sparql_syntax_error_is_invalid_input(memory: doxa.Memory) -> None:
    """A malformed query raises InvalidInput; ASK and CONSTRUCT forms work (control)."""
    with pytest.raises(doxa.InvalidInput, match="The SPARQL query is not valid"):
        memory.rdf.sparql("SELECT WHERE {")
    memory.remember("Alice prefers tea", topic="drinks")
    assert memory.rdf.sparql("ASK { ?s ?p ?o }").boolean is True
    assert memory.rdf.sparql("CONSTRUCT WHERE { ?s <https://w3id.org/doxa#text> ?o }").triples


def test_export_to_a_missing_folder_is_a_store_error(memory: doxa.Memory, tmp_path: object) -> None:
    """Exporting into a folder that does not exist says so; an existing folder works (control)."""
    from pathlib import Path

    memory.remember("Alice prefers tea", topic="drinks")
    with pytest.raises(doxa.StoreError, match="check that the folder exists"):
        memory.admin.export(Path(str(tmp_path)) / "missing" / "out.nq")
    assert memory.admin.export(Path(str(tmp_path)) / "out.nq") > 0


def test_update_words_as_names_are_not_updates(memory: doxa.Memory) -> None:
    """Variables and prefixed names that spell ADD or WITH are fine; a real update is not."""
    result = memory.rdf.sparql(
        "PREFIX ex: <http://ex.org/> SELECT ?add WHERE { BIND(ex:with AS ?add) }"
    )
    assert [str(v) for v in result.rows[0]] == ["http://ex.org/with"]
    with pytest.raises(doxa.ScopeViolation, match="This is a SPARQL update"):
        memory.rdf.sparql("ADD <urn:a> TO <urn:b>")


def test_history_before_the_fact_was_recorded_is_not_found(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Asked as of a day before it was recorded, a fact has no history yet; after, it has."""
    clock.set("2026-03-05T12:00:00Z")
    fact = memory.remember("Alice prefers tea", topic="drinks").fact
    with pytest.raises(doxa.NotFound):
        memory.history(fact, as_of="2026-03-04")
    assert memory.history(fact, as_of="2026-03-05").fact.id == fact


def test_a_superseded_fact_can_still_be_retracted(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """A fact that was replaced may turn out never true; retracting it twice is NotFound."""
    from tests.conftest import statement

    memory.owner.grant("general")
    old = statement(
        memory, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", valid_from="2020-01-01"
    )
    statement(memory, "Bob lives in Paris", "bob", "livesIn", EX + "Paris", valid_from="2026-01-01")
    assert memory.get(old.fact).status is doxa.FactStatus.SUPERSEDED
    memory.owner.retract(old.fact, reason="he never lived in Lyon")
    assert memory.get(old.fact).status is doxa.FactStatus.RETRACTED
    assert [str(f.object) for f in memory.facts(subject=EX + "bob", valid_at="2021-01-01")] == []
    with pytest.raises(doxa.NotFound, match="no unretracted fact"):
        memory.owner.retract(old.fact, reason="again")


def test_facts_of_a_topic_leave_out_other_topics_rules(memory: doxa.Memory) -> None:
    """``facts(topic="shop")`` does not list the owner's rule about meetings; the rule is
    listed for its own topic and with no topic (controls)."""
    rule = memory.remember(
        "Never book meetings before 9", topic="meetings", authority="owner", rule="forbids"
    )
    tea = memory.remember("Tea is cheap", topic="shop")
    assert [f.id for f in memory.facts(topic="shop")] == [tea.fact]
    assert [f.id for f in memory.facts(topic="shop", include_ended=True)] == [tea.fact]
    assert [f.id for f in memory.facts(topic="meetings")] == [rule.fact]
    assert {f.id for f in memory.facts()} == {rule.fact, tea.fact}


def test_history_as_of_before_the_fact_says_when_it_was_recorded(memory: doxa.Memory) -> None:
    """History as of a time before the fact was recorded says it was not recorded yet, and
    when it was (it said "There is no fact"); an unknown id still says so, and as of the
    recording the history is read (controls)."""
    receipt = memory.remember("Bob likes tea", topic="drinks")
    recorded = memory.get(receipt.fact).recorded_at
    with pytest.raises(doxa.NotFound) as caught:
        memory.history(receipt.fact, as_of="2020-01-01T00:00:00Z")
    assert str(caught.value) == (
        f"Fact {receipt.fact!r} was not yet recorded at 2020-01-01T00:00:00+00:00: it was "
        f"recorded at {recorded.isoformat()}; ask as of that time or later."
    )
    with pytest.raises(doxa.NotFound) as caught:
        memory.history("0123456789abcdef0123", as_of="2020-01-01T00:00:00Z")
    assert str(caught.value).startswith("There is no fact '0123456789abcdef0123'")
    assert memory.history(receipt.fact, as_of=recorded).fact.id == receipt.fact
