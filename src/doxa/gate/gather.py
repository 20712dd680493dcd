"""Gather: what the judge reads for one write, fetched through the queries in ``queries/``.

Every lookup goes through an index (subject+predicate, text key, rule predicate, turn), and
reads only the write's own topic graph, the rules graph and the log: the cost of a write does
not grow with the store.
"""

from __future__ import annotations

from rdflib import Literal, URIRef

from doxa.judges.base import Evidence
from doxa.model import Fact, Proposal
from doxa.reads.claims import load_facts
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Row, Store
from doxa.text import text_key
from doxa.vocabulary import ONTOLOGY_GRAPH

__all__ = ["gather", "graph_versions"]


def gather(store: Store, scope: Scope, proposal: Proposal) -> Evidence:
    """Collect the same-topic facts, the rules and the turn's observations for a write."""
    # read the versions first: a change published during the reads below must look stale
    versions = graph_versions(store, scope, proposal.topic)
    topic_graph = scope.topic(proposal.topic)
    topic = Dataset(default=(topic_graph, scope.log))
    found: list[URIRef] = []
    if proposal.structured:
        rows = store.select(
            query("live_same_statement"),
            dataset=topic,
            bindings={"subject": proposal.subject, "predicate": proposal.predicate},
        )
        found.extend(_iris(rows))
    rows = store.select(
        query("live_same_text"),
        dataset=Dataset(default=(topic_graph, scope.search, scope.log)),
        bindings={"key": Literal(text_key(proposal.text)), "topic": Literal(proposal.topic)},
    )
    found.extend(i for i in _iris(rows) if i not in found)
    same_topic = load_facts(store, scope, topic, found)

    rules_dataset = Dataset(default=(scope.rules, scope.log))
    rule_rows = store.select(
        query("live_rules"), dataset=rules_dataset, bindings={"predicate": proposal.predicate}
    )
    rules = load_facts(store, scope, rules_dataset, _iris(rule_rows))

    observations: list[Fact] = []
    if proposal.turn is not None:
        obs_rows = store.select(
            query("turn_observations"), dataset=topic, bindings={"turn": proposal.turn}
        )
        observations = load_facts(store, scope, topic, _iris(obs_rows))

    functional = proposal.predicate is not None and store.ask(
        query("is_functional"),
        dataset=Dataset(default=(ONTOLOGY_GRAPH,)),
        bindings={"predicate": proposal.predicate},
    )
    return Evidence(
        same_topic=tuple(same_topic),
        rules=tuple(rules),
        observations=tuple(observations),
        functional=functional,
        versions=versions,
    )


def graph_versions(store: Store, scope: Scope, topic: str) -> tuple[int, int]:
    """The change counters of a topic graph and of the rules graph."""
    rows = store.select(
        query("graph_versions"),
        dataset=Dataset(default=(scope.log,)),
        bindings={"topicGraph": scope.topic(topic), "rulesGraph": scope.rules},
    )
    row = rows[0] if rows else {}
    return (_int(row.get("topicVersion")), _int(row.get("rulesVersion")))


def _int(value: object) -> int:
    return int(str(value)) if value is not None else 0


def _iris(rows: list[Row]) -> list[URIRef]:
    return [URIRef(str(row["claim"])) for row in rows]
