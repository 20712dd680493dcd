"""A read's parameters as a signature (REST query parameters, an MCP tool's arguments),
built from :mod:`doxa.reads.parameters`, as :mod:`doxa.interfaces.write_schema` builds a
write's fields.

FastAPI and the MCP SDK both read a route's or a tool's parameters from its signature, so a
route or tool takes ``**given`` and gets the signature built here. Each parameter shows its
doc and, for a count, its bounds as schema hints only: the read refuses a value outside them
with doxa's message, as the writes' hints leave the guard to doxa's parses.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

from doxa.reads.parameters import Parameter, Read
from doxa.writes import Wire

__all__ = ["annotation", "read_signature"]


def annotation(item: Parameter, *, agent: bool) -> Any:
    """The Python type a parameter's value has once read from the wire."""
    default = item.default_for(agent=agent)
    if item.wire is Wire.FLAG:
        return bool
    if item.wire is Wire.COUNT:
        return int if default is not None else int | None
    return str if item.required else str | None


def read_signature(
    read: Read,
    *,
    agent: bool,
    describe: Callable[..., Any],
    leading: tuple[inspect.Parameter, ...] = (),
    returns: Any = inspect.Signature.empty,
    http: bool = False,
) -> inspect.Signature:
    """The signature of a route or tool serving ``read``: ``leading`` (a route's caller),
    then one keyword parameter per defined parameter, ``Annotated`` with ``describe(...)``
    (FastAPI's ``Query`` or pydantic's ``Field``) holding its doc, its bounds as schema hints
    and, with ``http``, its query name where it has its own (``q``); ``agent``: the MCP
    tools' defaults."""
    parameters = list(leading)
    for item in read.parameters:
        settings: dict[str, Any] = {"description": item.doc}
        if item.constraints:
            settings["json_schema_extra"] = dict(item.constraints)
        if http and item.http_name is not None:
            settings["alias"] = item.http_name
        default = item.default_for(agent=agent)
        parameters.append(
            inspect.Parameter(
                item.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if item.required else default,
                annotation=Annotated[annotation(item, agent=agent), describe(**settings)],
            )
        )
    return inspect.Signature(parameters, return_annotation=returns)
