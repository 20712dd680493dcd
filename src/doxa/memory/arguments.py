"""The checks every audience's methods share on what a caller names: ids and reasons.

One definition each, so a held write's id, a fact's id and an owner's reason are refused
with the same words by :class:`~doxa.Memory`, its owner's desk and the files it renders.
"""

from __future__ import annotations

import re

from rdflib import URIRef

from doxa.errors import InvalidInput, Listing, NotFound
from doxa.model import Fact, HeldWrite
from doxa.scope import Scope
from doxa.store import Dataset
from doxa.terms import as_text
from doxa.text import visible

__all__ = [
    "ID",
    "UNNAMED",
    "checked_id",
    "fact_id_of",
    "held_id_of",
    "missing_fact",
    "only",
    "required_reason",
]

#: a fact, held write or alarm id as doxa returns it
ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
#: what a read filter's name resolves to when nothing in the scope is called that
UNNAMED = URIRef("urn:doxa:unnamed")


def held_id_of(item: str | HeldWrite) -> str:
    """A held write's id, given the id or the :class:`HeldWrite`."""
    return checked_id(item.id if isinstance(item, HeldWrite) else item, "held write")


def fact_id_of(fact: str | Fact) -> str:
    """A fact's id, given the id or the :class:`Fact`."""
    return checked_id(fact.id if isinstance(fact, Fact) else fact, "fact")


def checked_id(value: object, what: str) -> str:
    """``value`` when it is exactly an id (``fullmatch``: ``$`` would let a trailing newline
    through to the store's IRI parse); else no ``what`` can have it (NotFound)."""
    if not isinstance(value, str) or not ID.fullmatch(value):
        raise NotFound(f"There is no {what} {value!r}; ids are like '019ac4f2b0e3a1b2c3d4'.")
    return value


def missing_fact(scope: Scope, fact: str) -> NotFound:
    """The error for a fact id this scope does not have, pointing at the listing."""
    return NotFound(f"There is no fact {fact!r} in scope {scope.name!r}", listings=(Listing.FACTS,))


def required_reason(reason: object, missing: str) -> None:
    """The one check of a reason an owner's action requires: something visible, else
    ``missing`` (spaces, a newline or a zero-width character alone are no reason), and text
    (else :func:`~doxa.terms.as_text`'s error)."""
    if not reason or (isinstance(reason, str) and not visible(reason).strip()):
        raise InvalidInput(missing)
    as_text(reason, "reason")


def only(graph: URIRef) -> Dataset:
    """A dataset whose default graph is ``graph`` alone."""
    return Dataset(default=(graph,))
