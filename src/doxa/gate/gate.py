"""The gate: shape → gather → judge → publish → receipt, the only way into the store.

Every decision (the claim, its endings, index entries and its receipt) is published as one
atomic :class:`~doxa.store.Change`. Decisions are serialised by one lock per store; the judge
runs outside it, and if a graph it read changed meanwhile, it runs again.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.clock import Clock
from doxa.errors import (
    ConstraintFailure,
    ErasedContent,
    InvalidInput,
    JudgeUnavailable,
    NotFound,
    ShapeViolation,
    WriteConflict,
)
from doxa.gate.believed import believed_by_keys
from doxa.gate.erasure import (
    claim_hashes,
    content_hashes,
    erasure_plan,
    remember_salt,
    salt,
    strip_origins,
    subject_hash,
)
from doxa.gate.gather import gather, live_by_keys
from doxa.gate.proposal import claim_pairs, input_digest, proposal_from_pairs, write_triples
from doxa.gate.receipts import ReceiptDraft
from doxa.gate.record import Decision, Record
from doxa.gate.shapes import ShapeCheck
from doxa.judges.base import Evidence, Judge
from doxa.judges.compare import contradicts, overlaps
from doxa.model import (
    ClosingPolicy,
    HoldStatus,
    Outcome,
    Proposal,
    Receipt,
    Relation,
    Verdict,
)
from doxa.ontology.closure import broader_objects, property_table
from doxa.reads.ledger import (
    alarm_open,
    alarms,
    judge_key,
    origins,
    recent_closings,
    standing,
    suspicion,
)
from doxa.resources import query
from doxa.scope import Scope, new_id
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["Gate"]

Pair = tuple[URIRef, Node]
T = TypeVar("T")
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
        policy: ClosingPolicy | None = None,
    ) -> None:
        self.policy = policy or ClosingPolicy()
        self.store = store
        self.scope = scope
        self.shapes = shapes
        self.judge = judge
        self.clock = clock
        self.lock = lock
        self.record = Record(store, scope, clock)

    def remember(
        self,
        proposal: Proposal,
        *,
        strict: bool = False,
        failures: tuple[ConstraintFailure, ...] | None = None,
        pairs: list[Pair] | None = None,
    ) -> Receipt:
        """Decide one write; ``failures`` are its shape check's and ``pairs`` its claim's
        pairs, when already worked out (in bulk)."""
        pairs = claim_pairs(proposal) if pairs is None else pairs
        digest = input_digest(pairs)
        if failures is None:
            failures = self.shapes.check(write_triples(proposal.iri, pairs, self.clock.now()))
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
                            kind=proposal.kind,
                        ),
                    )

            receipt = self._settled(reject)
            receipt = replace(receipt, failures=tuple(str(f) for f in failures))
            if strict:
                raise ShapeViolation(failures, receipt.id)
            return receipt
        self._refuse_erased(proposal)
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
                evidence = self._gather(proposal)
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
                            proposal,
                            pairs,
                            digest,
                            evidence,
                            verdict,
                            reason,
                            Decision(after=after),
                        )
                    except WriteConflict:
                        if last:
                            raise  # another process won every time: nothing was written
                _pause(attempt)  # another process published first: judge again
            finally:
                if locked:
                    self.lock.release()
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _settled(self, decide: Callable[[], T]) -> T:
        """Run an owner's decision, again (reading afresh) if another process published first."""
        for attempt in range(MAX_ATTEMPTS):
            try:
                return decide()
            except WriteConflict:
                if attempt == MAX_ATTEMPTS - 1:
                    raise
                _pause(attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _gather(self, proposal: Proposal) -> Evidence:
        reads_text = getattr(self.judge, "fallback", None) is not None
        return gather(
            self.store,
            self.scope,
            proposal,
            self.record.claim_graphs(),
            similar=5 if reads_text else 0,
            now=self.clock.now(),
        )

    def _refuse_erased(self, proposal: Proposal) -> None:
        """Raise ErasedContent when the write brings back content the owner erased."""
        salt_value = salt(self.store, self.scope)
        if salt_value is None:
            return  # nothing was ever erased in this scope
        hashes = content_hashes(
            salt_value,
            property_table(self.store),
            text=proposal.text,
            subject=proposal.subject,
            predicate=proposal.predicate,
            obj=proposal.object,
        )
        hashes += [
            subject_hash(salt_value, iri)
            for iri in (proposal.subject, proposal.object)
            if isinstance(iri, URIRef)
        ]
        rows = self.store.select(
            query("erased_hash"),
            dataset=Dataset(default=(self.scope.log,)),
            bindings={"hash": [Literal(h) for h in hashes]},
        )
        if rows:
            raise ErasedContent(
                f"This content was erased from scope {self.scope.name!r} on "
                f"{instant(rows[0]['at']).date().isoformat()} (tombstone "
                f"{self.scope.local_id(rows[0]['erasure'])}); erasure is final, so it cannot be "
                "written again. Write different content, or ask the owner."
            )

    def erase(
        self, *, fact_id: str | None, subject: URIRef | None, reason: str, actor: URIRef
    ) -> Receipt:
        """Erase a fact, or every claim about a subject: content out, tombstones in.

        Deletes each claim with its index entries, its statement in ``current``, its events
        and held writes, and writes one ``doxa:Erasure`` tombstone per erased node, all in one
        receipt. The caller compacts the store afterwards so the files forget the strings.
        """
        return self._settled(
            lambda: self._erase(fact_id=fact_id, subject=subject, reason=reason, actor=actor)
        )

    def _erase(
        self, *, fact_id: str | None, subject: URIRef | None, reason: str, actor: URIRef
    ) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            graphs = self.record.claim_graphs()
            everywhere = Dataset(
                default=(), named=(*graphs, self.scope.pending, self.scope.quarantine)
            )
            claims: list[URIRef] = []
            if fact_id is not None:
                iri = self.scope.fact(fact_id)
                if self.store.select(
                    query("node_quads"), dataset=everywhere, bindings={"node": [iri]}
                ):
                    claims.append(iri)
            if subject is not None:
                claims += [
                    URIRef(str(row["claim"]))
                    for row in self.store.select(
                        query("claims_about"), dataset=everywhere, bindings={"iri": subject}
                    )
                ]
            claims = list(dict.fromkeys(claims))
            if not claims:
                what = f"fact {fact_id!r}" if fact_id is not None else f"claim about {subject}"
                raise NotFound(
                    f"There is no {what} to erase in scope {self.scope.name!r}; list facts "
                    "with `doxa facts --include-ended` (or `doxa held`, `doxa quarantine`)."
                )
            decision = Decision(after=after)
            salt_value = salt(self.store, self.scope, create=decision.change)
            assert salt_value is not None
            plan = erasure_plan(self.store, self.scope, claims, graphs)
            keep = set(plan.claims)
            decision.change.delete += [
                q
                for q in plan.change.delete
                if q[3] != self.scope.current
                or not self.record.shared((q[0], q[1], q[2]), set(keep))
            ]
            self._strip_origins(decision)
            tombstones = []
            for position, node in enumerate(plan.nodes):
                hashes = (
                    claim_hashes(self.store, salt_value, plan.values[node])
                    if node in plan.values
                    else []
                )
                if subject is not None and position == 0:
                    hashes.append(subject_hash(salt_value, subject))
                tombstones.append((node, plan.digests.get(node), hashes))
            return self._bury(decision, tombstones, plan.claims, reason, actor, salt_value)

    def _strip_origins(self, decision: Decision) -> None:
        """Origins only the erased writes used leave the receipts; reseals say so."""
        removed, inserted, reseals = strip_origins(
            self.store, self.scope, decision.change.delete, lambda: self.scope.event(new_id())
        )
        decision.change.delete += removed
        decision.change.insert += inserted
        decision.produced += reseals

    def _adopt_reseals(self, decision: Decision) -> None:
        """Reseals a backup's purge wrote (it makes no receipt) become this decision's, under
        new ids, so a restored backup verifies."""
        log = self.scope.log
        rows = self.store.select(query("orphan_reseals"), dataset=Dataset(default=(log,)))
        for row in rows:
            old, node = URIRef(str(row["reseal"])), self.scope.event(new_id())
            receipt, digest = row["receipt"], row["digest"]
            for reseal, change in ((old, decision.change.delete), (node, decision.change.insert)):
                change += [
                    (reseal, RDF.type, DOXA.Reseal, log),
                    (reseal, DOXA.reseals, receipt, log),
                    (reseal, DOXA.bodyDigest, digest, log),
                ]
            decision.produced.append(node)

    def _bury(
        self,
        decision: Decision,
        tombstones: list[tuple[URIRef, str | None, list[str]]],
        claims: list[URIRef],
        reason: str,
        actor: URIRef,
        salt_value: str,
    ) -> Receipt:
        """Write one erasure tombstone per node and commit them with one receipt.

        The journal line carries the tombstones (never content), so a restored backup gets
        them back (see :meth:`reapply_erasure`).
        """
        now = self.clock.now()
        log = self.scope.log
        for node, digest, hashes in tombstones:
            event = self.scope.event(new_id())
            insert = decision.change.insert
            insert += [
                (event, RDF.type, DOXA.Erasure, log),
                (event, DOXA.ends, node, log),
                (event, DOXA.recordedAt, dt_literal(now), log),
                (event, DOXA.reason, Literal(reason), log),
                (event, PROV.wasAttributedTo, actor, log),
            ]
            if digest is not None:
                insert.append((event, DOXA.contentDigest, Literal(digest), log))
            insert += [(event, DOXA.contentHash, Literal(h), log) for h in hashes]
            decision.produced.append(event)
        decision.bumped = True
        decision.erasure = {
            "salt": salt_value,
            "reason": reason,
            "actor": str(actor),
            "claims": [str(c) for c in claims],
            "nodes": [
                {"node": str(node), "digest": digest, "hashes": hashes}
                for node, digest, hashes in tombstones
            ],
        }
        return self.record.commit(
            decision,
            ReceiptDraft(
                outcome=Outcome.ERASED,
                reason=reason,
                judge="owner",
                judge_version="1",
                decides=claims[0] if claims else None,
                targets=tuple(claims),
                actor=actor,
            ),
            now,
        )

    def reapply_erasure(self, record: dict[str, Any]) -> Receipt:
        """Apply a journaled erasure again (to a restored backup): delete whatever of its
        nodes the backup still holds and write its tombstones, with a new receipt."""
        return self._settled(lambda: self._reapply_erasure(record))

    def _reapply_erasure(self, record: dict[str, Any]) -> Receipt:
        with self.lock:
            after = self.record.mark()
            decision = Decision(after=after)
            current = salt(self.store, self.scope)
            if current is None:
                decision.change.insert.append(
                    (self.scope.log, DOXA.salt, Literal(record["salt"]), self.scope.log)
                )
                remember_salt(self.store, self.scope, record["salt"])
            claims = [URIRef(c) for c in record["claims"]]
            plan = erasure_plan(self.store, self.scope, claims, self.record.claim_graphs())
            decision.change.delete += plan.change.delete
            self._strip_origins(decision)
            self._adopt_reseals(decision)
            tombstones = [
                (URIRef(n["node"]), n.get("digest"), list(n.get("hashes", [])))
                for n in record["nodes"]
            ]
            return self._bury(
                decision,
                tombstones,
                claims,
                str(record["reason"]),
                URIRef(record["actor"]),
                current or str(record["salt"]),
            )

    def preview(self, proposal: Proposal) -> Verdict:
        """The judge's verdict on a write, without writing anything (not even a receipt)."""
        pairs = claim_pairs(proposal)
        failures = self.shapes.check(write_triples(proposal.iri, pairs, self.clock.now()))
        if failures:
            raise ShapeViolation(failures)
        evidence = self._gather(proposal)
        return self.judge.judge(proposal, evidence)

    def _publish(
        self,
        proposal: Proposal,
        pairs: list[Pair],
        digest: str,
        evidence: Evidence,
        verdict: Verdict | None,
        reason: str,
        decision: Decision | None = None,
    ) -> Receipt:
        now = self.clock.now()
        decision = decision or Decision()
        # each once: a judge may name a fact twice, and the store keeps a set of triples
        consulted = tuple(dict.fromkeys(f.iri for f in evidence.consulted))
        targets = tuple(
            dict.fromkeys(self.scope.fact(t) for t in (verdict.targets if verdict else ()))
        )
        judge = (verdict and verdict.judge) or self.judge.name
        version = (verdict and verdict.judge_version) or self.judge.version
        draft = ReceiptDraft(
            outcome=Outcome.HELD,
            reason=reason,
            judge=judge,
            judge_version=version,
            relation=verdict.relation if verdict else None,
            decides=proposal.iri,
            targets=targets,
            consulted=consulted,
            input_digest=digest,
            kind=proposal.kind,
            origins=origins(proposal),
        )
        graph = self.scope.rules if proposal.is_rule else self.scope.topic(proposal.topic)

        def hold(status: HoldStatus, why: str) -> Receipt:
            self.record.hold(
                decision,
                proposal.iri,
                pairs,
                verdict.relation if verdict else None,
                targets,
                why,
                status,
                now,
                judge=judge_key(judge, version),
            )
            return self.record.commit(decision, replace(draft, reason=why), now)

        if verdict is None:
            return hold(HoldStatus.UNCHECKED, reason)
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
            decision.change.insert.append((proposal.iri, DOXA.heldAt, dt_literal(now), quarantine))
            return self.record.commit(decision, replace(draft, outcome=Outcome.QUARANTINED), now)
        if relation in (Relation.UNCLEAR, Relation.CLASHES_WITH_RULE):
            return hold(HoldStatus.AWAITING_OWNER, reason)
        if relation.closes:
            refusal = self.closing_refusal(proposal.kind, judge_key(judge, version))
            if refusal is not None:
                return hold(HoldStatus.AWAITING_OWNER, f"{reason}; held: {refusal}")
            closing = [f for f in evidence.consulted if f.iri in targets]
            since = now - self.policy.burst_window
            alarm = suspicion(
                proposal,
                closing,
                evidence.rules,
                evidence.properties,
                closed_recently=recent_closings(self.store, self.scope, origins(proposal), since),
                policy=self.policy,
            )
            if alarm is not None:
                self._raise_alarm(decision, proposal.iri, alarm, now)
                return hold(
                    HoldStatus.AWAITING_OWNER,
                    f"{reason}; held: alarm raised, {alarm}; automatic closing is stopped in "
                    "this scope until the owner clears the alarm",
                )
        if relation is Relation.ADDS_DETAIL:
            pairs = [*pairs, *((DOXA.refines, t) for t in targets)]
        self.record.admit(decision, proposal.iri, pairs, graph, now)
        if relation.closes:
            self.record.close(
                decision, relation, targets, proposal.iri, proposal.valid_from, reason, now
            )
        return self.record.commit(decision, replace(draft, outcome=Outcome.ADMITTED), now)

    def _raise_alarm(self, decision: Decision, claim: URIRef, reason: str, now: datetime) -> None:
        alarm = self.scope.alarm(new_id())
        log = self.scope.log
        decision.change.insert += [
            (alarm, RDF.type, DOXA.Alarm, log),
            (alarm, DOXA.recordedAt, dt_literal(now), log),
            (alarm, DOXA.reason, Literal(reason), log),
            (alarm, DOXA.concerns, claim, log),
        ]
        decision.produced.append(alarm)

    def closing_refusal(self, kind: str, judge: str | None = None) -> str | None:
        """Why the judge may not close facts of ``kind`` on its own now, or None if it may.

        An open alarm stops all closing; then the owner's latest grant or revocation for the
        kind decides; otherwise the ledger must show the policy's minimum of decisions at
        the policy's agreement.
        """
        if alarm_open(self.store, self.scope):
            return "an alarm is open in this scope; the owner must clear it first"
        rows = self.store.select(
            query("kind_granted"),
            dataset=Dataset(default=(self.scope.log,)),
            bindings={"kind": Literal(kind)},
        )
        if rows:
            if rows[0]["outcome"] == DOXA.Granted:
                return None
            return f"the owner revoked automatic closing for kind {kind!r}"
        judge = judge or judge_key(self.judge.name, self.judge.version)
        record = standing(self.store, self.scope, self.policy, judge, kind)
        if record.earned:
            return None
        agreement = "" if record.agreement is None else f" at {record.agreement:.0%} agreement"
        return (
            f"closing of kind {kind!r} is not earned yet by judge {judge} "
            f"({record.decisions} of {self.policy.min_decisions} labelled decisions{agreement}, "
            f"{self.policy.min_agreement:.0%} needed)"
        )

    def closing_earned(self, kind: str) -> bool:
        """Whether the judge may close facts of this kind without asking the owner."""
        return self.closing_refusal(kind) is None

    def rejudge(self) -> list[Receipt]:
        """Judge every write held ``unchecked`` again; each leaves a new receipt.

        A write whose judge still cannot answer stays held (and gets no new receipt).
        """
        receipts = []
        for held_id in self.record.unchecked():
            receipt = self._settled(partial(self._rejudge_one, held_id))
            if receipt is not None:
                receipts.append(receipt)
        return receipts

    def _rejudge_one(self, held_id: str) -> Receipt | None:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            try:
                held, claim = self.record.held(held_id)
            except NotFound:
                return None  # decided meanwhile
            pairs = [(p, o) for p, o in claim if p != DOXA.heldAt]
            proposal = proposal_from_pairs(self.scope, self.scope.fact(held_id), pairs)
            evidence = self._gather(proposal)
            try:
                verdict = self.judge.judge(proposal, evidence)
            except JudgeUnavailable:
                return None  # still down: the write stays held, nothing is lost
            decision = Decision(after=after)
            self.record.unhold(decision, held_id, held, claim)
            return self._publish(
                proposal,
                pairs,
                input_digest(pairs),
                evidence,
                verdict,
                f"judged again: {verdict.reason}",
                decision,
            )

    def approve(self, held_id: str, *, as_relation: Relation | None = None) -> Receipt:
        """Admit a held write as the owner decided, and leave a receipt.

        What it closes is gathered again now, not taken from the time it was held: on a
        functional predicate every other value believed in time the approved one overlaps
        (live, or superseded but believed before its end) is ended there (superseded when
        the approved value starts later, else retracted), so approving never leaves two
        values believed at one time. ``as_relation`` (``replaces`` or ``was_wrong``) says how
        to end them.
        """
        return self._settled(lambda: self._approve(held_id=held_id, as_relation=as_relation))

    def _approve(self, held_id: str, *, as_relation: Relation | None = None) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            held, claim = self.record.held(held_id)
            relation = as_relation or _held_relation(held)
            saved = tuple(URIRef(str(t)) for p, t in held if p == DOXA.target)
            now = self.clock.now()
            decision = Decision(after=after)
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
            closed = tuple(t for _, targets in closings for t in targets)
            for closing, targets in closings:
                self.record.close(
                    decision,
                    closing,
                    targets,
                    iri,
                    starts,
                    "approved by the owner",
                    now,
                    also_ending=closed,
                )
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
                    **_scores(held, claim, agreed=relation is _held_relation(held)),
                ),
                now,
            )

    def _conflicts(
        self, values: dict[URIRef, Node], starts: datetime | None, relation: Relation
    ) -> list[tuple[Relation, tuple[URIRef, ...]]]:
        """The values an approved write must end, grouped by how to end them: the live
        values and the superseded ones believed in the time it claims."""
        subject, predicate, obj = (values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
        if subject is None or not isinstance(predicate, URIRef) or obj is None:
            return []
        table = property_table(self.store)
        new_subject, new_predicate, new_object = table.normalise(subject, predicate, obj)
        if not table.is_functional(new_predicate):
            return []
        ends = None if values.get(DOXA.validUntil) is None else instant(values[DOXA.validUntil])
        keys = table.keys(subject, predicate, obj)
        # the live values, and the superseded ones still believed for part of its time
        found = [
            *live_by_keys(self.store, self.scope, keys),
            *believed_by_keys(self.store, self.scope, keys, starts, ends),
        ]
        broader = broader_objects(
            self.store, [new_object, *(f.object for f in found if f.object is not None)]
        )
        others = []
        for fact in found:
            if fact.subject is None or fact.predicate is None or fact.object is None:
                continue
            old_subject, old_predicate, old_object = table.normalise(
                fact.subject, fact.predicate, fact.object
            )
            if (
                old_subject == new_subject
                and contradicts(
                    table, broader, (new_predicate, new_object), (old_predicate, old_object)
                )
                and overlaps(fact.valid_from, fact.valid_until, starts, ends)
            ):
                others.append(fact)
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

    def _quarantined(self, fact_id: str) -> list[Pair]:
        iri = self.scope.fact(fact_id)
        rows = self.store.select(
            query("claim"),
            dataset=Dataset(default=(self.scope.quarantine,)),
            bindings={"claim": [iri]},
        )
        if not rows:
            raise NotFound(
                f"There is no quarantined write {fact_id!r} in scope {self.scope.name!r}; list "
                "them with `doxa quarantine`."
            )
        return [(URIRef(str(r["p"])), r["o"]) for r in rows]

    def release(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner says a quarantined write is not an instruction: judge it as a quotation.

        It keeps its authority, standpoint and sources; the judge decides it again, except
        that it can no longer call it an instruction. One receipt records both.
        """
        return self._settled(lambda: self._release(fact_id=fact_id, reason=reason))

    def _release(self, fact_id: str, *, reason: str) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            stored = self._quarantined(fact_id)
            iri = self.scope.fact(fact_id)
            decision = Decision(after=after)
            decision.change.delete += [(iri, p, o, self.scope.quarantine) for p, o in stored]
            pairs = [(p, o) for p, o in stored if p != DOXA.heldAt]
            proposal = proposal_from_pairs(self.scope, iri, pairs)
            evidence = self._gather(proposal)
            try:
                verdict: Verdict | None = self.judge.judge(proposal, evidence)
            except JudgeUnavailable:
                verdict = None
            if verdict is not None and verdict.relation is Relation.INSTRUCTION:
                verdict = Verdict(Relation.NEW, (), "nothing stored says otherwise")
            said = verdict.reason if verdict is not None else "the judge could not answer"
            return self._publish(
                proposal,
                pairs,
                input_digest(pairs),
                evidence,
                verdict,
                f"released from quarantine by the owner ({reason}); {said}",
                decision,
            )

    def discard(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner throws a quarantined write away; only its receipt stays."""
        return self._settled(lambda: self._discard(fact_id=fact_id, reason=reason))

    def _discard(self, fact_id: str, *, reason: str) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            stored = self._quarantined(fact_id)
            iri = self.scope.fact(fact_id)
            decision = Decision(after=after)
            decision.change.delete += [(iri, p, o, self.scope.quarantine) for p, o in stored]
            kind = dict(stored).get(DOXA.kind)
            return self.record.commit(
                decision,
                ReceiptDraft(
                    outcome=Outcome.DISCARDED,
                    reason=reason or "discarded by the owner",
                    judge="owner",
                    judge_version="1",
                    relation=Relation.INSTRUCTION,
                    decides=iri,
                    kind=str(kind) if kind is not None else None,
                ),
            )

    def reject(self, held_id: str, *, reason: str) -> Receipt:
        """Discard a held write; its content leaves pending, the receipt stays."""
        return self._settled(lambda: self._reject(held_id=held_id, reason=reason))

    def _reject(self, held_id: str, *, reason: str) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            held, claim = self.record.held(held_id)
            decision = Decision(after=after)
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
                    **_scores(held, claim, agreed=False),
                ),
            )

    def retract(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner says a fact was never true: a retraction event ends belief in it."""
        return self._settled(lambda: self._retract(fact_id=fact_id, reason=reason))

    def _retract(self, fact_id: str, *, reason: str) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
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

    def calibrate(
        self, judge: str, scores: dict[str, tuple[int, int]], *, digest: str, reason: str
    ) -> list[Receipt]:
        """Record the judge's scores on an owner-labelled set: one receipt per kind.

        ``scores`` maps kind to (agreements, decisions). A set is counted once per judge:
        scoring the same file again is refused, so it cannot be replayed to earn closing.
        """
        return self._settled(lambda: self._calibrate(judge, scores, digest=digest, reason=reason))

    def _calibrate(
        self, judge: str, scores: dict[str, tuple[int, int]], *, digest: str, reason: str
    ) -> list[Receipt]:
        with self.lock:
            if self.store.ask(
                query("calibrated_with"),
                dataset=Dataset(default=(self.scope.log,)),
                bindings={"judge": Literal(judge), "digest": Literal(digest)},
            ):
                raise InvalidInput(
                    f"This labelled set (sha256 {digest[:12]}…) was already counted for judge "
                    f"{judge}; label new decisions to calibrate again."
                )
            return [
                self.record.commit(
                    Decision(after=self.record.mark()),
                    ReceiptDraft(
                        outcome=Outcome.CALIBRATED,
                        reason=reason,
                        judge="owner",
                        judge_version="1",
                        input_digest=digest,
                        kind=kind,
                        scores_judge=judge,
                        agreements=agreements,
                        decisions=decisions,
                    ),
                )
                for kind, (agreements, decisions) in sorted(scores.items())
            ]

    def clear_alarm(self, alarm_id: str, *, reason: str) -> Receipt:
        """The owner clears an alarm; automatic closing may resume. Leaves a receipt."""
        return self._settled(lambda: self._clear_alarm(alarm_id=alarm_id, reason=reason))

    def _clear_alarm(self, alarm_id: str, *, reason: str) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            alarm = self.scope.alarm(alarm_id)
            found = alarms(self.store, self.scope, alarm=alarm)
            if not found or not found[0].open:
                raise NotFound(
                    f"There is no open alarm {alarm_id!r} in scope {self.scope.name!r}; list "
                    "them with `doxa alarms`."
                )
            return self.record.commit(
                Decision(after=after),
                ReceiptDraft(
                    outcome=Outcome.CLEARED,
                    reason=reason,
                    judge="owner",
                    judge_version="1",
                    clears=alarm,
                ),
            )

    def grant(self, kind: str, *, granted: bool, reason: str) -> Receipt:
        """Record the owner's grant (or revocation) of automatic closing for a kind."""
        return self._settled(lambda: self._grant(kind=kind, granted=granted, reason=reason))

    def _grant(self, kind: str, *, granted: bool, reason: str) -> Receipt:
        with self.lock:
            after = self.record.mark()  # guards the publish on a shared server
            return self.record.commit(
                Decision(after=after),
                ReceiptDraft(
                    outcome=Outcome.GRANTED if granted else Outcome.REVOKED,
                    reason=reason,
                    judge="owner",
                    judge_version="1",
                    grants_kind=kind,
                ),
            )

    # -- pieces of a decision -------------------------------------------------------------


def _pause(attempt: int) -> None:
    """Back off a little, at random, so two processes that keep colliding drift apart."""
    time.sleep(random.uniform(0, min(0.25, 0.005 * 2**attempt)))


def _scores(held: list[Pair], claim: list[Pair], *, agreed: bool) -> dict[str, Any]:
    """Receipt fields for an owner decision on a held write: its kind, and for a closing the
    judge held, the ledger's score (agreed when the owner approved it as judged)."""
    values = dict(claim)
    fields: dict[str, Any] = {}
    if DOXA.kind in values:
        fields["kind"] = str(values[DOXA.kind])
    scored = dict(held).get(DOXA.scoresJudge)
    if scored is not None and _held_relation(held).closes:
        fields.update(scores_judge=str(scored), agreements=int(agreed), decisions=1)
    return fields


def _held_relation(held: list[Pair]) -> Relation:
    for p, o in held:
        if p == DOXA.relation:
            return Relation.from_iri(o)
    return Relation.NEW  # an unchecked write: the owner's approval admits it as new
