"""How results look outside Python: the one JSON form, SPARQL results JSON, tables, dates.

``doxa --json``, the REST API and the MCP server show the same result objects the same way;
this is where that way is written down, once, for all of them.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

from doxa.audit.validation import AuditReport
from doxa.errors import DoxaError
from doxa.model import Fact, Outcome, Receipt, Relation, Standing
from doxa.reads.provenance import quotation
from doxa.reads.stats import KindStats
from doxa.store import QueryResult

__all__ = [
    "Effect",
    "Match",
    "matches",
    "plain",
    "quotation",
    "result_schema",
    "sparql_json",
    "sparql_term",
    "table",
    "when",
    "written",
]


#: properties the Python API documents beside the fields, which the JSON must carry too
_DERIVED: tuple[tuple[type, tuple[str, ...]], ...] = (
    (Fact, ("needs_rerun", "needs_recheck")),
    (Standing, ("agreement",)),
    (KindStats, ("writes", "held", "needless_hold_rate")),
)


def plain(value: object) -> Any:
    """A JSON-ready copy: dataclasses as objects, enums by value, dates ISO 8601, terms as text.

    >>> from doxa.model import Authority
    >>> plain({"who": Authority.OWNER, "at": datetime(2026, 3, 9)})
    {'who': 'owner', 'at': '2026-03-09T00:00:00'}
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        for cls, names in _DERIVED:
            if isinstance(value, cls):
                out.update((name, plain(getattr(value, name))) for name in names)
        if isinstance(value, Fact):
            out["quotation"] = quotation(value)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Node):
        return str(value)
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    return value


