"""The gate: shape → gather → judge → publish → receipt, the only way into the store.

Every decision (the claim, its endings, index entries and its receipt) is published as one
atomic :class:`~doxa.store.Change`. Decisions are serialised by one lock per store; the judge
runs outside it, and if a graph it read changed meanwhile, it runs again.

This module is the write path; :class:`Gate` also answers for the scope's other decisions,
each kept in its own module: the owner's (:mod:`doxa.gate.owner`), erasure
(:mod:`doxa.gate.erasing`) and the closing policy (:mod:`doxa.gate.closing`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from functools import partial

from rdflib import URIRef
from rdflib.term import Node

from doxa.clock import Clock
from doxa.errors import (
    ConstraintFailure,
    InvalidInput,
    JudgeUnavailable,
    NotFound,
    ShapeViolation,
    WriteConflict,
)
from doxa.gate.closing import Closing
from doxa.gate.correcting import owner_revision, undated_start
from doxa.gate.deciding import MAX_ATTEMPTS, UNLOCKED_ATTEMPTS, Decider, pause
from doxa.gate.embedding import WriteVector, embed_facts, embed_write
from doxa.gate.erasing import Erasing
from doxa.gate.gather import gather
from doxa.gate.names import Minted, Names
from doxa.gate.owner import OwnerDecisions, WritePath
from doxa.gate.proposal import claim_pairs, input_digest, proposal_from_pairs, write_triples
from doxa.gate.receipts import ReceiptDraft
from doxa.gate.record import Decision, Record
from doxa.gate.shapes import ShapeCheck
from doxa.judges.base import Cardinality, Evidence, Judge
from doxa.model import (
    ClosingPolicy,
    HoldStatus,
    Outcome,
    Proposal,
    Receipt,
    Relation,
    Verdict,
)
from doxa.reads.embeddings import Embedder
from doxa.reads.ledger import judge_key, origins
from doxa.reads.receipts import receipts_deciding
from doxa.scope import Scope, new_id
from doxa.store import Store
from doxa.terms import dt_literal, instant
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["Gate"]

Pair = tuple[URIRef, Node]
#: how many similar texts of the topic a judge that reads text is shown
SIMILAR_TEXTS = 5


class Gate(WritePath):
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
        if not isinstance(judge, Judge):
            raise InvalidInput(
                f"{type(judge).__name__} is not a doxa.Judge: a judge has a name, a version, "
                "needs (what the gate must gather for it) and judge(proposal, evidence). "
                "Subclass doxa.Judge to inherit needs = Needs() (structure only), or declare it."
            )
        self.policy = policy or ClosingPolicy()
        self.store = store
        self.scope = scope
        self.shapes = shapes
        self.judge = judge
        self.clock = clock
        self.lock = lock
        self.record = Record(store, scope, clock)
        self.decider = Decider(store, scope, clock, lock, self.record)
        self.closing = Closing(store, scope, judge, self.policy)
        self.erasing = Erasing(self.decider)
        self.names = Names(store, scope)
        self.owner = OwnerDecisions(self.decider, self, self.names)

    # -- the write path -------------------------------------------------------------------

    def remember(
        self,
        proposal: Proposal,
        *,
        strict: bool = False,
        failures: tuple[ConstraintFailure, ...] | None = None,
        pairs: list[Pair] | None = None,
        minted: tuple[Minted, ...] = (),
        embedder: Embedder | None = None,
    ) -> Receipt:
        """Decide one write; ``failures`` are its shape check's and ``pairs`` its claim's
        pairs, when already worked out (in bulk). ``minted`` are the names resolving the
        write minted (:meth:`Names.resolve`): written with the decision, unless refused.

        With ``embedder``, the text's vector is asked once, after the shapes pass and before
        any lock is taken (a slow endpoint holds no other writer): the gather finds close
        facts with it, and an admitted claim gets it (or the missing note) in the decision's
        own change. The endpoint failing never fails the write (:func:`embed_write`)."""
        pairs = claim_pairs(proposal) if pairs is None else pairs
        digest = input_digest(pairs)
        if failures is None:
            failures = self.shapes.check(write_triples(proposal.iri, pairs, self.clock.now()))
        if failures:
            reason = "; ".join(f.message for f in failures)
            receipt = self.decider.decide(
                lambda decision: self.record.commit(
                    decision,
                    ReceiptDraft(
                        outcome=Outcome.REJECTED,
                        reason=reason,
                        judge="shapes",
                        judge_version="1",
                        input_digest=digest,
                        kind=proposal.kind,
                    ),
                )
            )
            receipt = replace(receipt, failures=tuple(str(f) for f in failures))
            if strict:
                raise ShapeViolation(failures, receipt.id)
            return receipt
        self.erasing.refuse_erased(proposal)
        vector = None if embedder is None else embed_write(embedder, proposal.text)
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
                evidence = self._gather(proposal, vector)
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
                            minted,
                            vector,
                            fresh=True,
                        )
                    except WriteConflict:
                        if last:
                            raise  # another process won every time: nothing was written
                pause(attempt)  # another process published first: judge again
            finally:
                if locked:
                    self.lock.release()
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _gather(self, proposal: Proposal, vector: WriteVector | None = None) -> Evidence:
        evidence = gather(
            self.store,
            self.scope,
            proposal,
            self.record.claim_graphs(),
            similar=SIMILAR_TEXTS if self.judge.needs.similar_texts else 0,
            now=self.clock.now(),
            meaning=None if vector is None else vector.meaning,
        )
        if proposal.predicate is None:  # a text: the owner's answers on sentence patterns
            return replace(evidence, lessons=self.names.lessons())
        table = evidence.properties
        predicate, _ = table.canonical(proposal.predicate)
        cardinality = self.names.cardinality(predicate)
        if cardinality in (Cardinality.ONE, Cardinality.UNCHANGING):
            # the owner's lesson: one value (that never changes), as if declared
            table = replace(table, functional=table.functional | {predicate})
        if cardinality is Cardinality.UNCHANGING:
            table = replace(table, unchanging=table.unchanging | {predicate})
        return replace(evidence, cardinality=cardinality, properties=table)

    def preview(self, proposal: Proposal, *, embedder: Embedder | None = None) -> Verdict:
        """The judge's verdict on a write, without writing anything (not even a receipt).

        With ``embedder`` and a judge that reads similar texts, the text is embedded once so
        the close facts are gathered as :meth:`remember` gathers them."""
        pairs = claim_pairs(proposal)
        failures = self.shapes.check(write_triples(proposal.iri, pairs, self.clock.now()))
        if failures:
            raise ShapeViolation(failures)
        vector = None
        if embedder is not None and self.judge.needs.similar_texts and not proposal.structured:
            vector = embed_write(embedder, proposal.text)
        evidence = self._gather(proposal, vector)
        return self.judge.judge(proposal, evidence)

    def judge_as_quotation(
        self, proposal: Proposal, pairs: list[Pair], decision: Decision, reason: str
    ) -> Receipt:
        """Judge a released write again, never as an instruction, and publish the verdict.

        The judge is told (``Evidence.released``) and skips the screen, so the owner's rules
        and the stored facts still decide: a released quotation that clashes with a rule is
        held, as it would have been without the screen. A judge that still answers
        ``instruction`` is not obeyed and not overruled either: the write waits for the owner.
        """
        evidence = replace(self._gather(proposal), released=True)
        try:
            verdict: Verdict | None = self.judge.judge(proposal, evidence)
        except JudgeUnavailable:
            verdict = None
        if verdict is not None and verdict.relation is Relation.INSTRUCTION:
            verdict = Verdict(
                Relation.UNCLEAR,
                (),
                "the judge still reads it as an instruction after the owner released it",
            )
        said = verdict.reason if verdict is not None else "the judge could not answer"
        return self._publish(
            proposal,
            pairs,
            input_digest(pairs),
            evidence,
            verdict,
            f"{reason}; {said}",
            decision,
        )

    def _publish(
        self,
        proposal: Proposal,
        pairs: list[Pair],
        digest: str,
        evidence: Evidence,
        verdict: Verdict | None,
        reason: str,
        decision: Decision | None = None,
        minted: tuple[Minted, ...] = (),
        vector: WriteVector | None = None,
        *,
        received: datetime | None = None,
        fresh: bool = False,
    ) -> Receipt:
        """Publish the verdict on one write in ``decision``. ``received`` is when a held write
        was first received (a re-judged one): an undated value starts then and, held again,
        keeps that time. ``fresh`` marks a write just sent (not a released, re-judged or
        approved one): only such a write may find its copy waiting and be answered with it."""
        now = self.clock.now()
        decision = decision or Decision()
        if verdict is not None and verdict.statement is not None:
            pairs, minted, reason = self._read_statement(proposal, pairs, minted, verdict, reason)
        if minted and (verdict is None or verdict.relation is not Relation.INSTRUCTION):
            # the names this write minted, in its own transaction (never for a refused write)
            decision.change.insert += [q for m in minted for q in m.quads(self.scope)]
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
            waiting = self._waiting_copy(digest, proposal.id) if fresh else None
            if waiting is not None:  # the same write already waits: one wait, not two
                return waiting
            asks = verdict.asks if verdict is not None else None
            self.record.hold(
                decision,
                proposal.iri,
                pairs,
                verdict.relation if verdict else None,
                targets,
                why,
                status,
                received or now,
                judge=judge_key(judge, version),
                asks=URIRef(asks) if asks is not None else None,
                digest=digest,
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
            # the receipt decides the corroboration event; its one target is the fact merged into
            merged = replace(draft, outcome=Outcome.MERGED, decides=event, targets=targets[:1])
            return self.record.commit(decision, merged, now)
        if relation is Relation.INSTRUCTION:
            quarantine = self.scope.quarantine
            decision.change.insert += [(proposal.iri, p, o, quarantine) for p, o in pairs]
            decision.change.insert.append((proposal.iri, DOXA.heldAt, dt_literal(now), quarantine))
            return self.record.commit(decision, replace(draft, outcome=Outcome.QUARANTINED), now)
        if relation in (Relation.UNCLEAR, Relation.CLASHES_WITH_RULE):
            return hold(HoldStatus.AWAITING_OWNER, reason)
        if relation.closes and owner_revision(proposal, targets):
            reason += "; the owner's own revision of the fact it names: applied"
            draft = replace(draft, reason=reason)
        elif relation.closes:
            held = self.closing.held_because(
                decision, proposal, evidence, targets, judge_key(judge, version), now
            )
            if held is not None:
                return hold(HoldStatus.AWAITING_OWNER, f"{reason}; held: {held}")
        if relation is Relation.ADDS_DETAIL:
            pairs = [*pairs, *((DOXA.refines, t) for t in targets)]
        starts = proposal.valid_from
        if relation is Relation.REPLACES and starts is None:
            starts, pairs = undated_start(pairs, proposal, received or now)
        self.record.admit(decision, proposal.iri, pairs, graph, now)
        if vector is not None:  # derived, beside the claim: one transaction, erased with it
            decision.change.insert += vector.quads(self.scope, proposal.iri)
        if relation.closes:
            self.record.close(decision, relation, targets, proposal.iri, starts, reason, now)
        return self.record.commit(decision, replace(draft, outcome=Outcome.ADMITTED), now)

    def _waiting_copy(self, digest: str, own: str) -> Receipt | None:
        """The receipt that put the same write (same writer, content and fields: the same
        input digest) in pending, if it still waits there; None otherwise. ``own`` is the
        write's own id: a held write judged again is no copy of itself."""
        held_id = self.record.waiting_copy(digest, own)
        if held_id is None:
            return None
        found = [
            r
            for r in receipts_deciding(self.store, self.scope, self.scope.fact(held_id))
            if r.outcome is Outcome.HELD
        ]
        return found[-1] if found else None

    def _read_statement(
        self,
        proposal: Proposal,
        pairs: list[Pair],
        minted: tuple[Minted, ...],
        verdict: Verdict,
        reason: str,
    ) -> tuple[list[Pair], tuple[Minted, ...], str]:
        """Give a text-only write the statement its judge read (names resolved as a writer's
        would be), or say in the reason why it was not used."""
        assert verdict.statement is not None
        given = (proposal.subject, proposal.predicate, proposal.object)
        if given != (None, None, None) or proposal.is_rule:
            return pairs, minted, reason  # the writer's own structure, or a rule: kept as is
        if verdict.relation in (Relation.SAME, Relation.INSTRUCTION):
            return pairs, minted, reason  # no new claim is stored
        read = self.names.read_statement(proposal.text, verdict.statement)
        if isinstance(read, str):
            return pairs, minted, f"{reason} (its statement was not used: {read})"
        structure, more = read
        said = ", ".join(repr(n) for n in verdict.statement)
        return [*pairs, *structure], (*minted, *more), f"{reason} (read as {said})"

    def hold_for_owner(
        self,
        proposal: Proposal,
        *,
        reason: str,
        relation: Relation | None = None,
        targets: tuple[str, ...] = (),
    ) -> Receipt:
        """Hold a write for the owner without asking the judge: a retraction request (with
        ``was_wrong`` and its one target), or a line a whole-file rewrite brought in.

        The owner decides it like any held write: approving a ``was_wrong`` request admits
        it and retracts its targets, rejecting it discards it. Raises
        :class:`~doxa.ShapeViolation` for a write that breaks the shapes and
        :class:`~doxa.NotFound` for a target that is not live, and nothing is stored.
        """
        pairs = claim_pairs(proposal)
        failures = self.shapes.check(write_triples(proposal.iri, pairs, self.clock.now()))
        if failures:
            raise ShapeViolation(failures)

        def step(decision: Decision) -> Receipt:
            iris = tuple(self.scope.fact(t) for t in targets)
            for target, iri in zip(targets, iris, strict=True):
                if not self.record.is_live(iri):
                    raise NotFound(f"There is no live fact {target!r} in scope {self.scope.name!r}")
            now = self.clock.now()
            status = HoldStatus.AWAITING_OWNER
            self.record.hold(decision, proposal.iri, pairs, relation, iris, reason, status, now)
            draft = ReceiptDraft(
                outcome=Outcome.HELD,
                reason=reason,
                judge="sync",
                judge_version="1",
                relation=relation,
                decides=proposal.iri,
                targets=iris,
                input_digest=input_digest(pairs),
                kind=proposal.kind,
            )
            return self.record.commit(decision, draft, now)

        return self.decider.decide(step)

    def rejudge(self) -> list[Receipt]:
        """Judge every write held ``unchecked`` again; each leaves a new receipt.

        A write whose judge still cannot answer stays held (and gets no new receipt).
        """
        receipts = []
        for held_id in self.record.unchecked():
            receipt = self.decider.decide(partial(self._rejudge_one, held_id))
            if receipt is not None:
                receipts.append(receipt)
        return receipts

    def rejudge_question(self, question: URIRef) -> list[Receipt]:
        """Judge again every write waiting for the owner on ``question`` (a predicate or a
        sentence pattern the owner just taught): the answer decides them all at once.

        Each gets the new verdict's outcome and receipt: admitted, or held again for another
        reason (a closing not earned yet, a stronger fact it contradicts), so none is left
        waiting on an answered question. One whose judge asks the same question again (an
        answer a domain ontology overrides) waits as it was, with no new receipt.
        """
        receipts = []
        for held_id in self.record.waiting_on(question):
            step = partial(self._rejudge_one, held_id, still_asking=question)
            receipt = self.decider.decide(step)
            if receipt is not None:
                receipts.append(receipt)
        return receipts

    def _rejudge_one(
        self, held_id: str, decision: Decision, *, still_asking: URIRef | None = None
    ) -> Receipt | None:
        try:
            held, claim = self.record.held(held_id)
        except NotFound:
            return None  # decided meanwhile
        pairs = [(p, o) for p, o in claim if p != DOXA.heldAt]
        proposal = proposal_from_pairs(self.scope, self.scope.fact(held_id), pairs)
        held_at = dict(claim).get(DOXA.heldAt)
        received = instant(held_at) if held_at is not None else None
        # judged as of when it was received: an undated value starts then, so a write sent
        # before another value cannot come back as that value's replacement
        evidence = replace(self._gather(proposal), now=received or self.clock.now())
        try:
            verdict = self.judge.judge(proposal, evidence)
        except JudgeUnavailable:
            return None  # still down: the write stays held, nothing is lost
        if still_asking is not None and verdict.asks == str(still_asking):
            return None  # the same question is still open: it waits as it was
        self.record.unhold(decision, held_id, held, claim)
        return self._publish(
            proposal,
            pairs,
            input_digest(pairs),
            evidence,
            verdict,
            f"judged again: {verdict.reason}",
            decision,
            received=received,
        )

    def embed_admitted(self, embedder: Embedder | None, receipts: Iterable[Receipt]) -> None:
        """The vectors of the facts ``receipts`` admitted (in bulk, or by the owner), asked
        after the gate published (outside its lock), in one call; a fact the endpoint gives
        none is recorded as missing one."""
        if embedder is None:
            return
        claims = [self.scope.fact(r.fact) for r in receipts if r.admitted and r.fact]
        if not claims:
            return
        topics = [g for g in self.record.claim_graphs() if g != self.scope.rules]
        texts = self.store.describe(claims, [*topics, self.scope.rules], (DOXA.text,))
        facts = [(c, str(pairs[0][1])) for c in claims if (pairs := texts.get(str(c)))]
        embed_facts(self.store, self.scope, embedder, facts)

    # -- the scope's other decisions, each in its own module --------------------------------

    def closing_refusal(self, kind: str, judge: str | None = None) -> str | None:
        """Why the judge may not close facts of ``kind`` on its own now, or None if it may
        (see :meth:`doxa.gate.closing.Closing.refusal`)."""
        return self.closing.refusal(kind, judge)

    def closing_earned(self, kind: str) -> bool:
        """Whether the judge may close facts of this kind without asking the owner."""
        return self.closing.refusal(kind) is None

    def approve(self, held_id: str, *, as_relation: Relation | None = None) -> Receipt:
        """Admit a held write as the owner decided (see :meth:`OwnerDecisions.approve`).

        An answer that teaches a predicate (or a sentence pattern) one value, many or
        unchanging then decides every other write waiting on the same question
        (:meth:`rejudge_question`), so the owner answers each question once."""
        receipt, taught = self.owner.answer(held_id, as_relation=as_relation)
        if taught is not None:
            self.rejudge_question(taught)
        return receipt
