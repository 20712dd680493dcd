"""Gather: what the judge reads for one write, fetched through the queries in ``queries/``.

Every lookup goes through an index (statement or text key, rule predicate, turn) and returns
live claims, plus the superseded claims still believed for part of the write's valid time
(see :mod:`doxa.gate.believed`), so the cost of a write does not grow with the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.gate.believed import believed_by_keys
from doxa.gate.closure import broader_objects, property_table
from doxa.gate.index import TERM
from doxa.judges.base import Evidence
from doxa.model import Fact, Proposal
from doxa.reads.claims import load_facts
from doxa.reads.facts import recall
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Row, Store
from doxa.text import text_key

__all__ = ["forget_rules", "gather", "live_by_key", "live_by_keys", "live_rules"]


def live_by_key(store: Store, scope: Scope, key: Literal | Sequence[Literal]) -> list[Fact]:
    """Live claims of the scope that carry an index key (any of several keys), each once."""
    keys = [key] if isinstance(key, Literal) else list(key)
    if not store.referrers(TERM, keys, scope.search):
        return []  # no claim carries the keys (a first statement, a new text): one index seek
    rows = store.select(
        query("live_by_key"),
        dataset=Dataset(default=(scope.search, scope.log)),
        bindings={"key": key},
    )
    found: list[Fact] = []
    for topic in sorted({str(row["topic"]) for row in rows}):  # read each from its own graph
        group = list(
            dict.fromkeys(URIRef(str(r["claim"])) for r in rows if str(r["topic"]) == topic)
        )
        dataset = Dataset(default=(scope.topic(topic), scope.log))
        found += load_facts(store, scope, dataset, group)
    return found


def live_by_keys(store: Store, scope: Scope, keys: list[Literal]) -> list[Fact]:
    """Live claims carrying any of the keys, each once: one lookup for all the keys."""
    return live_by_key(store, scope, keys) if keys else []


#: the store memo's keys for one scope's live rules and for their generation (see live_rules)
RULES = "doxa.rules"
RULES_GENERATION = "doxa.rules.generation"


def live_rules(store: Store, scope: Scope, predicates: list[Node] | None) -> list[Fact]:
    """The scope's unended rules bearing on any of ``predicates`` (every rule when None),
    and every text-only rule.

    Read on every write but changed rarely: where this process is the store's only writer,
    the rules are read once and kept in the store's memo until :func:`forget_rules` (a
    decision that touches the rules graph or ends a claim). A read that raced with such a
    decision is not kept: it carries the generation it started from.
    """
    dataset = Dataset(default=(scope.rules, scope.log))
    memo = store.memo
    if memo is None:  # other processes write the store too: read it every time
        rows = store.select(
            query("live_rules"), dataset=dataset, bindings={"predicate": predicates}
        )
        return load_facts(store, scope, dataset, _iris(rows))
    generation = memo.get((RULES_GENERATION, scope.name), 0)
    cached = memo.get((RULES, scope.name))
    if isinstance(cached, tuple) and cached[0] == generation:
        rules: tuple[Fact, ...] = cached[1]
    else:
        rows = store.select(query("live_rules"), dataset=dataset, bindings={"predicate": None})
        rules = tuple(load_facts(store, scope, dataset, _iris(rows)))
        memo[(RULES, scope.name)] = (generation, rules)
    if predicates is None:
        return list(rules)
    wanted = set(predicates)
    return [r for r in rules if r.predicate is None or r.predicate in wanted]


def forget_rules(store: Store, scope: Scope) -> None:
    """Drop the scope's remembered rules: the next write reads them from the store again."""
    memo = store.memo
    if memo is not None:
        key = (RULES_GENERATION, scope.name)
        generation = memo.get(key, 0)
        assert isinstance(generation, int)
        memo[key] = generation + 1
        memo.pop((RULES, scope.name), None)


def gather(
    store: Store,
    scope: Scope,
    proposal: Proposal,
    claim_graphs: list[URIRef],
    *,
    similar: int = 0,
    now: datetime | None = None,
) -> Evidence:
    """Collect the live facts on the same statement (scope-wide) or with the same text (in the
    topic), the rules and the turn's tool observations for a write.

    ``similar`` adds up to that many textually close live facts of the topic for a text-only
    write (for a judge that reads text, such as the LLM judge); the rule judge needs none.
    """
    table = property_table(store)
    rule_predicates: list[Node] | None = None
    superseded: list[Fact] = []
    if proposal.structured:
        assert proposal.subject is not None
        assert proposal.predicate is not None
        assert proposal.object is not None
        keys = table.keys(proposal.subject, proposal.predicate, proposal.object)
        same = live_by_keys(store, scope, keys)
        superseded = believed_by_keys(store, scope, keys, proposal.valid_from, proposal.valid_until)
        canonical, _ = table.canonical(proposal.predicate)
        rule_predicates = list(table.members(table.family(canonical)))
    else:
        key = Literal(text_key(proposal.text))
        same = [f for f in live_by_key(store, scope, key) if f.topic == proposal.topic]
        if similar and now is not None:
            close = recall(
                store,
                scope,
                {proposal.topic},
                proposal.text,
                valid_at=now,
                as_of=now,
                include_ended=False,
                limit=similar,
            )
            known = {f.id for f in same}
            same += [f for f in close if f.id not in known]

    rules = live_rules(store, scope, rule_predicates)

    observations: list[Fact] = []
    if proposal.turn is not None:
        topic = Dataset(default=(scope.topic(proposal.topic), scope.log))
        obs_rows = store.select(
            query("turn_observations"), dataset=topic, bindings={"turn": proposal.turn}
        )
        observations = load_facts(store, scope, topic, _iris(obs_rows))

    objects: list[Node] = [
        o for f in (*same, *rules, *observations, *superseded) if (o := f.object) is not None
    ]
    if proposal.object is not None:
        objects.append(proposal.object)
    return Evidence(
        same_topic=tuple(same),
        rules=tuple(rules),
        observations=tuple(observations),
        properties=table,
        broader=broader_objects(store, objects) if proposal.structured else {},
        superseded=tuple(superseded),
    )


def _iris(rows: list[Row]) -> list[URIRef]:
    return [URIRef(str(row["claim"])) for row in rows]
