"""What a judge is given and what it must answer."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from rdflib import URIRef
from rdflib.term import Node

from doxa.model import Fact, Proposal, Verdict
from doxa.ontology import PropertyTable

__all__ = ["Cardinality", "Evidence", "Judge", "Needs"]


class Cardinality(enum.Enum):
    """How many values a write's predicate holds for one subject at a time, and who said so."""

    DECLARED = "declared"  #: the ontology declares the predicate: its axioms decide
    ONE = "one"  #: the owner taught it: one value at a time (owl:FunctionalProperty)
    MANY = "many"  #: the owner taught it: several values (doxa:ManyValuedProperty)
    #: the owner taught it: one value that never changes (doxa:UnchangingProperty): a second
    #: value means the first was wrong, never that the world changed
    UNCHANGING = "unchanging"
    UNKNOWN = "unknown"  #: nobody has said: a second value for a subject asks the owner


@dataclass(frozen=True)
class Evidence:
    """What the gate gathered for one write, through the SPARQL files in ``queries/``.

    ``same_topic`` holds the live facts on the write's subject and predicate (anywhere in the
    scope, whatever equivalent, inverse or super-property they were stated with) or, for a
    text-only write, with the same normalised text in its topic. ``properties`` and
    ``broader`` are what the domain ontology's closure says about the properties and objects
    involved. ``superseded`` holds the superseded facts on the write's subject and predicate
    that are still believed for part of the write's valid time (each with its believed
    end as ``valid_until``): a value written into that time contradicts them there.
    ``target`` is the live fact the write says it revises (``revises``), checked by the gate;
    None when the write names none. ``cardinality`` is what is known of the write's predicate
    (:class:`Cardinality`; a lesson of one value is also in ``properties`` as functional).
    ``released`` says the owner released the write from quarantine: it is a quotation, so a
    judge must not call it an instruction, and every other check (the owner's rules first)
    still applies. ``now`` is the write's belief time as the gate will record it: an undated
    write that replaces a value starts then (docs/concepts.md, "Undated corrections"), so a
    judge compares starts with it; None where the caller knows no time (a judge then treats
    an undated write as starting after every start it sees). ``lessons`` are the owner's
    answers in this scope, by predicate or sentence pattern
    (:func:`doxa.judges.patterns.pattern_iri`): one value, many, or one that never changes.
    ``outside`` holds, for a text-only write, the live outside facts (authority
    ``external``) of other topics with the same normalised text: an agent's note that
    repeats one of them without naming its source would turn a quotation into the agent's
    own words (issue 33). Found by the same key lookup as ``same_topic``: no extra read.
    """

    same_topic: tuple[Fact, ...]
    rules: tuple[Fact, ...]
    observations: tuple[Fact, ...]
    properties: PropertyTable = field(default_factory=PropertyTable)
    broader: Mapping[Node, frozenset[Node]] = field(default_factory=dict)
    superseded: tuple[Fact, ...] = ()
    target: Fact | None = None
    cardinality: Cardinality = Cardinality.DECLARED
    released: bool = False
    now: datetime | None = None
    lessons: Mapping[URIRef, Cardinality] = field(default_factory=dict)
    outside: tuple[Fact, ...] = ()

    @property
    def consulted(self) -> tuple[Fact, ...]:
        seen: dict[str, Fact] = {}
        revised = (self.target,) if self.target is not None else ()
        for fact in (
            *revised,
            *self.same_topic,
            *self.rules,
            *self.observations,
            *self.superseded,
            *self.outside,
        ):
            seen.setdefault(fact.id, fact)
        return tuple(seen.values())


@dataclass(frozen=True)
class Needs:
    """What a judge needs the gate to gather for it, beyond the structure every judge gets.

    ``similar_texts``: the textually close live facts of the topic for a text-only write (a
    judge that reads meaning, like the LLM judge), not only its exact duplicates. Gathering
    them costs a text search per write, so a judge that decides by structure asks for none.
    """

    similar_texts: bool = False


@runtime_checkable
class Judge(Protocol):
    """Names exactly one relation from the closed list for a write.

    A judge that cannot answer raises :class:`doxa.JudgeUnavailable`; the write then waits
    in pending, unchecked. A judge holds no state of its own between calls.

    ``needs`` declares what the gate gathers for it (:class:`Needs`). A judge that
    subclasses ``Judge`` inherits ``Needs()``, structure only; one that asks for more says
    so, as a class attribute or a property. The gate refuses a judge that does not declare
    it (``isinstance(judge, Judge)`` is false) rather than guess.
    """

    name: str
    version: str

    @property
    def needs(self) -> Needs:
        return Needs()

    def judge(self, proposal: Proposal, evidence: Evidence) -> Verdict: ...
