"""The owner's answer to a held write (``as_relation``), and the "replace or add?" question.

One set of answers and one parse for every surface: the Python API (``Memory.approve``), the
CLI (``doxa approve --as``), REST (``POST /held/{id}/approve``) and the remote client, the
owner's MCP ``approve`` tool and the review page. The set is the judge's closed list,
:class:`~doxa.model.Relation`, read by its one parse (``Relation.parse``, which
``Memory.approve`` applies too), so no surface accepts a spelling another refuses and every
guard compares members, never strings.

A held write asks "replace or add?" when the judge met a second value of a property nobody
said holds one value or many. One Approve button cannot answer that (it would admit the write
beside the old value and teach nothing), so the review page offers :data:`REPLACE_OR_ADD`,
each its own choice. Which held writes ask it is read from the held write's data, never from
the wording of its reason: see :func:`asks_replace_or_add`.
"""

from __future__ import annotations

from dataclasses import dataclass

from rdflib import URIRef

from doxa.errors import NotFound
from doxa.memory import Memory
from doxa.model import Fact, FactStatus, HeldWrite, Relation
from doxa.reads.claims import load_facts
from doxa.store import Dataset

__all__ = [
    "ANSWER_VALUES",
    "REPLACE_OR_ADD",
    "Answer",
    "asks_replace_or_add",
    "parse_answer",
]

#: what an owner may approve a held write as, as the surfaces' schemas list it (REST's body,
#: the MCP tool's input, the CLI's ``--as`` choices): every member of the judge's list
ANSWER_VALUES: tuple[str, ...] = tuple(m.value for m in Relation)


def parse_answer(value: object) -> Relation | None:
    """The owner's answer as a member (``None``: none given, the judge's relation applies).

    Raises :class:`~doxa.InvalidInput` naming the allowed values for anything else, exactly
    as ``Memory.approve`` would."""
    return None if value is None else Relation.parse(value)


@dataclass(frozen=True)
class Answer:
    """One answer to "replace or add?": the relation approved, and how the page names it."""

    relation: Relation
    label: str

    @property
    def ends(self) -> bool:
        """Whether this answer ends the value already held (the page says "would end")."""
        return self.relation.closes


#: the answers to "replace or add?", in the order the review page offers them: one value at a
#: time (the old value ends), a second value (both stay), or a property that never changes
#: (the old value was wrong)
REPLACE_OR_ADD: tuple[Answer, ...] = (
    Answer(Relation.REPLACES, "Replace (one value at a time)"),
    Answer(Relation.NEW, "Add (a second value)"),
    Answer(Relation.WAS_WRONG, "The old value was wrong (never changes)"),
)


def asks_replace_or_add(
    memory: Memory, held: HeldWrite, unknown: dict[URIRef, bool] | None = None
) -> bool:
    """Whether ``held`` asks "replace or add?": the judge could not tell (``unclear``), every
    fact it names is a live value of the held write's own subject and predicate, and nobody
    (no ontology, no earlier answer) has said how many values that predicate holds.

    A clash on a one-valued property, or a revision about another subject, is unclear for
    other reasons and keeps the plain Approve. ``unknown`` caches each predicate's answer
    across one page's held writes."""
    if held.relation is not Relation.UNCLEAR or not held.targets:
        return False
    claim = _held_claim(memory, held)
    if claim is None or claim.subject is None or claim.predicate is None:
        return False
    for target in held.targets:
        fact = _fact(memory, target)
        if (
            fact is None
            or fact.status is not FactStatus.LIVE
            or fact.subject != claim.subject
            or fact.predicate != claim.predicate
        ):
            return False
    cache = {} if unknown is None else unknown
    if claim.predicate not in cache:
        cache[claim.predicate] = _values_unknown(memory, claim.predicate)
    return cache[claim.predicate]


def _held_claim(memory: Memory, held: HeldWrite) -> Fact | None:
    """The held write's claim as stored in pending (``HeldWrite`` carries no subject or
    predicate; this reads them where the held list itself reads them)."""
    pending = Dataset(default=(memory.scope.pending,))
    found = load_facts(memory.store, memory.scope, pending, [memory.scope.fact(held.fact)])
    return found[0] if found else None


def _fact(memory: Memory, fact_id: str) -> Fact | None:
    try:
        return memory.get(fact_id)
    except NotFound:
        return None


def _values_unknown(memory: Memory, predicate: URIRef) -> bool:
    """Whether nobody has said how many values ``predicate`` holds (``Memory.vocabulary``)."""
    entries = memory.vocabulary(str(predicate), limit=1000).predicates
    return any(p.iri == str(predicate) and p.values == "unknown" for p in entries)
