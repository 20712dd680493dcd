"""ontology/doxa.ttl is OWL 2 DL, consistent, with no unsatisfiable class, under a real reasoner.

The check runs offline: OWLAPI's ``OWL2DLProfile`` and the HermiT reasoner both come in the
``HermiT.jar`` that the PyPI package owlready2 ships, driven by ``tests/owl/DLCheck.java``
(run by the JDK's single-file source launcher; Debian ``default-jdk-headless``). All groups
run in one JVM, so the whole module costs one Java start-up.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
from rdflib import Graph, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF

ROOT = Path(__file__).resolve().parents[2]
ONTOLOGY = ROOT / "ontology" / "doxa.ttl"
DOMAIN = ROOT / "examples" / "domain.ttl"
HOUSEHOLD = ROOT / "examples" / "household.ttl"
CHECKER = ROOT / "tests" / "owl" / "DLCheck.java"

PREFIXES = """
@prefix doxa: <https://w3id.org/doxa#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <http://example.org/> .
"""

# variants of doxa.ttl that must be reported, each with the problem it has
VARIANTS = {
    # a property cannot be both an object and a datatype property in OWL 2 DL
    "punned-property": ("doxa:text a owl:ObjectProperty .", "profile"),
    # supersession, retraction and erasure are pairwise disjoint
    "inconsistent": (
        "<urn:x:e> a owl:NamedIndividual, doxa:Supersession, doxa:Retraction .",
        "inconsistent",
    ),
    "unsatisfiable": (
        "<urn:x:Both> a owl:Class ; rdfs:subClassOf doxa:Supersession, doxa:Retraction .",
        "unsatisfiable",
    ),
    # xsd:gYear is outside the OWL 2 datatype map: HermiT refuses it (OWLAPI 3's profile
    # check lets it pass, which is why both checks run)
    "gyear-range": (
        "ex:birthYear a owl:DatatypeProperty ; rdfs:range xsd:gYear .",
        "reasoner",
    ),
}
CLEAN = {
    "doxa": [ONTOLOGY],
    "doxa+domain": [ONTOLOGY, DOMAIN],
    "doxa+household": [ONTOLOGY, HOUSEHOLD],
}


def hermit_jar() -> Path:
    spec = importlib.util.find_spec("owlready2")
    assert spec is not None, "owlready2 (which ships HermiT.jar) is a test dependency"
    assert spec.origin is not None
    jar = Path(spec.origin).parent / "hermit" / "HermiT.jar"
    assert jar.is_file(), jar
    return jar


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Run DLCheck once over every group; returns each group's output lines."""
    java = shutil.which("java")
    assert java is not None, "the OWL DL check needs Java: apt-get install default-jdk-headless"
    folder = tmp_path_factory.mktemp("owl")
    groups: dict[str, list[Path]] = dict(CLEAN)
    for name, (extra, _) in VARIANTS.items():
        variant = folder / f"{name}.ttl"
        variant.write_text(
            ONTOLOGY.read_text(encoding="utf-8") + PREFIXES + extra + "\n", encoding="utf-8"
        )
        groups[name] = [variant]
    args: list[str] = []
    for paths in groups.values():
        args += [*(str(p) for p in paths), "--"]
    done = subprocess.run(
        [java, "-cp", str(hermit_jar()), str(CHECKER), *args[:-1]],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    names = list(groups)
    lines: dict[str, list[str]] = defaultdict(list)
    for line in done.stdout.splitlines():
        match = re.match(r"^(\d+) (.*)$", line)
        assert match, f"unexpected output from DLCheck: {line!r}\n{done.stderr}"
        lines[names[int(match.group(1))]].append(match.group(2))
    assert all(lines[name] for name in names), done.stderr
    assert done.returncode == 1  # the variants make it fail
    return dict(lines)


@pytest.mark.parametrize("group", list(CLEAN))
def test_ontology_is_owl2_dl_consistent_and_satisfiable(
    report: dict[str, list[str]], group: str
) -> None:
    """doxa.ttl alone, and with each example domain ontology: no violation, no problem."""
    [summary] = report[group]
    match = re.fullmatch(r"checked (\d+) axioms", summary)
    assert match is not None
    assert int(match.group(1)) > 300


@pytest.mark.parametrize("name", list(VARIANTS))
def test_broken_variants_are_reported(report: dict[str, list[str]], name: str) -> None:
    """Each deliberately broken variant is reported with its problem (negative controls)."""
    problem = VARIANTS[name][1]
    found = report[name]
    assert found[-1].startswith("checked ")
    kinds = {line.split(":")[0].split(" ")[0] for line in found[:-1]}
    assert kinds == {problem}, found
    if problem == "unsatisfiable":
        assert found[:-1] == ["unsatisfiable: urn:x:Both"]
    if problem == "profile":
        assert all("doxa#text" in line for line in found[:-1])


def test_household_ontology_drives_the_judge() -> None:
    """Loaded with add_ontology, each kind of axiom changes the judge's relation as documented."""
    import doxa

    clock = doxa.FixedClock("2026-03-01")
    mem = doxa.Memory.open(None, scope="alice", clock=clock)
    assert mem.schema.add_ontology(HOUSEHOLD) == 42
    ex = "http://example.org/"

    def say(text: str, s: str, p: str, o: str, since: str) -> str | None:
        receipt = mem.remember(
            text,
            topic="home",
            subject=ex + s,
            predicate=ex + p,
            object=ex + o,
            authority="owner",
            valid_from=since,
        )
        return None if receipt.relation is None else receipt.relation.value

    assert say("Alice lives in France", "alice", "livesIn", "France", "2020-01-01") == "new"
    # part-of: Lyon is part of France, so this is more detail, not a contradiction
    assert say("Alice lives in Lyon", "alice", "livesIn", "Lyon", "2020-01-01") == "adds_detail"
    # inverse: the same statement turned around
    assert say("Lyon is home of Alice", "Lyon", "homeOf", "alice", "2020-01-01") == "same"
    clock.set("2026-03-09")
    # functional: a later value replaces (held until closing is earned)
    assert say("Alice lives in Paris", "alice", "livesIn", "Paris", "2026-03-08") == "replaces"
    # control: a many-valued property just adds
    assert say("Alice likes tea", "alice", "likes", "tea", "2020-01-01") == "new"
    assert say("Alice likes jazz", "alice", "likes", "jazz", "2026-03-08") == "new"


def enumeration_gaps(graph: Graph) -> dict[str, set[str]]:
    """Individuals typed with an enumerated class (owl:oneOf) but missing from its list."""
    gaps: dict[str, set[str]] = {}
    for cls, enumeration in graph.subject_objects(OWL.equivalentClass):
        listed = graph.value(enumeration, OWL.oneOf)
        if listed is None:
            continue
        members = set(Collection(graph, listed))
        typed = set(graph.subjects(RDF.type, cls))
        if typed - members:
            gaps[str(cls)] = {str(i) for i in typed - members}
    return gaps


def test_enumerated_classes_list_every_member() -> None:
    """Each closed list (Outcome, Relation …) names every individual typed with it in its
    owl:oneOf; an individual added to the class alone makes the ontology inconsistent with
    owl:AllDifferent, which the reasoner reports only as "inconsistent". Control: a new
    outcome typed but not listed is found."""
    graph = Graph().parse(ONTOLOGY, format="turtle")
    assert enumeration_gaps(graph) == {}
    doxa_ns = "https://w3id.org/doxa#"
    graph.add((URIRef(doxa_ns + "Forgotten"), RDF.type, URIRef(doxa_ns + "Outcome")))
    assert enumeration_gaps(graph) == {doxa_ns + "Outcome": {doxa_ns + "Forgotten"}}
