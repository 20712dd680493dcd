"""One definition of a write (doxa.writes): every interface exposes exactly its fields.

The Python API's signature, the CLI's ``doxa remember`` options, the REST body and the MCP
``remember`` tool are each compared with :data:`doxa.writes.FIELDS`; the shared reader of
a write's wire values, the one error table and the interfaces' imports are pinned too.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any

import anyio
import click
import pytest
from click.testing import CliRunner
from rdflib.namespace import XSD

import doxa
from doxa.errors import (
    ChainBroken,
    DoxaError,
    ErasedContent,
    Forbidden,
    InvalidInput,
    JudgeUnavailable,
    NotFound,
    ScopeViolation,
    ShapeCheckFailed,
    ShapeViolation,
    StoreBehindJournal,
    StoreError,
    StoreLocked,
    WriteConflict,
)
from doxa.interfaces.cli import main
from doxa.interfaces.cli.write import OPTION_NAMES
from doxa.interfaces.failures import FAILURES, exit_code, http_status
from doxa.interfaces.http.rest import RememberBody
from doxa.interfaces.mcp.server import build_server
from doxa.writes import (
    FIELDS,
    JSON_KEYS,
    PYTHON_FIELDS,
    REQUIRED,
    Naming,
    Role,
    remember_arguments,
)

SRC = Path(__file__).resolve().parents[2] / "src" / "doxa"
WIRE_NAMES = [f.name for f in FIELDS]
AGENT_NAMES = [f.name for f in FIELDS if not f.owner_only]


def signature_mismatches(signature: inspect.Signature) -> list[str]:
    """How ``signature`` differs from the definition: names, order, defaults, annotations."""
    parameters = list(signature.parameters.values())
    if parameters and parameters[0].name == "self":
        parameters = parameters[1:]
    found = []
    names = [p.name for p in parameters]
    wanted = [f.name for f in PYTHON_FIELDS] + ["strict"]
    if names != wanted:
        found.append(f"names {names} != {wanted}")
    for item, parameter in zip(PYTHON_FIELDS, parameters, strict=False):
        default = inspect.Parameter.empty if item.default is REQUIRED else item.default
        if parameter.default != default:
            found.append(f"{item.name}: default {parameter.default!r} != {default!r}")
        if parameter.annotation != item.python:
            found.append(f"{item.name}: annotation {parameter.annotation!r} != {item.python!r}")
    return found


def test_memory_remember_takes_exactly_the_defined_fields() -> None:
    """Memory.remember's names, order, defaults and annotations are the definition's."""
    assert signature_mismatches(inspect.signature(doxa.Memory.remember)) == []


def test_a_drifted_signature_is_caught() -> None:
    """Control for the test above: a field left out or a changed default is reported."""
    real = inspect.signature(doxa.Memory.remember)
    without_turn = real.replace(
        parameters=[p for p in real.parameters.values() if p.name != "turn"]
    )
    assert any("names" in m for m in signature_mismatches(without_turn))
    changed = real.replace(
        parameters=[
            p.replace(default="owner") if p.name == "authority" else p
            for p in real.parameters.values()
        ]
    )
    assert signature_mismatches(changed) == ["authority: default 'owner' != 'agent'"]


def test_the_cli_remember_takes_exactly_the_defined_fields() -> None:
    """``doxa remember``: TEXT and one option per field (``--source`` repeatable)."""
    command = main.commands["remember"]
    assert [p.name for p in command.params] == WIRE_NAMES
    options = {p.name: p for p in command.params if isinstance(p, click.Option)}
    assert options["sources"].opts == ["--source"]
    assert options["sources"].multiple
    assert options["topic"].required
    assert options["authority"].default == "agent"
    assert options["language"].opts == ["--language"]


def test_the_rest_body_takes_exactly_the_defined_fields() -> None:
    """POST /remember's body: every field, in order, required exactly text and topic."""
    fields = RememberBody.model_fields
    assert list(fields) == WIRE_NAMES
    assert [name for name, info in fields.items() if info.is_required()] == ["text", "topic"]
    schema = RememberBody.model_json_schema()
    assert schema["properties"]["authority"]["enum"] == ["owner", "tool", "agent", "external"]
    assert schema["properties"]["literal"]["description"] == FIELDS[6].doc


def test_the_mcp_tool_takes_exactly_the_agents_fields() -> None:
    """MCP's remember: every field an agent may give (attributed_to, literal, datatype and
    language among them), nothing only the owner may give (no rule)."""
    with doxa.Memory.open(None, scope="alice") as memory:
        tools = anyio.run(build_server(memory).list_tools)
    [remember] = [t for t in tools if t.name == "remember"]
    assert list(remember.input_schema["properties"]) == AGENT_NAMES
    assert {"attributed_to", "literal", "datatype", "language"} <= set(AGENT_NAMES)
    assert "rule" not in AGENT_NAMES
    assert set(WIRE_NAMES) - set(AGENT_NAMES) == {"rule"}


# -- the one reader of a write's wire values ------------------------------------------------


