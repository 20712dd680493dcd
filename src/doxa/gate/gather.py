"""Gather: what the judge reads for one write, fetched through the queries in ``queries/``.

Every lookup goes through an index (statement or text key, rule predicate, turn) and returns
live claims only, so the cost of a write does not grow with the store or with a statement's
history.
"""

from __future__ import annotations

from rdflib import Literal, URIRef

from doxa.gate.index import statement_key
from doxa.judges.base import Evidence
from doxa.model import Fact, Proposal
from doxa.reads.claims import load_facts
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Row, Store
from doxa.text import text_key
from doxa.vocabulary import ONTOLOGY_GRAPH

__all__ = ["gather", "is_functional", "live_by_key"]


def live_by_key(store: Store, scope: Scope, key: Literal) -> list[Fact]:
    """Live claims of the scope that carry an index key."""
    rows = store.select(
        query("live_by_key"),
        dataset=Dataset(default=(scope.search, scope.log)),
        bindings={"key": key},
    )
    found: list[Fact] = []
    for topic in sorted({str(row["topic"]) for row in rows}):  # read each from its own graph
        group = [URIRef(str(r["claim"])) for r in rows if str(r["topic"]) == topic]
        dataset = Dataset(default=(scope.topic(topic), scope.log))
        found += load_facts(store, scope, dataset, group)
    return found


def is_functional(store: Store, predicate: URIRef | None) -> bool:
    """Whether the loaded ontology says ``predicate`` has one value at a time."""
    return predicate is not None and store.ask(
        query("is_functional"),
        dataset=Dataset(default=(ONTOLOGY_GRAPH,)),
        bindings={"predicate": predicate},
    )


def gather(store: Store, scope: Scope, proposal: Proposal, claim_graphs: list[URIRef]) -> Evidence:
    """Collect the live facts on the same statement (scope-wide) or with the same text (in the
    topic), the rules and the turn's tool observations for a write."""
    if proposal.structured:
        assert proposal.subject is not None
        assert proposal.predicate is not None
        key = statement_key(proposal.subject, proposal.predicate)
        same = live_by_key(store, scope, key)
    else:
        key = Literal(text_key(proposal.text))
        same = [f for f in live_by_key(store, scope, key) if f.topic == proposal.topic]

    rules_dataset = Dataset(default=(scope.rules, scope.log))
    rule_rows = store.select(
        query("live_rules"), dataset=rules_dataset, bindings={"predicate": proposal.predicate}
    )
    rules = load_facts(store, scope, rules_dataset, _iris(rule_rows))

    observations: list[Fact] = []
    if proposal.turn is not None:
        topic = Dataset(default=(scope.topic(proposal.topic), scope.log))
        obs_rows = store.select(
            query("turn_observations"), dataset=topic, bindings={"turn": proposal.turn}
        )
        observations = load_facts(store, scope, topic, _iris(obs_rows))

    return Evidence(
        same_topic=tuple(same),
        rules=tuple(rules),
        observations=tuple(observations),
        functional=is_functional(store, proposal.predicate),
    )


def _iris(rows: list[Row]) -> list[URIRef]:
    return [URIRef(str(row["claim"])) for row in rows]
