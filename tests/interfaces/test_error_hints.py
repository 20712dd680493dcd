"""An error's hint names the way to the list in the reader's own interface (issue 32: REST
and MCP said "list them with `doxa facts`", a command they do not have)."""

from __future__ import annotations

import pytest

import doxa
from doxa.errors import Listing, NotFound
from doxa.interfaces.failures import message_for

INTERFACES = {"cli": "`doxa ", "http": "`GET /", "mcp": ""}


def missing(memory: doxa.Memory) -> dict[str, NotFound]:
    """One NotFound of each kind the owner or an agent meets by a mistyped id."""
    found: dict[str, NotFound] = {}
    calls = {
        "revise": lambda: memory.remember("x", topic="t", revises="0" * 20),
        "clear alarm": lambda: memory.owner.clear_alarm("0" * 20, reason="checked"),
        "confirm": lambda: memory.owner.confirm("0" * 20, reason="checked"),
        "history": lambda: memory.history("0" * 20),
    }
    for name, call in calls.items():
        with pytest.raises(NotFound) as raised:
            call()
        found[name] = raised.value
    return found


def test_each_interface_names_its_own_listing() -> None:
    with doxa.Memory.open(None, scope="alice") as memory:
        errors = missing(memory)
    for name, error in errors.items():
        assert error.listings, name  # each names where the ids are listed
        for interface, mark in INTERFACES.items():
            said = str(error) if interface == "cli" else message_for(error, interface)
            assert mark in said, (name, interface, said)
            if interface != "cli":
                assert "`doxa " not in said, (name, interface, said)


def test_a_listing_for_every_interface() -> None:
    """Every listing has REST and MCP words (a new one without them would fail here)."""
    for listing in Listing:
        error = NotFound("There is no thing 'x'", listings=(listing,))
        for interface in ("http", "mcp"):
            said = message_for(error, interface)
            assert "`doxa " not in said
            assert said != error.bare  # the control: a hint was added
