"""The RDF files doxa ships agree with each other: ontology, shapes and queries.

Every doxa: IRI the shapes and queries use is declared by the ontology; the ontology declares
no reused term nothing uses, and infers no claim from an ending; every query, as
``resources.query`` assembles it, parses and declares only the prefixes it uses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import owlrl
import pyoxigraph as ox
import pytest
from rdflib import BNode, Graph, Namespace, URIRef
from rdflib.namespace import OWL, RDF, RDFS
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parser import parseUpdate

from doxa.resources import query

ROOT = Path(__file__).resolve().parents[1]
ONTOLOGY = ROOT / "ontology" / "doxa.ttl"
SHAPES = ROOT / "shapes" / "doxa.ttl"
QUERIES = ROOT / "queries"
FRAGMENTS = QUERIES / "fragments"
DOXA = Namespace("https://w3id.org/doxa#")
PROV = Namespace("http://www.w3.org/ns/prov#")
EX = Namespace("urn:example:")

NAMES = sorted(path.stem for path in QUERIES.glob("*.rq"))
_PREFIX_LINE = re.compile(r"^\s*(?:PREFIX|BASE)\b", re.IGNORECASE | re.MULTILINE)
_MARKER = re.compile(r"^[ \t]*#include[ \t]+\w+[ \t]*$", re.MULTILINE)
#: the prologue and comments before a query's or update's first keyword
_BODY = re.compile(r"\A(?:\s+|#[^\n]*|(?:PREFIX|BASE)\b[^\n]*)*", re.IGNORECASE)
_UPDATE = re.compile(r"^\s*(?:INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b", re.I)


@cache
def ontology() -> Graph:
    return Graph().parse(ONTOLOGY, format="turtle")


def copy_of(graph: Graph) -> Graph:
    copy = Graph()
    for triple in graph:
        copy.add(triple)
    return copy


def declared(graph: Graph) -> set[URIRef]:
    """The doxa: IRIs the ontology gives a type (class, individual, property)."""
    return {s for s in graph.subjects(RDF.type, None) if isinstance(s, URIRef) and s in DOXA}


def doxa_iris(nodes: Iterable[object]) -> set[URIRef]:
    return {n for n in nodes if isinstance(n, URIRef) and str(n).startswith(str(DOXA))}


def iris_in(value: object) -> Iterable[object]:
    """Every term in a parsed query's algebra (a tree of dicts, lists and terms)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from iris_in(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from iris_in(item)
    else:
        yield value


def undeclared_in_query(text: str) -> set[str]:
    """The doxa: IRIs a query text uses that the ontology does not declare."""
    used = doxa_iris(iris_in(prepareQuery(text).algebra))
    return {str(iri) for iri in used - declared(ontology())}


def undeclared_in_shapes(shapes: Graph) -> set[str]:
    used = doxa_iris(node for triple in shapes for node in triple)
    return {str(iri) for iri in used - declared(ontology())}


def parses(text: str) -> bool:
    """Whether rdflib's SPARQL parser and Oxigraph's both read ``text``. Oxigraph is the
    strict one: rdflib knows rdf:, rdfs:, owl: and a few more without a PREFIX line, which a
    remote server need not."""
    update = bool(_UPDATE.match(_BODY.sub("", text)))
    try:
        if update:
            parseUpdate(text)
            ox.Store().update(text)
        else:
            prepareQuery(text)
            ox.Store().query(text)  # an empty store: parsed, and answered at once
    except Exception:
        return False
    return True


def unused_prefixes(text: str) -> list[str]:
    """The PREFIX lines of ``text`` that it parses as well without: declared, never used."""
    lines = text.splitlines(keepends=True)
    return [
        line.strip()
        for index, line in enumerate(lines)
        if _PREFIX_LINE.match(line) and parses("".join(lines[:index] + lines[index + 1 :]))
    ]


# -- 1. the ontology declares no reused term nothing uses ---------------------------------


