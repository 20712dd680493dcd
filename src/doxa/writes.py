"""One definition of a write: every field a caller may give ``Memory.remember``, listed once.

The CLI's ``doxa remember`` options, the REST API's request body, the MCP ``remember`` tool's
input schema and the JSON Lines of a bulk import are all built from :data:`FIELDS`, and
``Memory.remember``'s signature is tested against it, so no interface can grow, lose or
rename a field on its own. Each field says what it holds on the wire (:class:`Wire`), its
default, one line of documentation and, for a closed list, the one strict parse every
interface shares (:meth:`doxa.model.Authority.parse` and its siblings).

On the wire a write names its object in one of two ways: ``object`` (an absolute IRI becomes
an IRI, anything else a string) or ``literal`` with an optional ``datatype`` or ``language``.
:func:`remember_arguments` folds those into the one ``object`` argument of
``Memory.remember`` through the one literal reader, :func:`doxa.terms.literal`.

>>> args = remember_arguments({"text": "Bob was born in 1971", "topic": "bio",
...                            "literal": "1971", "datatype": "xsd:gYear"}, role=Role.OWNER)
>>> args["object"].datatype
rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#gYear')
>>> args["authority"]
<Authority.AGENT: 'agent'>

The same parse holds the one permission rule of a write: an agent may not write as the owner.
Every interface says who its caller is (:class:`Role`); for an agent, a write with authority
``owner``, a standing rule (``rule``) or the owner's standpoint is refused with
:class:`~doxa.Forbidden`, comparing the parsed values, never spellings:

>>> remember_arguments({"text": "No calls on Sunday", "topic": "calls", "authority": "owner"},
...                    role=Role.AGENT, scope=Scope.named("alice"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
doxa.errors.Forbidden: Only the owner may write with authority 'owner'; an agent writes as ...
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from doxa.errors import Forbidden, InvalidInput
from doxa.model import Authority, Correction, RuleMode, Support
from doxa.scope import Scope
from doxa.terms import MAX_LANGUAGE, as_iri, literal
from doxa.text import normal_iri

__all__ = [
    "FACT_ID_PATTERN",
    "FIELDS",
    "JSON_KEYS",
    "LANGUAGE_PATTERN",
    "NAME_PATTERN",
    "PYTHON_FIELDS",
    "REQUIRED",
    "Field",
    "Naming",
    "Role",
    "Wire",
    "field",
    "remember_arguments",
]


class Role(enum.Enum):
    """Who sends a write, as the interface that received it knows: the owner (the owner's
    own process: the Python API, the CLI, a bulk import; over HTTP, the scope's owner key)
    or an agent (an agent key, the MCP tools). Only the owner may write as the owner."""

    OWNER = "owner"
    AGENT = "agent"


class Wire(enum.Enum):
    """What a field's value is on the wire (a JSON body, a tool call, a command line)."""

    TEXT = "text"  #: a string
    IRI = "iri"  #: a string holding an absolute IRI
    IRIS = "iris"  #: a list of such strings
    IDS = "ids"  #: a list of fact ids
    INSTANT = "instant"  #: an ISO 8601 date or date-time string
    NUMBER = "number"  #: a number, or its decimal text
    CHOICE = "choice"  #: exactly one of a closed list's values
    FLAG = "flag"  #: true or false (a read's switch: :mod:`doxa.reads.parameters`)
    COUNT = "count"  #: a whole number (a read's limit)

    @property
    def many(self) -> bool:
        """Whether the value is a list (a repeatable option on the command line)."""
        return self in (Wire.IRIS, Wire.IDS)


class _Required:
    """The default of a field the caller must give."""

    def __repr__(self) -> str:
        return "REQUIRED"


#: the default of ``text`` and ``topic``: the caller must give them
REQUIRED = _Required()

#: a fact id as doxa returns it (``revises`` takes exactly this; the gate's reader agrees)
FACT_ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
#: a topic or kind name (:func:`doxa.scope.check_name` is the guard; a test keeps them equal)
NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
#: the shape of a BCP 47 tag, for a model to aim at; Oxigraph's parser is the guard
LANGUAGE_PATTERN = r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$"

#: the JSON Schema format a wire's value has, where there is one
_FORMATS = {"instant": "date-time", "iri": "uri", "iris": "uri"}


@dataclass(frozen=True)
class Field:
    """One field of a write: its wire name, Python annotation, default, doc and parse."""

    #: the REST key, the MCP argument and (``--`` with dashes) the CLI option
    name: str
    #: one line, shown by ``doxa remember --help``, the OpenAPI schema and the MCP schema
    doc: str
    wire: Wire
    #: its annotation in ``Memory.remember`` (as written there); None: a wire field that
    #: ``remember_arguments`` folds into ``object``
    python: str | None
    default: object = None
    #: a closed list's members, and the one parse that reads a value into a member
    choices: type[enum.Enum] | None = None
    parse: Callable[[object], enum.Enum] | None = None
    #: only the owner may give this field (an agent's interface leaves it out)
    owner_only: bool = False
    #: values of a closed list only the owner may give
    owner_values: tuple[str, ...] = ()
    #: the CLI's option where it is not ``--name`` (a repeatable option is singular)
    flag: str | None = None
    #: the CLI's placeholder for the value
    metavar: str | None = None
    #: JSON Schema hints for a model filling the field (the parse above stays the guard, so
    #: a value outside them is refused with doxa's message, not a schema validator's):
    #: a ``pattern`` (ECMA 262) the text matches, the ``minimum`` and ``maximum`` of a number
    pattern: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    max_length: int | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def values(self) -> tuple[str, ...]:
        """A closed list's values, in the list's order (empty for an open field)."""
        return tuple(str(m.value) for m in self.choices) if self.choices is not None else ()

    @property
    def format(self) -> str | None:
        """The JSON Schema ``format`` of one value: ``date-time`` for an instant, ``uri`` for
        an IRI (each of a list's items), None for text, numbers and closed lists."""
        return _FORMATS.get(self.wire.value)

    @property
    def constraints(self) -> dict[str, object]:
        """The JSON Schema keywords one value satisfies beyond its type (format, pattern,
        bounds), as every schema built from the definition shows them."""
        found = {
            "format": self.format,
            "pattern": self.pattern,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "maxLength": self.max_length,
        }
        return {key: value for key, value in found.items() if value is not None}

    @property
    def agent_values(self) -> tuple[str, ...]:
        """The values an agent may give (the owner's own left out), the default first."""
        allowed = [v for v in self.values if v not in self.owner_values]
        return tuple(sorted(allowed, key=lambda v: v != self.default))


FIELDS: tuple[Field, ...] = (
    Field("text", "The line as a person would read it.", Wire.TEXT, "str", REQUIRED),
    Field(
        "topic",
        "Topic the fact belongs to, e.g. 'meetings' (lower case, digits, '_', '.', '-').",
        Wire.TEXT,
        "str",
        REQUIRED,
        pattern=NAME_PATTERN,
    ),
    Field(
        "kind",
        "Kind of memory (schedule, preference …); default 'general'.",
        Wire.TEXT,
        "str | None",
        pattern=NAME_PATTERN,
    ),
    Field(
        "subject",
        "Subject of a structured fact: an IRI, or a name such as 'supplier call' (resolved in "
        "the scope's vocabulary; a new name mints an IRI).",
        Wire.TEXT,
        "object",
        metavar="IRI|NAME",
    ),
    Field(
        "predicate",
        "Predicate of a structured fact: an IRI, or a name such as 'day of week' (resolved "
        "like the subject).",
        Wire.TEXT,
        "object",
        metavar="IRI|NAME",
    ),
    Field(
        "object",
        "Object: an absolute IRI becomes an IRI, anything else a string literal.",
        Wire.TEXT,
        "object",
        metavar="VALUE",
    ),
    Field(
        "literal", "Object as a literal, whatever it looks like.", Wire.TEXT, None, metavar="VALUE"
    ),
    Field(
        "datatype",
        "Datatype of the literal: xsd:NAME (such as xsd:gYear) or a full IRI.",
        Wire.TEXT,
        None,
        metavar="TYPE",
    ),
    Field(
        "language",
        "Language tag of the literal, e.g. 'en' (BCP 47).",
        Wire.TEXT,
        None,
        metavar="TAG",
        pattern=LANGUAGE_PATTERN,
        max_length=MAX_LANGUAGE,
    ),
    Field(
        "authority",
        "Who stands behind the fact: owner (the owner only), tool (a tool's observation), "
        "agent (an inference) or external (a quotation: name it in sources).",
        Wire.CHOICE,
        "object",
        "agent",
        choices=Authority,
        parse=Authority.parse,
        owner_values=(Authority.OWNER.value,),
    ),
    Field(
        "support",
        "How it is supported: stated, observed, inferred, quoted or absent (default: by "
        "authority).",
        Wire.CHOICE,
        "object",
        choices=Support,
        parse=Support.parse,
    ),
    Field("standpoint", "Whose perspective it holds in (IRI).", Wire.IRI, "object", metavar="IRI"),
    Field(
        "sources",
        "Evidence IRIs.",
        Wire.IRIS,
        "Iterable[object] | str",
        (),
        flag="--source",
        metavar="IRI",
    ),
    Field(
        "attributed_to",
        "Who said it, an IRI (prov:wasAttributedTo).",
        Wire.IRI,
        "object",
        metavar="IRI",
    ),
    Field(
        "valid_from",
        "Start of valid time: an ISO 8601 date-time such as 2026-03-09T14:00:00Z.",
        Wire.INSTANT,
        "datetime | date | str | None",
        metavar="WHEN",
    ),
    Field(
        "valid_until",
        "End of valid time, if known: an ISO 8601 date-time such as 2026-03-09T14:00:00Z.",
        Wire.INSTANT,
        "datetime | date | str | None",
        metavar="WHEN",
    ),
    Field(
        "confidence",
        "Confidence from 0 to 1 (omit: not rated).",
        Wire.NUMBER,
        "object",
        metavar="NUMBER",
        minimum=0,
        maximum=1,
    ),
    Field(
        "query",
        "The search that found nothing (with support absent).",
        Wire.TEXT,
        "str | None",
    ),
    Field("turn", "The conversation turn or tool call (IRI).", Wire.IRI, "object", metavar="IRI"),
    Field(
        "rule",
        "requires or forbids: make it a standing rule of the owner (the owner only).",
        Wire.CHOICE,
        "object",
        choices=RuleMode,
        parse=RuleMode.parse,
        owner_only=True,
    ),
    Field(
        "revises",
        "The id of one live fact this write corrects or updates; the judge decides how "
        "(replaces, was_wrong, adds_detail, same or unclear): naming it never forces a closing.",
        Wire.TEXT,
        "str | None",
        metavar="FACT_ID",
        pattern=FACT_ID_PATTERN,
    ),
    Field(
        "correction",
        "What the write says of the value it corrects: replaces (the world changed) or "
        "was_wrong (the old value was never true); without it the judge decides (an undated "
        "new value is a change).",
        Wire.CHOICE,
        "object",
        choices=Correction,
        parse=Correction.parse,
    ),
    Field(
        "derived_from",
        "Ids of live facts of this scope the write rests on (an inference, a summary): when "
        "one ends, this fact is flagged for re-checking.",
        Wire.IDS,
        "Iterable[str] | str",
        (),
        flag="--derived-from",
        metavar="FACT_ID",
        pattern=FACT_ID_PATTERN,
    ),
)

#: the fields ``Memory.remember`` (and ``preview``) take, in its order
PYTHON_FIELDS: tuple[Field, ...] = tuple(f for f in FIELDS if f.python is not None)

#: every key a JSON write (a REST body, a bulk import line) may hold
JSON_KEYS: frozenset[str] = frozenset(f.name for f in FIELDS)

_BY_NAME = {f.name: f for f in FIELDS}

#: the wire fields that become ``remember``'s ``object``
_OBJECT_PARTS = ("object", "literal", "datatype", "language")


def field(name: str) -> Field:
    """The field named ``name``; raises :class:`KeyError` for a name no write has."""
    return _BY_NAME[name]


@runtime_checkable
class Naming(Protocol):
    """How an interface names a field in a message: ``--literal`` on the command line,
    ``'literal'`` in a JSON body."""

    def name(self, field: str) -> str:
        """The field as the caller typed it."""
        ...

    def example(self, field: str) -> str:
        """The field with a placeholder value, as the caller would add it."""
        ...


class _Keys(Naming):
    """JSON keys, quoted: ``'literal'``."""

    def name(self, field: str) -> str:
        return repr(field)

    def example(self, field: str) -> str:
        return repr(field)


def remember_arguments(
    given: Mapping[str, object],
    naming: Naming | None = None,
    *,
    role: Role,
    scope: Scope | None = None,
) -> dict[str, Any]:
    """The keyword arguments of ``Memory.remember`` (``text`` among them) for a write's
    wire values, sent by a caller in ``role``; fields left out take their defaults.

    The closed lists are parsed here, by the one parse each has; ``object``, ``literal``,
    ``datatype`` and ``language`` become one ``object``. Raises :class:`~doxa.InvalidInput`
    naming the fields as ``naming`` spells them (JSON keys by default); the other values are
    read by the gate.

    Then the one permission rule of a write, on the parsed members (``"OWNER"`` was refused
    by the parse, never admitted as the owner): an agent (:attr:`Role.AGENT`) may not write
    with authority ``owner``, a standing rule (``rule``) or in the owner's standpoint of
    ``scope`` (in any spelling, :meth:`doxa.scope.Scope.is_owners_standpoint`); each raises
    :class:`~doxa.Forbidden`. An agent's write needs its ``scope``; a ``role`` that is not a
    :class:`Role` is a :class:`TypeError`, never read as either.
    """
    if not isinstance(role, Role):
        raise TypeError(f"role must be a doxa.writes.Role, not {role!r}")
    if role is Role.AGENT and not isinstance(scope, Scope):
        raise TypeError("an agent's write is read against its scope: pass scope=memory.scope")
    names = naming if naming is not None else _Keys()
    unknown = sorted(set(given) - JSON_KEYS)
    if unknown:
        raise InvalidInput(
            f"A write has no field {', '.join(map(names.name, unknown))}; it takes: "
            f"{', '.join(sorted(JSON_KEYS))}."
        )
    out: dict[str, Any] = {}
    for item in PYTHON_FIELDS:
        value = given.get(item.name, item.default)
        if value is REQUIRED:
            raise InvalidInput(f"A write needs {names.name(item.name)}; add it.")
        if item.parse is not None and value is not None:
            value = item.parse(value)
        out[item.name] = value
    out["object"] = _object(given, names)
    refuse_respelt_standpoint(out["standpoint"], names.name("standpoint"))
    if role is Role.AGENT:
        assert scope is not None
        _refuse_owners_words(out, scope, names)
    return out


def _refuse_owners_words(arguments: Mapping[str, Any], scope: Scope, names: Naming) -> None:
    """Refuse what only the owner may write, deciding on parsed values (the one rule)."""
    if arguments["authority"] is Authority.OWNER:
        raise Forbidden(
            "Only the owner may write with authority 'owner'; an agent writes as 'agent', "
            "'tool' or 'external'."
        )
    if arguments["rule"] is not None:
        raise Forbidden(
            f"Only the owner may write a standing rule; leave out {names.name('rule')}, "
            "or ask the owner."
        )
    standpoint = arguments["standpoint"]
    if standpoint is not None and scope.is_owners_standpoint(
        scope.checked_standpoint(as_iri(standpoint, "standpoint"))
    ):
        raise Forbidden(
            f"Only the owner may write in the owner's standpoint; leave out "
            f"{names.name('standpoint')} (an agent's write holds in the agent's own standpoint)."
        )


def refuse_respelt_standpoint(standpoint: object, shown: str = "standpoint") -> None:
    """Refuse a second spelling of a doxa IRI as a standpoint (``URN:doxa:…``,
    ``urn:DOXA:…``, ``…/%6Fwner``): stored as sent it would be another graph to every
    SPARQL reader, yet the same IRI to RFC 3986/8141, so one spelling is kept, and said.
    ``shown`` is the field's name where the caller wrote it (``--standpoint``). Every write
    reaches it: the interfaces' parse calls it with their names, and the proposal every
    write becomes (``Memory.remember``, claims files) calls it again."""
    if standpoint is None:
        return
    normal = normal_iri(str(standpoint))
    if normal.startswith("urn:doxa:") and normal != str(standpoint):
        raise InvalidInput(
            f"{shown} {str(standpoint)!r} is another spelling of <{normal}>; "
            f"write it as {normal!r}."
        )


def _object(given: Mapping[str, object], names: Naming) -> object:
    plain, lexical, datatype, language = (given.get(part) for part in _OBJECT_PARTS)
    if lexical is None:
        typed = [p for p, v in (("datatype", datatype), ("language", language)) if v is not None]
        if typed:
            verb = "types" if len(typed) == 1 else "type"
            raise InvalidInput(
                f"{' and '.join(map(names.name, typed))} {verb} a {names.name('literal')}; add "
                f"{names.example('literal')}."
            )
        return plain
    if plain is not None:
        raise InvalidInput(
            f"Give the object once: {names.name('object')} or {names.name('literal')}, not both."
        )
    for part, value in (("literal", lexical), ("datatype", datatype), ("language", language)):
        if value is not None and not isinstance(value, str):
            raise InvalidInput(f"{names.name(part)} {value!r} is not a string; pass text.")
    assert isinstance(lexical, str)
    return literal(
        lexical,
        datatype=datatype if isinstance(datatype, str) else None,
        language=language if isinstance(language, str) else None,
    )
