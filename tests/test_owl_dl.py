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

ROOT = Path(__file__).resolve().parents[1]
ONTOLOGY = ROOT / "ontology" / "doxa.ttl"
DOMAIN = ROOT / "examples" / "domain.ttl"
CHECKER = ROOT / "tests" / "owl" / "DLCheck.java"

PREFIXES = """
@prefix doxa: <https://w3id.org/doxa#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
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
    groups: dict[str, list[Path]] = {"doxa": [ONTOLOGY], "doxa+domain": [ONTOLOGY, DOMAIN]}
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


@pytest.mark.parametrize("group", ["doxa", "doxa+domain"])
def test_ontology_is_owl2_dl_consistent_and_satisfiable(
    report: dict[str, list[str]], group: str
) -> None:
    """doxa.ttl alone, and with the example domain ontology: no violation, no problem."""
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