def result_schema(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of what :func:`plain` makes of a value of type ``hint`` (a result
    dataclass, a list of them, an optional one …), the dataclasses' schemas added to
    ``defs`` by name and referred to as ``#/components/schemas/NAME``. Raises ``TypeError``
    for a type whose JSON form :func:`plain` does not define.

    >>> defs = {}
    >>> result_schema(list[Receipt], defs)
    {'type': 'array', 'items': {'$ref': '#/components/schemas/Receipt'}}
    >>> defs["Receipt"]["properties"]["outcome"]["enum"][:2]
    ['admitted', 'merged']
    """
    return _schema_of(hint, defs)


def _dataclass_schema(cls: type, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of what :func:`plain` makes of a ``cls`` (a dataclass of results):
    a reference to ``#/components/schemas/NAME``, with NAME's schema (and those of the
    dataclasses in its fields) added to ``defs``. Derived from the same fields and
    :data:`_DERIVED` table as :func:`plain`, so the two cannot drift apart: what the REST
    API's OpenAPI document says a route returns is what it sends."""
    name = cls.__name__
    if name not in defs:
        defs[name] = {}  # a placeholder: a field that refers back finds the name taken
        hints = typing.get_type_hints(cls)
        properties = {f.name: _schema_of(hints[f.name], defs) for f in dataclasses.fields(cls)}
        for derived_cls, names in _DERIVED:
            if issubclass(cls, derived_cls):
                for derived in names:
                    returns = typing.get_type_hints(getattr(cls, derived).fget)["return"]
                    properties[derived] = _schema_of(returns, defs)
        if issubclass(cls, Fact):
            properties["quotation"] = _schema_of(typing.get_type_hints(quotation)["return"], defs)
        defs[name] = {
            "title": name,
            "type": "object",
            "description": (cls.__doc__ or "").strip().split("\n\n")[0],
            "properties": properties,
            "required": sorted(properties),
        }
    return {"$ref": f"#/components/schemas/{name}"}


def _schema_of(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The schema of one field's JSON form, by its type hint (as :func:`plain` writes it)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        choices = [_schema_of(arg, defs) for arg in args if arg is not type(None)]
        if type(None) in args:
            choices.append({"type": "null"})
        unique = [c for i, c in enumerate(choices) if c not in choices[:i]]
        return unique[0] if len(unique) == 1 else {"anyOf": unique}
    if origin in (tuple, list):
        return {"type": "array", "items": _schema_of(args[0], defs) if args else {}}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema_of(args[1], defs)}
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            return _dataclass_schema(hint, defs)
        if issubclass(hint, enum.Enum):
            return {"type": "string", "enum": [member.value for member in hint]}
        if issubclass(hint, bool):
            return {"type": "boolean"}
        if issubclass(hint, int):
            return {"type": "integer"}
        if issubclass(hint, float | Decimal):
            return {"type": "number"}
        if issubclass(hint, datetime):
            return {"type": "string", "format": "date-time"}
        if issubclass(hint, str | Node):
            return {"type": "string"}
    raise TypeError(f"no JSON form is written for {hint!r}; add it to plain() and here")


def sparql_term(term: Node) -> dict[str, str]:
    """One term in the SPARQL 1.1 Query Results JSON form.

    >>> sparql_term(Literal("Mittwoch", lang="de"))
    {'type': 'literal', 'value': 'Mittwoch', 'xml:lang': 'de'}
    """
    if isinstance(term, URIRef):
        return {"type": "uri", "value": str(term)}
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    out = {"type": "literal", "value": str(term)}
    if isinstance(term, Literal):
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype is not None:
            out["datatype"] = str(term.datatype)
    return out


def sparql_json(result: QueryResult) -> dict[str, Any]:
    """A query's result as a SPARQL 1.1 Query Results JSON document.

    ASK gives ``boolean``, SELECT ``results.bindings`` (unbound variables left out); a graph
    (CONSTRUCT, DESCRIBE) gives ``triples``, each term in the same form.
    """
    if result.form == "ask":
        return {"head": {}, "boolean": bool(result.boolean)}
    if result.form == "construct":
        return {
            "head": {},
            "triples": [
                {"subject": sparql_term(s), "predicate": sparql_term(p), "object": sparql_term(o)}
                for s, p, o in result.triples
            ],
        }
    bindings = [
        {
            name: sparql_term(term)
            for name, term in zip(result.variables, row, strict=True)
            if term is not None
        }
        for row in result.rows
    ]
    return {"head": {"vars": list(result.variables)}, "results": {"bindings": bindings}}


def when(moment: datetime | None) -> str:
    """A date alone when it is midnight UTC, else the instant to the second; ``-`` for none.

    >>> when(datetime(2026, 3, 9)), when(datetime(2026, 3, 9, 14, 30)), when(None)
    ('2026-03-09', '2026-03-09T14:30:00Z', '-')
    """
    if moment is None:
        return "-"
    if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
        return moment.date().isoformat()
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the last column runs free.

    >>> print(table(["id", "text"], [["f1", "tea"], ["f22", "green tea"]]))
    id   text
    f1   tea
    f22  green tea
    """
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        padded = [cell.ljust(widths[i]) for i, cell in enumerate(cells[:-1])]
        return "  ".join([*padded, cells[-1]]).rstrip()

    return "\n".join([line(headers), *(line(row) for row in rows)])


# -- what a write did to what was stored ------------------------------------------------------


class Effect(enum.Enum):
    """What a write did, or would do once the owner approves it, to one stored fact."""

    MATCHED = "matched"  #: the same statement: the write corroborates it (merged)
    REFINED = "refined"  #: the write adds detail to it (adds_detail)
    REPLACED = "replaced"  #: the write ended it: it held until the new one (replaces)
    RETRACTED = "retracted"  #: the write ended it as never true (was_wrong)
    WOULD_REPLACE = "would_replace"  #: held: approving replaces it
    WOULD_RETRACT = "would_retract"  #: held: approving ends it as never true
    IN_QUESTION = "in_question"  #: held: the owner decides how the two relate


#: (outcome, relation) -> effect on each of the receipt's targets
_EFFECTS: dict[tuple[Outcome, Relation], Effect] = {
    (Outcome.MERGED, Relation.SAME): Effect.MATCHED,
    (Outcome.ADMITTED, Relation.ADDS_DETAIL): Effect.REFINED,
    (Outcome.ADMITTED, Relation.REPLACES): Effect.REPLACED,
    (Outcome.ADMITTED, Relation.WAS_WRONG): Effect.RETRACTED,
    (Outcome.HELD, Relation.REPLACES): Effect.WOULD_REPLACE,
    (Outcome.HELD, Relation.WAS_WRONG): Effect.WOULD_RETRACT,
}


@dataclasses.dataclass(frozen=True)
class Match:
    """A stored fact a write was weighed against: its id, its text and the write's effect.

    ``text`` is None only when the fact can no longer be read (erased since); its id stays.
    """

    fact: str
    text: str | None
    effect: Effect


def matches(receipt: Receipt, get: Callable[[str], Fact]) -> tuple[Match, ...]:
    """What ``receipt``'s write did to each fact it names, with the fact's text read by
    ``get`` (``Memory.get``): one read per target, so the cost is the receipt's, never the
    store's. A write that named no stored fact (``new``, a rejection) has none.

    Every interface answers a write with these, so the writer (a model above all) reads which
    fact it matched, refined or would replace without a second call.
    """
    if receipt.relation is None or receipt.outcome not in (
        Outcome.ADMITTED,
        Outcome.MERGED,
        Outcome.HELD,
    ):
        return ()
    default = Effect.IN_QUESTION if receipt.outcome is Outcome.HELD else None
    effect = _EFFECTS.get((receipt.outcome, receipt.relation), default)
    if effect is None:
        return ()
    found = []
    for target in receipt.targets:
        try:
            text: str | None = get(target).text
        except DoxaError:  # erased since, say: the write stands, its id is still shown
            text = None
        found.append(Match(target, text, effect))
    return tuple(found)


def written(receipt: Receipt, found: Sequence[Match]) -> dict[str, Any]:
    """A write's answer as JSON: the receipt, and under ``matched`` each fact it names.

    >>> receipt = Receipt("r1", 1, Relation.NEW, Outcome.ADMITTED, datetime(2026, 3, 9),
    ...     "rule", "1", "nothing stored says otherwise", fact="f1")
    >>> written(receipt, [Match("f0", "Calls are on Monday", Effect.REPLACED)])["matched"]
    [{'fact': 'f0', 'text': 'Calls are on Monday', 'effect': 'replaced'}]
    """
    return {**plain(receipt), "matched": plain(list(found))}


# -- whole-scope audits ----------------------------------------------------------------------


def audit_json(report: AuditReport) -> dict[str, Any]:
    """An audit as JSON: its counts and every result (the report graph is served apart, as
    Turtle or JSON-LD)."""
    return {
        "conforms": report.conforms,
        "triples": report.triples,
        "shapes": report.shapes,
        "inferred": report.inferred,
        "violations": plain(report.violations),
    }


def audit_table(report: AuditReport) -> str:
    """An audit for people: one line per result, then a summary line."""
    summary = (
        f"{len(report.violations)} result(s) over {report.triples} triple(s)"
        + (f", {report.inferred} inferred" if report.inferred else "")
        + (": the scope conforms." if report.conforms else ": the scope does not conform.")
    )
    if not report.violations:
        return summary
    rows = [
        [
            v.severity,
            v.focus_node,
            v.path or "",
            v.value or "",
            ", ".join(v.facts) or "-",
            v.message,
        ]
        for v in report.violations
    ]
    return table(["severity", "focus", "path", "value", "facts", "message"], rows) + "\n" + summary
