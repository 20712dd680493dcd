"""Turn stored claim triples back into :class:`~doxa.model.Fact` values."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.model import Authority, Fact, FactStatus, RuleMode, Support
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["load_facts"]


def load_facts(
    store: Store,
    scope: Scope,
    dataset: Dataset,
    iris: Sequence[URIRef],
    *,
    as_of: datetime | None = None,
) -> list[Fact]:
    """Read the claims named by ``iris`` (in that order); with ``as_of``, also their status.

    Claims that are not in the dataset are left out.
    """
    if not iris:
        return []
    rows = store.select(query("claim"), dataset=dataset, bindings={"claim": list(iris)})
    triples: dict[Node, list[tuple[Node, Node]]] = defaultdict(list)
    for row in rows:
        triples[row["claim"]].append((row["p"], row["o"]))
    endings: dict[Node, list[dict[str, Node]]] = defaultdict(list)
    if as_of is not None:
        for row in store.select(
            query("endings"),
            dataset=Dataset(default=(scope.log,)),  # endings live in the log: one graph
            bindings={"claim": list(iris), "asOf": dt_literal(as_of)},
        ):
            endings[row["claim"]].append(row)
    facts = []
    for iri in iris:
        if iri in triples:
            facts.append(_fact(scope, iri, triples[iri], endings.get(iri, [])))
    return facts


def _fact(
    scope: Scope, iri: URIRef, pairs: list[tuple[Node, Node]], endings: list[dict[str, Node]]
) -> Fact:
    values: dict[Node, list[Node]] = defaultdict(list)
    for p, o in pairs:
        values[p].append(o)

    def one(p: URIRef) -> Node | None:
        found = values.get(p)
        return found[0] if found else None

    def text(p: URIRef) -> str:
        found = one(p)
        return str(found) if found is not None else ""

    status = FactStatus.LIVE
    valid_until = _instant(one(DOXA.validUntil))
    successor = None
    for ending in endings:
        if ending["type"] == DOXA.Retraction:
            status = FactStatus.RETRACTED
        elif status is not FactStatus.RETRACTED:
            status = FactStatus.SUPERSEDED
            until = _instant(ending.get("until"))
            if until is not None and (valid_until is None or until < valid_until):
                valid_until = until
            if "successor" in ending:
                successor = scope.local_id(ending["successor"])
    confidence = one(DOXA.confidence)
    mode = one(DOXA.ruleMode)
    obj = one(RDF.object)
    return Fact(
        id=scope.local_id(iri),
        iri=iri,
        text=text(DOXA.text),
        topic=text(DOXA.topic),
        kind=text(DOXA.kind),
        authority=Authority.from_iri(one(DOXA.authority)),
        standpoint=URIRef(str(one(DOXA.standpoint))),
        support=Support.from_iri(one(DOXA.support)),
        recorded_at=_instant(one(DOXA.recordedAt)) or _instant(one(DOXA.heldAt)) or datetime.min,
        status=status,
        subject=_iri(one(RDF.subject)),
        predicate=_iri(one(RDF.predicate)),
        object=obj if isinstance(obj, URIRef | Literal) else None,
        sources=tuple(sorted(URIRef(str(s)) for s in values.get(PROV.wasDerivedFrom, []))),
        valid_from=_instant(one(DOXA.validFrom)),
        valid_until=valid_until,
        confidence=Decimal(str(confidence)) if confidence is not None else None,
        query=text(DOXA.query) or None,
        rule_mode=RuleMode.from_iri(mode) if mode is not None else None,
        refines=tuple(sorted(scope.local_id(r) for r in values.get(DOXA.refines, []))),
        successor=successor,
    )


def _iri(node: Node | None) -> URIRef | None:
    return URIRef(str(node)) if isinstance(node, URIRef) else None


def _instant(node: Node | None) -> datetime | None:
    return instant(node) if node is not None else None
