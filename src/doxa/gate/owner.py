"""The owner's decisions: approving or rejecting held writes, releasing or discarding
quarantined ones, retracting, calibrating, clearing alarms and granting closing.

Each is one short step taken through :meth:`~doxa.gate.deciding.Decider.decide` (settled,
under the lock, guarded on a shared server): it reads and checks what it decides on, writes
into the decision, and commits the owner's receipt (:meth:`OwnerDecisions._signed`). Only
release asks the judge, through the write path (:class:`WritePath`).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Any, Protocol, runtime_checkable

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput, Listing, NotFound
from doxa.gate.conflicts import Conflicts, conflicts
from doxa.gate.correcting import start_when_recorded
from doxa.gate.deciding import Decider
from doxa.gate.gather import live_by_keys
from doxa.gate.names import Names
from doxa.gate.proposal import proposal_from_pairs
from doxa.gate.receipts import ReceiptDraft
from doxa.gate.record import Decision
from doxa.judges.base import Cardinality
from doxa.judges.compare import same_term
from doxa.judges.screen import SCREENED, Sign, screen, screen_note
from doxa.model import Authority, FactStatus, HoldStatus, Outcome, Proposal, Receipt, Relation
from doxa.ontology.closure import property_table
from doxa.reads.claims import load_facts
from doxa.reads.facts import facts
from doxa.reads.held import held
from doxa.reads.ledger import alarms
from doxa.reads.receipts import receipts_deciding
from doxa.resources import query
from doxa.scope import Scope, new_id
from doxa.store import Dataset
from doxa.terms import dt_literal, instant
from doxa.vocabulary import DOXA, RDF

__all__ = ["OwnerDecisions", "WritePath"]

Pair = tuple[URIRef, Node]


@runtime_checkable
class WritePath(Protocol):
    """What releasing a quarantined write needs of the write path."""

    def judge_as_quotation(
        self, proposal: Proposal, pairs: list[Pair], decision: Decision, reason: str
    ) -> Receipt:
        """Judge the write again (it can no longer be an instruction) and publish the verdict
        in ``decision``, its receipt's reason led by ``reason``."""
        ...


