"""The gate: shape → gather → judge → publish → receipt, the only way into the store.

Every decision (the claim, its endings, index entries and its receipt) is published as one
atomic :class:`~doxa.store.Change`. Decisions are serialised by one lock per store; the judge
runs outside it, and if a graph it read changed meanwhile, it runs again. On a store that other
processes write too (a SPARQL server), the publish also claims the next place in the receipt
chain and fails with :class:`~doxa.WriteConflict` if another process took it: the judge runs
again then as well.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.clock import Clock
from doxa.errors import JudgeUnavailable, NotFound, ShapeViolation, WriteConflict
from doxa.gate.gather import gather, is_functional, live_by_key
from doxa.gate.index import statement_key
from doxa.gate.proposal import claim_pairs, input_digest, write_graph
from doxa.gate.receipts import ChainHead, ReceiptDraft
from doxa.gate.record import Decision, Record
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
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["Gate"]

Pair = tuple[URIRef, Node]
UNLOCKED_ATTEMPTS = 3  # then the gate judges under the store's lock: no thread can overtake
MAX_ATTEMPTS = 40  # only other processes (a shared server) can make a locked attempt lose


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
        self.record = Record(store, scope, clock)

    def remember(self, proposal: Proposal, *, strict: bool = False) -> Receipt:
        pairs = claim_pairs(proposal)
        digest = input_digest(pairs)
        failures = self.shapes.check(write_graph(proposal.iri, pairs, self.clock.now()))
        if failures:
            reason = "; ".join(f.message for f in failures)

            def reject() -> Receipt:
                with self.lock:
                    return self.record.commit(
                        Decision(after=self.record.mark()),
                        ReceiptDraft(
                            outcome=Outcome.REJECTED,
                            reason=reason,
                            judge="shapes",
                            judge_version="1",
                            input_digest=digest,
                        ),
                    )

            receipt = self._settled(reject)
            receipt = replace(receipt, failures=tuple(str(f) for f in failures))
            if strict:
                raise ShapeViolation(failures, receipt.id)
            return receipt
        for attempt in range(MAX_ATTEMPTS):
            last = attempt == MAX_ATTEMPTS - 1
            # later attempts judge under the lock: no other thread can win, so only another
            # process writing the same server can still make them lose
            locked = attempt >= UNLOCKED_ATTEMPTS
            if locked:
                self.lock.acquire()
            try:
                # read the counter first: a change published during the reads looks stale
                version = self.record.version()
                after = self.record.mark()  # other processes: the publish is guarded by it
                evidence = gather(self.store, self.scope, proposal, self.record.claim_graphs())
                verdict: Verdict | None
                try:
                    verdict = self.judge.judge(proposal, evidence)
                    reason = verdict.reason
                except JudgeUnavailable as error:
                    verdict, reason = None, f"the judge could not answer: {error}"
                with self.lock:
                    if self.record.version() != version:
                        continue  # what the judge read changed meanwhile: judge again
                    try:
                        return self._publish(
                            proposal, pairs, digest, evidence, verdict, reason, after
                        )
                    except WriteConflict:
                        if last:
                            raise  # another process won every time: nothing was written
                _pause(attempt)  # another process published first: judge again
            finally:
                if locked:
                    self.lock.release()
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _publish(
        self,
        proposal: Proposal,
        pairs: list[Pair],
        digest: str,
        evidence: Evidence,
        verdict: Verdict | None,
        reason: str,
        after: ChainHead | None,
    ) -> Receipt:
        now = self.clock.now()
        decision = Decision(after=after)
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
            self.record.hold(
                decision, proposal.iri, pairs, None, (), reason, HoldStatus.UNCHECKED, now
            )
            return self.record.commit(decision, draft, now)
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
            return self.record.commit(
                decision, replace(draft, outcome=Outcome.MERGED, decides=event), now
            )
        if relation is Relation.INSTRUCTION:
            quarantine = self.scope.quarantine
            decision.change.insert += [(proposal.iri, p, o, quarantine) for p, o in pairs]
            return self.record.commit(decision, replace(draft, outcome=Outcome.QUARANTINED), now)
        if relation in (Relation.UNCLEAR, Relation.CLASHES_WITH_RULE) or (
            relation.closes and not self.closing_earned(proposal.kind)
        ):
            self.record.hold(
                decision,
                proposal.iri,
                pairs,
                relation,
                targets,
                reason,
                HoldStatus.AWAITING_OWNER,
                now,
            )
            return self.record.commit(decision, draft, now)
        if relation is Relation.ADDS_DETAIL:
            pairs = [*pairs, *((DOXA.refines, t) for t in targets)]
        self.record.admit(decision, proposal.iri, pairs, graph, now)
        if relation.closes:
            self.record.close(
                decision, relation, targets, proposal.iri, proposal.valid_from, reason, now
            )
        return self.record.commit(decision, replace(draft, outcome=Outcome.ADMITTED), now)

    def _settled(self, decide: Callable[[], Receipt]) -> Receipt:
        """Run an owner's decision, again (reading afresh) if another process published first."""
        for attempt in range(MAX_ATTEMPTS):
            try:
                return decide()
            except WriteConflict:
                if attempt == MAX_ATTEMPTS - 1:
                    raise
                _pause(attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def approve(self, held_id: str, *, as_relation: Relation | None = None) -> Receipt:
        """Admit a held write as the owner decided, and leave a receipt.

        What it closes is gathered again now, not taken from the time it was held: on a
        functional predicate every other live value that overlaps in time is ended (superseded
        when the approved value starts later, else retracted), so approving never leaves two
        live values. ``as_relation`` (``replaces`` or ``was_wrong``) says how to end them.
        """
        return self._settled(lambda: self._approve(held_id, as_relation))

    def _approve(self, held_id: str, as_relation: Relation | None) -> Receipt:
        with self.lock:
            decision = Decision(after=self.record.mark())
            held, claim = self.record.held(held_id)
            relation = as_relation or _held_relation(held)
            saved = tuple(URIRef(str(t)) for p, t in held if p == DOXA.target)
            now = self.clock.now()
            self.record.unhold(decision, held_id, held, claim)
            pairs = [(p, o) for p, o in claim if p != DOXA.heldAt]
            values = dict(pairs)
            iri = self.scope.fact(held_id)
            if relation is Relation.ADDS_DETAIL:
                pairs += [(DOXA.refines, t) for t in saved if self.record.is_live(t)]
            is_rule = (RDF.type, DOXA.Rule) in pairs
            graph = self.scope.rules if is_rule else self.scope.topic(str(values[DOXA.topic]))
            valid_from = values.get(DOXA.validFrom)
            starts = None if valid_from is None else instant(valid_from)
            closings = [] if is_rule else self._conflicts(values, starts, relation)
            self.record.admit(decision, iri, pairs, graph, now)
            for closing, targets in closings:
                self.record.close(
                    decision, closing, targets, iri, starts, "approved by the owner", now
                )
            closed = tuple(t for _, targets in closings for t in targets)
            return self.record.commit(
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
            for f in live_by_key(self.store, self.scope, statement_key(subject, predicate))
            if not same_term(f.object, obj)
            and overlaps(
                f.valid_from, f.valid_until, starts, None if ends is None else instant(ends)
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
        return self._settled(lambda: self._reject(held_id, reason))

    def _reject(self, held_id: str, reason: str) -> Receipt:
        with self.lock:
            decision = Decision(after=self.record.mark())
            held, claim = self.record.held(held_id)
            self.record.unhold(decision, held_id, held, claim)
            return self.record.commit(
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
        return self._settled(lambda: self._retract(fact_id, reason))

    def _retract(self, fact_id: str, reason: str) -> Receipt:
        with self.lock:
            after = self.record.mark()
            iri = self.scope.fact(fact_id)
            if not self.record.is_live(iri, sparql=query("retractable")):
                raise NotFound(
                    f"There is no unretracted fact {fact_id!r} in scope {self.scope.name!r}; "
                    "check the id with `doxa facts --include-ended`."
                )
            decision = Decision(after=after)
            now = self.clock.now()
            self.record.close(decision, Relation.WAS_WRONG, (iri,), None, None, reason, now)
            return self.record.commit(
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
        return self._settled(lambda: self._grant(kind, granted, reason))

    def _grant(self, kind: str, granted: bool, reason: str) -> Receipt:
        with self.lock:
            return self.record.commit(
                Decision(after=self.record.mark()),
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


def _pause(attempt: int) -> None:
    """Back off a little, at random, so two processes that keep colliding drift apart."""
    time.sleep(random.uniform(0, min(0.25, 0.005 * 2**attempt)))


def _held_relation(held: list[Pair]) -> Relation:
    for p, o in held:
        if p == DOXA.relation:
            return Relation.from_iri(o)
    return Relation.NEW  # an unchecked write: the owner's approval admits it as new