def test_a_typed_literal_becomes_the_object() -> None:
    """literal + datatype (or language) become remember's one object; the extra keys go."""
    typed = remember_arguments(
        {"text": "x", "topic": "t", "literal": "1971", "datatype": "xsd:gYear"}, role=Role.OWNER
    )
    assert typed["object"] == doxa.Literal("1971", datatype=XSD.gYear)
    tagged = remember_arguments(
        {"text": "x", "topic": "t", "literal": "Mittwoch", "language": "de"}, role=Role.OWNER
    )
    assert tagged["object"] == doxa.Literal("Mittwoch", lang="de")
    assert set(typed) == {f.name for f in PYTHON_FIELDS}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"object": "a", "literal": "b"}, "Give the object once: 'object' or 'literal', not both."),
        ({"datatype": "xsd:gYear"}, "'datatype' types a 'literal'; add 'literal'."),
        ({"language": "de"}, "'language' types a 'literal'; add 'literal'."),
        ({"literal": "1", "datatype": "xsd:nope"}, "'xsd:nope' is not an XSD datatype"),
        ({"authority": "OWNER"}, "'OWNER' is not a valid authority"),
        ({"colour": "red"}, "A write has no field 'colour'"),
    ],
    ids=[
        "object-and-literal",
        "datatype-alone",
        "language-alone",
        "unknown-xsd",
        "enum",
        "unknown",
    ],
)
def test_a_bad_write_is_refused_by_the_reader(given: dict[str, Any], message: str) -> None:
    """Each is InvalidInput naming the field; the same write without the fault reads (control)."""
    with pytest.raises(InvalidInput, match=re.escape(message)):
        remember_arguments({"text": "x", "topic": "t", **given}, role=Role.OWNER)
    assert remember_arguments({"text": "x", "topic": "t"}, role=Role.OWNER)["object"] is None


def test_the_cli_names_fields_as_options() -> None:
    """The command line's naming: --literal, --literal VALUE."""
    assert isinstance(OPTION_NAMES, Naming)
    with pytest.raises(
        InvalidInput, match=re.escape("--datatype types a --literal; add --literal VALUE.")
    ):
        remember_arguments(
            {"text": "x", "topic": "t", "datatype": "xsd:gYear"}, OPTION_NAMES, role=Role.OWNER
        )
    assert remember_arguments(
        {"text": "x", "topic": "t", "literal": "1"}, OPTION_NAMES, role=Role.OWNER
    )["object"]


def test_every_json_key_is_a_field() -> None:
    assert frozenset(WIRE_NAMES) == JSON_KEYS
    assert len(WIRE_NAMES) == len(JSON_KEYS)


# -- one table of failures ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        (ShapeViolation(()), 1, 422),
        (ScopeViolation("x"), 2, 403),
        (Forbidden("x"), 2, 403),
        (ErasedContent("x"), 2, 400),
        (InvalidInput("x"), 2, 400),
        (NotFound("x"), 3, 404),
        (StoreError("x"), 4, 503),
        (StoreLocked("x"), 4, 503),
        (StoreBehindJournal("x"), 4, 503),
        (WriteConflict("x"), 4, 503),
        (ChainBroken("x"), 5, 409),
        (ShapeCheckFailed("x"), 6, 500),
        (JudgeUnavailable("x"), 6, 503),
        (DoxaError("x"), 6, 500),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, DoxaError) else str(value),
)
def test_each_error_has_one_exit_code_and_one_status(
    error: DoxaError, code: int, status: int
) -> None:
    """The CLI's documented exit codes and the HTTP statuses, from one table."""
    assert (exit_code(error), http_status(error)) == (code, status)


def test_no_row_of_the_table_is_shadowed() -> None:
    """A row after a row for its superclass would never match; the last row catches all."""
    for index, row in enumerate(FAILURES):
        earlier = [r.error for r in FAILURES[:index]]
        assert not any(issubclass(row.error, e) for e in earlier), row
    assert FAILURES[-1].error is DoxaError


# -- the interfaces share public names only -------------------------------------------------


def private_imports(root: Path) -> list[str]:
    """``from doxa.x import _name`` anywhere under ``root``: a module's private name."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("doxa"):
                found += [
                    f"{path.relative_to(root)}: {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    return found


def test_no_interface_imports_a_private_name() -> None:
    assert private_imports(SRC / "interfaces") == []


def test_a_private_import_is_found(tmp_path: Path) -> None:
    """Control for the test above."""
    (tmp_path / "m.py").write_text("from doxa.interfaces.cli.running import _within\n")
    assert private_imports(tmp_path) == ["m.py: _within"]


# -- the CLI reads literals as the REST API does --------------------------------------------


def test_the_cli_takes_a_language_tag(tmp_path: Path) -> None:
    """``--literal Mittwoch --language de`` stores a tagged literal; ``--language`` without
    ``--literal`` exits 2 and stores nothing (control)."""
    runner = CliRunner()
    store = str(tmp_path / "memory")
    base = ["--store", store, "remember", "Bob's day off", "--topic=bio"]
    structured = ["--subject=http://example.org/bob", "--predicate=http://example.org/dayOff"]
    written = runner.invoke(main, [*base, *structured, "--literal=Mittwoch", "--language=de"])
    assert written.exit_code == 0, written.output
    alone = runner.invoke(main, [*base, "--language=de"])
    assert alone.exit_code == 2
    assert "--language types a --literal; add --literal VALUE." in alone.stderr
    with doxa.Memory.open(Path(store), scope="default") as memory:
        assert [f.object for f in memory.facts()] == [doxa.Literal("Mittwoch", lang="de")]
        assert len(memory.receipts()) == 1
