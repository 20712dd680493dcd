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
from doxa.gate.gather import gather, is_functional, live_by_key
from doxa.gate.index import TERM, index_terms, statement_key
from doxa.gate.proposal import claim_pairs, input_digest, write_graph
from doxa.gate.receipts import ChainHead, ReceiptDraft, covered, quad_digest, receipt_triples
from doxa.gate.shapes import ShapeCheck
from doxa.judges.base import Evidence, Judge
from doxa.judges.rules import overlaps, same_term
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
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["Gate"]

Pair = tuple[URIRef, Node]
MAX_ATTEMPTS = 4


@dataclass
class _Decision:
    """What one decision writes, gathered before it is published."""

    change: Change = field(default_factory=Change)
    bumped: bool = False  # whether live claims changed (admitted or ended)
    produced: list[URIRef] = field(default_factory=list)  # claims and events written
    topics: set[URIRef] = field(default_factory=set)


@dataclass
class _Memo:
    """What the gate remembers between decisions instead of reading it back every time.

    Kept on the store object (shared by every Memory on it) when the backend allows it; the
    persisted triples stay the truth and are read once.
    """

    head: ChainHead | None = None
    version: int | None = None
    topics: set[URIRef] | None = None


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

    def _memo(self) -> _Memo:
        memo = self.store.memo
        if memo is None:
            return _Memo()  # a backend shared with other processes: always read the store
        found = memo.setdefault(("doxa.gate", self.scope.name), _Memo())
        assert isinstance(found, _Memo)
        return found

    def claim_graphs(self) -> list[URIRef]:
        """The scope's topic graphs and its rules graph."""
        memo = self._memo()
        if memo.topics is None:
            memo.topics = {g for g in self.store.graphs() if self.scope.topic_of(g) is not None}
        return [*sorted(memo.topics), self.scope.rules]

    def version(self) -> int:
        """The scope's change counter: bumped whenever a claim is admitted or ended."""
        memo = self._memo()
        if memo.version is None:
            rows = self.store.select(
                query("graph_version"),
                dataset=Dataset(default=(self.scope.log,)),
                bindings={"graph": self.scope.log},
            )
            memo.version = int(str(rows[0]["version"])) if rows else 0
        return memo.version

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
                # read the counter first: a change published during the reads looks stale
                version = self.version()
                evidence = gather(self.store, self.scope, proposal, self.claim_graphs())
                verdict: Verdict | None
                try:
                    verdict = self.judge.judge(proposal, evidence)
                    reason = verdict.reason
                except JudgeUnavailable as error:
                    verdict, reason = None, f"the judge could not answer: {error}"
                with self.lock:
                    if self.version() != version:
                        continue  # what the judge read changed meanwhile: judge again
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
            decision.produced.append(event)
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
        self._admit(decision, proposal.iri, pairs, graph, now)
        if relation.closes:
            self._close(decision, relation, targets, proposal.iri, proposal.valid_from, reason, now)
        return self._commit(decision, replace(draft, outcome=Outcome.ADMITTED), now)

    def approve(self, held_id: str, *, as_relation: Relation | None = None) -> Receipt:
        """Admit a held write as the owner decided, and leave a receipt.

        What it closes is gathered again now, not taken from the time it was held: on a
        functional predicate every other live value that overlaps in time is ended (superseded
        when the approved value starts later, else retracted), so approving never leaves two
        live values. ``as_relation`` (``replaces`` or ``was_wrong``) says how to end them.
        """
        with self.lock:
            held, claim = self._held(held_id)
            relation = as_relation or _held_relation(held)
            saved = tuple(URIRef(str(t)) for p, t in held if p == DOXA.target)
            now = self.clock.now()
            decision = _Decision()
            self._unhold(decision, held_id, held, claim)
            pairs = [(p, o) for p, o in claim if p != DOXA.heldAt]
            values = dict(pairs)
            iri = self.scope.fact(held_id)
            if relation is Relation.ADDS_DETAIL:
                pairs += [(DOXA.refines, t) for t in saved if self._is_live(t)]
            is_rule = (RDF.type, DOXA.Rule) in pairs
            graph = self.scope.rules if is_rule else self.scope.topic(str(values[DOXA.topic]))
            valid_from = values.get(DOXA.validFrom)
            starts = None if valid_from is None else _instant(valid_from)
            closings = [] if is_rule else self._conflicts(values, starts, relation)
            self._admit(decision, iri, pairs, graph, now)
            for closing, targets in closings:
                self._close(decision, closing, targets, iri, starts, "approved by the owner", now)
            closed = tuple(t for _, targets in closings for t in targets)
            return self._commit(
                decision,
                ReceiptDraft(
                    outcome=Outcome.APPROVED,
                    reason="approved by the owner",
                    judge="owner",
                    judge_version="1",
                    relation=relation,
                    decides=iri,
                    targets=closed,
                ),
                now,
            )

    def _conflicts(
        self, values: dict[URIRef, Node], starts: datetime | None, relation: Relation
    ) -> list[tuple[Relation, tuple[URIRef, ...]]]:
        """The live values an approved write must end, grouped by how to end them."""
        subject, predicate, obj = (values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
        if subject is None or not isinstance(predicate, URIRef) or obj is None:
            return []
        if not is_functional(self.store, predicate):
            return []
        ends = values.get(DOXA.validUntil)
        others = [
            f
            for f in live_by_key(
                self.store, self.scope, statement_key(subject, predicate), self.claim_graphs()
            )
            if not same_term(f.object, obj)
            and overlaps(
                f.valid_from, f.valid_until, starts, None if ends is None else _instant(ends)
            )
        ]
        grouped: dict[Relation, list[URIRef]] = {}
        for fact in others:
            if relation.closes:
                how = relation
            elif starts is not None and (fact.valid_from is None or starts > fact.valid_from):
                how = Relation.REPLACES
            else:
                how = Relation.WAS_WRONG
            grouped.setdefault(how, []).append(fact.iri)
        return [(how, tuple(targets)) for how, targets in grouped.items()]

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
            if not self._is_live(iri, sparql=query("retractable")):
                raise NotFound(
                    f"There is no unretracted fact {fact_id!r} in scope {self.scope.name!r}; "
                    "check the id with `doxa facts --include-ended`."
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
    ) -> None:
        stamped = [*pairs, (DOXA.recordedAt, dt_literal(now))]
        change = decision.change
        change.insert += [(iri, p, o, graph) for p, o in stamped]
        change.insert += [(iri, TERM, term, self.scope.search) for term in index_terms(pairs)]
        statement = _statement(pairs)
        if statement is not None and graph != self.scope.rules:
            change.insert.append((*statement, self.scope.current))
        decision.bumped = True
        if graph != self.scope.rules:
            decision.topics.add(graph)
        decision.produced.append(iri)

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
            decision.produced.append(event)
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
            _, statement = self._locate(target)
            if statement is not None and not self._shared(statement, {*targets, successor}):
                change.delete.append((*statement, self.scope.current))
            for key in self._keys(target):  # ended: no longer found by the gate's lookups
                change.delete.append((target, TERM, key, self.scope.search))
            decision.bumped = True
        return events

    def _keys(self, claim: URIRef) -> list[Literal]:
        rows = self.store.select(
            query("keys_of"),
            dataset=Dataset(default=(self.scope.search,)),
            bindings={"claim": claim},
        )
        return [Literal(str(row["key"])) for row in rows]

    def _shared(self, statement: tuple[Node, Node, Node], leaving: set[URIRef | None]) -> bool:
        """Whether another live claim states the same triple (so ``current`` keeps it)."""
        subject, predicate, obj = statement
        others = live_by_key(
            self.store, self.scope, statement_key(subject, predicate), self.claim_graphs()
        )
        return any(f.iri not in leaving and f.object == obj for f in others)

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

    def _is_live(self, iri: URIRef, *, sparql: str | None = None) -> bool:
        try:
            graph, _ = self._locate(iri)
        except NotFound:
            return False
        rows = self.store.select(
            sparql or query("live_claim"),
            dataset=Dataset(default=(graph, self.scope.log)),
            bindings={"claim": iri},
        )
        return bool(rows)

    def _locate(self, iri: URIRef) -> tuple[URIRef, tuple[Node, Node, Node] | None]:
        """The graph a stored claim lives in, and its statement if it has one."""
        rows = self.store.select(
            query("claim_graph"),
            dataset=Dataset(default=(), named=tuple(self.claim_graphs())),
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

    # -- publishing ----------------------------------------------------------------------

    def _commit(
        self, decision: _Decision, draft: ReceiptDraft, now: datetime | None = None
    ) -> Receipt:
        """Number, chain and publish one decision atomically; returns its receipt."""
        now = now or self.clock.now()
        log = self.scope.log
        head = self._head()
        if decision.produced:
            nodes = set(decision.produced)
            written = [q for q in decision.change.insert if q[0] in nodes and covered(q[3])]
            draft = replace(
                draft, content_digest=quad_digest(written), produced=tuple(decision.produced)
            )
        receipt_id = new_id()
        iri = self.scope.receipt(receipt_id)
        triples, receipt_hash = receipt_triples(iri, draft, head, now)
        change = decision.change
        change.insert += [(s, p, o, log) for s, p, o in triples]
        if head.receipt is not None:
            change.delete.append((log, DOXA.head, head.receipt, log))
        change.insert.append((log, DOXA.head, iri, log))
        version = self.version()
        if decision.bumped:
            if version:
                change.delete.append((log, DOXA.version, Literal(version), log))
            change.insert.append((log, DOXA.version, Literal(version + 1), log))
        self.store.apply(change)
        memo = self._memo()
        memo.head = ChainHead(receipt=iri, receipt_hash=receipt_hash, sequence=head.sequence + 1)
        if decision.bumped:
            memo.version = version + 1
        if memo.topics is not None:
            memo.topics |= decision.topics
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
        memo = self._memo()
        if memo.head is not None:
            return memo.head
        rows = self.store.select(
            query("chain_head"),
            dataset=Dataset(default=(self.scope.log,)),
            bindings={"log": self.scope.log},
        )
        if not rows:
            memo.head = ChainHead(receipt=None, receipt_hash="", sequence=0)
        else:
            row = rows[0]
            memo.head = ChainHead(
                receipt=URIRef(str(row["receipt"])),
                receipt_hash=str(row["hash"]),
                sequence=int(str(row["sequence"])),
            )
        return memo.head


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