class OwnerDecisions:
    """The owner's decisions for one scope of one store, each leaving the owner's receipt."""

    def __init__(self, decider: Decider, write_path: WritePath, names: Names) -> None:
        self.decider = decider
        self.write_path = write_path
        self.names = names
        self.store = decider.store
        self.scope = decider.scope
        self.record = decider.record

    def _signed(
        self,
        decision: Decision,
        outcome: Outcome,
        reason: str,
        now: datetime | None = None,
        **fields: Any,
    ) -> Receipt:
        """Commit ``decision`` with the owner's receipt: the owner is its judge."""
        draft = ReceiptDraft(
            outcome=outcome, reason=reason, judge="owner", judge_version="1", **fields
        )
        return self.record.commit(decision, draft, now)

    def approve(self, held_id: str, *, as_relation: Relation | None = None) -> Receipt:
        """Admit a held write as the owner decided, and leave a receipt (see :meth:`answer`)."""
        return self.answer(held_id, as_relation=as_relation)[0]

    def answer(
        self, held_id: str, *, as_relation: Relation | None = None
    ) -> tuple[Receipt, URIRef | None]:
        """Admit a held write as the owner decided; its receipt, and the predicate (or
        sentence pattern) the answer taught, if it taught one.

        What it closes is gathered again now, not taken from the time it was held: on a
        functional predicate every other value believed in time the approved one overlaps
        (live, or superseded but believed before its end) is ended there (superseded when
        the approved value starts later, else retracted), except one starting after it: the
        approved value holds until that one starts instead, so approving never leaves two
        values believed at one time and gives the same timeline in any order.
        ``as_relation`` (``replaces`` or ``was_wrong``) says how to end them; without it the
        held verdict's relation ends only the facts the judge named, and the receipt's
        reason names each other fact ended and how.

        On a "replace or add?" question (nobody has said how many values the predicate
        holds) ``as_relation`` is also the owner's lesson: ``replaces`` one value at a time,
        ``new`` or ``adds_detail`` many, ``was_wrong`` one value that never changes. Such a
        write is refused without an answer (:class:`~doxa.InvalidInput`, nothing changed):
        admitted as judged it would stand beside the old value and teach nothing.
        """

        def step(decision: Decision) -> tuple[Receipt, URIRef | None]:
            held, claim = self.record.held(held_id)
            relation = as_relation or _held_relation(held)
            asks = next((URIRef(str(o)) for p, o in held if p == DOXA.asks), None)
            if asks is not None and as_relation not in _TEACHES:
                # no answer, or a relation that answers nothing ("unclear", "same"): it
                # would stand beside the old value and teach nothing
                raise InvalidInput(_unanswered(held_id, asks))
            saved = tuple(URIRef(str(t)) for p, t in held if p == DOXA.target)
            now = self.decider.clock.now()
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
            # an undated value ends the others as of when it was received (the latest
            # moment the change can have happened), unless the owner says they were wrong
            undated = starts is None and Relation.WAS_WRONG not in (as_relation, relation)
            if undated:
                starts = _received(claim, now, values.get(DOXA.validUntil))
            lesson = (
                None if is_rule or as_relation is None else self._lesson(values, relation, asks)
            )
            reason = "approved by the owner"
            if lesson is not None:
                predicate, cardinality = lesson
                decision.change.insert += self.names.lesson(predicate, cardinality)
                reason += f"; learned: <{predicate}> holds {_HOLDS[cardinality]}"
            one = (
                lesson[0]
                if lesson is not None and lesson[1] in (Cardinality.ONE, Cardinality.UNCHANGING)
                else None
            )
            found = Conflicts()
            if not is_rule:
                found = conflicts(
                    self.store,
                    self.scope,
                    self.names,
                    values,
                    starts,
                    relation,
                    one,
                    saved,
                    as_relation,
                    undated=undated,
                )
            closings = found.closings
            reason += _unjudged_endings(self.scope, closings, saved, chosen=as_relation)
            reason += found.explain(self.scope)
            if (
                relation.closes
                and not is_rule
                and (DOXA.revises in values or values.get(RDF.subject) is None)
            ):
                # a write naming its target, or a text the judge matched: no functional slot
                # finds what it closes, so the judged targets still live are what it ends
                ending = {t for _, targets in closings for t in targets}
                named = tuple(t for t in saved if t not in ending and self.record.is_live(t))
                if named:
                    closings.append((relation, named))
            supersedes = found.yields_to is not None or any(
                how is Relation.REPLACES for how, _ in closings
            )
            if undated and supersedes and starts is not None:
                pairs.append((DOXA.validFrom, dt_literal(starts)))
            elif undated:
                starts = None  # ends nothing by supersession: its start stays unknown
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
            if found.yields_to is not None:
                later, until = found.yields_to
                self.record.supersede_admitted(
                    decision, iri, later, until, "approved by the owner: a later value holds", now
                )
            receipt = self._signed(
                decision,
                Outcome.APPROVED,
                reason,
                now,
                relation=relation,
                decides=iri,
                targets=closed,
                **_scores(held, claim, agreed=relation is _held_relation(held)),
            )
            return receipt, lesson[0] if lesson is not None else None

        return self.decider.decide(step)

    def reject(self, held_id: str, *, reason: str) -> Receipt:
        """Discard a held write; its content leaves pending, the receipt stays."""

        def step(decision: Decision) -> Receipt:
            held, claim = self.record.held(held_id)
            self.record.unhold(decision, held_id, held, claim)
            return self._signed(
                decision,
                Outcome.DISCARDED,
                reason or "rejected by the owner",
                relation=_held_relation(held),
                decides=self.scope.fact(held_id),
                **_scores(held, claim, agreed=False),
            )

        return self.decider.decide(step)

    def release(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner says a quarantined write is not an instruction: judge it as a quotation.

        It keeps its authority, standpoint and sources; the judge decides it again, except
        that it can no longer call it an instruction. One receipt records both.
        """

        def step(decision: Decision) -> Receipt:
            stored = self._unquarantine(decision, fact_id)
            pairs = [(p, o) for p, o in stored if p != DOXA.heldAt]
            proposal = proposal_from_pairs(self.scope, self.scope.fact(fact_id), pairs)
            return self.write_path.judge_as_quotation(
                proposal, pairs, decision, f"released from quarantine by the owner ({reason})"
            )

        return self.decider.decide(step)

    def discard(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner throws a quarantined write away; only its receipt stays."""

        def step(decision: Decision) -> Receipt:
            kind = dict(self._unquarantine(decision, fact_id)).get(DOXA.kind)
            return self._signed(
                decision,
                Outcome.DISCARDED,
                reason or "discarded by the owner",
                relation=Relation.INSTRUCTION,
                decides=self.scope.fact(fact_id),
                kind=str(kind) if kind is not None else None,
            )

        return self.decider.decide(step)

    def rescreen(self, *, reason: str) -> list[Receipt]:
        """Screen every live outside fact again with the current screen; each one it now
        calls an instruction moves into quarantine, with an owner's receipt naming the sign.

        Only outside text (external, tool) is read, as on the way in. Nothing is deleted or
        edited: the caught claim is retracted by an owner's receipt (it leaves every live
        read; as-of reads before now still show what was believed then) and a copy waits in
        quarantine under a new id, where the owner can release it (judged again as a
        quotation and admitted) or discard it. A fact the owner once released from
        quarantine is not taken back. Held outside writes (pending) are screened too: one it
        now calls an instruction leaves pending for quarantine under its own id, with the
        same kind of receipt. Idempotent: a second run finds nothing more to move.

        The agent's live notes are read with the note screen (issue 33): one it now calls
        an instruction to later turns is retracted the same way and a copy waits for the
        owner in pending (never quarantine: the words are the agent's), unless the owner
        already approved it once.
        """
        now = self.decider.clock.now()
        live = facts(
            self.store,
            self.scope,
            [g for g in self.record.claim_graphs() if g != self.scope.rules],
            valid_at=now,
            as_of=now,
            include_ended=True,
        )
        # (the claim, its text, the step that moves it), live facts first, then held writes
        candidates = [
            (fact.iri, fact.text, partial(self._quarantine, fact.iri))
            for fact in live
            if fact.status is FactStatus.LIVE and fact.authority in SCREENED
        ]
        candidates += [
            (self.scope.fact(waiting.id), waiting.text, partial(self._quarantine_held, waiting.id))
            for waiting in held(self.store, self.scope)
            if waiting.authority in SCREENED
        ]
        receipts = []
        for iri, text, move in candidates:
            sign = screen(text)
            if sign is None or self._released(iri):
                continue
            receipt = self.decider.decide(partial(move, sign, reason))
            if receipt is not None:
                receipts.append(receipt)
        for fact in live:
            if fact.status is not FactStatus.LIVE or fact.authority is not Authority.AGENT:
                continue
            sign = screen_note(fact.text)
            if sign is None or self._owner_decided(fact.iri, Outcome.APPROVED):
                continue
            receipt = self.decider.decide(partial(self._hold_note, fact.iri, sign, reason))
            if receipt is not None:
                receipts.append(receipt)
        return receipts

    def _hold_note(
        self, iri: URIRef, sign: Sign, reason: str, decision: Decision
    ) -> Receipt | None:
        """In ``decision``: retract one live agent note (belief in it ends now, its history
        stays) and put a copy in pending under a new id, waiting for the owner as a new
        agent note with the same sign is held. None if the note ended meanwhile."""
        if not self.record.is_live(iri):
            return None
        graph, _ = self.record.locate(iri)
        pairs = [(p, o) for p, o in self._pairs(iri, graph) if p != DOXA.recordedAt]
        now = self.decider.clock.now()
        why = (
            "re-screened: the agent's own note reads as an instruction to later turns: "
            f"{sign.explain()}; it waits until the owner approves or discards it"
        )
        why = f"{why} ({reason})" if reason else why
        copy = self.scope.fact(new_id())
        self.record.hold(
            decision, copy, pairs, Relation.UNCLEAR, (), why, HoldStatus.AWAITING_OWNER, now
        )
        self.record.close(decision, Relation.WAS_WRONG, (iri,), None, None, why, now)
        return self._moved(decision, why, now, copy, pairs, targets=(iri,), held=True)

    def _quarantine_held(
        self, held_id: str, sign: Sign, reason: str, decision: Decision
    ) -> Receipt | None:
        """In ``decision``: move a held outside write from pending into quarantine under its
        own id (the owner was to decide it anyway; now they decide it as a possible
        instruction, and release judges it again). None if it was decided meanwhile."""
        try:
            waiting, claim = self.record.held(held_id)
        except NotFound:
            return None
        self.record.unhold(decision, held_id, waiting, claim)
        now = self.decider.clock.now()
        iri = self.scope.fact(held_id)
        quarantine = self.scope.quarantine
        decision.change.insert += [(iri, p, o, quarantine) for p, o in claim]
        was = str(dict(waiting).get(DOXA.reason, ""))
        why = f"re-screened while held: outside text acting as an instruction: {sign.explain()}"
        why = f"{why} (held because: {was})" if was else why
        why = f"{why} ({reason})" if reason else why
        return self._moved(decision, why, now, iri, claim)

    def _quarantine(
        self, iri: URIRef, sign: Sign, reason: str, decision: Decision
    ) -> Receipt | None:
        """In ``decision``: retract one live claim (belief in it ends now; what was believed
        before stays in the history, the claim itself is not edited) and put a copy of it
        in quarantine under a new id, for the owner to release or discard. None if the
        claim ended meanwhile."""
        if not self.record.is_live(iri):
            return None
        graph, _ = self.record.locate(iri)
        pairs = [(p, o) for p, o in self._pairs(iri, graph) if p != DOXA.recordedAt]
        now = self.decider.clock.now()
        why = f"re-screened: outside text acting as an instruction: {sign.explain()}"
        why = f"{why} ({reason})" if reason else why
        copy = self.scope.fact(new_id())
        quarantine = self.scope.quarantine
        decision.change.insert += [(copy, p, o, quarantine) for p, o in pairs]
        decision.change.insert.append((copy, DOXA.heldAt, dt_literal(now), quarantine))
        self.record.close(decision, Relation.WAS_WRONG, (iri,), None, None, why, now)
        return self._moved(decision, why, now, copy, pairs, targets=(iri,))

    def _moved(
        self,
        decision: Decision,
        why: str,
        now: datetime,
        decides: URIRef,
        pairs: list[Pair],
        targets: tuple[URIRef, ...] = (),
        *,
        held: bool = False,
    ) -> Receipt:
        """The owner's receipt for a claim the re-screen moved into quarantine, or (``held``)
        for an agent note it moved into pending."""
        kind = dict(pairs).get(DOXA.kind)
        return self._signed(
            decision,
            Outcome.HELD if held else Outcome.QUARANTINED,
            why,
            now,
            relation=Relation.UNCLEAR if held else Relation.INSTRUCTION,
            decides=decides,
            targets=targets,
            kind=str(kind) if kind is not None else None,
        )

    def _released(self, iri: URIRef) -> bool:
        """Whether the owner already saw this claim in quarantine and released it: their
        decision stands, so the screen does not take it back."""
        return self._owner_decided(iri, Outcome.QUARANTINED)

    def _owner_decided(self, iri: URIRef, outcome: Outcome) -> bool:
        """Whether a receipt with ``outcome`` decided this claim: the owner saw it then."""
        return any(r.outcome is outcome for r in receipts_deciding(self.store, self.scope, iri))

    def _pairs(self, iri: URIRef, graph: URIRef) -> list[Pair]:
        rows = self.store.select(
            query("claim"), dataset=Dataset(default=(graph,)), bindings={"claim": [iri]}
        )
        return [(URIRef(str(r["p"])), r["o"]) for r in rows]

    def retract(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner says a fact was never true: a retraction event ends belief in it."""

        def step(decision: Decision) -> Receipt:
            iri = self.scope.fact(fact_id)
            if not self.record.is_live(iri, sparql=query("retractable")):
                raise NotFound(
                    f"There is no unretracted fact {fact_id!r} in scope {self.scope.name!r}",
                    listings=(Listing.ENDED_FACTS,),
                    lead="check the id with",
                )
            now = self.decider.clock.now()
            self.record.close(decision, Relation.WAS_WRONG, (iri,), None, None, reason, now)
            return self._signed(
                decision,
                Outcome.CLOSED,
                reason,
                now,
                relation=Relation.WAS_WRONG,
                decides=iri,
                targets=(iri,),
            )

        return self.decider.decide(step)

    def calibrate(
        self, judge: str, scores: dict[str, tuple[int, int]], *, digest: str, reason: str
    ) -> list[Receipt]:
        """Record the judge's scores on an owner-labelled set: one receipt per kind.

        ``scores`` maps kind to (agreements, decisions). A set is counted once per judge:
        scoring the same file again is refused, so it cannot be replayed to earn closing.
        """

        def step(decision: Decision) -> list[Receipt]:
            if self.store.ask(
                query("calibrated_with"),
                dataset=Dataset(default=(self.scope.log,)),
                bindings={"judge": Literal(judge), "digest": Literal(digest)},
            ):
                raise InvalidInput(
                    f"This labelled set (sha256 {digest[:12]}…) was already counted for judge "
                    f"{judge}; label new decisions to calibrate again."
                )
            receipts = []
            for kind, (agreements, decisions) in sorted(scores.items()):
                receipts.append(
                    self._signed(
                        decision,
                        Outcome.CALIBRATED,
                        reason,
                        input_digest=digest,
                        kind=kind,
                        scores_judge=judge,
                        agreements=agreements,
                        decisions=decisions,
                    )
                )
                decision = Decision(after=self.record.mark())  # the next kind's receipt
            return receipts

        return self.decider.decide(step)

    def clear_alarm(self, alarm_id: str, *, reason: str) -> Receipt:
        """The owner clears an alarm; automatic closing may resume. Leaves a receipt."""

        def step(decision: Decision) -> Receipt:
            alarm = self.scope.alarm(alarm_id)
            found = alarms(self.store, self.scope, alarm=alarm)
            if not found or not found[0].open:
                raise NotFound(
                    f"There is no open alarm {alarm_id!r} in scope {self.scope.name!r}",
                    listings=(Listing.ALARMS,),
                    lead="list them with",
                )
            return self._signed(decision, Outcome.CLEARED, reason, clears=alarm)

        return self.decider.decide(step)

    def confirm(self, fact_id: str, *, reason: str) -> Receipt:
        """The owner confirms a flagged fact stands on its own: a ``doxa:BasisConfirmed``
        event clears its basis-ended flags from now on (earlier belief times still show
        them). Leaves a receipt; raises NotFound for a fact that is not live or not flagged."""

        def step(decision: Decision) -> Receipt:
            iri = self.scope.fact(fact_id)
            now = self.decider.clock.now()
            graphs = [g for g in self.record.claim_graphs() if g != self.scope.rules]
            dataset = Dataset(default=(*graphs, self.scope.log))
            found = load_facts(self.store, self.scope, dataset, [iri], as_of=now)
            if not found or found[0].status is not FactStatus.LIVE or not found[0].basis_ended:
                raise NotFound(
                    f"There is no live flagged fact {fact_id!r} in scope {self.scope.name!r} "
                    "to confirm",
                    listings=(Listing.FLAGGED,),
                    lead="list them with",
                )
            event = self.scope.event(new_id())
            log = self.scope.log
            decision.change.insert += [
                (event, RDF.type, DOXA.BasisConfirmed, log),
                (event, DOXA.confirms, iri, log),
                (event, DOXA.recordedAt, dt_literal(now), log),
                (event, DOXA.reason, Literal(reason), log),
            ]
            decision.produced.append(event)
            return self._signed(
                decision, Outcome.CLEARED, reason, now, decides=event, targets=(iri,)
            )

        return self.decider.decide(step)

    def grant(self, kind: str, *, granted: bool, reason: str) -> Receipt:
        """Record the owner's grant (or revocation) of automatic closing for a kind."""
        outcome = Outcome.GRANTED if granted else Outcome.REVOKED
        return self.decider.decide(
            lambda decision: self._signed(decision, outcome, reason, grants_kind=kind)
        )

    def _unquarantine(self, decision: Decision, fact_id: str) -> list[Pair]:
        """A quarantined write's stored pairs, deleted from quarantine in ``decision``."""
        iri = self.scope.fact(fact_id)
        rows = self.store.select(
            query("claim"),
            dataset=Dataset(default=(self.scope.quarantine,)),
            bindings={"claim": [iri]},
        )
        if not rows:
            raise NotFound(
                f"There is no quarantined write {fact_id!r} in scope {self.scope.name!r}",
                listings=(Listing.QUARANTINE,),
                lead="list them with",
            )
        stored = [(URIRef(str(r["p"])), r["o"]) for r in rows]
        decision.change.delete += [(iri, p, o, self.scope.quarantine) for p, o in stored]
        return stored

    def _lesson(
        self, values: dict[URIRef, Node], relation: Relation, asks: URIRef | None = None
    ) -> tuple[URIRef, Cardinality] | None:
        """What the owner's chosen relation teaches: one value, many, or one that never
        changes. About the question the write waits on (``asks``: a predicate or a sentence
        pattern), or else about the write's predicate where nobody has said and the subject
        has another live value; None where it teaches nothing."""
        subject, predicate, obj = (values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
        if asks is not None:
            canonical = asks
        elif subject is None or not isinstance(predicate, URIRef) or obj is None:
            return None
        else:
            table = property_table(self.store)
            canonical, _ = table.canonical(predicate)
            keys = table.keys(subject, predicate, obj)
            others = [
                f
                for f in live_by_keys(self.store, self.scope, keys)
                if f.subject == subject
                and f.predicate == predicate
                and not same_term(f.object, obj)
            ]
            if not others:
                return None
        if self.names.cardinality(canonical) is not Cardinality.UNKNOWN:
            return None
        taught = _TEACHES.get(relation)
        return None if taught is None else (canonical, taught)


#: what each answer to "replace or add?" teaches; the only answers such a write takes
_TEACHES = {
    Relation.WAS_WRONG: Cardinality.UNCHANGING,
    Relation.REPLACES: Cardinality.ONE,
    Relation.NEW: Cardinality.MANY,
    Relation.ADDS_DETAIL: Cardinality.MANY,
}


#: how the receipt words a lesson
_HOLDS = {
    Cardinality.ONE: "one value at a time",
    Cardinality.MANY: "many values",
    Cardinality.UNCHANGING: "one value that never changes",
}


def _received(claim: list[Pair], now: datetime, ends: Node | None) -> datetime | None:
    """When a held write was received (its ``doxa:heldAt``; ``now`` if it has none): the start
    an undated value takes once approved, or None when it ends by then (see
    :func:`doxa.gate.correcting.undated_start`)."""
    held_at = dict(claim).get(DOXA.heldAt)
    received = instant(held_at) if held_at is not None else now
    return start_when_recorded(received, instant(ends) if ends is not None else None)


def _unjudged_endings(
    scope: Scope,
    closings: list[tuple[Relation, tuple[URIRef, ...]]],
    judged: tuple[URIRef, ...],
    *,
    chosen: Relation | None,
) -> str:
    """The receipt's word on the facts an approval ends that are not among the held
    verdict's targets (the judge gave no verdict on them, so when they start decides how
    they end); empty if none, or if the owner chose how to end them."""
    if chosen is not None and chosen.closes:
        return ""
    found = [
        f"{scope.local_id(t)} {'superseded' if how is Relation.REPLACES else 'retracted'}"
        for how, targets in closings
        for t in targets
        if t not in judged
    ]
    if not found:
        return ""
    return "; ended by when they start (not among the judged targets): " + ", ".join(found)


def _unanswered(held_id: str, asks: URIRef) -> str:
    """Why a plain approval of a write asking "replace or add?" is refused: admitting it
    beside the old value would leave two values live and teach nothing, so the owner must
    say which (each surface spells the answer its own way; the values are the same)."""
    return (
        f'Held write {held_id!r} asks "replace or add?" about <{asks}>: nobody has said '
        "whether it holds one value or many. Approve it with an answer: as replaces (one "
        "value at a time: the old value ends), as new (a second value: both stay) or as "
        f"was_wrong (it never changes: the old value was wrong); e.g. `doxa approve {held_id} "
        "--as replaces` (REST and MCP: as_relation). Every write waiting on the same question "
        "follows that answer."
    )


def _held_relation(held: list[Pair]) -> Relation:
    """The relation a write was held with; an unchecked write's approval admits it as new."""
    for p, o in held:
        if p == DOXA.relation:
            return Relation.from_iri(o)
    return Relation.NEW


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
