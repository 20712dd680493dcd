"""Read receipts back from the log."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rdflib import URIRef
from rdflib.term import Node

from doxa.model import Outcome, Receipt, Relation
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import instant
from doxa.vocabulary import DOXA

__all__ = ["receipt_fact", "receipts", "receipts_deciding"]


def receipt_fact(
    scope: Scope, outcome: Outcome, decides: Node | None, targets: Sequence[Node]
) -> str | None:
    """The id of the fact a receipt is about, as ``Receipt.fact`` gives it.

    A receipt decides one node: a claim, or for ``merged`` the corroboration event that adds
    the new evidence. That event is no fact anyone can read, so a merged receipt names the
    fact it merged into (its one target) instead.
    """
    if outcome is Outcome.MERGED and targets:
        return scope.local_id(targets[0])
    return scope.local_id(decides) if decides is not None else None


def receipts(store: Store, scope: Scope) -> list[Receipt]:
    """Every receipt of the scope, in chain order."""
    rows = store.select(query("receipts"), dataset=Dataset(default=(scope.log,)))
    return _assemble(scope, rows, "receipt")


def receipts_deciding(store: Store, scope: Scope, iri: URIRef) -> list[Receipt]:
    """The receipts that decided about one claim, in chain order."""
    rows = store.select(
        query("receipts_deciding"), dataset=Dataset(default=(scope.log,)), bindings={"claim": iri}
    )
    return _assemble(scope, rows, "receipt")


def _assemble(scope: Scope, rows: list[dict[str, Node]], key: str) -> list[Receipt]:
    fields: dict[Node, dict[Node, list[Node]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        fields[row[key]][row["p"]].append(row["o"])
    result = []
    for iri, values in fields.items():

        def one(p: URIRef, values: dict[Node, list[Node]] = values) -> Node | None:
            found = values.get(p)
            return found[0] if found else None

        relation = one(DOXA.relation)
        decides = one(DOXA.decides)
        outcome = Outcome.from_iri(one(DOXA.outcome))
        targets = values.get(DOXA.target, [])
        fact = receipt_fact(scope, outcome, decides, [URIRef(str(t)) for t in targets])
        result.append(
            Receipt(
                id=scope.local_id(iri),
                sequence=int(str(one(DOXA.sequence))),
                relation=Relation.from_iri(relation) if relation is not None else None,
                outcome=outcome,
                recorded_at=instant(one(DOXA.recordedAt)),
                judge=str(one(DOXA.judge)),
                judge_version=str(one(DOXA.judgeVersion)),
                reason=str(one(DOXA.reason) or ""),
                fact=fact,
                held=fact if outcome is Outcome.HELD else None,
                targets=tuple(sorted(scope.local_id(t) for t in targets)),
                consulted=tuple(sorted(scope.local_id(c) for c in values.get(DOXA.consulted, []))),
                input_digest=str(one(DOXA.inputDigest) or ""),
                receipt_hash=str(one(DOXA.receiptHash) or ""),
                previous_hash=str(one(DOXA.previousHash) or ""),
            )
        )
    return sorted(result, key=lambda r: r.sequence)
