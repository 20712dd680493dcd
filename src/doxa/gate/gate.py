"""The gate: shape → gather → judge → publish → receipt, the only way into the store.

Every decision (the claim, its endings, index entries and its receipt) is published as one
atomic :class:`~doxa.store.Change`. Decisions are serialised by one lock per store; the judge
runs outside it, and if a graph it read changed meanwhile, it runs again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from datetime import datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.clock import Clock, parse_instant
from doxa.errors import JudgeUnavailable, NotFound, ShapeViolation
from doxa.gate.gather import gather, graph_versions
from doxa.gate.proposal import claim_pairs, input_digest, write_graph
from doxa.gate.receipts import ChainHead, ReceiptDraft, content_digest, receipt_triples
from doxa.gate.shapes import ShapeCheck
from doxa.judges.base import Evidence, Judge
from doxa.model import (
    HoldStatus,
    Outcome,
    Proposal,
    Receipt,
    Relation,
    Verdict,
)
from doxa.resources import query
from doxa.scope import Scope, new_id
from doxa.store import Change, Dataset, Store
from doxa.terms import dt_literal
from doxa.text import text_key, words
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["Gate"]

Pair = tuple[URIRef, Node]
MAX_ATTEMPTS = 4


@dataclass
class _Decision:
    """What one decision writes, gathered before it is published."""

    change: Change = field(default_factory=Change)
    bumped: set[URIRef] = field(default_factory=set)


class Gate:
    """Admits, holds, merges or rejects writes for one scope of one store."""

    def __init__(
        self,
        store: Store,
        scope: Scope,
        *,
        shapes: ShapeCheck,
        judge: Judge,
        clock: Clock,
        lock: threading.RLock,
    ) -> None:
        self.store = store
        self.scope = scope
        self.shapes = shapes
        self.judge = judge
        self.clock = clock
        self.lock = lock

    # -- writes ----------------------------------------------------------------------

    def remember(self, proposal: Proposal, *, strict: bool = False) -> Receipt:
        pairs = claim_pairs(proposal)
        digest = input_digest(pairs)
        failures = self.shapes.check(write_graph(proposal.iri, pairs, self.clock.now()))
        if failures:
            with self.lock:
                receipt = self._commit(
                    _Decision(),
                    ReceiptDraft(
                        outcome=Outcome.REJECTED,
                        reason="; ".join(f.message for f in failures),
                        judge="shapes",
                        judge_version="1",
                        input_digest=digest,
                    ),
                )
            receipt = replace(receipt, failures=tuple(str(f) for f in failures))
            if strict:
                raise ShapeViolation(failures, receipt.id)
            return receipt
        for attempt in range(MAX_ATTEMPTS):
            last = attempt == MAX_ATTEMPTS - 1
            if last:
                self.lock.acquire()  # the last attempt judges under the lock: it cannot lose
            try:
                evidence = gather(self.store, self.scope, proposal)
                verdict: Verdict | None
                try:
                    verdict = self.judge.judge(proposal, evidence)
                    reason = verdict.reason
                except JudgeUnavailable as error:
                    verdict, reason = None, f"the judge could not answer: {error}"
                with self.lock:
                    if graph_versions(self.store, self.scope, proposal.topic) != evidence.versions:
                        continue  # a graph the judge read changed: judge again
                    return self._publish(proposal, pairs, digest, evidence, verdict, reason)
            finally:
                if last:
                    self.lock.release()
        raise AssertionError("unreachable: the last attempt holds the lock")

    def _publish(
        self,
        proposal: Proposal,
        pairs: list[Pair],
        digest: str,
        evidence: Evidence,
        verdict: Verdict | None,
        reason: str,
    ) -> Receipt:
        now = self.clock.now()
        decision = _Decision()
        consulted = tuple(f.iri for f in evidence.consulted)
        targets = tuple(self.scope.fact(t) for t in (verdict.targets if verdict else ()))
        draft = ReceiptDraft(
            outcome=Outcome.HELD,
            reason=reason,
            judge=self.judge.name,
            judge_version=self.judge.version,
            relation=verdict.relation if verdict else None,
            decides=proposal.iri,
            targets=targets,
            consulted=consulted,
            input_digest=digest,
        )
        graph = self.scope.rules if proposal.is_rule else self.scope.topic(proposal.topic)
        if verdict is None:
            self._hold(decision, proposal.iri, pairs, None, (), reason, HoldStatus.UNCHECKED, now)
            return self._commit(decision, draft, now)
        relation = verdict.relation
        if relation is Relation.SAME:
            event = self.scope.event(new_id())
            log = self.scope.log
            change = decision.change
            change.insert += [
                (event, RDF.type, DOXA.Corroboration, log),
                (event, DOXA.corroborates, targets[0], log),
                (event, DOXA.recordedAt, dt_literal(now), log),
                (event, DOXA.authority, proposal.authority.iri, log),
            ]
            change.insert += [(event, PROV.wasDerivedFrom, s, log) for s in proposal.sources]
            return self._commit(
                decision, replace(draft, outcome=Outcome.MERGED, decides=event), now
            )
        if relation is Relation.INSTRUCTION:
            quarantine = self.scope.quarantine
            decision.change.insert += [(proposal.iri, p, o, quarantine) for p, o in pairs]
            return self._commit(decision, replace(draft, outcome=Outcome.QUARANTINED), now)
        if relation in (Relation.UNCLEAR, Relation.CLASHES_WITH_RULE) or (
            relation.closes and not self.closing_earned(proposal.kind)
        ):
            self._hold(
                decision,
                proposal.iri,
                pairs,
                relation,
                targets,
                reason,
                HoldStatus.AWAITING_OWNER,
                now,
            )
            return self._commit(decision, draft, now)
        if relation is Relation.ADDS_DETAIL:
            pairs = [*pairs, *((DOXA.refines, t) for t in targets)]
        admitted = self._admit(decision, proposal.iri, pairs, graph, now)
        if relation.closes:
            self._close(decision, relation, targets, proposal.iri, proposal.valid_from, reason, now)
        return self._commit(
            decision, replace(draft, outcome=Outcome.ADMITTED, content_digest=admitted), now
        )

    def approve(self, held_id: str, *, as_relation: Relation | None = None) -> Receipt:
        """Apply a held write's outcome (or ``as_relation``'s) and leave a receipt."""
        with self.lock:
            held, claim = self._held(held_id)
            relation = as_relation or _held_relation(held)
            targets = tuple(URIRef(str(t)) for p, t in held if p == DOXA.target)
            live_targets = tuple(t for t in targets if self._is_live(t))
            now = self.clock.now()
            decision = _Decision()
            self._unhold(decision, held_id, held, claim)
            pairs = [(p, o) for p, o in claim if p != DOXA.heldAt]
            if relation is Relation.ADDS_DETAIL:
                pairs += [(DOXA.refines, t) for t in live_targets]
            is_rule = (RDF.type, DOXA.Rule) in pairs
            topic = str(next(o for p, o in pairs if p == DOXA.topic))
            graph = self.scope.rules if is_rule else self.scope.topic(topic)
            iri = self.scope.fact(held_id)
            admitted = self._admit(decision, iri, pairs, graph, now)
            if relation.closes:
                valid_from = next((o for p, o in pairs if p == DOXA.validFrom), None)
                self._close(
                    decision,
                    relation,
                    live_targets,
                    iri,
                    None if valid_from is None else _instant(valid_from),
                    "approved by the owner",
                    now,
                )
            return self._commit(
                decision,
                ReceiptDraft(
                    outcome=Outcome.APPROVED,
                    reason="approved by the owner",
                    judge="owner",
                    judge_version="1",
                    relation=relation,
                    decides=iri,
                    targets=live_targets if relation.closes else (),
                    content_digest=admitted,
                ),
                now,
            )

    def reject(self, held_id: str, *, reason: str) -> Receipt:
        """Discard a held write; its content leaves pending, the receipt stays."""
        with self.lock:
            held, claim = self._held(held_id)
            decision = _Decision()
            self._unhold(decision, held_id, held, claim)
            return self._commit(
                decision,
                ReceiptDraft(
                    outcome=Outcome.DISCARDED,
                    reason=reason or "rejected by the owner",
                    judge="owner",
                    judge_version="1",
                    relation=_held_relation(held),
                    decides=self.scope.fact(held_id),
                ),
            )

    def retract(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner says a fact was never true: a retraction event ends belief in it."""
        with self.lock:
            iri = self.scope.fact(fact_id)
            if not self._is_live(iri):
                raise NotFound(
                    f"There is no live fact {fact_id!r} in scope {self.scope.name!r}; check the "
                    "id with `doxa facts --include-ended`."
                )
            decision = _Decision()
            now = self.clock.now()
            self._close(decision, Relation.WAS_WRONG, (iri,), None, None, reason, now)
            return self._commit(
                decision,
                ReceiptDraft(
                    outcome=Outcome.CLOSED,
                    reason=reason,
                    judge="owner",
                    judge_version="1",
                    relation=Relation.WAS_WRONG,
                    decides=iri,
                    targets=(iri,),
                ),
                now,
            )

    def grant(self, kind: str, *, granted: bool, reason: str) -> Receipt:
        """Record the owner's grant (or revocation) of automatic closing for a kind."""
        with self.lock:
            return self._commit(
                _Decision(),
                ReceiptDraft(
                    outcome=Outcome.GRANTED if granted else Outcome.REVOKED,
                    reason=reason,
                    judge="owner",
                    judge_version="1",
                    grants_kind=kind,
                ),
            )

    def closing_earned(self, kind: str) -> bool:
        """Whether the judge may close facts of this kind without asking the owner."""
        rows = self.store.select(
            query("kind_granted"),
            dataset=Dataset(default=(self.scope.log,)),
            bindings={"kind": Literal(kind)},
        )
        return bool(rows) and rows[0]["outcome"] == DOXA.Granted

    # -- pieces of a decision -------------------------------------------------------------

    def _admit(
        self, decision: _Decision, iri: URIRef, pairs: list[Pair], graph: URIRef, now: datetime
    ) -> str:
        stamped = [*pairs, (DOXA.recordedAt, dt_literal(now))]
        change = decision.change
        change.insert += [(iri, p, o, graph) for p, o in stamped]
        text = next(str(o) for p, o in pairs if p == DOXA.text)
        search = self.scope.search
        change.insert.append((iri, DOXA["term"], Literal(text_key(text)), search))
        change.insert += [(iri, DOXA["term"], Literal(w), search) for w in words(text)]
        statement = _statement(pairs)
        if statement is not None and graph != self.scope.rules:
            change.insert.append((*statement, self.scope.current))
        decision.bumped.add(graph)
        return content_digest((iri, p, o) for p, o in stamped)

    def _close(
        self,
        decision: _Decision,
        relation: Relation,
        targets: tuple[URIRef, ...],
        successor: URIRef | None,
        valid_from: datetime | None,
        reason: str,
        now: datetime,
    ) -> list[URIRef]:
        log = self.scope.log
        events = []
        for target in targets:
            event = self.scope.event(new_id())
            events.append(event)
            kind = DOXA.Supersession if relation is Relation.REPLACES else DOXA.Retraction
            change = decision.change
            change.insert += [
                (event, RDF.type, kind, log),
                (event, DOXA.ends, target, log),
                (event, DOXA.recordedAt, dt_literal(now), log),
                (event, DOXA.reason, Literal(reason), log),
            ]
            if successor is not None:
                change.insert.append((event, DOXA.by, successor, log))
            if relation is Relation.REPLACES:
                change.insert.append((event, DOXA.validUntil, dt_literal(valid_from or now), log))
            graph, statement = self._locate(target)
            if statement is not None:
                change.delete.append((*statement, self.scope.current))
            decision.bumped.add(graph)
        return events

    def _hold(
        self,
        decision: _Decision,
        iri: URIRef,
        pairs: list[Pair],
        relation: Relation | None,
        targets: tuple[URIRef, ...],
        reason: str,
        status: HoldStatus,
        now: datetime,
    ) -> None:
        pending = self.scope.pending
        held = self.scope.held(self.scope.local_id(iri))
        change = decision.change
        change.insert += [(iri, p, o, pending) for p, o in pairs]
        change.insert.append((iri, DOXA.heldAt, dt_literal(now), pending))
        change.insert += [
            (held, RDF.type, DOXA.HeldWrite, pending),
            (held, DOXA.proposes, iri, pending),
            (held, DOXA.holdStatus, status.iri, pending),
            (held, DOXA.reason, Literal(reason), pending),
            (held, DOXA.heldAt, dt_literal(now), pending),
        ]
        if relation is not None:
            change.insert.append((held, DOXA.relation, relation.iri, pending))
        change.insert += [(held, DOXA.target, t, pending) for t in targets]

    def _held(self, held_id: str) -> tuple[list[Pair], list[Pair]]:
        pending = Dataset(default=(self.scope.pending,))
        held = self.scope.held(held_id)
        rows = self.store.select(query("claim"), dataset=pending, bindings={"claim": [held]})
        if not rows:
            raise NotFound(
                f"There is no held write {held_id!r} in scope {self.scope.name!r}; list them "
                "with `doxa held`."
            )
        claim_rows = self.store.select(
            query("claim"), dataset=pending, bindings={"claim": [self.scope.fact(held_id)]}
        )
        return (
            [(URIRef(str(r["p"])), r["o"]) for r in rows],
            [(URIRef(str(r["p"])), r["o"]) for r in claim_rows],
        )

    def _unhold(
        self, decision: _Decision, held_id: str, held: list[Pair], claim: list[Pair]
    ) -> None:
        pending = self.scope.pending
        held_iri, claim_iri = self.scope.held(held_id), self.scope.fact(held_id)
        decision.change.delete += [(held_iri, p, o, pending) for p, o in held]
        decision.change.delete += [(claim_iri, p, o, pending) for p, o in claim]

    def _is_live(self, iri: URIRef) -> bool:
        try:
            graph, _ = self._locate(iri)
        except NotFound:
            return False
        rows = self.store.select(
            query("live_claim"),
            dataset=Dataset(default=(graph, self.scope.log)),
            bindings={"claim": iri},
        )
        return bool(rows)

    def _locate(self, iri: URIRef) -> tuple[URIRef, tuple[Node, Node, Node] | None]:
        """The graph a stored claim lives in, and its statement if it has one."""
        rows = self.store.select(
            query("claim_graph"),
            dataset=Dataset(default=(), named=tuple(self._claim_graphs())),
            bindings={"claim": iri},
        )
        if not rows:
            raise NotFound(
                f"There is no fact {self.scope.local_id(iri)!r} in scope {self.scope.name!r}."
            )
        row = rows[0]
        graph = URIRef(str(row["graph"]))
        if "s" in row:
            return graph, (row["s"], row["p"], row["o"])
        return graph, None

    def _claim_graphs(self) -> list[URIRef]:
        return [g for g in self.store.graphs() if self.scope.topic_of(g) is not None] + [
            self.scope.rules
        ]

    # -- publishing ----------------------------------------------------------------------

    def _commit(
        self, decision: _Decision, draft: ReceiptDraft, now: datetime | None = None
    ) -> Receipt:
        """Number, chain and publish one decision atomically; returns its receipt."""
        now = now or self.clock.now()
        log = self.scope.log
        head = self._head()
        receipt_id = new_id()
        iri = self.scope.receipt(receipt_id)
        triples, receipt_hash = receipt_triples(iri, draft, head, now)
        change = decision.change
        change.insert += [(s, p, o, log) for s, p, o in triples]
        if head.receipt is not None:
            change.delete.append((log, DOXA.head, head.receipt, log))
        change.insert.append((log, DOXA.head, iri, log))
        for graph in sorted(decision.bumped):
            version = self._version(graph)
            if version:
                change.delete.append((graph, DOXA.version, Literal(version), log))
            change.insert.append((graph, DOXA.version, Literal(version + 1), log))
        self.store.apply(change)
        return Receipt(
            id=receipt_id,
            sequence=head.sequence + 1,
            relation=draft.relation,
            outcome=draft.outcome,
            recorded_at=now,
            judge=draft.judge,
            judge_version=draft.judge_version,
            reason=draft.reason,
            fact=self.scope.local_id(draft.decides) if draft.decides is not None else None,
            held=(
                self.scope.local_id(draft.decides)
                if draft.outcome is Outcome.HELD and draft.decides is not None
                else None
            ),
            targets=tuple(self.scope.local_id(t) for t in draft.targets),
            consulted=tuple(self.scope.local_id(c) for c in draft.consulted),
            input_digest=draft.input_digest,
            receipt_hash=receipt_hash,
            previous_hash=head.receipt_hash,
        )

    def _head(self) -> ChainHead:
        rows = self.store.select(
            query("chain_head"),
            dataset=Dataset(default=(self.scope.log,)),
            bindings={"log": self.scope.log},
        )
        if not rows:
            return ChainHead(receipt=None, receipt_hash="", sequence=0)
        row = rows[0]
        return ChainHead(
            receipt=URIRef(str(row["receipt"])),
            receipt_hash=str(row["hash"]),
            sequence=int(str(row["sequence"])),
        )

    def _version(self, graph: URIRef) -> int:
        rows = self.store.select(
            query("graph_version"),
            dataset=Dataset(default=(self.scope.log,)),
            bindings={"graph": graph},
        )
        return int(str(rows[0]["version"])) if rows else 0


def _statement(pairs: list[Pair]) -> tuple[Node, Node, Node] | None:
    found = {p: o for p, o in pairs if p in (RDF.subject, RDF.predicate, RDF.object)}
    if len(found) != 3:
        return None
    return (found[RDF.subject], found[RDF.predicate], found[RDF.object])


def _held_relation(held: list[Pair]) -> Relation:
    for p, o in held:
        if p == DOXA.relation:
            return Relation.from_iri(o)
    return Relation.NEW  # an unchecked write: the owner's approval admits it as new


def _instant(node: Node) -> datetime:
    return parse_instant(str(node).replace("Z", "+00:00"))
