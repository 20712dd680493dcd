"""Checks that ontology/doxa.ttl declares exactly the code's vocabulary, consistently."""

from __future__ import annotations

from pathlib import Path

import owlrl
import pytest
from owlrl.Namespaces import ERRNS
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS

from doxa.vocabulary import DOXA, DOXA_TERMS

ONTOLOGY_PATH = Path(__file__).parents[2] / "ontology" / "doxa.ttl"
ONTOLOGY_IRI = URIRef("https://w3id.org/doxa")

KIND_TYPES: dict[str, URIRef] = {
    "class": OWL.Class,
    "individual": OWL.NamedIndividual,
    "object_property": OWL.ObjectProperty,
    "datatype_property": OWL.DatatypeProperty,
}

ALL_TERMS = [(kind, name) for kind, names in DOXA_TERMS.items() for name in names]


@pytest.fixture(scope="module")
def ontology() -> Graph:
    """Parse the ontology file once for the module."""
    graph = Graph()
    graph.parse(ONTOLOGY_PATH, format="turtle")
    return graph


def copy_of(graph: Graph) -> Graph:
    """Return an independent copy of a graph, so a test can add triples to it."""
    copy = Graph()
    for triple in graph:
        copy.add(triple)
    return copy


def doxa_iris(graph: Graph) -> set[URIRef]:
    """Return every IRI in the doxa namespace that occurs anywhere in the graph."""
    found: set[URIRef] = set()
    for triple in graph:
        for node in triple:
            if isinstance(node, URIRef) and str(node).startswith(str(DOXA)):
                found.add(node)
    return found


def extras(graph: Graph, terms: dict[str, tuple[str, ...]]) -> set[str]:
    """Return local names of doxa IRIs in the graph that the given term table does not list."""
    listed = {name for names in terms.values() for name in names}
    return {str(iri)[len(str(DOXA)) :] for iri in doxa_iris(graph)} - listed


def missing(graph: Graph, terms: dict[str, tuple[str, ...]]) -> set[str]:
    """Return names in the term table that the graph does not declare with their type."""
    return {
        name
        for kind, names in terms.items()
        for name in names
        if (DOXA[name], RDF.type, KIND_TYPES[kind]) not in graph
    }


def punned_properties(graph: Graph) -> set[URIRef]:
    """Return IRIs typed both owl:ObjectProperty and owl:DatatypeProperty."""
    return set(graph.subjects(RDF.type, OWL.ObjectProperty)) & set(
        graph.subjects(RDF.type, OWL.DatatypeProperty)
    )


def closure_problems(graph: Graph) -> list[str]:
    """Return the error messages and owl:Nothing members of a copy's OWL-RL closure."""
    closed = copy_of(graph)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(closed)
    problems = [
        str(message)
        for error in closed.subjects(RDF.type, ERRNS.ErrorMessage)
        for message in closed.objects(error, ERRNS.error)
    ]
    problems += [
        f"{member} is a member of owl:Nothing" for member in closed.subjects(RDF.type, OWL.Nothing)
    ]
    return problems


def test_file_parses_as_the_doxa_ontology(ontology: Graph) -> None:
    """The file parses as Turtle and names the doxa ontology with version 0.1.0."""
    assert (ONTOLOGY_IRI, RDF.type, OWL.Ontology) in ontology
    assert (ONTOLOGY_IRI, OWL.versionInfo, Literal("0.1.0")) in ontology


@pytest.mark.parametrize(("kind", "name"), ALL_TERMS, ids=[name for _, name in ALL_TERMS])
def test_term_is_declared_labelled_and_commented(ontology: Graph, kind: str, name: str) -> None:
    """Each DOXA_TERMS name has its kind's OWL type and an English label and comment."""
    iri = DOXA[name]
    assert (iri, RDF.type, KIND_TYPES[kind]) in ontology
    for annotation in (RDFS.label, RDFS.comment):
        english = [
            value
            for value in ontology.objects(iri, annotation)
            if isinstance(value, Literal) and value.language == "en" and str(value).strip()
        ]
        assert english, f"doxa:{name} has no @en {annotation}"
    if kind == "individual":
        classes = set(ontology.objects(iri, RDF.type)) - {OWL.NamedIndividual}
        assert classes, f"doxa:{name} is typed with no class"


def test_term_table_names_nothing_the_ontology_lacks(ontology: Graph) -> None:
    """Every DOXA_TERMS name is declared; a made-up name is reported missing (control)."""
    assert missing(ontology, DOXA_TERMS) == set()
    with_made_up = {**DOXA_TERMS, "class": (*DOXA_TERMS["class"], "MadeUpClass")}
    assert missing(ontology, with_made_up) == {"MadeUpClass"}


def test_ontology_uses_no_doxa_iri_outside_the_term_table(ontology: Graph) -> None:
    """Every doxa: IRI in the file is in DOXA_TERMS; a made-up one is reported (control)."""
    assert extras(ontology, DOXA_TERMS) == set()
    with_made_up = copy_of(ontology)
    with_made_up.add((DOXA.madeUpProperty, RDF.type, OWL.ObjectProperty))
    assert extras(with_made_up, DOXA_TERMS) == {"madeUpProperty"}


def test_no_property_is_both_object_and_datatype(ontology: Graph) -> None:
    """No IRI is both an object and a datatype property; a punned one is caught (control)."""
    assert punned_properties(ontology) == set()
    punned = copy_of(ontology)
    punned.add((DOXA.text, RDF.type, OWL.ObjectProperty))
    assert punned_properties(punned) == {DOXA.text}


def test_owl_rl_closure_is_consistent(ontology: Graph) -> None:
    """The OWL-RL closure of the ontology has no error messages and no owl:Nothing members."""
    assert closure_problems(ontology) == []


def test_owl_rl_closure_flags_an_individual_in_two_disjoint_endings(ontology: Graph) -> None:
    """An individual that is both a Supersession and a Retraction makes the closure clash."""
    clash = copy_of(ontology)
    event = URIRef("urn:example:event")
    clash.add((event, RDF.type, DOXA.Supersession))
    clash.add((event, RDF.type, DOXA.Retraction))
    problems = closure_problems(clash)
    assert any("Disjoint classes" in p and str(event) in p for p in problems), problems


def test_owl_rl_closure_flags_two_enumeration_members_made_equal(ontology: Graph) -> None:
    """Stating doxa:Owner owl:sameAs doxa:Tool makes the closure report an AllDifferent clash."""
    clash = copy_of(ontology)
    clash.add((DOXA.Owner, OWL.sameAs, DOXA.Tool))
    problems = closure_problems(clash)
    assert any("AllDifferent" in problem for problem in problems), problems
