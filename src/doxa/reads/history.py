"""``history`` and ``why``: the life of one fact, and the evidence behind it."""

from __future__ import annotations

from datetime import datetime

from rdflib import URIRef

from doxa.model import History, HistoryEvent, Receipt, Why
from doxa.reads.claims import load_facts
from doxa.reads.receipts import receipts_deciding
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant
from doxa.vocabulary import DOXA

__all__ = ["history", "why"]


def history(
    store: Store, scope: Scope, dataset: Dataset, iri: URIRef, *, as_of: datetime
) -> History | None:
    """The fact, then every event on it and on its successors, oldest first."""
    found = load_facts(store, scope, dataset, [iri], as_of=as_of)
    if not found:
        return None
    fact = found[0]
    if fact.recorded_at > as_of:
        return None  # not yet believed at as_of
    events: list[HistoryEvent] = [HistoryEvent("recorded", fact.recorded_at, fact.id)]
    successors: list[str] = []
    seen = {iri}
    frontier = [iri]
    while frontier:
        current = frontier.pop(0)
        current_id = scope.local_id(current)
        for row in store.select(
            query("endings"),
            dataset=dataset,
            bindings={"claim": [current], "asOf": dt_literal(as_of)},
        ):
            kind = "superseded" if row["type"] == DOXA.Supersession else "retracted"
            successor = row.get("successor")
            events.append(
                HistoryEvent(
                    kind,
                    instant(row["recorded"]),
                    current_id,
                    other=scope.local_id(successor) if successor is not None else None,
                    valid_until=instant(row["until"]) if "until" in row else None,
                    reason=str(row.get("reason", "")),
                )
            )
            if successor is not None and successor not in seen:
                seen.add(URIRef(str(successor)))
                frontier.append(URIRef(str(successor)))
                successors.append(scope.local_id(successor))
                for later in load_facts(store, scope, dataset, [URIRef(str(successor))]):
                    events.append(HistoryEvent("recorded", later.recorded_at, later.id))
        for row in store.select(
            query("successors"), dataset=dataset, bindings={"refined": current}
        ):
            refining = URIRef(str(row["claim"]))
            if refining not in seen:
                seen.add(refining)
                for later in load_facts(store, scope, dataset, [refining]):
                    events.append(
                        HistoryEvent("refined", later.recorded_at, current_id, other=later.id)
                    )
        for row in store.select(
            query("corroborations"),
            dataset=dataset,
            bindings={"claim": current, "asOf": dt_literal(as_of)},
        ):
            source = row.get("source")
            events.append(
                HistoryEvent(
                    "corroborated",
                    instant(row["recorded"]),
                    current_id,
                    other=str(source) if source is not None else None,
                )
            )
    events.sort(key=lambda e: (e.at, e.kind != "recorded"))
    return History(fact=fact, events=tuple(events), successors=tuple(successors))


def why(
    store: Store, scope: Scope, dataset: Dataset, iri: URIRef, *, as_of: datetime
) -> Why | None:
    """The fact's sources, who it is attributed to, and the receipt that admitted it."""
    found = load_facts(store, scope, dataset, [iri], as_of=as_of)
    if not found:
        return None
    fact = found[0]
    attributed = store.select(query("claim"), dataset=dataset, bindings={"claim": [iri]})
    attributed_to = next(
        (
            URIRef(str(r["o"]))
            for r in attributed
            if r["p"] == URIRef("http://www.w3.org/ns/prov#wasAttributedTo")
        ),
        None,
    )
    receipts = receipts_deciding(store, scope, iri)
    admitting: Receipt | None = next((r for r in reversed(receipts) if r.admitted), None)
    corroborations = tuple(
        URIRef(str(r["source"]))
        for r in store.select(
            query("corroborations"),
            dataset=dataset,
            bindings={"claim": iri, "asOf": dt_literal(as_of)},
        )
        if "source" in r
    )
    return Why(
        fact=fact,
        sources=fact.sources,
        attributed_to=attributed_to,
        receipt=admitting,
        corroborations=corroborations,
    )
