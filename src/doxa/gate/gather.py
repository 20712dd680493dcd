"""Gather: what the judge reads for one write, fetched through the queries in ``queries/``.

Every lookup goes through an index (statement or text key, rule predicate, turn) and returns
live claims, plus the superseded claims still believed for part of the write's valid time
(see :mod:`doxa.gate.believed`), so the cost of a write does not grow with the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.gate.believed import believed_by_keys
from doxa.gate.index import TERM
from doxa.gate.revising import revision_target
from doxa.judges.base import Evidence
from doxa.judges.patterns import align, head_keys
from doxa.judges.sentences import frame_key
from doxa.model import Authority, Fact, Proposal
from doxa.ontology.closure import broader_objects, property_table
from doxa.reads.claims import load_facts
from doxa.reads.facts import recall
from doxa.reads.vectors import Meaning
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Change, Dataset, Row, Store
from doxa.store.cache import CacheKey, Derived
from doxa.store.capabilities import cache_of
from doxa.text import text_key, unconfused
from doxa.vocabulary import DOXA

__all__ = ["KeptRules", "gather", "kept_rules", "live_by_key", "live_by_keys", "live_rules"]


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


#: how many live texts sharing a head key a write is compared with: a head many facts share
#: ("Alice likes …") costs a bounded read
HEAD_CANDIDATES = 32


def live_by_head(store: Store, scope: Scope, text: str, topic: str) -> list[Fact]:
    """Live text claims of ``topic`` that ``text`` is the same sentence of with another value
    (:func:`~doxa.judges.patterns.align`), looked up by its head keys, the most specific
    first (:func:`~doxa.judges.patterns.head_keys`), at most :data:`HEAD_CANDIDATES` under
    each: the read stops there however many facts share a head. Only the candidates' texts
    are read before aligning; only those that align are loaded whole."""
    graph = scope.topic(topic)
    for key in head_keys(text):
        rows = store.select(
            query("live_by_head") + f"\nLIMIT {HEAD_CANDIDATES}",
            dataset=Dataset(default=(scope.search, scope.log, graph)),
            bindings={"key": Literal(key), "topic": Literal(topic)},
        )
        aligned = [URIRef(str(r["claim"])) for r in rows if align(text, str(r["text"]))]
        if aligned:
            dataset = Dataset(default=(graph, scope.log))
            return load_facts(store, scope, dataset, list(dict.fromkeys(aligned)))
    return []


def live_by_keys(store: Store, scope: Scope, keys: list[Literal]) -> list[Fact]:
    """Live claims carrying any of the keys, each once: one lookup for all the keys."""
    return live_by_key(store, scope, keys) if keys else []


class KeptRules(Derived):
    """One scope's live rules, read once and kept in the store's cache (this process is the
    store's only writer). The store tells it of every change: one that writes or deletes in
    the rules graph, or ends a claim (which may be a rule), drops them, and a read that raced
    such a change is not kept (it carries the generation it started from)."""

    def __init__(self, scope: Scope) -> None:
        self.rules_graph = str(scope.rules)
        self.log = scope.log
        self.rules: tuple[Fact, ...] | None = None
        self.generation = 0

    def changed(self, change: Change) -> None:
        # compared as plain strings: rdflib's term equality runs in Python, this in C
        is_rules, is_ends = self.rules_graph.__eq__, _ENDS.__eq__
        if (
            any(map(is_rules, [q[3] for q in change.delete]))
            or any(map(is_rules, [q[3] for q in change.insert]))
            or any(map(is_ends, [q[1] for q in change.insert]))
        ):
            self.forget()

    def reset(self, graph: URIRef | None) -> None:
        if graph is None or str(graph) == self.rules_graph or graph == self.log:
            self.forget()

    def forget(self) -> None:
        self.generation += 1
        self.rules = None


_ENDS = str(DOXA.ends)

#: the store cache's key of one scope's kept live rules (``RULES.of(scope.name)``)
RULES: CacheKey[KeptRules] = CacheKey("doxa.rules")


def live_rules(store: Store, scope: Scope, predicates: list[Node] | None) -> list[Fact]:
    """The scope's unended rules bearing on any of ``predicates`` (every rule when None),
    and every text-only rule.

    Read on every write but changed rarely: where this process is the store's only writer,
    the rules are read once and kept (:class:`KeptRules`) until a change touches them.
    """
    dataset = Dataset(default=(scope.rules, scope.log))
    kept = kept_rules(store, scope)
    if kept is None:  # other processes write the store too: read it every time
        rows = store.select(
            query("live_rules"), dataset=dataset, bindings={"predicate": predicates}
        )
        return load_facts(store, scope, dataset, _iris(rows))
    rules = kept.rules
    if rules is None:
        generation = kept.generation
        rows = store.select(query("live_rules"), dataset=dataset, bindings={"predicate": None})
        rules = tuple(load_facts(store, scope, dataset, _iris(rows)))
        if kept.generation == generation:  # else a change came in while they were read
            kept.rules = rules
    if predicates is None:
        return list(rules)
    wanted = set(predicates)
    return [r for r in rules if r.predicate is None or r.predicate in wanted]


def kept_rules(store: Store, scope: Scope) -> KeptRules | None:
    """The scope's kept rules on ``store``; None when other processes may write the store."""
    cache = cache_of(store)
    if cache is None:
        return None
    return cache.get_or_make(RULES.of(scope.name), lambda: KeptRules(scope))


def gather(
    store: Store,
    scope: Scope,
    proposal: Proposal,
    claim_graphs: list[URIRef],
    *,
    similar: int = 0,
    now: datetime | None = None,
    meaning: Meaning | None = None,
) -> Evidence:
    """Collect the live facts on the same statement (scope-wide) or with the same text (in the
    topic), the rules and the turn's tool observations for a write.

    ``similar`` adds up to that many close live facts of the topic for a text-only write (for
    a judge that reads text, such as the LLM judge); the rule judge needs none. They are
    found by :func:`~doxa.reads.facts.recall` itself: by words, and with ``meaning`` (the
    write's own vector, asked once before the gate) fused with the nearest vectors, under
    the same live, quarantine and scope rules as :meth:`doxa.Memory.recall`.
    """
    target = None
    outside: tuple[Fact, ...] = ()
    if proposal.revises is not None:  # first: a bad target is refused before any other read
        as_of = now if now is not None else datetime.now(UTC)
        target = revision_target(store, scope, claim_graphs, proposal.revises, as_of)
    for basis in proposal.derived_from:  # each must be live now: a write cannot rest on a past
        as_of = now if now is not None else datetime.now(UTC)
        revision_target(store, scope, claim_graphs, basis, as_of, field="derived_from")
    table = property_table(store)
    rule_predicates: list[Node] | None = None
    superseded: list[Fact] = []
    if proposal.structured:
        assert proposal.subject is not None
        assert proposal.predicate is not None
        assert proposal.object is not None
        keys = table.keys(proposal.subject, proposal.predicate, proposal.object)
        same = live_by_keys(store, scope, keys)
        # an undated value starts when it is recorded: the history before then is no
        # contradiction of it, and is not read
        starts = proposal.valid_from if proposal.valid_from is not None else now
        superseded = believed_by_keys(store, scope, keys, starts, proposal.valid_until)
        canonical, _ = table.canonical(proposal.predicate)
        rule_predicates = list(table.members(table.family(canonical)))
    else:
        value = frame_key(proposal.text)  # one lookup: the same text, or the same subject
        key = text_key(proposal.text)
        keys = [Literal(key), *([Literal(value)] if value else [])]
        found = live_by_keys(store, scope, keys)
        same = [f for f in found if f.topic == proposal.topic]
        # outside text of another topic, the same once normalised and look-alike letters
        # read as the ASCII they imitate (not the same subject's other value, which the
        # second key finds); a text with look-alikes is also looked up by its folded key
        folded = text_key(unconfused(proposal.text))
        candidates = found
        if folded != key:
            seen = {f.id for f in found}
            more = live_by_keys(store, scope, [Literal(folded)])
            candidates = [*found, *(f for f in more if f.id not in seen)]
        outside = tuple(
            f
            for f in candidates
            if f.topic != proposal.topic
            and f.authority is Authority.EXTERNAL
            and text_key(unconfused(f.text)) == folded
        )
        known = {f.id for f in same}  # and the texts it is the same sentence of, another value
        same += [
            f
            for f in live_by_head(store, scope, proposal.text, proposal.topic)
            if f.id not in known
        ]
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
                meaning=meaning,
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
        target=target,
        now=now,
        outside=outside,
    )


def _iris(rows: list[Row]) -> list[URIRef]:
    return [URIRef(str(row["claim"])) for row in rows]
