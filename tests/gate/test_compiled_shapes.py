"""The compiled shape engine and pySHACL report the same failures on every write."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import XSD

from doxa.errors import ShapeCheckFailed
from doxa.gate.compiled import compile_shapes
from doxa.gate.shapes import ShapeCheck
from doxa.vocabulary import DOXA, PROV, RDF

CLAIM = URIRef("urn:doxa:scope:t/fact/0123456789abcdef")
SOURCE = URIRef("https://news.example.com/a")
OWNER_POINT = URIRef("urn:doxa:scope:t/standpoint/owner")

CHECK = ShapeCheck()
REFERENCE = ShapeCheck(engine="pyshacl")

AUTHORITIES = [DOXA.Owner, DOXA.Tool, DOXA.Agent, DOXA.External, DOXA.Nobody]
SUPPORTS = [DOXA.Stated, DOXA.Observed, DOXA.Inferred, DOXA.Quoted, DOXA.Absent, DOXA.Rumour]
TIMES = st.sampled_from(
    [
        Literal("2026-03-01T00:00:00Z", datatype=XSD.dateTime),
        Literal("2026-03-02T00:00:00Z", datatype=XSD.dateTime),
        Literal("not a time", datatype=XSD.dateTime),
        Literal("2026-03-01"),
    ]
)
OPTIONAL = {
    DOXA.text: st.sampled_from(
        [Literal("Bob likes tea"), Literal(""), Literal("x" * 4001), Literal(3)]
    ),
    DOXA.topic: st.sampled_from([Literal("drinks"), Literal("Drinks!"), Literal("a" * 65)]),
    DOXA.kind: st.sampled_from([Literal("general"), Literal(""), URIRef("urn:kind")]),
    DOXA.authority: st.sampled_from(AUTHORITIES),
    DOXA.support: st.sampled_from(SUPPORTS),
    DOXA.standpoint: st.sampled_from([OWNER_POINT, SOURCE, Literal("me"), BNode("b")]),
    DOXA.recordedAt: TIMES,
    DOXA.validFrom: TIMES,
    DOXA.validUntil: TIMES,
    DOXA.confidence: st.sampled_from(
        [
            Literal(Decimal("0.5")),
            Literal(Decimal("1.5")),
            Literal(Decimal("-0.1")),
            Literal(0.5),
            Literal(1),
        ]
    ),
    DOXA.query: st.sampled_from([Literal("dentist in March"), Literal(7)]),
    RDF.subject: st.sampled_from([URIRef("http://ex.org/bob"), Literal("bob")]),
    RDF.predicate: st.sampled_from([URIRef("http://ex.org/likes"), BNode("p")]),
    RDF.object: st.sampled_from([URIRef("http://ex.org/tea"), Literal(1971)]),
    PROV.wasDerivedFrom: st.sampled_from(
        [SOURCE, URIRef("https://other.example.com/b"), Literal("web")]
    ),
    DOXA.ruleMode: st.sampled_from([DOXA.Requires, DOXA.Forbids, DOXA.Sometimes]),
}


@st.composite
def writes(draw: st.DrawFn) -> Graph:
    graph = Graph()
    graph.add((CLAIM, RDF.type, DOXA.Claim))
    if draw(st.booleans()):
        graph.add((CLAIM, RDF.type, DOXA.Rule))
    for predicate, values in OPTIONAL.items():
        for value in draw(st.lists(values, max_size=2, unique=True)):
            graph.add((CLAIM, predicate, value))
    return graph


def _summary(failures: tuple) -> set[tuple[str, str]]:
    return {(f.focus_node, f.message) for f in failures}


@settings(max_examples=400, deadline=None)
@given(write=writes())
def test_compiled_engine_agrees_with_pyshacl(write: Graph) -> None:
    """On any write, the compiled shapes fail exactly the constraints pySHACL fails."""
    note(write.serialize(format="nt"))
    assert _summary(CHECK.check(write)) == _summary(REFERENCE.check_with_pyshacl(write))


def test_a_conforming_write_passes_both_engines() -> None:
    """A complete owner claim conforms in both engines (control for the property test)."""
    graph = Graph()
    for p, o in [
        (RDF.type, DOXA.Claim),
        (DOXA.text, Literal("Bob likes tea")),
        (DOXA.topic, Literal("drinks")),
        (DOXA.kind, Literal("general")),
        (DOXA.authority, DOXA.Owner),
        (DOXA.support, DOXA.Stated),
        (DOXA.standpoint, OWNER_POINT),
        (DOXA.recordedAt, Literal(datetime(2026, 3, 1, tzinfo=UTC))),
    ]:
        graph.add((CLAIM, p, o))
    assert CHECK.check(graph) == ()
    assert REFERENCE.check_with_pyshacl(graph) == ()
    graph.set((CLAIM, DOXA.confidence, Literal(Decimal("2"))))
    assert len(CHECK.check(graph)) == len(REFERENCE.check_with_pyshacl(graph)) == 1


def test_doxa_shapes_compile_and_unsupported_features_fall_back() -> None:
    """doxa's shapes compile; a shape with sh:or does not, so 'auto' falls back to pySHACL."""
    assert CHECK.engine == "compiled"
    extra = Graph().parse(
        data="""
        @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://ex.org/> .
        ex:S a sh:NodeShape ; sh:targetClass ex:C ;
            sh:or ( [ sh:path ex:a ; sh:minCount 1 ] [ sh:path ex:b ; sh:minCount 1 ] ) .
        """,
        format="turtle",
    )
    assert compile_shapes(extra) is None
    assert compile_shapes(CHECK.graph) is not None
    with pytest.raises(ShapeCheckFailed, match="use engine='pyshacl' or 'auto'"):
        ShapeCheck(extra=[_write(extra)], engine="compiled")
    assert ShapeCheck(extra=[_write(extra)]).engine == "pyshacl"


def _write(graph: Graph) -> object:
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "extra.ttl"
    graph.serialize(path, format="turtle")
    return path
