"""List the writes waiting in pending."""

from __future__ import annotations

from collections import defaultdict

from rdflib import URIRef
from rdflib.term import Node

from doxa.model import HeldWrite, HoldStatus, Relation
from doxa.reads.claims import load_facts
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import instant
from doxa.vocabulary import DOXA

__all__ = ["held"]


def held(store: Store, scope: Scope) -> list[HeldWrite]:
    """Every held write of the scope, oldest first."""
    pending = Dataset(default=(scope.pending,))
    fields: dict[Node, dict[Node, list[Node]]] = defaultdict(lambda: defaultdict(list))
    for row in store.select(query("held"), dataset=pending):
        fields[row["held"]][row["p"]].append(row["o"])
    proposed = [URIRef(str(v[DOXA.proposes][0])) for v in fields.values()]
    claims = {f.iri: f for f in load_facts(store, scope, pending, proposed)}
    result = []
    for values in fields.values():
        claim = claims.get(URIRef(str(values[DOXA.proposes][0])))
        if claim is None:  # decided between the two reads (by another thread): not held now
            continue
        relation = values.get(DOXA.relation)
        asks = values.get(DOXA.asks)
        result.append(
            HeldWrite(
                id=claim.id,
                fact=claim.id,
                text=claim.text,
                topic=claim.topic,
                kind=claim.kind,
                authority=claim.authority,
                relation=Relation.from_iri(relation[0]) if relation else None,
                status=HoldStatus.from_iri(values[DOXA.holdStatus][0]),
                held_at=instant(values[DOXA.heldAt][0]),
                reason=str(values[DOXA.reason][0]),
                targets=tuple(sorted(scope.local_id(t) for t in values.get(DOXA.target, []))),
                asks=str(asks[0]) if asks else None,
            )
        )
    return sorted(result, key=lambda h: (h.held_at, h.id))
