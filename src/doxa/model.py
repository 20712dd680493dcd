"""The values doxa hands out and takes in: enums for the closed lists, frozen results.

Results are frozen dataclasses (``Fact``, ``Receipt``, ``Verdict``, ``HeldWrite`` …), never
bare tuples or dicts. RDF terms inside them are rdflib terms (``URIRef``, ``Literal``).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Self

from rdflib import Literal, URIRef

from doxa.errors import InvalidInput
from doxa.vocabulary import DOXA

__all__ = [
    "Authority",
    "BasisEnd",
    "Correction",
    "Fact",
    "FactStatus",
    "HeldWrite",
    "History",
    "HistoryEvent",
    "HoldStatus",
    "Outcome",
    "Proposal",
    "Receipt",
    "Relation",
    "RuleMode",
    "Support",
    "Verdict",
    "Why",
]

Term = URIRef | Literal


_IRIS: dict[enum.Enum, URIRef] = {}
_BY_IRI: dict[type[enum.Enum], dict[str, enum.Enum]] = {}
_BY_TEXT: dict[type[enum.Enum], dict[str, enum.Enum]] = {}


class _IriEnum(enum.Enum):
    """An enum whose members are doxa individuals: ``member.iri`` names it in RDF."""

    @property
    def iri(self) -> URIRef:
        found = _IRIS.get(self)
        if found is None:  # built once: every fact read names a few of these
            found = _IRIS[self] = DOXA[self._iri_name()]
        return found

    def _iri_name(self) -> str:
        return "".join(part.capitalize() for part in self.value.split("_"))

    @classmethod
    def from_iri(cls, iri: object) -> Self:
        members = _BY_IRI.get(cls)
        if members is None:
            members = _BY_IRI[cls] = {str(m.iri): m for m in cls}
        found = members.get(str(iri))
        if found is None:
            raise ValueError(f"{iri} is not a {cls.__name__}")
        assert isinstance(found, cls)
        return found

    @classmethod
    def parse(cls, value: object) -> Self:
        """The member ``value`` names: the member itself, its exact value or its IRI.

        The one parse of this input for every interface (Python API, CLI, REST, MCP), so a
        permission check after it compares members, never spellings. Only the exact value
        (``"owner"``), the IRI (``doxa:Owner``, as a ``URIRef`` or its full string) or the
        member pass; anything else is refused, never folded into a member: another case
        (``"Owner"``), the member's Python name (``"OWNER"``), surrounding or inner space,
        look-alike letters (Cyrillic ``о``, fullwidth ``ｏ``: NFKC is not applied), and values
        that are not strings (a subclass of ``str`` is read as its plain string value).

        >>> Authority.parse("owner") is Authority.OWNER
        True
        >>> RuleMode.parse("FORBIDS")
        Traceback (most recent call last):
        ...
        doxa.errors.InvalidInput: 'FORBIDS' is not a valid rule mode; use one of: requires, forbids.
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            text = str.__str__(
                value
            )  # a plain str: a subclass's __eq__ or __hash__ decides nothing
            members = _BY_TEXT.get(cls)
            if members is None:
                members = _BY_TEXT[cls] = {
                    **{str(m.iri): m for m in cls},
                    **{str(m.value): m for m in cls},
                }
            found = members.get(text)
            if found is not None:
                assert isinstance(found, cls)
                return found
        allowed = ", ".join(m.value for m in cls)
        shown = repr(value)
        if len(shown) > 80:  # a message names the value, it does not echo a megabyte back
            shown = shown[:77] + "..."
        what = re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).lower()  # RuleMode: rule mode
        raise InvalidInput(f"{shown} is not a valid {what}; use one of: {allowed}.")


class Authority(_IriEnum):
    """Who stands behind a claim, strongest first: owner > tool > agent > external."""

    OWNER = "owner"
    TOOL = "tool"
    AGENT = "agent"
    EXTERNAL = "external"

    @property
    def rank(self) -> int:
        """Higher is stronger; a lower rank never overturns a higher one."""
        return {"owner": 4, "tool": 3, "agent": 2, "external": 1}[self.value]


class Support(_IriEnum):
    """How the claim is supported: stated, observed, inferred, quoted, or absent."""

    STATED = "stated"
    OBSERVED = "observed"
    INFERRED = "inferred"
    QUOTED = "quoted"
    ABSENT = "absent"


