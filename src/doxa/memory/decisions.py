"""Each owner decision, listed once: what it acts on, what it takes, what it returns.

:data:`DECISIONS` is to the owner's decisions what :data:`doxa.writes.FIELDS` is to a write.
The CLI's commands (``doxa approve``, ``doxa quarantine release`` …), the REST routes
(``POST /held/{id}/approve`` …), the review page's actions, the MCP owner tools and the
remote client's methods are all built from it, and a test holds every interface to it, so
no interface can grow, lose or rename a decision or an argument on its own.

A row names the :class:`~doxa.memory.owner.Owner` method that makes the decision; its
signature is the Python API's, and a test checks the row's arguments against it. Adding a
decision is one row here and one method on ``Owner`` (``tests/memory/test_decisions.py``
shows one).

>>> APPROVE.rest, APPROVE.cli, APPROVE.target
('/held/{}/approve', ('approve',), <Target.HELD: 'held write'>)
>>> [a.name for a in APPROVE.arguments]
['as_relation']
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from doxa.memory.owner import Owner
from doxa.model import Authority, Relation
from doxa.writes import REQUIRED

__all__ = [
    "APPROVE",
    "CLEAR_ALARM",
    "CONFIRM",
    "DECISIONS",
    "DISCARD",
    "ERASE",
    "GRANT",
    "REJECT",
    "REJUDGE",
    "RELEASE",
    "RESCREEN",
    "RETRACT",
    "REVOKE",
    "Argument",
    "Decision",
    "Returns",
    "Target",
    "decision_named",
]

P = ParamSpec("P")
R = TypeVar("R")


class Target(enum.Enum):
    """What a decision acts on, named by its id: the REST path's segment, the CLI's argument
    and the MCP tool's first parameter."""

    HELD = "held write"
    FACT = "fact"
    QUARANTINED = "quarantined fact"
    KIND = "kind"
    ALARM = "alarm"

    @property
    def parameter(self) -> str:
        """The name interfaces give the target (a REST path parameter, an MCP argument)."""
        return {
            Target.HELD: "held",
            Target.FACT: "fact",
            Target.QUARANTINED: "fact",
            Target.KIND: "kind",
            Target.ALARM: "alarm",
        }[self]

    @property
    def metavar(self) -> str:
        """The CLI argument's name in ``--help``."""
        return "ID" if self is Target.HELD else self.parameter.upper()

    @property
    def doc(self) -> str:
        """One line saying where the id comes from."""
        return {
            Target.HELD: "The held write's id, as `held` lists it.",
            Target.FACT: "The fact's id.",
            Target.QUARANTINED: "The quarantined fact's id, as `quarantine` lists it.",
            Target.KIND: "The kind of fact (a name such as `preference`).",
            Target.ALARM: "The alarm's id, as `alarms` lists it.",
        }[self]


class Returns(enum.Enum):
    """What a decision answers with."""

    RECEIPT = "receipt"  #: one receipt
    RECEIPTS = "receipts"  #: a list of receipts (possibly empty)


@dataclass(frozen=True)
class Argument:
    """One keyword argument of a decision besides its target."""

    name: str
    doc: str
    #: the value when the caller gives none; :data:`~doxa.writes.REQUIRED` when it must
    default: object = REQUIRED
    #: a closed list (its members' values are what the wire spells; None: free text), and
    #: its one strict parse, which every interface applies before calling (as a write's
    #: :class:`~doxa.writes.Field` has them)
    choices: type[enum.Enum] | None = None
    parse: Callable[[object], enum.Enum] | None = None
    #: the CLI option when it is not ``--<name>`` (``--as`` for ``as_relation``)
    option: str | None = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def values(self) -> list[str]:
        """The closed list's values as the wire spells them (empty for free text)."""
        return [] if self.choices is None else [str(m.value) for m in self.choices]

    @property
    def flag(self) -> str:
        """The CLI option's name."""
        return self.option or "--" + self.name.replace("_", "-")

    def read(self, value: object) -> object:
        """The value a caller gave, parsed; the default when none was given (or, for a
        reason with a default, an empty one)."""
        if self.required and value is None:
            return ""  # the method's own check refuses it, saying what is missing
        if value is None or (value == "" and self.default not in (REQUIRED, "")):
            return self.default
        return self.parse(value) if self.parse is not None else value


