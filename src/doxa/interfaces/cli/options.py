"""Option types and options several ``doxa`` commands share."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, TypeVar

import click

from doxa.errors import InvalidInput
from doxa.reads.parameters import Parameter, Read
from doxa.writes import Wire

__all__ = [
    "Member",
    "as_of",
    "export_format",
    "include_ended",
    "progress",
    "rdf_format",
    "read_options",
    "valid_at",
]

F = TypeVar("F", bound=Callable[..., Any])


class Member(click.Choice[str]):
    """An enum option: ``--help`` lists the values, and the enum's own ``parse`` (the one the
    Python API, REST and MCP share) reads what was typed, so the command gets the member."""

    def __init__(self, members: type[enum.Enum], parse: Callable[[object], enum.Enum]) -> None:
        super().__init__([str(m.value) for m in members])
        self._parse = parse

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> Any:
        try:
            return self._parse(value)
        except InvalidInput as error:
            self.fail(str(error), param, ctx)


valid_at = click.option("--valid-at", metavar="WHEN", help="True at this time (default now).")
as_of = click.option("--as-of", metavar="WHEN", help="As believed at this time (default now).")
include_ended = click.option(
    "--include-ended", is_flag=True, help="Also superseded and retracted facts."
)
rdf_format = click.option(
    "--format",
    "rdf_format",
    type=click.Choice(["nquads", "trig"]),
    help="N-Quads or TriG (default: from the file suffix, .trig, else N-Quads).",
)
export_format = click.option(
    "--format",
    "rdf_format",
    type=click.Choice(["nquads", "trig", "turtle"]),
    help="N-Quads, TriG, or Turtle for Protégé (default: from the suffix, else N-Quads).",
)
progress = click.option(
    "--progress", is_flag=True, help="Draw a progress bar on stderr even when it is not a terminal."
)


def _read_option(item: Parameter) -> Callable[[F], F]:
    """The click argument or option of one parameter of a read (its doc is the help)."""
    if item.required:
        return click.argument(item.name)
    flag = "--" + item.name.replace("_", "-")
    if item.wire is Wire.FLAG:
        return click.option(flag, item.name, is_flag=True, help=item.doc)
    settings: dict[str, Any] = {"help": item.doc, "metavar": item.metavar}
    if item.wire is Wire.COUNT:
        settings["type"] = int  # the read itself says when it is out of range
    if item.default is not None:
        settings.update(default=item.default, show_default=True)
    return click.option(flag, item.name, **settings)


def read_options(read: Read) -> Callable[[F], F]:
    """An argument or option for every parameter of ``read``
    (:mod:`doxa.reads.parameters`), in the definition's order."""

    def decorate(command: F) -> F:
        for item in reversed(read.parameters):
            command = _read_option(item)(command)
        return command

    return decorate