class Correction(_IriEnum):
    """What a writer says of the value a write corrects: the world changed (``replaces``) or
    the old value was never true (``was_wrong``). Its IRIs are the two relations'."""

    REPLACES = "replaces"
    WAS_WRONG = "was_wrong"


class Relation(_IriEnum):
    """The judge's closed list: what a write means for what is already believed."""

    NEW = "new"
    SAME = "same"
    ADDS_DETAIL = "adds_detail"
    REPLACES = "replaces"
    WAS_WRONG = "was_wrong"
    UNCLEAR = "unclear"
    CLASHES_WITH_RULE = "clashes_with_rule"
    INSTRUCTION = "instruction"

    @property
    def closes(self) -> bool:
        """Whether this relation ends old facts (and so needs earned closing)."""
        return self in (Relation.REPLACES, Relation.WAS_WRONG)


class Outcome(_IriEnum):
    """What the gate did with a write or an owner's action."""

    ADMITTED = "admitted"
    MERGED = "merged"
    HELD = "held"
    REJECTED = "rejected"
    QUARANTINED = "quarantined"
    APPROVED = "approved"
    DISCARDED = "discarded"
    CLOSED = "closed"
    GRANTED = "granted"
    REVOKED = "revoked"
    CALIBRATED = "calibrated"
    CLEARED = "cleared"
    ERASED = "erased"
    PURGED = "purged"


class RuleMode(_IriEnum):
    """A rule either requires its statement to hold or forbids it."""

    REQUIRES = "requires"
    FORBIDS = "forbids"


class HoldStatus(_IriEnum):
    """Why a write waits: for the owner, or for a judge that could not answer."""

    AWAITING_OWNER = "awaiting_owner"
    UNCHECKED = "unchecked"


class FactStatus(enum.Enum):
    """Where a fact stands as of the belief time asked about."""

    LIVE = "live"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    UNCHECKED = "unchecked"
    QUARANTINED = "quarantined"


@dataclass(frozen=True)
class Proposal:
    """A write as the gate and the judge see it, before it becomes a fact."""

    id: str
    iri: URIRef
    text: str
    topic: str
    kind: str
    authority: Authority
    standpoint: URIRef
    support: Support
    subject: URIRef | None = None
    predicate: URIRef | None = None
    object: Term | None = None
    sources: tuple[URIRef, ...] = ()
    attributed_to: URIRef | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    confidence: Decimal | None = None
    query: str | None = None
    turn: URIRef | None = None
    rule_mode: RuleMode | None = None
    #: the fact the writer says this write corrects or updates (``doxa:revises``): a
    #: proposal to the judge, never an order to close it
    revises: URIRef | None = None
    #: the facts the writer says this write rests on (``doxa:restsOn``): when one ends,
    #: this fact is flagged for re-checking
    derived_from: tuple[URIRef, ...] = ()
    #: what the writer says of the value it corrects (``doxa:correction``): it changed, or
    #: it was never true; None: the judge decides
    correction: Correction | None = None

    @property
    def is_rule(self) -> bool:
        return self.rule_mode is not None

    @property
    def structured(self) -> bool:
        return self.subject is not None and self.predicate is not None and self.object is not None


@dataclass(frozen=True)
class BasisEnd:
    """A flag on a fact: something it rests on ended, so re-check it before relying on it.

    ``basis`` is the fact whose ending caused the flag (None when it was erased: the flag
    then names only the tombstone, ``ending``); ``ending`` is the supersession, retraction
    or tombstone event, or, for an empty search result, the id of the fact that answered it.
    """

    event: str
    basis: str | None
    ending: str
    reason: str
    recorded_at: datetime


@dataclass(frozen=True)
class Fact:
    """A stored claim as read back: its content, provenance, both clocks and its status."""

    id: str
    iri: URIRef
    text: str
    topic: str
    kind: str
    authority: Authority
    standpoint: URIRef
    support: Support
    recorded_at: datetime
    status: FactStatus = FactStatus.LIVE
    subject: URIRef | None = None
    predicate: URIRef | None = None
    object: Term | None = None
    sources: tuple[URIRef, ...] = ()
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    confidence: Decimal | None = None
    query: str | None = None
    rule_mode: RuleMode | None = None
    refines: tuple[str, ...] = ()
    successor: str | None = None
    score: float | None = None
    #: the facts this one rests on (``doxa:restsOn``), by id
    derived_from: tuple[str, ...] = ()
    #: flags standing as of the belief time read: a fact this rests on ended (see
    #: :class:`BasisEnd`); empty once the owner confirms the fact stands on its own
    basis_ended: tuple[BasisEnd, ...] = ()

    @property
    def needs_rerun(self) -> bool:
        """An empty search result: re-run its query before trusting it."""
        return self.support is Support.ABSENT

    @property
    def needs_recheck(self) -> bool:
        """Something this fact rests on ended: re-check it (confirm, revise or retract)."""
        return bool(self.basis_ended)

    @property
    def is_rule(self) -> bool:
        return self.rule_mode is not None


