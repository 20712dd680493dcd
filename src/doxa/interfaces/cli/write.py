"""``doxa remember``: one write through the gate, its options built from :mod:`doxa.writes`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from doxa.interfaces.cli.options import Member
from doxa.interfaces.cli.running import Rejected, Settings, attempt, run
from doxa.interfaces.cli.show import show_written
from doxa.interfaces.client import Served
from doxa.interfaces.presentation import matches
from doxa.model import Outcome
from doxa.writes import FIELDS, Field, Naming, Role, remember_arguments
from doxa.writes import field as write_field

__all__ = ["OPTION_NAMES", "flag", "remember"]

F = TypeVar("F", bound=Callable[..., Any])


def flag(item: Field) -> str:
    """The command line's option for a write's field: ``--valid-from``, ``--source``."""
    return item.flag or "--" + item.name.replace("_", "-")


class _OptionNames(Naming):
    """A field as the command line spells it: ``--literal``, ``--literal VALUE``."""

    def name(self, field: str) -> str:
        return flag(write_field(field))

    def example(self, field: str) -> str:
        item = write_field(field)
        return f"{flag(item)} {item.metavar or 'VALUE'}"


#: how ``doxa remember`` names the fields in its messages
OPTION_NAMES: Naming = _OptionNames()


def _option(item: Field) -> Callable[[F], F]:
    """The click option of one field of a write."""
    settings: dict[str, Any] = {"help": item.doc}
    if item.metavar is not None:
        settings["metavar"] = item.metavar
    if item.wire.many:
        settings.update(multiple=True, help=f"{item.doc[:-1]} (repeatable).")
    if item.choices is not None and item.parse is not None:
        settings["type"] = Member(item.choices, item.parse)
    if item.required:
        settings["required"] = True
    elif item.default is not None and not item.wire.many:
        settings.update(default=item.default, show_default=True)
    return click.option(flag(item), item.name, **settings)


def _write_options(command: F) -> F:
    """``TEXT`` and an option for every other field, in the definition's order."""
    for item in reversed(FIELDS):
        if item.name != "text":
            command = _option(item)(command)
    return click.argument("text")(command)


@click.command()
@_write_options
@click.pass_obj
def remember(settings: Settings, /, **given: object) -> None:
    """Write one fact through the gate and print the receipt."""
    # an option left out is None (a repeatable one empty): the write's default
    wire = {name: value for name, value in given.items() if value is not None and value != ()}
    # the command line is the owner's own (through a server, the server's key decides again)
    arguments = attempt(settings, lambda: remember_arguments(wire, OPTION_NAMES, role=Role.OWNER))

    def action(memory: Served) -> None:
        receipt = memory.remember(**arguments, strict=False)
        if receipt.outcome is Outcome.REJECTED:
            raise Rejected(receipt)
        show_written(settings, receipt, matches(receipt, memory.get))

    run(settings, action)
