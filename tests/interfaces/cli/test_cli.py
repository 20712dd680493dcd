"""The ``doxa`` command: every command, human and JSON output, every exit code."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rdflib import Literal, URIRef
from tests.helpers import EX

import doxa
from doxa import FixedClock, Memory
from doxa.errors import ShapeCheckFailed
from doxa.gate.shapes import ShapeCheck
from doxa.interfaces.cli import main
from doxa.store import Change

SUPPLIER_ONTOLOGY = """\
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:dayOfWeek a owl:ObjectProperty, owl:FunctionalProperty .
"""
NO_ENV = {"DOXA_STORE": None, "DOXA_SCOPE": None}


def run(
    store: Path | str | None,
    *args: str,
    clock: FixedClock | None = None,
    stdin: str | None = None,
    env: dict[str, str | None] | None = None,
) -> Result:
    """Invoke ``doxa`` in-process against ``store`` (None: the default or the environment)."""
    prefix = [] if store is None else ["--store", str(store)]
    runner = CliRunner()
    return runner.invoke(
        main,
        [*prefix, *args],
        prog_name="doxa",
        obj=clock,
        input=stdin,
        env={**NO_ENV, **(env or {})},
        catch_exceptions=False,
    )


def run_json(store: Path | str, *args: str, clock: FixedClock | None = None) -> Any:
    """Invoke ``doxa --json`` and parse its stdout, which must be one JSON document."""
    result = run(store, "--json", *args, clock=clock)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def remember_id(store: Path | str, text: str, *args: str, clock: FixedClock | None = None) -> str:
    """Remember ``text`` and return the new fact's id."""
    receipt = run_json(store, "remember", text, *args, clock=clock)
    assert receipt["fact"] is not None
    return str(receipt["fact"])


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store directory under tmp_path, created by `doxa init`."""
    path = tmp_path / "memory"
    assert run(path, "init").exit_code == 0
    return path


@pytest.fixture
def story(tmp_path: Path) -> tuple[Path, FixedClock]:
    """A store that knows dayOfWeek is functional, with the clock at 1 March 2026."""
    path = tmp_path / "story"
    ontology = tmp_path / "days.ttl"
    ontology.write_text(SUPPLIER_ONTOLOGY, encoding="utf-8")
    clock = FixedClock("2026-03-01T09:00:00Z")
    assert run(path, "ontology", "add", str(ontology), clock=clock).exit_code == 0
    return path, clock


def supplier_call(day: str, since: str) -> list[str]:
    """The remember arguments for 'the supplier call is on <day>' from ``since``."""
    return [
        f"The weekly supplier call is on {day}",
        "--topic=meetings",
        "--kind=schedule",
        "--authority=owner",
        f"--subject={EX}supplierCall",
        f"--predicate={EX}dayOfWeek",
        f"--object={EX}{day}",
        f"--valid-from={since}",
    ]


def texts(store: Path | str, *args: str, clock: FixedClock | None = None) -> list[str]:
    """The texts of `doxa --json facts ARGS`."""
    return [f["text"] for f in run_json(store, "facts", *args, clock=clock)]


# -- global options -------------------------------------------------------------------


def test_version_prints_the_package_version() -> None:
    """`doxa --version` prints doxa's version."""
    result = run(None, "--version")
    assert result.exit_code == 0
    assert result.stdout == f"doxa, version {doxa.__version__}\n"


def test_help_lists_every_command() -> None:
    """`doxa --help` names each command."""
    result = run(None, "--help")
    assert result.exit_code == 0
    for name in ("init", "remember", "facts", "recall", "verify", "sparql", "ontology"):
        assert name in result.stdout


def test_unknown_command_is_a_usage_error() -> None:
    """An unknown command exits 2, a known one exits 0."""
    assert run(":memory:", "forget").exit_code == 2
    assert run(":memory:", "held").exit_code == 0


def test_init_creates_the_store_and_says_where(tmp_path: Path) -> None:
    """`doxa init` creates the directory and prints its absolute path and scope."""
    path = tmp_path / "new"
    result = run(path, "init")
    assert result.exit_code == 0
    assert result.stdout == f"Opened the store at {path.resolve()} (scope 'default').\n"
    assert path.is_dir()


def test_init_json_names_store_and_scope(tmp_path: Path) -> None:
    """`doxa --json init` prints the store path and scope as JSON."""
    path = tmp_path / "new"
    assert run_json(path, "--scope", "alice", "init") == {
        "store": str(path.resolve()),
        "scope": "alice",
        "in_memory": False,
    }


def test_init_in_memory() -> None:
    """`--store :memory:` opens an in-memory store and says it is gone afterwards."""
    result = run(":memory:", "init")
    assert result.exit_code == 0
    assert result.stdout == (
        "Opened an in-memory store (scope 'default'); it is gone when the command ends.\n"
    )
    assert run_json(":memory:", "init")["in_memory"] is True


def test_store_defaults_to_dot_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --store or DOXA_STORE the store is ./memory."""
    monkeypatch.chdir(tmp_path)
    result = run(None, "init")
    assert result.exit_code == 0
    assert str((tmp_path / "memory").resolve()) in result.stdout
    assert (tmp_path / "memory").is_dir()


def test_store_and_scope_come_from_the_environment(tmp_path: Path) -> None:
    """DOXA_STORE and DOXA_SCOPE choose the store and the scope; --scope overrides."""
    path = tmp_path / "env"
    env = {"DOXA_STORE": str(path), "DOXA_SCOPE": "bob"}
    result = run(None, "init", env=env)
    assert result.stdout == f"Opened the store at {path.resolve()} (scope 'bob').\n"
    result = run(None, "--scope", "carol", "init", env=env)
    assert result.stdout == f"Opened the store at {path.resolve()} (scope 'carol').\n"


def test_scopes_do_not_see_each_other(store: Path) -> None:
    """A fact remembered in one scope is listed there and not in another."""
    run(store, "--scope", "alice", "init")
    run(store, "--scope", "bob", "init")
    run(store, "--scope", "alice", "remember", "Alice prefers tea", "--topic", "drinks")
    alice = run_json(store, "--scope", "alice", "facts")
    assert [f["text"] for f in alice] == ["Alice prefers tea"]
    assert run_json(store, "--scope", "bob", "facts") == []


def test_invalid_scope_exits_2(store: Path) -> None:
    """A scope name with capitals exits 2 with the library's message; a valid one exits 0."""
    result = run(store, "--scope", "Alice", "held")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: 'Alice' is not a valid scope name; use 1-64 lower-case letters, digits, "
        "'_', '.' or '-', starting with a letter or digit (for example 'meetings').\n"
    )
    assert run(store, "--scope", "alice", "init").exit_code == 0
    assert run(store, "--scope", "alice", "held").exit_code == 0