@dataclass(frozen=True)
class Verdict:
    """The judge's answer: one relation, the facts it bears on, and why."""

    relation: Relation
    targets: tuple[str, ...] = ()
    reason: str = ""
    #: set when another judge answered on the first one's behalf (e.g. an LLM fallback)
    judge: str = ""
    judge_version: str = ""
    #: the statement a judge read in a text-only write: (subject, predicate, object) as
    #: names; the gate checks they come from the write's text and resolves them like names
    #: given by the writer (None: the judge gave none)
    statement: tuple[str, str, str] | None = None
    #: with ``unclear``: the question only the owner can answer, "replace or add?", as the
    #: IRI of the predicate (or sentence pattern) whose number of values nobody has said.
    #: The owner's answer teaches it and re-judges every write waiting on the same question.
    asks: str | None = None


@dataclass(frozen=True)
class Receipt:
    """The record of one decision; receipts form a hash chain in the scope's log."""

    id: str
    sequence: int
    relation: Relation | None
    outcome: Outcome
    recorded_at: datetime
    judge: str
    judge_version: str
    reason: str
    fact: str | None = None
    targets: tuple[str, ...] = ()
    consulted: tuple[str, ...] = ()
    held: str | None = None
    input_digest: str = ""
    receipt_hash: str = ""
    previous_hash: str = ""
    failures: tuple[str, ...] = field(default=())

    @property
    def admitted(self) -> bool:
        return self.outcome in (Outcome.ADMITTED, Outcome.APPROVED)


@dataclass(frozen=True)
class ClosingPolicy:
    """When the judge may close facts on its own, and what counts as a burst of closings.

    Closing of a kind is earned with at least ``min_decisions`` labelled decisions of that
    kind and an agreement with the owner of at least ``min_agreement``. ``burst_size``
    automatic closings by one writer (any authority but the owner's) or from one source or
    turn within ``burst_window`` raise an alarm.
    """

    min_decisions: int = 50
    min_agreement: float = 0.98
    burst_size: int = 3
    burst_window: timedelta = timedelta(minutes=10)


@dataclass(frozen=True)
class Standing:
    """A judge's record with the owner for one kind of memory."""

    judge: str
    kind: str
    agreements: int
    decisions: int
    earned: bool

    @property
    def agreement(self) -> float | None:
        return self.agreements / self.decisions if self.decisions else None


@dataclass(frozen=True)
class Alarm:
    """A suspicious closing the gate stopped; automatic closing waits until it is cleared."""

    id: str
    raised_at: datetime
    reason: str
    fact: str | None = None
    cleared_at: datetime | None = None
    cleared_reason: str | None = None

    @property
    def open(self) -> bool:
        return self.cleared_at is None


@dataclass(frozen=True)
class HeldWrite:
    """A write waiting in pending: for the owner's decision, or for a judge to come back."""

    id: str
    fact: str
    text: str
    topic: str
    kind: str
    authority: Authority
    relation: Relation | None
    status: HoldStatus
    held_at: datetime
    reason: str
    targets: tuple[str, ...] = ()
    #: the question it waits on ("replace or add?" for this predicate or sentence pattern,
    #: :attr:`Verdict.asks`), or None: the owner's answer to it decides every write waiting
    #: on it at once
    asks: str | None = None


@dataclass(frozen=True)
class HistoryEvent:
    """One step in a fact's life: recorded, corroborated, refined, superseded, retracted."""

    kind: str
    at: datetime
    fact: str
    other: str | None = None
    valid_until: datetime | None = None
    reason: str = ""


@dataclass(frozen=True)
class History:
    """A fact and the chain of events that ended or followed it, oldest first."""

    fact: Fact
    events: tuple[HistoryEvent, ...]
    successors: tuple[str, ...]


@dataclass(frozen=True)
class Why:
    """Why a fact is believed: its evidence, and the receipt that let it in."""

    fact: Fact
    sources: tuple[URIRef, ...]
    attributed_to: URIRef | None
    receipt: Receipt | None
    corroborations: tuple[URIRef, ...]
