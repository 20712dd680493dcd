"""A write as JSON (a REST body, an MCP tool call): pydantic fields built from :mod:`doxa.writes`.

The REST API serves the owner and the agents with one body: every field, the closed lists
as strings with their values listed (the one strict parse then reads them, so a wrong
spelling is a 400 naming the values). The MCP server serves an agent only: the owner's
fields and values are left out, and the closed lists are the schema's enums.

Both show each field's declared hints (:attr:`doxa.writes.Field.constraints`: ``date-time``
for instants, ``uri`` for IRIs, the patterns of fact ids, names and language tags, the
bounds of a confidence) so a model fills arguments right the first time. They are hints in
the schema only: the values are still read by doxa's parses, whose messages say what to do.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field as Described
from pydantic.fields import FieldInfo

from doxa.writes import FIELDS, Field, Wire

__all__ = ["json_fields"]


def _annotation(item: Field, *, agent: bool) -> Any:
    optional = item.default is None
    if item.wire.many:
        return list[str]
    if item.wire is Wire.NUMBER:
        return float | str | None
    if item.wire is Wire.CHOICE and agent:
        values: Any = Literal.__getitem__(item.agent_values)
        return values | None if optional else values
    return str | None if optional else str


def _hints(item: Field, *, agent: bool) -> dict[str, Any]:
    """The schema keywords beyond the annotation's type: a list's item format, a value's
    format, pattern and bounds, and (for the REST body) a closed list's values."""
    hints: dict[str, Any] = {}
    if item.wire.many:
        hints["items"] = {"type": "string", **item.constraints}
    else:
        hints.update(item.constraints)
    if item.wire is Wire.CHOICE and not agent:
        hints["enum"] = [*item.values, None] if item.default is None else list(item.values)
    return hints


def _info(item: Field, *, agent: bool) -> FieldInfo:
    extra: dict[str, Any] = {}
    if hints := _hints(item, agent=agent):
        extra["json_schema_extra"] = hints
    made: object
    if item.required:
        made = Described(description=item.doc, **extra)
    elif item.wire.many:
        made = Described(default_factory=list, description=item.doc, **extra)
    else:
        made = Described(item.default, description=item.doc, **extra)
    assert isinstance(made, FieldInfo)
    return made


def json_fields(*, agent: bool) -> dict[str, tuple[Any, FieldInfo]]:
    """``name -> (annotation, field)`` for every field of a write, in the definition's order;
    ``agent``: only what an agent may send (no owner-only field or value)."""
    return {
        item.name: (_annotation(item, agent=agent), _info(item, agent=agent))
        for item in FIELDS
        if not (agent and item.owner_only)
    }