# -- remember ---------------------------------------------------------------------------


def test_remember_prints_the_receipt(store: Path) -> None:
    """A new fact is admitted and the receipt line names the outcome and relation."""
    result = run(store, "remember", "Alice prefers tea", "--topic", "drinks")
    assert result.exit_code == 0
    first = result.stdout.splitlines()[0]
    assert first.startswith("admitted  fact ")
    assert "  new  receipt " in first
    assert result.stdout.splitlines()[1] == "  no stored text in this topic says the same"


def test_remember_json_is_the_receipt(store: Path) -> None:
    """`--json remember` prints the receipt with enums by value and an ISO 8601 time."""
    receipt = run_json(
        store, "remember", "Alice prefers tea", "--topic", "drinks", "--authority", "owner"
    )
    assert receipt["outcome"] == "admitted"
    assert receipt["relation"] == "new"
    assert receipt["judge"] == "rule"
    assert receipt["sequence"] == 1
    assert receipt["failures"] == []
    assert "T" in receipt["recorded_at"]
    fact = run_json(store, "facts")[0]
    assert fact["id"] == receipt["fact"]
    assert fact["authority"] == "owner"
    assert fact["support"] == "stated"


def test_remember_shape_violation_exits_1_and_lists_each_constraint(store: Path) -> None:
    """A confidence of 2 and an inverted interval exit 1 with one line per constraint."""
    result = run(
        store,
        "remember",
        "x",
        "--topic=t",
        "--confidence=2",
        "--valid-from=2026-01-02",
        "--valid-until=2026-01-01",
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith("error: the write was rejected by 2 constraint(s); ")
    assert lines[0].endswith("Fix these and write again:")
    assert len(lines) == 3
    assert any(
        line.endswith(
            "doxa#confidence: confidence must be one decimal between 0 and 1 "
            "(leave it out for 'not rated')"
        )
        for line in lines[1:]
    )
    assert any(
        line.endswith("doxa#validFrom: validFrom must be one xsd:dateTime, earlier than validUntil")
        for line in lines[1:]
    )
    assert texts(store, "--include-ended") == []


def test_remember_valid_values_beside_the_violation_exit_0(store: Path) -> None:
    """The same write with a confidence of 0.9 and an ordered interval is admitted."""
    result = run(
        store,
        "remember",
        "x",
        "--topic=t",
        "--confidence=0.9",
        "--valid-from=2026-01-01",
        "--valid-until=2026-01-02",
    )
    assert result.exit_code == 0, result.stderr
    fact = run_json(store, "facts", "--valid-at", "2026-01-01T12:00:00Z")[0]
    assert fact["confidence"] == 0.9
    assert fact["valid_from"] == "2026-01-01T00:00:00+00:00"
    assert fact["valid_until"] == "2026-01-02T00:00:00+00:00"


def test_remember_rejection_json_prints_the_rejected_receipt(store: Path) -> None:
    """With --json a rejection still exits 1 and stdout is the receipt with its failures."""
    result = run(store, "--json", "remember", "x", "--topic=t", "--confidence=2")
    assert result.exit_code == 1
    receipt = json.loads(result.stdout)
    assert receipt["outcome"] == "rejected"
    assert receipt["judge"] == "shapes"
    assert len(receipt["failures"]) == 1
    assert receipt["failures"][0].endswith("(leave it out for 'not rated')")


def test_external_needs_its_source(store: Path) -> None:
    """External content without a source is rejected; with one it is admitted as a quote."""
    bare = run(store, "remember", "The shop opens at 9", "--topic=shop", "--authority=external")
    assert bare.exit_code == 1
    assert "external content must name exactly one source document" in bare.stderr
    sourced = run(
        store,
        "remember",
        "The shop opens at 9",
        "--topic=shop",
        "--authority=external",
        "--source=https://shop.example/hours",
    )
    assert sourced.exit_code == 0, sourced.stderr
    fact = run_json(store, "facts")[0]
    assert fact["support"] == "quoted"
    assert fact["sources"] == ["https://shop.example/hours"]
    assert fact["standpoint"] == "https://shop.example/hours"


def test_only_the_owner_makes_rules(store: Path) -> None:
    """A rule from the agent exits 1; the same rule from the owner is admitted."""
    rule = ["Calls are never on Friday", "--topic=meetings", "--rule=forbids"]
    agent = run(store, "remember", *rule)
    assert agent.exit_code == 1
    assert "only the owner's own words can become a rule: authority must be owner" in agent.stderr
    owner = run(store, "remember", *rule, "--authority=owner")
    assert owner.exit_code == 0, owner.stderr
    assert (
        run(store, "facts")
        .stdout.splitlines()[1]
        .endswith("[rule: forbids] Calls are never on Friday")
    )


def test_remember_invalid_topic_exits_2(store: Path) -> None:
    """A topic with a space exits 2 with the library's message; a valid topic exits 0."""
    result = run(store, "remember", "x", "--topic", "my topic")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: 'my topic' is not a valid topic name; use 1-64 lower-case letters, digits, "
        "'_', '.' or '-', starting with a letter or digit (for example 'meetings').\n"
    )
    assert run(store, "remember", "x", "--topic", "my-topic").exit_code == 0


def test_remember_requires_a_topic(store: Path) -> None:
    """Leaving out --topic is a usage error (exit 2)."""
    result = run(store, "remember", "x")
    assert result.exit_code == 2
    assert "Missing option '--topic'" in result.stderr


def test_remember_unknown_authority_exits_2(store: Path) -> None:
    """An authority outside the closed list exits 2; 'tool' is accepted."""
    result = run(store, "remember", "x", "--topic=t", "--authority=boss")
    assert result.exit_code == 2
    assert (
        "'boss' is not a valid authority; use one of: owner, tool, agent, external" in result.stderr
    )
    assert run(store, "remember", "x", "--topic=t", "--authority=tool").exit_code == 0


def test_remember_bad_date_exits_2(store: Path) -> None:
    """A valid-from that is not ISO 8601 exits 2 with the library's message."""
    result = run(store, "remember", "x", "--topic=t", "--valid-from=next week")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: 'next week' is not a date or datetime; use ISO 8601 such as 2026-03-05 or "
        "2026-03-05T10:00:00Z.\n"
    )
    assert run(store, "remember", "x", "--topic=t", "--valid-from=2026-03-05").exit_code == 0


