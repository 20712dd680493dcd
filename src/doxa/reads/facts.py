"""``facts`` and ``recall``: claims by valid time and belief time, structured or by words."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from rdflib import Literal, URIRef

from doxa.model import Fact
from doxa.reads.claims import load_facts
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal
from doxa.text import words

__all__ = ["facts", "recall"]


def _dataset(scope: Scope, topic_graphs: list[URIRef], *extra: URIRef) -> Dataset:
    graphs = (*topic_graphs, scope.rules, scope.log, *extra)
    return Dataset(default=graphs)


def facts(
    store: Store,
    scope: Scope,
    topic_graphs: list[URIRef],
    *,
    valid_at: datetime,
    as_of: datetime,
    subject: URIRef | None = None,
    predicate: URIRef | None = None,
    include_ended: bool = False,
) -> list[Fact]:
    """Claims true at ``valid_at`` as believed at ``as_of``, oldest record first."""
    dataset = _dataset(scope, topic_graphs)
    bindings = {
        "asOf": dt_literal(as_of),
        "validAt": dt_literal(valid_at),
        "includeEnded": Literal(include_ended),
        "predicate": predicate,
    }
    if subject is not None:
        rows = store.select(
            query("facts_about"), dataset=dataset, bindings={**bindings, "subject": subject}
        )
    else:
        rows = store.select(query("facts"), dataset=dataset, bindings={**bindings, "subject": None})
    iris = [URIRef(str(r["claim"])) for r in rows]
    found = load_facts(store, scope, dataset, iris, as_of=as_of)
    return sorted(found, key=lambda f: (f.recorded_at, f.id))


def recall(
    store: Store,
    scope: Scope,
    topic_graphs: list[URIRef],
    text: str,
    *,
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool = False,
    limit: int = 10,
) -> list[Fact]:
    """Facts ranked by how many of the query's words they contain, rarer words first.

    Returns at most ``limit`` facts, each with its ``score`` in (0, 1].
    """
    wanted = words(text)
    if not wanted:
        return []
    dataset = _dataset(scope, topic_graphs, scope.search)
    rows = store.select(
        query("recall"),
        dataset=dataset,
        bindings={
            "term": [Literal(w) for w in wanted],
            "asOf": dt_literal(as_of),
            "validAt": dt_literal(valid_at),
            "includeEnded": Literal(include_ended),
        },
    )
    hits = {URIRef(str(r["claim"])): int(str(r["hits"])) for r in rows[: max(limit * 5, 50)]}
    found = load_facts(store, scope, dataset, list(hits), as_of=as_of)
    scored = []
    for fact in found:
        scored.append(replace(fact, score=round(hits[fact.iri] / len(wanted), 4)))
    # among equal matches, shorter texts say more about the query, then newer records
    scored.sort(key=lambda f: (-(f.score or 0), len(f.text), -f.recorded_at.timestamp(), f.id))
    return scored[:limit]
