"""What works through a running server is declared once, as a type: the ``Served`` protocol.

``Memory`` and ``RemoteMemory`` both satisfy it (mypy checks that statically, and every CLI
action run through :func:`~doxa.interfaces.cli.running.run` is typed with it); a command
that needs the store itself runs with ``run_store`` and is refused through a server by name,
before any request is sent.
"""

from __future__ import annotations

import inspect

import pytest
from click.testing import CliRunner

from doxa import Memory
from doxa.interfaces.cli import main
from doxa.interfaces.client import RemoteMemory, Served

#: a port nothing listens on: a command that goes through the "server" fails to reach it
NOWHERE = "http://127.0.0.1:9"
KEY = {"DOXA_KEY": "key-0123456789abcdef"}


def _members() -> list[str]:
    return [name for name in vars(Served) if not name.startswith("_")]


def test_served_names_what_both_have() -> None:
    assert {"remember", "facts", "recall", "owner", "verify", "held"} <= set(_members())
    memory = Memory.open(None, scope="alice")  # ``scope`` is an attribute of an instance
    for name in _members():
        assert hasattr(memory, name), name
        assert hasattr(RemoteMemory, name), name
    assert not hasattr(memory, "approve")  # the control: the owner's verbs are on .owner


@pytest.mark.parametrize("name", ["get", "history", "why", "flagged", "vocabulary", "verify"])
def test_served_parameters_are_memorys(name: str) -> None:
    """A served method's parameters are Memory's own (names and kinds), so the protocol
    cannot drift from the Python API it stands for."""
    declared = inspect.signature(getattr(Served, name)).parameters
    memory = inspect.signature(getattr(Memory, name)).parameters
    assert [(p.name, p.kind) for p in declared.values()] == [
        (p.name, p.kind) for p in memory.values()
    ]


def test_served_admin_and_rdf_take_memorys_parameters() -> None:
    """The export and SPARQL the CLI sends through a server take Admin's and Rdf's own
    parameters (names and kinds; Rdf's dataset options are the Python API's only)."""
    from doxa.interfaces.client import ServedAdmin, ServedRdf
    from doxa.memory.admin import Admin
    from doxa.memory.rdf import Rdf

    def shape(function: object) -> list[tuple[str, object]]:
        return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]  # type: ignore[arg-type]

    assert shape(ServedAdmin.export) == shape(Admin.export)
    assert shape(ServedAdmin.audit) == shape(Admin.audit)
    assert shape(ServedRdf.sparql) == shape(Rdf.sparql)[:2]


@pytest.mark.parametrize(
    "args",
    [
        ["backup"],
        ["render", "folder"],
        ["ontology", "list"],
    ],
)
def test_a_store_command_is_refused_through_a_server(args: list[str]) -> None:
    result = CliRunner().invoke(main, ["--server", NOWHERE, *args], env=KEY)
    assert result.exit_code == 2, result.output
    assert "cannot go through the doxa server" in result.output
    assert "has no route for it" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["facts"],
        ["held"],
        ["approve", "h1"],
        ["verify"],
        ["export", "out.nq"],
        ["sparql", "SELECT * WHERE { ?s ?p ?o }"],
    ],
)
def test_a_served_command_goes_to_the_server(args: list[str]) -> None:
    """The control: a served command is sent (and fails to reach the port: exit 4)."""
    result = CliRunner().invoke(main, ["--server", NOWHERE, *args], env=KEY)
    assert result.exit_code == 4, result.output
    assert "Cannot reach the doxa server" in result.output