def test_remember_object_auto_detects_iri_or_literal(store: Path) -> None:
    """--object is an IRI when absolute, else a plain literal."""
    # two subjects: a second value of the undeclared ex:likes for one would ask the owner
    common = ["--topic=people", f"--predicate={EX}likes"]
    remember_id(store, "Alice likes Bob", *common, f"--subject={EX}alice", f"--object={EX}bob")
    remember_id(store, "Carol likes tea", *common, f"--subject={EX}carol", "--object=tea")
    result = run_json(
        store, "sparql", f"SELECT ?o WHERE {{ ?c <{EX}x> ?o }}"
    )  # sanity: nothing for another predicate
    assert result["results"]["bindings"] == []
    rows = run_json(
        store,
        "sparql",
        "SELECT ?o WHERE { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> ?o } ORDER BY ?o",
    )["results"]["bindings"]
    assert rows == [
        {"o": {"type": "uri", "value": f"{EX}bob"}},
        {"o": {"type": "literal", "value": "tea"}},
    ]


def test_remember_typed_literal(store: Path) -> None:
    """--literal with --datatype xsd:gYear stores a typed literal."""
    remember_id(
        store,
        "Alice was born in 1977",
        "--topic=bio",
        f"--subject={EX}alice",
        f"--predicate={EX}birthYear",
        "--literal=1977",
        "--datatype=xsd:gYear",
    )
    result = run(
        store,
        "sparql",
        "SELECT ?o WHERE { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> ?o }",
    )
    assert result.stdout.splitlines()[1] == '"1977"^^<http://www.w3.org/2001/XMLSchema#gYear>'


def test_remember_literal_with_full_datatype_iri(store: Path) -> None:
    """--datatype also takes a full IRI; a literal that looks like an IRI stays a literal."""
    remember_id(
        store,
        "Alice's page",
        "--topic=bio",
        f"--subject={EX}alice",
        f"--predicate={EX}page",
        f"--literal={EX}alice",
    )
    remember_id(
        store,
        "Alice is 49",
        "--topic=bio",
        f"--subject={EX}alice",
        f"--predicate={EX}age",
        "--literal=49",
        "--datatype=http://www.w3.org/2001/XMLSchema#integer",
    )
    objects = {f["text"]: f["object"] for f in run_json(store, "facts")}
    assert objects == {"Alice's page": f"{EX}alice", "Alice is 49": "49"}
    kinds = run_json(
        store,
        "sparql",
        "SELECT ?o WHERE { ?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#object> ?o } ORDER BY ?o",
    )["results"]["bindings"]
    assert {"type": "literal", "value": f"{EX}alice"} in [row["o"] for row in kinds]


