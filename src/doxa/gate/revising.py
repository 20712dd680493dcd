"""The fact a write says it revises: found, and checked live in this scope, or refused.

A write's ``revises`` names one fact; the judge then decides the relation with that fact in
hand. The target must be a live fact of the write's own scope when the write is judged (its
belief time): anything else is the writer's mistake, refused with a message that says what
to do, before anything is stored. The id is looked up exactly as given (no case folding, no
trimming), only among this scope's claim graphs, so another scope's fact is simply not there.
"""

from __future__ import annotations

from datetime import datetime

from rdflib import URIRef

from doxa.errors import InvalidInput, Listing, NotFound
from doxa.model import Fact, FactStatus
from doxa.reads.claims import load_facts
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.vocabulary import DOXA, RDF

__all__ = ["revision_target"]


def revision_target(
    store: Store,
    scope: Scope,
    claim_graphs: list[URIRef],
    target: URIRef,
    as_of: datetime,
    *,
    field: str = "revises",
) -> Fact:
    """The live fact ``target`` of ``scope`` as believed at ``as_of``.

    Raises :class:`~doxa.NotFound` for an id this scope has no fact under (another scope's,
    another spelling's, an erased one's: erasure leaves no content to revise) and
    :class:`~doxa.InvalidInput` for a fact that is superseded, retracted, a standing rule,
    held for the owner or in quarantine. ``field`` names the write's field in messages
    (``revises``, or ``derived_from`` for a fact a write rests on).
    """
    fact_id = scope.local_id(target)
    verb = "revise" if field == "revises" else "rest on"
    graphs = [g for g in claim_graphs if g != scope.rules]
    found = load_facts(store, scope, Dataset(default=(*graphs, scope.log)), [target], as_of=as_of)
    if found:
        fact = found[0]
        if fact.status is FactStatus.SUPERSEDED:
            then = f"; {verb} the fact that replaced it, {fact.successor}" if fact.successor else ""
            raise InvalidInput(
                f"{field} {fact_id!r} names a fact that is no longer live: it was superseded{then}."
            )
        if fact.status is not FactStatus.LIVE:
            raise InvalidInput(
                f"{field} {fact_id!r} names a fact that is no longer live: it was "
                f"{fact.status.value}; write the fact as new, without {field}."
            )
        return fact
    if load_facts(store, scope, Dataset(default=(scope.rules,)), [target]):
        raise InvalidInput(
            f"{field} {fact_id!r} names one of the owner's standing rules; rules change only "
            "by the owner: retract the rule and write the new one."
        )
    for graph, where in (
        (scope.pending, "held, waiting for a decision"),
        (scope.quarantine, "in quarantine"),
    ):
        if store.describe([target], [graph]).get(str(target)):
            raise InvalidInput(
                f"{field} {fact_id!r} names a write that is {where}, not a live fact; decide "
                f"it first, or write without {field}."
            )
    if _erased(store, scope, target):
        raise NotFound(
            f"{field} {fact_id!r} names a fact that was erased; erasure is final, so there is "
            f"nothing to {verb}: write the fact as new, without {field}."
        )
    raise NotFound(
        f"There is no fact {fact_id!r} in scope {scope.name!r} to {verb}; pass an id exactly "
        "as remember, recall or facts returned it",
        listings=(Listing.FACTS,),
        lead="list them with",
    )


def _erased(store: Store, scope: Scope, target: URIRef) -> bool:
    """Whether an erasure tombstone in the log ends ``target``."""
    events = store.referrers(DOXA.ends, [target], scope.log).get(str(target), ())
    described = store.describe([URIRef(e) for e in events], [scope.log])
    return any((RDF.type, DOXA.Erasure) in pairs for pairs in described.values())
