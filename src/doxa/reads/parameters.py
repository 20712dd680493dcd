"""One definition of the reads' parameters: what a caller may give ``facts`` and ``recall``.

Like :data:`doxa.writes.FIELDS` for a write, :data:`FACTS` and :data:`RECALL` list each read's
parameters once: name, what the value is on the wire (:class:`doxa.writes.Wire`), default,
one line of documentation. The CLI's ``doxa facts`` and ``doxa recall`` options, the REST
API's ``GET /facts`` and ``GET /recall`` query parameters and the MCP ``facts`` and
``recall`` tools are built from them, and ``Memory.facts`` and ``Memory.recall`` are tested
against them, so no interface can grow, lose or rename a parameter on its own.

Two differences are declared here rather than left to an interface: REST names recall's
words ``q`` (:attr:`Parameter.http_name`, kept for the clients that send it), and the MCP
tools, whose reader is a model with a small context, list at most 100 facts unless asked for
more (:attr:`Parameter.agent_default`); every other caller gets every fact by default.

>>> [p.name for p in RECALL.parameters]
['text', 'valid_at', 'as_of', 'topic', 'authority', 'include_ended', 'include_unchecked', 'limit']
>>> FACTS.parameter("limit").default_for(agent=True)
100
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from doxa.errors import InvalidInput
from doxa.writes import REQUIRED, Wire

__all__ = ["FACTS", "FACTS_LIMIT", "READS", "RECALL", "RECALL_LIMIT", "Parameter", "Read", "newest"]

T = TypeVar("T")

#: the most facts one ``facts`` call may ask for by ``limit``
FACTS_LIMIT = 1000
#: the most facts one ``recall`` may return (``Memory.recall`` refuses more)
RECALL_LIMIT = 500


class _Same:
    """An agent's default that is everyone's."""

    def __repr__(self) -> str:
        return "SAME"


_SAME = _Same()


@dataclass(frozen=True)
class Parameter:
    """One parameter of a read: its name, doc, wire type, Python annotation and default."""

    #: the Python keyword, the MCP argument, the REST query parameter (unless
    #: :attr:`http_name`) and (``--`` with dashes) the CLI option
    name: str
    #: one line, shown by ``doxa facts --help``, the OpenAPI document and the MCP schema
    doc: str
    wire: Wire
    #: its annotation in ``Memory.facts`` or ``Memory.recall`` (as written there)
    python: str
    default: object = None
    #: the default of the MCP tools (an agent's context is small), where it is not ``default``
    agent_default: object = _SAME
    #: the REST query parameter's name where it is not ``name``
    http_name: str | None = None
    #: the CLI's placeholder for the value
    metavar: str | None = None
    #: a count's bounds, as a hint in the schemas (the read itself refuses a value outside)
    minimum: int | None = None
    maximum: int | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def default_for(self, *, agent: bool) -> object:
        """The default an agent's interface (MCP) or any other shows."""
        return self.default if not agent or self.agent_default is _SAME else self.agent_default

    @property
    def constraints(self) -> dict[str, object]:
        """The JSON Schema bounds of a count (hints only)."""
        found = {"minimum": self.minimum, "maximum": self.maximum}
        return {key: value for key, value in found.items() if value is not None}


@dataclass(frozen=True)
class Read:
    """One read (``facts`` or ``recall``) and its parameters, in ``Memory``'s order."""

    name: str
    parameters: tuple[Parameter, ...]

    def parameter(self, name: str) -> Parameter:
        """The parameter named ``name``; raises :class:`KeyError` for a name it lacks."""
        for item in self.parameters:
            if item.name == name:
                return item
        raise KeyError(name)


def _valid_at() -> Parameter:
    return Parameter(
        "valid_at",
        "True at this time, ISO 8601 (default now).",
        Wire.INSTANT,
        "datetime | date | str | None",
        metavar="WHEN",
    )


def _as_of() -> Parameter:
    return Parameter(
        "as_of",
        "As believed at this time, ISO 8601 (default now; a bare date: by the end of that day).",
        Wire.INSTANT,
        "datetime | date | str | None",
        metavar="WHEN",
    )


def _topic() -> Parameter:
    return Parameter("topic", "Only this topic.", Wire.TEXT, "str | None", metavar="TOPIC")


def _authority() -> Parameter:
    return Parameter(
        "authority",
        "Only facts in these words: owner, tool, agent or external, several separated by "
        "commas (default every fact; owner: the owner's words only).",
        Wire.TEXT,
        "object",
        metavar="WHO",
    )


def _include_ended() -> Parameter:
    return Parameter(
        "include_ended", "Also superseded and retracted facts.", Wire.FLAG, "bool", False
    )


def _include_unchecked() -> Parameter:
    return Parameter(
        "include_unchecked",
        "Also writes waiting for a judge that could not answer, last, with status unchecked.",
        Wire.FLAG,
        "bool",
        False,
    )


#: ``Memory.facts``: facts true at ``valid_at`` as believed at ``as_of``, oldest record first
FACTS = Read(
    "facts",
    (
        _valid_at(),
        _as_of(),
        _topic(),
        Parameter(
            "subject",
            "Only facts about this subject: a name (as vocabulary lists them) or an IRI.",
            Wire.TEXT,
            "object",
            metavar="NAME|IRI",
        ),
        Parameter(
            "predicate",
            "Only facts with this predicate: a name or an IRI.",
            Wire.TEXT,
            "object",
            metavar="NAME|IRI",
        ),
        _authority(),
        _include_ended(),
        _include_unchecked(),
        Parameter(
            "limit",
            f"At most this many facts, the newest (1-{FACTS_LIMIT}; default all, 100 over MCP).",
            Wire.COUNT,
            "int | None",
            None,
            agent_default=100,
            metavar="N",
            minimum=1,
            maximum=FACTS_LIMIT,
        ),
    ),
)

#: ``Memory.recall``: facts whose words match ``text``, best first
RECALL = Read(
    "recall",
    (
        Parameter("text", "Words to look for.", Wire.TEXT, "str", REQUIRED, http_name="q"),
        _valid_at(),
        _as_of(),
        _topic(),
        _authority(),
        _include_ended(),
        _include_unchecked(),
        Parameter(
            "limit",
            f"At most this many facts, best first (1-{RECALL_LIMIT}).",
            Wire.COUNT,
            "int",
            10,
            metavar="N",
            minimum=1,
            maximum=RECALL_LIMIT,
        ),
    ),
)

#: every read with a definition
READS: tuple[Read, ...] = (FACTS, RECALL)


def newest(found: Sequence[T], limit: int | None) -> list[T]:
    """The last ``limit`` of ``found`` (the newest records of an oldest-first list); all of
    them for None. A limit that is not a whole number from 1 to :data:`FACTS_LIMIT` is
    :class:`~doxa.InvalidInput` saying what to send.

    >>> newest([1, 2, 3], 2), newest([1, 2, 3], None)
    ([2, 3], [1, 2, 3])
    """
    if limit is None:
        return list(found)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= FACTS_LIMIT:
        raise InvalidInput(
            f"limit {limit!r} is out of range; use a whole number from 1 to {FACTS_LIMIT}, "
            "or narrow the call by topic, subject or predicate."
        )
    return list(found[-limit:])