@dataclass(frozen=True)
class Decision(Generic[P, R]):
    """One owner decision: its method on :class:`Owner` and how interfaces offer it."""

    #: ``Owner.<name>``: the decision itself; its signature is the Python API's
    method: Callable[Concatenate[Owner, P], R]
    target: Target | None
    arguments: tuple[Argument, ...]
    returns: Returns
    #: the REST route (POST), ``{}`` standing for the target's id
    rest: str
    #: the CLI command's words: ``("approve",)``, ``("quarantine", "release")``
    cli: tuple[str, ...]
    #: whether the review page offers it as a form (posting to ``/review`` + ``rest``)
    review: bool = False
    #: what the CLI says when a list answer is empty
    empty: str = ""
    #: who may call it: only the scope's owner (an agent's key is refused, 403)
    who: Authority = Authority.OWNER
    #: the CLI builds this command by hand (``doxa erase`` takes many targets at once)
    cli_by_hand: bool = False
    #: keyword arguments only the Python API takes (``erase``'s ``wait``: a server purges
    #: in the background on its own)
    python_only: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The decision's name: the method's, the MCP tool's, the CLI's last word."""
        return self.method.__name__

    @property
    def doc(self) -> str:
        """The first paragraph of the method's docstring: every interface's help text."""
        text = inspect.getdoc(self.method) or ""
        return " ".join(text.split("\n\n")[0].split()).replace("``", "")

    def call(self, owner: object, target: str | None, arguments: Mapping[str, object]) -> Any:
        """Make the decision on ``owner`` (``memory.owner``, or the remote client's) with a
        target and the arguments as given on the wire (each parsed by the row's parse;
        missing ones take their default). The method is the one the row names: a test holds
        ``Owner`` and ``RemoteOwner`` to the table."""
        given = {a.name: a.read(arguments.get(a.name)) for a in self.arguments}
        given = {k: v for k, v in given.items() if v is not None}
        first = () if self.target is None else (target,)
        return getattr(owner, self.name)(*first, **given)


_REASON_REQUIRED = "Why (kept in the receipt; required)."

APPROVE = Decision(
    Owner.approve,
    Target.HELD,
    (
        Argument(
            "as_relation",
            'Apply this relation, not the judge\'s: a write held with "replace or add?" is '
            "answered with replaces (one value at a time), new (a second value) or was_wrong "
            "(the property never changes).",
            default=None,
            choices=Relation,
            parse=Relation.parse,
            option="--as",
        ),
    ),
    Returns.RECEIPT,
    rest="/held/{}/approve",
    cli=("approve",),
    review=True,
)

REJECT = Decision(
    Owner.reject,
    Target.HELD,
    (Argument("reason", "Why the write is discarded.", default=""),),
    Returns.RECEIPT,
    rest="/held/{}/reject",
    cli=("reject",),
    review=True,
)

RETRACT = Decision(
    Owner.retract,
    Target.FACT,
    (Argument("reason", "Why the fact was never true (required)."),),
    Returns.RECEIPT,
    rest="/facts/{}/retract",
    cli=("retract",),
    review=True,
)

CONFIRM = Decision(
    Owner.confirm,
    Target.FACT,
    (Argument("reason", "What you checked: the fact stands on its own (required)."),),
    Returns.RECEIPT,
    rest="/facts/{}/confirm",
    cli=("confirm",),
    review=True,
)

ERASE = Decision(
    Owner.erase,
    Target.FACT,
    (Argument("reason", "Why the content must go (kept on the tombstone; required)."),),
    Returns.RECEIPT,
    rest="/facts/{}/erase",
    cli=("erase",),
    cli_by_hand=True,
    python_only=("wait",),
    review=True,
)

GRANT = Decision(
    Owner.grant,
    Target.KIND,
    (Argument("reason", "Why (kept in the receipt).", default="granted by the owner"),),
    Returns.RECEIPT,
    rest="/kinds/{}/grant",
    cli=("grant",),
    review=True,
)

REVOKE = Decision(
    Owner.revoke,
    Target.KIND,
    (Argument("reason", "Why (kept in the receipt).", default="revoked by the owner"),),
    Returns.RECEIPT,
    rest="/kinds/{}/revoke",
    cli=("revoke",),
    review=True,
)

CLEAR_ALARM = Decision(
    Owner.clear_alarm,
    Target.ALARM,
    (Argument("reason", "What you checked (required)."),),
    Returns.RECEIPT,
    rest="/alarms/{}/clear",
    cli=("alarms", "clear"),
    review=True,
)

RELEASE = Decision(
    Owner.release,
    Target.QUARANTINED,
    (Argument("reason", "Why the text is harmless (required)."),),
    Returns.RECEIPT,
    rest="/quarantine/{}/release",
    cli=("quarantine", "release"),
    review=True,
)

DISCARD = Decision(
    Owner.discard,
    Target.QUARANTINED,
    (Argument("reason", "Why it goes.", default=""),),
    Returns.RECEIPT,
    rest="/quarantine/{}/discard",
    cli=("quarantine", "discard"),
    review=True,
)

RESCREEN = Decision(
    Owner.rescreen,
    None,
    (Argument("reason", "Why (kept in each receipt).", default=""),),
    Returns.RECEIPTS,
    rest="/quarantine/rescreen",
    cli=("rescreen",),
    empty="Nothing new caught.",
)

REJUDGE = Decision(
    Owner.rejudge,
    None,
    (),
    Returns.RECEIPTS,
    rest="/rejudge",
    cli=("rejudge",),
    empty="Nothing was judged again.",
)

#: every owner decision, in the order the CLI's help and the docs list them
DECISIONS: tuple[Decision[Any, Any], ...] = (
    APPROVE,
    REJECT,
    RETRACT,
    CONFIRM,
    ERASE,
    GRANT,
    REVOKE,
    CLEAR_ALARM,
    RELEASE,
    DISCARD,
    RESCREEN,
    REJUDGE,
)


def decision_named(name: str) -> Decision[Any, Any]:
    """The row of decision ``name`` (a programming error if there is none)."""
    for decision in DECISIONS:
        if decision.name == name:
            return decision
    raise KeyError(name)
