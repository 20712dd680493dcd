"""Corrections on the everyday path: when an undated replacement starts, and when the owner's
own revision applies without asking anyone.

Most corrections carry no date ("Bob lives in Berlin now") and many come from the owner
editing a line. Two rules keep both clocks true for them (docs/decisions.md, "Undated
corrections" and "The owner's explicit revision"):

- an undated write that supersedes a value starts when it is recorded, the latest moment the
  change can have happened as far as the memory knows; the old value ends there, so at no
  instant are two values of a one-value slot both true;
- a write by the owner that names the fact it changes (``revises``) is the owner's decision
  already: there is nothing for the judge to guess and nobody else to ask, so its closing is
  applied with its receipt instead of waiting for the owner.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from rdflib import URIRef
from rdflib.term import Node

from doxa.model import Authority, Proposal
from doxa.terms import dt_literal
from doxa.vocabulary import DOXA

__all__ = ["owner_revision", "start_when_recorded", "undated_start"]

Pair = tuple[URIRef, Node]


def undated_start(
    pairs: list[Pair], proposal: Proposal, recorded: datetime
) -> tuple[datetime | None, list[Pair]]:
    """The start of an undated write that supersedes a value, and its pairs with that start.

    It starts at ``recorded`` (its belief time; for an approved write, when it was first
    received), written on the claim as ``doxa:validFrom`` so that every reader, SPARQL
    included, sees the same interval. A write that ends no later than that keeps an unknown
    start (it cannot start when it was recorded), and so does one that already has a start.
    """
    if proposal.valid_from is not None:
        return proposal.valid_from, pairs
    starts = start_when_recorded(recorded, proposal.valid_until)
    if starts is None:
        return None, pairs
    return starts, [*pairs, (DOXA.validFrom, dt_literal(starts))]


def start_when_recorded(recorded: datetime, ends: datetime | None) -> datetime | None:
    """The start an undated value takes: ``recorded``, unless it ends by then (it cannot
    start when it was recorded; its start stays unknown)."""
    return None if ends is not None and ends <= recorded else recorded


def owner_revision(proposal: Proposal, targets: Iterable[URIRef]) -> bool:
    """Whether a closing is the owner's explicit revision: the owner wrote it, named the fact
    it changes with ``revises``, and ends that fact and no other.

    A closing that reaches further (other values the judge found) is the judge's inference
    about those, so earned closing still governs it.
    """
    return (
        proposal.authority is Authority.OWNER
        and proposal.revises is not None
        and set(targets) == {proposal.revises}
    )
