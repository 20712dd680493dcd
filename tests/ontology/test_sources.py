"""Which file added which ontology triples, and removing one (`doxa ontology list/show/remove`).

Removing a source takes out of the ontology exactly the triples no other source (nor doxa's
own ontology) states, and the closure is rebuilt: it equals the closure of a store that never
had the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from rdflib import OWL, URIRef
from tests.helpers import EX

from doxa import InvalidInput, Memory, NotFound
from doxa.interfaces.cli import main
from doxa.ontology.sources import UNRECORDED
from doxa.vocabulary import CLOSURE_GRAPH, ONTOLOGY_GRAPH

PREFIXES = b"@prefix ex: <http://example.org/> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
INVERSE = PREFIXES + b"ex:meets owl:inverseOf ex:metBy .\n"
FUNCTIONAL = PREFIXES + b"ex:dayOfWeek a owl:FunctionalProperty .\n"


def closure(memory: Memory) -> set[tuple[object, object, object]]:
    """The closure without its skolem nodes (their labels differ from store to store)."""
    return {
        (s, p, o)
        for s, p, o, _ in memory.store.quads(CLOSURE_GRAPH)
        if "closure:node:" not in f"{s}{o}" and p != URIRef("https://w3id.org/doxa#ontologyDigest")
    }


def inferred_inverse(memory: Memory) -> bool:
    """Whether the stored closure holds the inverse statement (rebuilt from the ontology)."""
    return (URIRef(EX + "meets"), OWL.inverseOf, URIRef(EX + "metBy")) in closure(memory)


def test_remove_rebuilds_the_closure_as_if_never_added() -> None:
    with Memory.open(None, scope="alice") as memory, Memory.open(None, scope="alice") as fresh:
        fresh.schema.add_ontology(FUNCTIONAL, name="functional.ttl")
        memory.schema.add_ontology(FUNCTIONAL, name="functional.ttl")
        memory.schema.add_ontology(INVERSE, name="inverse.ttl")
        assert inferred_inverse(memory)  # control: the inference is there while it is loaded
        assert memory.schema.remove_ontology("inverse.ttl") == 1
        assert not inferred_inverse(memory)
        assert closure(memory) == closure(fresh)
        assert [s.name for s in memory.schema.ontology_sources()] == ["functional.ttl"]


def test_the_judge_stops_using_a_removed_property(tmp_path: Path) -> None:
    """A functional property makes a second value a change; without it the predicate is one
    no ontology declares, so the second value is a question for the owner ("replace or
    add?", docs/judge.md), never a replacement."""

    def second_day(memory: Memory) -> str:
        fields = {"topic": "m", "subject": EX + "call", "predicate": EX + "dayOfWeek"}
        memory.remember("Wed", object=EX + "Wednesday", authority="owner", **fields)
        return memory.preview(
            "Thu", object=EX + "Thursday", authority="owner", **fields
        ).relation.value

    with Memory.open(None, scope="a") as memory:
        memory.schema.add_ontology(FUNCTIONAL, name="f")
        assert second_day(memory) != "new"  # control: functional, so Thursday replaces
    with Memory.open(None, scope="a") as memory:
        memory.schema.add_ontology(FUNCTIONAL, name="f")
        memory.schema.remove_ontology("f")
        assert second_day(memory) == "unclear"


def test_a_triple_two_sources_state_stays_until_both_go() -> None:
    with Memory.open(None, scope="a") as memory:
        memory.schema.add_ontology(INVERSE, name="one")
        memory.schema.add_ontology(INVERSE + b"ex:x a owl:Class .\n", name="two")
        assert memory.schema.remove_ontology("one") == 0
        assert inferred_inverse(memory)
        assert memory.schema.remove_ontology("two") == 2
        assert not inferred_inverse(memory)


def test_doxa_own_triples_are_never_removed() -> None:
    own = b"@prefix doxa: <https://w3id.org/doxa#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\ndoxa:Claim a owl:Class .\n"
    with Memory.open(None, scope="a") as memory:
        before = len(list(memory.store.quads(ONTOLOGY_GRAPH)))
        memory.schema.add_ontology(own, name="restates-doxa")
        assert memory.schema.remove_ontology("restates-doxa") == 0
        assert len(list(memory.store.quads(ONTOLOGY_GRAPH))) == before


@pytest.mark.parametrize("spelling", ["DOM.TTL", "Dom.ttl", "\uff44\uff4f\uff4d.ttl", " dom.ttl "])
def test_names_are_compared_normalised(spelling: str) -> None:
    with Memory.open(None, scope="a") as memory:
        memory.schema.add_ontology(INVERSE, name="dom.ttl")
        assert memory.schema.ontology_source(spelling) == memory.schema.ontology_source("dom.ttl")
        memory.schema.add_ontology(FUNCTIONAL, name=spelling)  # the same source: replaced
        assert [s.name for s in memory.schema.ontology_sources()] == ["dom.ttl"]
        assert not inferred_inverse(memory)


@pytest.mark.parametrize("bad", ["my ontology.ttl", "../x", "a/b", "-x"])
def test_a_name_that_is_no_name_is_refused(bad: str) -> None:
    with Memory.open(None, scope="a") as memory, pytest.raises(InvalidInput):
        memory.schema.add_ontology(INVERSE, name=bad)


def test_unknown_sources_are_not_found() -> None:
    with Memory.open(None, scope="a") as memory:
        memory.schema.add_ontology(INVERSE, name="dom.ttl")
        for call in (memory.schema.remove_ontology, memory.schema.ontology_source):
            with pytest.raises(NotFound, match="doxa ontology list"):
                call("dom.tt")
        assert [s.name for s in memory.schema.ontology_sources()] == ["dom.ttl"]  # control


def test_adding_again_replaces_and_a_broken_file_changes_nothing() -> None:
    with Memory.open(None, scope="a") as memory:
        memory.schema.add_ontology(INVERSE, name="dom")
        memory.schema.add_ontology(FUNCTIONAL, name="dom")
        assert not inferred_inverse(memory)  # the old content went with the new version
        with pytest.raises(InvalidInput):
            memory.schema.add_ontology(PREFIXES + b"ex:broken owl:inverseOf", name="dom")
        [source] = memory.schema.ontology_sources()
        assert source.triples == 1
        assert memory.schema.ontology_source("dom")[0][0] == URIRef(EX + "dayOfWeek")


def test_blank_nodes_are_removed_with_their_source() -> None:
    restriction = (
        PREFIXES + b"ex:C owl:equivalentClass [ a owl:Restriction ; owl:onProperty ex:p ] .\n"
    )
    with Memory.open(None, scope="a") as memory:
        before = set(memory.store.quads(ONTOLOGY_GRAPH))
        assert memory.schema.add_ontology(restriction, name="r") == 3
        assert memory.schema.remove_ontology("r") == 3
        assert set(memory.store.quads(ONTOLOGY_GRAPH)) == before


def test_triples_loaded_before_sources_are_listed_and_kept() -> None:
    with Memory.open(None, scope="a") as memory:
        memory.store.load(INVERSE, format="turtle", graph=ONTOLOGY_GRAPH)  # an older doxa
        memory.schema.add_ontology(FUNCTIONAL, name="f")
        listed = {s.name: s.triples for s in memory.schema.ontology_sources()}
        assert listed == {"f": 1, UNRECORDED: 1}
        memory.schema.remove_ontology("f")
        assert inferred_inverse(memory)  # not lost
        with pytest.raises(InvalidInput):  # not a source name: nothing can remove them by it
            memory.schema.remove_ontology(UNRECORDED)


def test_the_cli_lists_shows_and_removes(tmp_path: Path) -> None:
    store = str(tmp_path / "memory")
    domain = tmp_path / "Domain.TTL"
    domain.write_bytes(INVERSE)

    def doxa(*args: str) -> str:
        result = CliRunner().invoke(main, ["--store", store, *args], env={"DOXA_SCOPE": None})
        assert result.exit_code == 0, result.output
        return result.stdout

    assert "source 'domain.ttl'" in doxa("ontology", "add", str(domain))
    assert doxa("ontology", "list") == "domain.ttl\t1 triple(s)\n"
    assert "owl#inverseOf" in doxa("ontology", "show", "domain.ttl")
    assert "1 triple(s) left" in doxa("ontology", "remove", "DOMAIN.ttl")
    assert "No ontology source" in doxa("ontology", "list")
    missing = CliRunner().invoke(main, ["--store", store, "ontology", "remove", "domain.ttl"])
    assert missing.exit_code == 3
    with Memory.open(store, scope="default") as memory:
        assert not inferred_inverse(memory)  # the closure in the store was rebuilt