def test_remember_ill_typed_literal_exits_2(store: Path) -> None:
    """An integer of '4x9' exits 2 with only the library's message; '49' is accepted."""
    args = ["x", "--topic=bio", f"--subject={EX}a", f"--predicate={EX}y", "--datatype=xsd:integer"]
    result = run(store, "remember", *args, "--literal=4x9")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: object '4x9' is not a valid http://www.w3.org/2001/XMLSchema#integer; "
        "fix the value or the datatype.\n"
    )
    assert run(store, "remember", *args, "--literal=49").exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--object=a", "--literal=b"], "Give the object once: --object or --literal, not both."),
        (["--datatype=xsd:gYear"], "--datatype types a --literal; add --literal VALUE."),
        (["--literal=1", "--datatype=gYear"], "'gYear' is not a datatype; use xsd:NAME"),
    ],
    ids=["object-and-literal", "datatype-alone", "datatype-not-an-iri"],
)
def test_remember_object_usage_errors(store: Path, args: list[str], message: str) -> None:
    """Conflicting or incomplete object options exit 2 and store nothing."""
    result = run(store, "remember", "x", "--topic=t", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert run_json(store, "receipts") == []


def test_remember_absent_support_is_flagged(store: Path) -> None:
    """An empty search result is stored with its query and shown as 're-run before trusting'."""
    result = run(
        store,
        "remember",
        "No flights to Oslo on Sunday",
        "--topic=travel",
        "--authority=tool",
        "--support=absent",
        "--query=flights OSL sunday",
    )
    assert result.exit_code == 0, result.stderr
    table = run(store, "facts").stdout
    assert "(absent: re-run 'flights OSL sunday' before trusting)" in table
    assert run_json(store, "facts")[0]["needs_rerun"] is True


# -- reads ------------------------------------------------------------------------------


def test_facts_table_has_aligned_columns(store: Path) -> None:
    """`doxa facts` prints a header and one aligned row per fact."""
    fact = remember_id(store, "Alice prefers tea", "--topic=drinks", "--valid-from=2026-01-01")
    lines = run(store, "facts").stdout.splitlines()
    assert lines[0].split() == [
        "id",
        "status",
        "authority",
        "valid",
        "from",
        "valid",
        "until",
        "text",
    ]
    assert lines[1].split(maxsplit=5) == [
        fact,
        "live",
        "agent",
        "2026-01-01",
        "-",
        "Alice prefers tea",
    ]
    assert lines[0].index("status") == lines[1].index("live")
    assert lines[0].index("text") == lines[1].index("Alice")


def test_facts_empty(store: Path) -> None:
    """An empty store says so in words, and [] in JSON."""
    assert run(store, "facts").stdout == "No facts.\n"
    assert run_json(store, "facts") == []


def test_facts_filters(store: Path) -> None:
    """--topic, --subject and --predicate each keep only their facts, and keep them."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    remember_id(
        store,
        "Bob likes Alice",
        "--topic=people",
        f"--subject={EX}bob",
        f"--predicate={EX}likes",
        f"--object={EX}alice",
    )
    assert texts(store, "--topic=drinks") == ["Alice prefers tea"]
    assert texts(store, "--topic=people") == ["Bob likes Alice"]
    assert texts(store, "--topic=none") == []
    assert texts(store, f"--subject={EX}bob") == ["Bob likes Alice"]
    assert texts(store, f"--subject={EX}alice") == []
    assert texts(store, f"--predicate={EX}likes") == ["Bob likes Alice"]


def test_facts_bad_subject_exits_2(store: Path) -> None:
    """A subject shaped like an IRI that is not a valid one exits 2, and so does one with no
    letter or digit; a name and an IRI are the controls and exit 0."""
    result = run(store, "facts", "--subject=a:b%zz")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: subject 'a:b%zz' is not an absolute IRI; pass one such as "
        "'http://example.org/supplierCall'.\n"
    )
    assert run(store, "facts", "--subject=?!").exit_code == 2
    assert run(store, "facts", "--subject=bob").exit_code == 0
    assert run(store, "facts", f"--subject={EX}bob").exit_code == 0


def test_recall_ranks_with_scores(store: Path) -> None:
    """`doxa recall` finds matching facts, with a score column; others are left out."""
    tea = remember_id(store, "Alice prefers green tea", "--topic=drinks")
    remember_id(store, "The car is blue", "--topic=things")
    lines = run(store, "recall", "tea").stdout.splitlines()
    assert lines[0].split()[:2] == ["id", "score"]
    assert len(lines) == 2
    assert lines[1].startswith(tea)
    found = run_json(store, "recall", "tea")
    assert [f["text"] for f in found] == ["Alice prefers green tea"]
    assert isinstance(found[0]["score"], float)
    assert run(store, "recall", "zeppelin").stdout == "No facts.\n"


def test_recall_limit_out_of_range_exits_2(store: Path) -> None:
    """--limit 0 exits 2 with the library's message; --limit 1 returns one fact."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    remember_id(store, "Bob prefers tea", "--topic=drinks")
    result = run(store, "recall", "tea", "--limit", "0")
    assert result.exit_code == 2
    assert result.stderr == ("error: limit 0 is out of range; use a whole number from 1 to 500.\n")
    assert len(run_json(store, "recall", "tea", "--limit", "1")) == 1


def test_recall_topic_filter(store: Path) -> None:
    """recall --topic keeps only that topic's matches."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    remember_id(store, "Tea party on Friday", "--topic=events")
    assert [f["text"] for f in run_json(store, "recall", "tea", "--topic=events")] == [
        "Tea party on Friday"
    ]


def test_history_and_why_of_unknown_fact_exit_3(store: Path) -> None:
    """history and why of an unknown id exit 3; of a known id they exit 0."""
    for command in ("history", "why"):
        result = run(store, command, "nope")
        assert result.exit_code == 3
        assert result.stderr == (
            "error: There is no fact 'nope' in scope 'default'; list ids with `doxa facts`.\n"
        )
    fact = remember_id(store, "Alice prefers tea", "--topic=drinks")
    assert run(store, "history", fact).exit_code == 0
    assert run(store, "why", fact).exit_code == 0


def test_why_shows_evidence_and_receipt(store: Path) -> None:
    """`doxa why` prints the sources and the receipt that admitted the fact."""
    fact = remember_id(
        store,
        "The shop opens at 9",
        "--topic=shop",
        "--authority=external",
        "--source=https://shop.example/hours",
        "--confidence=0.7",
    )
    out = run(store, "why", fact).stdout
    assert f"fact             {fact}  live  The shop opens at 9" in out
    assert "sources          https://shop.example/hours" in out
    assert "authority        external (quoted)" in out
    assert "confidence       0.7" in out
    assert "admitted (new) by rule 5" in out
    data = run_json(store, "why", fact)
    assert data["sources"] == ["https://shop.example/hours"]
    assert data["receipt"]["outcome"] == "admitted"
    assert data["fact"]["id"] == fact


# -- the supplier-call story --------------------------------------------------------------


def test_supplier_call_story(story: tuple[Path, FixedClock]) -> None:
    """Wednesday, then Thursday from 8 March: held, approved, and both clocks answer right."""
    path, clock = story
    wednesday = run_json(path, "remember", *supplier_call("Wednesday", "2026-01-01"), clock=clock)
    assert (wednesday["relation"], wednesday["outcome"]) == ("new", "admitted")

    clock.set("2026-03-09T10:00:00Z")
    result = run(path, "remember", *supplier_call("Thursday", "2026-03-08"), clock=clock)
    assert result.exit_code == 0  # a held write is a success: the receipt says so
    first, reason, hint, matched = result.stdout.splitlines()
    assert first.startswith("held  fact ")
    # the fact it would replace, with its text (issue 16)
    assert (
        matched
        == f"  would replace {wednesday['fact']}: 'The weekly supplier call is on Wednesday'"
    )
    assert f"  replaces {wednesday['fact']}  receipt " in first
    assert reason == (
        "  one value at a time, and the new value starts after the old one; held: closing of "
        "kind 'schedule' is not earned yet by judge rule/5 (0 of 50 labelled decisions, 98% "
        "needed)"
    )
    thursday = first.split()[2]
    assert hint == (
        f"  waiting for the owner: `doxa approve {thursday}` or "
        f"`doxa reject {thursday} --reason TEXT`"
    )

    held = run(path, "held", clock=clock).stdout.splitlines()
    assert held[0].split()[:6] == ["id", "relation", "status", "authority", "held", "at"]
    assert held[1].split()[:5] == [
        thursday,
        "replaces",
        "awaiting_owner",
        "owner",
        "2026-03-09T10:00:00Z",
    ]
    assert [h["id"] for h in run_json(path, "held", clock=clock)] == [thursday]

    approved = run_json(path, "approve", thursday, clock=clock)
    assert (approved["relation"], approved["outcome"]) == ("replaces", "approved")
    assert approved["targets"] == [wednesday["fact"]]
    assert run(path, "held", clock=clock).stdout == "Nothing is held.\n"

    clock.set("2026-03-10T12:00:00Z")
    wed, thu = "The weekly supplier call is on Wednesday", "The weekly supplier call is on Thursday"
    assert texts(path, "--valid-at=2026-03-05", clock=clock) == [wed]
    assert texts(path, "--valid-at=2026-03-10", clock=clock) == [thu]
    assert texts(path, "--valid-at=2026-03-10", "--as-of=2026-03-05", clock=clock) == [wed]
    assert texts(path, "--valid-at=2026-03-10", "--as-of=2026-02-01", clock=clock) == []

    ended = {f["text"]: f for f in run_json(path, "facts", "--include-ended", clock=clock)}
    assert ended[wed]["status"] == "superseded"
    assert ended[wed]["valid_until"] == "2026-03-08T00:00:00+00:00"
    assert ended[thu]["status"] == "live"
    table = run(path, "facts", "--include-ended", clock=clock).stdout
    assert f"{wednesday['fact']}  superseded  owner      2026-01-01  2026-03-08   {wed}" in table

    recalled = run_json(path, "recall", "supplier call", "--valid-at=2026-03-05", clock=clock)
    assert [f["text"] for f in recalled] == [wed]

    history = run(path, "history", wednesday["fact"], clock=clock).stdout.splitlines()
    assert history[0] == f"{wednesday['fact']}  superseded  {wed}"
    superseded = next(line for line in history[2:] if " superseded " in line)
    assert superseded.split()[:5] == [
        "2026-03-09T10:00:00Z",
        "superseded",
        wednesday["fact"],
        thursday,
        "2026-03-08",
    ]
    assert history[-1] == f"successors: {thursday}"
    data = run_json(path, "history", wednesday["fact"], clock=clock)
    assert data["successors"] == [thursday]
    assert [e["kind"] for e in data["events"]] == ["recorded", "recorded", "superseded"]

    why = run_json(path, "why", thursday, clock=clock)
    assert why["receipt"]["outcome"] == "approved"
    assert why["receipt"]["judge"] == "owner"
    assert run(path, "verify", clock=clock).stdout.startswith(
        "Verified 3 receipt(s) in 1 log(s) of scope 'default'."
    )


# -- owner decisions ----------------------------------------------------------------------


def held_write(path: Path, clock: FixedClock) -> tuple[str, str]:
    """Wednesday admitted, then Thursday held; returns (wednesday id, held id)."""
    wednesday = remember_id(path, *supplier_call("Wednesday", "2026-01-01"), clock=clock)
    clock.set("2026-03-09T10:00:00Z")
    receipt = run_json(path, "remember", *supplier_call("Thursday", "2026-03-08"), clock=clock)
    assert receipt["outcome"] == "held"
    return wednesday, str(receipt["held"])


def test_approve_unknown_exits_3(story: tuple[Path, FixedClock]) -> None:
    """Approving an unknown id exits 3; approving the held id exits 0."""
    path, clock = story
    _, held = held_write(path, clock)
    result = run(path, "approve", "nope", clock=clock)
    assert result.exit_code == 3
    assert result.stderr == (
        "error: There is no held write 'nope' in scope 'default'; list them with `doxa held`.\n"
    )
    result = run(path, "approve", held, clock=clock)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"approved  fact {held}  replaces ")


def test_approve_as_another_relation(story: tuple[Path, FixedClock]) -> None:
    """`approve --as was_wrong` retracts Wednesday instead of superseding it."""
    path, clock = story
    wednesday, held = held_write(path, clock)
    receipt = run_json(path, "approve", held, "--as", "was_wrong", clock=clock)
    assert (receipt["relation"], receipt["targets"]) == ("was_wrong", [wednesday])
    everything = run_json(path, "facts", "--include-ended", clock=clock)
    assert {f["id"]: f["status"] for f in everything} == {wednesday: "retracted", held: "live"}
    assert run_json(path, "facts", "--valid-at=2026-03-05", clock=clock) == []


def test_approve_as_unknown_relation_exits_2(story: tuple[Path, FixedClock]) -> None:
    """`--as maybe` is a usage error and the write stays held."""
    path, clock = story
    _, held = held_write(path, clock)
    result = run(path, "approve", held, "--as", "maybe", clock=clock)
    assert result.exit_code == 2
    assert "'maybe' is not a valid relation; use one of: new, same" in result.stderr
    assert [h["id"] for h in run_json(path, "held", clock=clock)] == [held]


def test_reject_discards_the_held_write(story: tuple[Path, FixedClock]) -> None:
    """Rejecting an unknown id exits 3; rejecting the held id discards it and keeps Wednesday."""
    path, clock = story
    wednesday, held = held_write(path, clock)
    assert run(path, "reject", "nope", "--reason", "no", clock=clock).exit_code == 3
    receipt = run_json(path, "reject", held, "--reason", "the call stays on Wednesday", clock=clock)
    assert receipt["outcome"] == "discarded"
    assert receipt["reason"] == "the call stays on Wednesday"
    assert run_json(path, "held", clock=clock) == []
    assert [f["id"] for f in run_json(path, "facts", "--valid-at=2026-03-10", clock=clock)] == [
        wednesday
    ]


def test_reject_human_output(story: tuple[Path, FixedClock]) -> None:
    """`doxa reject` prints the discarded receipt line."""
    path, clock = story
    _, held = held_write(path, clock)
    result = run(path, "reject", held, clock=clock)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"discarded  fact {held}  replaces  receipt ")
    assert result.stdout.splitlines()[1] == "  rejected by the owner"


def test_retract_unknown_exits_3_and_known_is_retracted(store: Path) -> None:
    """Retracting an unknown id exits 3; a known id exits 0 and then shows as retracted."""
    fact = remember_id(store, "Alice was born in 1971", "--topic=bio")
    result = run(store, "retract", "nope", "--reason", "typo")
    assert result.exit_code == 3
    assert result.stderr == (
        "error: There is no unretracted fact 'nope' in scope 'default'; check the id with "
        "`doxa facts --include-ended`.\n"
    )
    result = run(store, "retract", fact, "--reason", "she was born in 1977")
    assert result.exit_code == 0
    # the id shown is the retracted fact's, and says so (it was labelled an event's)
    assert result.stdout.startswith(f"closed  fact {fact}  was_wrong {fact}  receipt ")
    assert result.stdout.splitlines()[1] == "  she was born in 1977"
    assert texts(store) == []
    ended = run_json(store, "facts", "--include-ended")
    assert [(f["id"], f["status"]) for f in ended] == [(fact, "retracted")]
    assert f"{fact}  retracted" in run(store, "facts", "--include-ended").stdout
    again = run(store, "retract", fact, "--reason", "twice")
    assert again.exit_code == 3


def test_retract_json_is_the_closing_receipt(store: Path) -> None:
    """`--json retract` prints a closed receipt whose target is the retracted fact."""
    fact = remember_id(store, "Alice was born in 1971", "--topic=bio")
    receipt = run_json(store, "retract", fact, "--reason", "she was born in 1977")
    assert (receipt["outcome"], receipt["relation"]) == ("closed", "was_wrong")
    assert receipt["targets"] == [fact]
    assert receipt["reason"] == "she was born in 1977"


def test_retract_needs_a_reason(store: Path) -> None:
    """An empty reason exits 2 with the library's message; a missing --reason exits 2 too."""
    fact = remember_id(store, "Alice was born in 1971", "--topic=bio")
    empty = run(store, "retract", fact, "--reason", "")
    assert empty.exit_code == 2
    assert empty.stderr == (
        "error: A retraction needs a reason; say why the fact was never true.\n"
    )
    missing = run(store, "retract", fact)
    assert missing.exit_code == 2
    assert "Missing option '--reason'" in missing.stderr
    assert texts(store) == ["Alice was born in 1971"]


def test_grant_and_revoke(store: Path) -> None:
    """grant and revoke leave receipts with outcomes granted and revoked."""
    granted = run(store, "grant", "schedule")
    assert granted.exit_code == 0
    assert granted.stdout.startswith("granted  receipt ")
    assert granted.stdout.splitlines()[1] == "  granted by the owner"
    revoked = run_json(store, "revoke", "schedule", "--reason", "too eager")
    assert (revoked["outcome"], revoked["reason"]) == ("revoked", "too eager")
    outcomes = [r["outcome"] for r in run_json(store, "receipts")]
    assert outcomes == ["granted", "revoked"]


def test_grant_lets_the_judge_close_without_asking(story: tuple[Path, FixedClock]) -> None:
    """After `grant schedule` Thursday replaces Wednesday at once; without it, it is held."""
    path, clock = story
    assert run(path, "grant", "schedule", clock=clock).exit_code == 0
    remember_id(path, *supplier_call("Wednesday", "2026-01-01"), clock=clock)
    clock.set("2026-03-09T10:00:00Z")
    receipt = run_json(path, "remember", *supplier_call("Thursday", "2026-03-08"), clock=clock)
    assert (receipt["relation"], receipt["outcome"]) == ("replaces", "admitted")
    assert run(path, "revoke", "schedule", clock=clock).exit_code == 0
    clock.set("2026-03-20T10:00:00Z")
    receipt = run_json(path, "remember", *supplier_call("Friday", "2026-03-15"), clock=clock)
    assert receipt["outcome"] == "held"


def test_grant_invalid_kind_exits_2(store: Path) -> None:
    """A kind with capitals exits 2 and records nothing; a valid kind is granted."""
    result = run(store, "grant", "Schedule")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: 'Schedule' is not a valid kind name;")
    assert run_json(store, "receipts") == []
    assert run(store, "revoke", "schedule").exit_code == 0


# -- receipts and verification ------------------------------------------------------------


def test_receipts_table_and_json(store: Path) -> None:
    """Receipts come in chain order, including the rejection; JSON links each hash."""
    assert run(store, "receipts").stdout == "No receipts.\n"
    fact = remember_id(store, "Alice prefers tea", "--topic=drinks")
    run(store, "remember", "x", "--topic=t", "--confidence=2")
    lines = run(store, "receipts").stdout.splitlines()
    assert lines[0].split() == [
        "#",
        "id",
        "outcome",
        "relation",
        "judge",
        "recorded",
        "at",
        "fact",
        "reason",
    ]
    assert lines[1].split()[2:4] == ["admitted", "new"]
    assert lines[1].split()[6] == fact
    assert lines[2].split()[2:5] == ["rejected", "-", "shapes"]
    chain = run_json(store, "receipts")
    assert [r["sequence"] for r in chain] == [1, 2]
    assert chain[0]["previous_hash"] == ""
    assert chain[1]["previous_hash"] == chain[0]["receipt_hash"]


def test_verify_store(store: Path) -> None:
    """`doxa verify` counts the scope's receipts, in words and in JSON."""
    receipt = run_json(store, "remember", "Alice prefers tea", "--topic=drinks")
    result = run(store, "verify")
    assert result.exit_code == 0
    head = receipt["receipt_hash"]  # the head is the latest receipt's hash
    assert result.stdout == (
        "Verified 1 receipt(s) in 1 log(s) of scope 'default'.\n"
        f"  urn:doxa:scope:default/log  1  head {head}\n"
    )
    assert run_json(store, "verify") == {
        "verified": True,
        "receipts": 1,
        "logs": {"urn:doxa:scope:default/log": 1},
        "heads": {"urn:doxa:scope:default/log": head},
    }


def tamper_with_receipt(path: Path) -> None:
    """Rewrite the reason of the store's first receipt, behind the gate's back."""
    memory = Memory.open(path, scope="default")
    with memory:
        log = memory.scope.log
        reason = URIRef("https://w3id.org/doxa#reason")
        quad = next(q for q in memory.store.quads(log) if q[1] == reason)
        forged = (quad[0], quad[1], Literal("nothing to see"), log)
        memory.store.apply(Change(delete=[quad], insert=[forged]))
    del memory
    gc.collect()  # Memory.close does not release the directory lock; dropping it does


def test_verify_tampered_store_exits_5(store: Path) -> None:
    """A receipt rewritten in the store breaks the chain: exit 5 with the library's message."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    assert run(store, "verify").exit_code == 0
    tamper_with_receipt(store)
    result = run(store, "verify")
    assert result.exit_code == 5
    assert result.stderr.startswith("error: Receipt urn:doxa:scope:default/receipt/")
    assert result.stderr.endswith(" does not match its hash: its triples were altered.\n")
    data = json.loads(run(store, "--json", "verify").stdout)
    assert data["error"]["type"] == "ChainBroken"
    assert data["error"]["exit_code"] == 5


def test_verify_export_file(store: Path, tmp_path: Path) -> None:
    """An untouched export verifies (exit 0); one with an edited receipt exits 5."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    remember_id(store, "Bob prefers coffee", "--topic=drinks")
    export = tmp_path / "audit.nq"
    assert run(store, "export", str(export), "--audit").exit_code == 0
    result = run(store, "verify", str(export))
    assert result.exit_code == 0
    head = run_json(store, "verify")["heads"]["urn:doxa:scope:default/log"]
    assert result.stdout == (
        f"Verified 2 receipt(s) in 1 log(s) of {export}.\n"
        f"  urn:doxa:scope:default/log  2  head {head}\n"
    )
    text = export.read_text(encoding="utf-8")
    forged = tmp_path / "forged.nq"
    forged.write_text(text.replace("Bob prefers coffee", "Bob prefers whisky"), encoding="utf-8")
    result = run(store, "verify", str(forged))
    assert result.exit_code == 5
    assert result.stderr.startswith("error: What receipt urn:doxa:scope:default/receipt/")
    assert "a claim or event was altered, moved or removed after it was written." in result.stderr


def test_verify_export_file_json(store: Path, tmp_path: Path) -> None:
    """`--json verify FILE` reports the count and the head per log, as the live store's."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    export = tmp_path / "audit.nq"
    run(store, "export", str(export))
    live = run_json(store, "verify")
    assert run_json(store, "verify", str(export)) == {
        "verified": True,
        "receipts": 1,
        "logs": {"urn:doxa:scope:default/log": 1},
        "heads": live["heads"],
    }
    assert len(live["heads"]["urn:doxa:scope:default/log"]) == 64


def test_verify_missing_or_broken_file(tmp_path: Path) -> None:
    """A missing export exits 3, an unparsable one exits 2, an empty one verifies nothing."""
    missing = run(":memory:", "verify", str(tmp_path / "nope.nq"))
    assert missing.exit_code == 3
    assert missing.stderr == (
        f"error: There is no export file at {tmp_path / 'nope.nq'}; check the path.\n"
    )
    error = json.loads(run(":memory:", "--json", "verify", str(tmp_path / "nope.nq")).stdout)
    assert error["error"]["type"] == "NotFound"
    broken = tmp_path / "broken.nq"
    broken.write_text("this is not n-quads\n", encoding="utf-8")
    result = run(":memory:", "verify", str(broken))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {broken} is not valid N-Quads: ")
    empty = tmp_path / "empty.nq"
    empty.write_text("", encoding="utf-8")
    assert run(":memory:", "verify", str(empty)).exit_code == 0


# -- SPARQL -------------------------------------------------------------------------------


def test_sparql_select_table(store: Path) -> None:
    """A SELECT prints a table of N-Triples terms, one row per solution."""
    fact = remember_id(store, "Alice prefers tea", "--topic=drinks")
    result = run(store, "sparql", "SELECT ?c ?t WHERE { ?c <https://w3id.org/doxa#text> ?t }")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["c", "t"]
    assert lines[1] == f'<urn:doxa:scope:default/fact/{fact}>  "Alice prefers tea"'


def test_sparql_select_json(store: Path) -> None:
    """`--json sparql` prints SPARQL 1.1 Query Results JSON; unbound variables are left out."""
    remember_id(store, "Alice prefers tea", "--topic=drinks", "--confidence=0.5")
    data = run_json(
        store,
        "sparql",
        "SELECT ?t ?conf ?none WHERE { ?c <https://w3id.org/doxa#text> ?t ; "
        "<https://w3id.org/doxa#confidence> ?conf OPTIONAL { ?c <http://nothing> ?none } }",
    )
    assert data["head"] == {"vars": ["t", "conf", "none"]}
    assert data["results"]["bindings"] == [
        {
            "t": {"type": "literal", "value": "Alice prefers tea"},
            "conf": {
                "type": "literal",
                "value": "0.5",
                "datatype": "http://www.w3.org/2001/XMLSchema#decimal",
            },
        }
    ]


def test_sparql_ask_true_and_false(store: Path) -> None:
    """ASK prints true or false (and a JSON boolean)."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    text = "https://w3id.org/doxa#text"
    assert run(store, "sparql", f'ASK {{ ?c <{text}> "Alice prefers tea" }}').stdout == "true\n"
    assert run(store, "sparql", f'ASK {{ ?c <{text}> "Bob prefers tea" }}').stdout == "false\n"
    assert run_json(store, "sparql", f'ASK {{ ?c <{text}> "Alice prefers tea" }}') == {
        "head": {},
        "boolean": True,
    }


def test_sparql_construct_prints_ntriples(store: Path) -> None:
    """CONSTRUCT prints N-Triples lines; JSON gives subject/predicate/object terms."""
    fact = remember_id(store, "Alice prefers tea", "--topic=drinks")
    query = (
        "CONSTRUCT { ?c <http://example.org/says> ?t } WHERE { ?c <https://w3id.org/doxa#text> ?t }"
    )
    result = run(store, "sparql", query)
    assert result.stdout == (
        f'<urn:doxa:scope:default/fact/{fact}> <http://example.org/says> "Alice prefers tea" .\n'
    )
    assert run_json(store, "sparql", query)["triples"] == [
        {
            "subject": {"type": "uri", "value": f"urn:doxa:scope:default/fact/{fact}"},
            "predicate": {"type": "uri", "value": "http://example.org/says"},
            "object": {"type": "literal", "value": "Alice prefers tea"},
        }
    ]


def test_sparql_from_stdin(store: Path) -> None:
    """`doxa sparql -` reads the query from stdin."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    result = run(store, "sparql", "-", stdin="ASK { ?s ?p ?o }")
    assert result.exit_code == 0
    assert result.stdout == "true\n"


def test_sparql_update_and_syntax_errors_exit_2(store: Path) -> None:
    """An update or a malformed query exits 2; a valid query exits 0."""
    update = run(store, "sparql", "INSERT DATA { <http://a> <http://b> <http://c> }")
    assert update.exit_code == 2
    assert update.stderr == (
        "error: This is a SPARQL update, and reads are read-only; write through the gate with "
        "Memory.remember (or `doxa remember`).\n"
    )
    malformed = run(store, "sparql", "SELECT WHERE {")
    assert malformed.exit_code == 2
    assert malformed.stderr.startswith("error: The SPARQL query is not valid: ")
    assert run(store, "sparql", "SELECT * WHERE { ?s ?p ?o } LIMIT 1").exit_code == 0


def test_sparql_stays_in_scope(store: Path) -> None:
    """A query in scope bob does not see alice's facts, which alice's query does see."""
    run(store, "--scope", "alice", "init")
    run(store, "--scope", "bob", "init")
    run(store, "--scope", "alice", "remember", "Alice prefers tea", "--topic=drinks")
    query = "ASK { ?c <https://w3id.org/doxa#text> ?t }"
    assert run(store, "--scope", "alice", "sparql", query).stdout == "true\n"
    assert run(store, "--scope", "bob", "sparql", query).stdout == "false\n"


# -- export and ontology -------------------------------------------------------------------


def put_in_quarantine(path: Path) -> None:
    """Write one quad into the default scope's quarantine graph, as a quarantine would."""
    memory = Memory.open(path, scope="default")
    with memory:
        quarantine = memory.scope.quarantine
        quad = (URIRef("urn:x:instruction"), URIRef("urn:x:says"), Literal("obey me"), quarantine)
        memory.store.apply(Change(insert=[quad]))
    del memory
    gc.collect()  # Memory.close does not release the directory lock; dropping it does


def test_export_leaves_out_the_quarantine_unless_audit(store: Path, tmp_path: Path) -> None:
    """The ordinary export omits the quarantine; --audit includes it and one marker quad."""
    remember_id(store, "Alice prefers tea", "--topic=drinks")
    put_in_quarantine(store)
    plain, audit = tmp_path / "plain.nq", tmp_path / "audit.nq"
    result = run(store, "export", str(plain))
    assert result.exit_code == 0
    count = len(plain.read_text(encoding="utf-8").splitlines())
    assert result.stdout == f"Wrote {count} quad(s) to {plain}.\n"
    assert "obey me" not in plain.read_text(encoding="utf-8")
    data = run_json(store, "export", str(audit), "--audit")
    assert data == {"file": str(audit), "quads": count + 2, "audit": True}
    assert "obey me" in audit.read_text(encoding="utf-8")
    marker = (
        "<urn:doxa:scope:default/export> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
        "<https://w3id.org/doxa#AuditExport> <urn:doxa:scope:default/export> .\n"
    )
    assert marker in audit.read_text(encoding="utf-8")
    assert marker not in plain.read_text(encoding="utf-8")


def test_export_to_missing_directory_exits_4(store: Path, tmp_path: Path) -> None:
    """Exporting into a directory that does not exist exits 4; an existing one exits 0."""
    target = tmp_path / "no" / "such" / "dir.nq"
    result = run(store, "export", str(target))
    assert result.exit_code == 4
    assert result.stderr == (
        f"error: Cannot write the export to {target}: No such file or directory; check that "
        "the folder exists and is writable.\n"
    )
    error = json.loads(run(store, "--json", "export", str(target)).stdout)["error"]
    assert (error["type"], error["exit_code"]) == ("StoreError", 4)
    assert run(store, "export", str(tmp_path / "dir.nq")).exit_code == 0


def test_ontology_add(tmp_path: Path) -> None:
    """`doxa ontology add` loads the file and counts its triples."""
    path = tmp_path / "days.ttl"
    path.write_text(SUPPLIER_ONTOLOGY, encoding="utf-8")
    result = run(":memory:", "ontology", "add", str(path))
    assert result.exit_code == 0
    assert result.stdout == f"Added 2 triple(s) from {path} to the ontology (source 'days.ttl').\n"
    assert run_json(":memory:", "ontology", "add", str(path)) == {
        "file": str(path),
        "source": "days.ttl",
        "triples": 2,
    }


def test_ontology_add_missing_file_exits_3(tmp_path: Path) -> None:
    """A missing ontology file exits 3 with the library's message."""
    result = run(":memory:", "ontology", "add", str(tmp_path / "nope.ttl"))
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: There is no ontology file at {tmp_path / 'nope.ttl'}; check the path.\n"
    )


