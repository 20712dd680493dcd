"""The owner's answer to a held write (``as_relation``), and the "replace or add?" question.

One set of answers and one parse for every surface: the Python API (``memory.owner.approve``), the
CLI (``doxa approve --as``), REST (``POST /held/{id}/approve``) and the remote client, the
owner's MCP ``approve`` tool and the review page. The set is the judge's closed list,
:class:`~doxa.model.Relation`, read by its one parse (``Relation.parse``, which
``memory.owner.approve`` applies too), so no surface accepts a spelling another refuses and every
guard compares members, never strings.

A held write asks "replace or add?" when the judge met a second value of a property nobody
said holds one value or many. One Approve button cannot answer that (it would admit the write
beside the old value and teach nothing), so the review page offers :data:`REPLACE_OR_ADD`,
each its own choice. Which held writes ask it is read from the held write's data (the question
the judge recorded on it), never from the wording of its reason: see :func:`asks_replace_or_add`.
"""

from __future__ import annotations

from dataclasses import dataclass

from doxa.model import HeldWrite, Relation

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
    as ``memory.owner.approve`` would."""
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


def asks_replace_or_add(held: HeldWrite) -> bool:
    """Whether ``held`` waits on "replace or add?": the judge met a second value of a
    predicate (or a sentence pattern) nobody has said holds one value or many, and recorded
    the question on the held write (:attr:`~doxa.model.HeldWrite.asks`).

    A clash on a one-valued property, or a revision about another subject, is unclear for
    other reasons and asks nothing: it keeps the plain Approve. Once the owner answers, every
    write waiting on the question is judged again at once, so none is left asking it."""
    return held.relation is Relation.UNCLEAR and held.asks is not None