def test_every_reused_prov_term_is_used() -> None:
    """Each PROV-O term the ontology declares is written by the code or read by a query or a
    shape; a declared term nothing uses is reported (control)."""
    sources = [p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py")]
    sources += [query(name) for name in NAMES]
    sources.append(SHAPES.read_text(encoding="utf-8"))
    text = "\n".join(sources)

    def unused(graph: Graph) -> set[str]:
        reused = {s for s in graph.subjects(RDF.type, None) if isinstance(s, URIRef)}
        local = [str(s)[len(str(PROV)) :] for s in reused if s in PROV]
        return {
            name
            for name in local
            if not re.search(rf"(?:prov:|PROV\.|{re.escape(str(PROV))}){name}\b", text)
        }

    assert unused(ontology()) == set()
    assert (PROV.generatedAtTime, None, None) not in ontology()
    with_unused = copy_of(ontology())
    with_unused.add((PROV.generatedAtTime, RDF.type, OWL.DatatypeProperty))
    assert unused(with_unused) == {"generatedAtTime"}


# -- 2. ending a node does not make it a claim --------------------------------------------


def closed_with_endings(ontology_graph: Graph) -> Graph:
    """The OWL RL closure of the ontology plus a small log: a claim superseded by another, and
    one erasure tombstone each for a held write, a supersession and a corroboration."""
    graph = copy_of(ontology_graph)
    graph += [
        (EX.old, RDF.type, DOXA.Claim),
        (EX.new, RDF.type, DOXA.Claim),
        (EX.supersession, RDF.type, DOXA.Supersession),
        (EX.supersession, DOXA.ends, EX.old),
        (EX.supersession, DOXA.by, EX.new),
        (EX.held, RDF.type, DOXA.HeldWrite),
        (EX.corroboration, RDF.type, DOXA.Corroboration),
        (EX.corroboration, DOXA.corroborates, EX.new),
        (EX.superseding, RDF.type, DOXA.Supersession),
        (EX.superseding, DOXA.ends, EX.new),
    ]
    for node in (EX.held, EX.superseding, EX.corroboration, EX.old):
        tombstone = EX[f"tombstone-{str(node).rsplit(':', 1)[-1]}"]
        graph.add((tombstone, RDF.type, DOXA.Erasure))
        graph.add((tombstone, DOXA.ends, node))
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
    return graph


@pytest.fixture(scope="module")
def closed() -> Graph:
    return closed_with_endings(ontology())


@pytest.mark.parametrize("node", ["held", "superseding", "corroboration"])
def test_a_tombstone_does_not_make_what_it_ends_a_claim(closed: Graph, node: str) -> None:
    """A held write, an ending event or a corroboration an erasure ends is no doxa:Claim."""
    assert (EX[node], RDF.type, DOXA.Claim) not in closed
    assert (EX[node], RDF.type, DOXA.Rule) not in closed


def test_ending_still_types_what_it_should(closed: Graph) -> None:
    """Positive control: claims stay claims, every tombstone is an ending, the held write
    keeps its own class and nothing becomes owl:Nothing."""
    for claim in (EX.old, EX.new):
        assert (claim, RDF.type, DOXA.Claim) in closed
    for node in ("held", "superseding", "corroboration", "old"):
        assert (EX[f"tombstone-{node}"], RDF.type, DOXA.Ending) in closed
    assert (EX.superseding, RDF.type, DOXA.Ending) in closed
    assert (EX.held, RDF.type, DOXA.HeldWrite) in closed
    assert not list(closed.subjects(RDF.type, OWL.Nothing))


def test_a_claim_range_on_ends_would_be_caught() -> None:
    """Control: with the old range (doxa:ends rdfs:range doxa:Claim) the same log makes the
    held write a claim, so the checks above would fail."""
    old = copy_of(ontology())
    old.remove((DOXA.ends, RDFS.range, None))
    old.add((DOXA.ends, RDFS.range, DOXA.Claim))
    assert (EX.held, RDF.type, DOXA.Claim) in closed_with_endings(old)


def test_the_range_of_ends_is_the_union_of_what_can_be_ended() -> None:
    """doxa:ends ranges over claims, endings, corroborations and held writes, nothing else."""
    graph = ontology()
    [union] = graph.objects(DOXA.ends, RDFS.range)
    assert isinstance(union, BNode)
    members = set(graph.items(graph.value(union, OWL.unionOf)))
    assert members == {DOXA.Claim, DOXA.Ending, DOXA.Corroboration, DOXA.HeldWrite}


# -- 3. every doxa: IRI of the shapes and queries is declared ----------------------------


def test_shapes_use_only_declared_doxa_iris() -> None:
    """Every doxa: IRI in shapes/doxa.ttl is declared; an undeclared one is caught (control)."""
    shapes = Graph().parse(SHAPES, format="turtle")
    assert doxa_iris(node for triple in shapes for node in triple), "the check must see some"
    assert undeclared_in_shapes(shapes) == set()
    shapes.add((DOXA.MadeUpShape, RDF.type, URIRef("http://www.w3.org/ns/shacl#NodeShape")))
    assert undeclared_in_shapes(shapes) == {str(DOXA.MadeUpShape)}


@pytest.mark.parametrize("name", NAMES)
def test_query_uses_only_declared_doxa_iris(name: str) -> None:
    """Every doxa: IRI a query uses is declared in the ontology."""
    assert undeclared_in_query(query(name)) == set()


def test_an_undeclared_doxa_iri_in_a_query_is_caught() -> None:
    """Control: a made-up doxa: term in a query is reported, a declared one is not."""
    text = query("live_claim").replace("doxa:recordedAt", "doxa:recordedWhen")
    assert undeclared_in_query(text) == {str(DOXA.recordedWhen)}
    assert undeclared_in_query(query("live_claim")) == set()
    assert DOXA.recordedAt in doxa_iris(iris_in(prepareQuery(query("live_claim")).algebra))


# -- 4. one prefix block; every query parses and declares only what it uses -----------------


@pytest.mark.parametrize("name", NAMES)
def test_query_file_declares_no_prefix_of_its_own(name: str) -> None:
    """Prefixes are declared once, in queries/fragments/prefixes.rq."""
    text = (QUERIES / f"{name}.rq").read_text(encoding="utf-8")
    assert not _PREFIX_LINE.search(text)


@pytest.mark.parametrize("name", NAMES)
def test_query_parses_and_declares_no_unused_prefix(name: str) -> None:
    """The assembled query parses (rdflib and Oxigraph), needs each prefix it declares, and
    ends with a newline, so a caller may append a LIMIT."""
    text = query(name)
    assert parses(text), text
    assert unused_prefixes(text) == []
    assert text.endswith("\n")
    assert "#include" not in text


def test_an_unused_prefix_is_caught() -> None:
    """Control: a prefix declared and not used is reported; the needed ones are not."""
    text = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n" + query("live_claim")
    assert unused_prefixes(text) == ["PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>"]
    assert not parses(query("live_claim").split("\n", 1)[1])  # doxa: is needed


def test_every_prefix_of_the_shared_block_is_used() -> None:
    """The shared block declares nothing no query uses."""
    block = (FRAGMENTS / "prefixes.rq").read_text(encoding="utf-8")
    declarations = [line for line in block.splitlines() if _PREFIX_LINE.match(line)]
    assert declarations
    texts = [query(name) for name in NAMES]
    assert [line for line in declarations if not any(line in text for text in texts)] == []


def test_prefixed_names_in_comments_strings_and_iris_declare_nothing() -> None:
    """Only code counts as a use: the comments of broader_objects name skos: and owl: terms,
    and scope_heads has 'urn:doxa:scope:' in a string."""
    assert "PREFIX doxa:" in query("scope_heads")  # doxa:head, in code
    assert query("node_quads").startswith("#")  # no prefix at all
    assert query("referrers").startswith("#")


# -- 5. fragments ---------------------------------------------------------------------------


def test_every_fragment_is_included_and_includes_nothing() -> None:
    """Each fragment but the prefix block is spliced into some query, and none includes
    another."""
    texts = "\n".join((QUERIES / f"{name}.rq").read_text(encoding="utf-8") for name in NAMES)
    for fragment in sorted(FRAGMENTS.glob("*.rq")):
        assert not _MARKER.search(fragment.read_text(encoding="utf-8")), fragment.name
        if fragment.stem != "prefixes":
            assert f"#include {fragment.stem}\n" in texts, fragment.name


def test_the_live_filter_has_one_definition() -> None:
    """The queries that read a claim as live share queries/fragments/live.rq, spliced in with
    the marker's indentation and without the fragment's description."""
    live = "FILTER NOT EXISTS {\n    ?ending doxa:ends ?claim ;\n            a ?ends .\n"
    typed = "    FILTER(?ends IN (doxa:Supersession, doxa:Retraction, doxa:Erasure))\n  }\n"
    for name in ("live_by_key", "live_claim", "live_rules", "turn_observations"):
        raw = (QUERIES / f"{name}.rq").read_text(encoding="utf-8")
        assert "?ending doxa:ends" not in raw
        assert "\n  #include live\n" in raw
        # only a typed ending counts: a stray untyped doxa:ends quad ends nothing
        assert f"\n  {live}{typed}" in query(name)
        assert "Spliced in by" not in query(name)
    sources = "\n".join((QUERIES / f"{name}.rq").read_text(encoding="utf-8") for name in NAMES)
    assert "doxa:ends ?claim }" not in sources.replace("doxa:Retraction ; doxa:ends ?claim }", "")


def test_the_true_at_filter_has_one_definition() -> None:
    """facts and facts_about share the filter that reads a claim as true at ?validAt as
    believed at ?asOf."""
    for name in ("facts", "facts_about"):
        raw = (QUERIES / f"{name}.rq").read_text(encoding="utf-8")
        assert "NOT EXISTS" not in raw
        assert "\n  #include true_at\n" in raw
        assert "\n  FILTER(?includeEnded || (\n    NOT EXISTS" in query(name)