def test_ontology_add_unparsable_file_exits_2(tmp_path: Path) -> None:
    """A file that is not Turtle exits 2; the same file as valid Turtle exits 0."""
    path = tmp_path / "bad.ttl"
    path.write_text("this is not turtle", encoding="utf-8")
    result = run(":memory:", "ontology", "add", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: The RDF data could not be parsed: ")
    path.write_text(SUPPLIER_ONTOLOGY, encoding="utf-8")
    assert run(":memory:", "ontology", "add", str(path)).exit_code == 0


def test_ontology_add_with_format(tmp_path: Path) -> None:
    """--format names the syntax when the suffix does not; an unknown format exits 2."""
    path = tmp_path / "days.txt"
    path.write_text(SUPPLIER_ONTOLOGY, encoding="utf-8")
    assert run(":memory:", "ontology", "add", str(path)).exit_code == 2
    assert run(":memory:", "ontology", "add", str(path), "--format", "turtle").exit_code == 0


# -- store errors and the gate failing ------------------------------------------------------


def test_locked_store_exits_4(store: Path) -> None:
    """A store held open elsewhere exits 4 with StoreLocked's message; once freed, exit 0."""
    memory = Memory.open(store, scope="default")
    result = run(store, "held")
    assert result.exit_code == 4
    assert result.stderr == (
        f"error: The store at {store} is already open for writing in another process; close "
        "that process (one writer per store directory) or open a copy.\n"
    )
    memory.close()
    del memory
    gc.collect()
    assert run(store, "held").exit_code == 0


def test_store_path_that_is_a_file_exits_4(tmp_path: Path) -> None:
    """A --store that is a regular file exits 4; a fresh directory path exits 0."""
    path = tmp_path / "file"
    path.write_text("", encoding="utf-8")
    result = run(path, "init")
    assert result.exit_code == 4
    assert result.stderr.startswith(f"error: Cannot open the store at {path}: ")
    assert run(tmp_path / "dir", "init").exit_code == 0


def test_shape_check_failure_exits_6(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When pySHACL itself fails the command exits 6; with the check back, exit 0."""

    def broken(self: ShapeCheck, graph: object) -> object:
        raise ShapeCheckFailed("pySHACL failed while checking the write: boom.")

    with monkeypatch.context() as patch:
        patch.setattr(ShapeCheck, "check", broken)
        result = run(store, "remember", "x", "--topic=t")
        assert result.exit_code == 6
        assert result.stderr == "error: pySHACL failed while checking the write: boom.\n"
    assert run(store, "remember", "x", "--topic=t").exit_code == 0


def test_json_error_shape(store: Path) -> None:
    """With --json an error is also one JSON document on stdout: type, message, exit code."""
    result = run(store, "--json", "history", "nope")
    assert result.exit_code == 3
    assert json.loads(result.stdout) == {
        "error": {
            "type": "NotFound",
            "message": "There is no fact 'nope' in scope 'default'; list ids with `doxa facts`.",
            "exit_code": 3,
        }
    }
    assert result.stderr == (
        "error: There is no fact 'nope' in scope 'default'; list ids with `doxa facts`.\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["facts", "--bogus"], "No such option '--bogus'. See 'doxa facts --help'"),
        (["remember"], "Missing argument 'TEXT'. See 'doxa remember --help'"),
        (["nosuchcommand"], "No such command 'nosuchcommand'. See 'doxa --help'"),
        (["ontology", "bogus"], "No such command 'bogus'. See 'doxa ontology --help'"),
        (["--scope"], "Option '--scope' requires an argument."),
        (["--bogus", "facts"], "No such option '--bogus'. See 'doxa --help'"),
        (["facts", "--include-ended=maybe"], "--include-ended"),
    ],
    ids=["option", "argument", "command", "subcommand", "global-value", "global-option", "flag"],
)
def test_usage_errors_under_json_print_one_document(
    tmp_path: Path, args: list[str], message: str
) -> None:
    """A usage error with --json prints doxa's error document on stdout (exit 2), and click's
    usage lines on stderr as ever; without --json stdout stays empty (control)."""
    result = run(tmp_path / "m", "--json", *args)
    assert result.exit_code == 2
    document = json.loads(result.stdout)
    assert set(document) == {"error"}
    assert (document["error"]["type"], document["error"]["exit_code"]) == ("UsageError", 2)
    assert message in document["error"]["message"]
    assert result.stderr.strip().splitlines()[-1].startswith("Error: ")  # click's own line
    plain = run(tmp_path / "m", *args)
    assert (plain.exit_code, plain.stdout) == (2, "")
    assert plain.stderr == result.stderr


def test_json_still_answers_after_a_usage_check(tmp_path: Path) -> None:
    """Control: a command given right under --json prints its own document, not an error."""
    assert run_json(tmp_path / "m", "facts") == []


def test_ill_typed_literals_print_no_rdflib_traceback(tmp_path: Path) -> None:
    """A result holding "x"^^xsd:integer prints it, with nothing on stderr (rdflib logged a
    traceback there); the library's other log records are left alone (control)."""
    import logging
    import subprocess
    import sys

    ill = 'SELECT ?v WHERE { BIND(STRDT("x", <http://www.w3.org/2001/XMLSchema#integer>) AS ?v) }'
    done = subprocess.run(
        [sys.executable, "-m", "doxa", "--store", ":memory:", "sparql", ill],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == 'v\n"x"^^<http://www.w3.org/2001/XMLSchema#integer>\n'
    assert done.stderr == ""

    from doxa.interfaces.logs import quiet_libraries

    quiet_libraries()
    quiet_libraries()
    logger = logging.getLogger("rdflib.term")
    [only] = logger.filters
    assert isinstance(only, logging.Filter)
    message = "Failed to convert Literal lexical form to value. Datatype=%s, Converter=%s"
    dropped = logging.LogRecord("rdflib.term", logging.WARNING, "", 0, message, (), None)
    kept = logging.LogRecord("rdflib.term", logging.WARNING, "", 0, "something else", (), None)
    assert [only.filter(r) for r in (kept, dropped)] == [True, False]
