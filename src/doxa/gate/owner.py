"""The owner's decisions: approving or rejecting held writes, releasing or discarding
quarantined ones, retracting, calibrating, clearing alarms and granting closing.

Each is one short step taken through :meth:`~doxa.gate.deciding.Decider.decide` (settled,
under the lock, guarded on a shared server): it reads and checks what it decides on, writes
into the decision, and commits the owner's receipt (:meth:`OwnerDecisions._signed`). Only
release asks the judge, through the write path (:class:`WritePath`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any, Protocol, runtime_checkable

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput, Listing, NotFound
from doxa.gate.believed import believed_by_keys
from doxa.gate.correcting import start_when_recorded
from doxa.gate.deciding import Decider
from doxa.gate.gather import live_by_keys
from doxa.gate.names import Names
from doxa.gate.proposal import proposal_from_pairs
from doxa.gate.receipts import ReceiptDraft
from doxa.gate.record import Decision
from doxa.judges.base import Cardinality
from doxa.judges.compare import contradicts, overlaps, same_term
from doxa.judges.screen import SCREENED, Sign, screen
from doxa.model import Fact, FactStatus, Outcome, Proposal, Receipt, Relation
from doxa.ontology.closure import broader_objects, property_table
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
        ``new`` or ``adds_detail`` many, ``was_wrong`` one value that never changes.
        """

        def step(decision: Decision) -> tuple[Receipt, URIRef | None]:
            held, claim = self.record.held(held_id)
            relation = as_relation or _held_relation(held)
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
            asks = next((URIRef(str(o)) for p, o in held if p == DOXA.asks), None)
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
                found = self._conflicts(
                    values, starts, relation, one, saved, as_relation, undated=undated
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
        return receipts

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
    ) -> Receipt:
        """The owner's receipt for a claim the re-screen moved into quarantine."""
        kind = dict(pairs).get(DOXA.kind)
        return self._signed(
            decision,
            Outcome.QUARANTINED,
            why,
            now,
            relation=Relation.INSTRUCTION,
            decides=decides,
            targets=targets,
            kind=str(kind) if kind is not None else None,
        )

    def _released(self, iri: URIRef) -> bool:
        """Whether the owner already saw this claim in quarantine and released it: their
        decision stands, so the screen does not take it back."""
        return any(
            r.outcome is Outcome.QUARANTINED for r in receipts_deciding(self.store, self.scope, iri)
        )

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
                    f"There is no open alarm {alarm_id!r} in scope {self.scope.name!r}; list "
                    "them with `doxa alarms`."
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
                    "to confirm; list them with `doxa flagged`."
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
        if relation is Relation.WAS_WRONG:
            return canonical, Cardinality.UNCHANGING
        if relation is Relation.REPLACES:
            return canonical, Cardinality.ONE
        if relation in (Relation.NEW, Relation.ADDS_DETAIL):
            return canonical, Cardinality.MANY
        return None

    def _conflicts(
        self,
        values: dict[URIRef, Node],
        starts: datetime | None,
        relation: Relation,
        functional: URIRef | None = None,
        judged: tuple[URIRef, ...] = (),
        chosen: Relation | None = None,
        *,
        undated: bool = False,
    ) -> Conflicts:
        """The values an approved write must end, grouped by how to end them: the live
        values and the superseded ones believed in the time it claims, each once; and the
        value it yields to, if one starts later. ``functional``: a predicate the owner just
        taught holds one value at a time.

        Values are ordered by valid time: one starting after the approved value is not
        ended by it (that would end it before its own start, or call a later move never
        true because an earlier one was approved); the approved value holds until the
        earliest such value starts, recorded as its supersession by that value, just as if
        it had been approved first. Only a ``was_wrong`` said about that very fact (the
        owner's ``as_relation``, or the held verdict naming it) retracts it.

        How each ends: as the owner ``chosen`` (``as_relation``) if it closes; else, for a
        fact the judge read and ``judged`` (the held write's targets), as its verdict
        ``relation`` if that closes, since that is what the owner approved; any other fact
        (one written, or left believed, after the write was held) by when it starts:
        superseded when the approved value starts later, else retracted. The judge never
        saw it, so its verdict says nothing about it: a held ``was_wrong`` must not retract
        a value that simply came before, nor a held ``replaces`` supersede one that starts
        after it (at an end before its own start). An ``undated`` value (``starts`` is when
        it was received) supersedes one that started at that same instant too: it gave no
        start, so it is the later word, not a second value claiming the same time.
        """
        subject, predicate, obj = (values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
        if subject is None or not isinstance(predicate, URIRef) or obj is None:
            return Conflicts()
        table = property_table(self.store)
        if functional is None:
            canonical, _ = table.canonical(predicate)
            if self.names.cardinality(canonical) is Cardinality.ONE:
                functional = canonical
        if functional is not None:
            table = replace(table, functional=table.functional | {functional})
        new_subject, new_predicate, new_object = table.normalise(subject, predicate, obj)
        if not table.is_functional(new_predicate):
            return Conflicts()
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
        seen: set[URIRef] = set()
        for fact in found:
            if fact.subject is None or fact.predicate is None or fact.object is None:
                continue
            if fact.iri in seen:  # found under two keys (an inverse, a broader value)
                continue
            seen.add(fact.iri)
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
        later: list[tuple[datetime, URIRef]] = []
        moved: list[tuple[URIRef, datetime, datetime]] = []
        for fact in others:
            if chosen is not None and chosen.closes:
                how = chosen
            elif relation.closes and fact.iri in judged:
                how = relation
            elif starts is not None and (
                fact.valid_from is None
                or starts > fact.valid_from
                or (undated and starts == fact.valid_from)
            ):
                how = Relation.REPLACES
            else:
                how = Relation.WAS_WRONG
            if _starts_after(fact, starts) and not _said_wrong(fact.iri, how, judged, chosen):
                assert fact.valid_from is not None
                later.append((fact.valid_from, fact.iri))
                continue
            if (
                how is Relation.REPLACES
                and fact.status is FactStatus.SUPERSEDED
                and fact.valid_until is not None
                and starts is not None
            ):
                moved.append((fact.iri, fact.valid_until, starts))  # ended again, earlier
            grouped.setdefault(how, []).append(fact.iri)
        first = min(later, default=None)
        return Conflicts(
            closings=[(how, tuple(targets)) for how, targets in grouped.items()],
            yields_to=None if first is None else (first[1], first[0]),
            moved=tuple(moved),
        )


@dataclass(frozen=True)
class Conflicts:
    """What approving a write does to the other values of its one-value slot."""

    #: the values it ends, grouped by how (superseded at its start, or retracted)
    closings: list[tuple[Relation, tuple[URIRef, ...]]] = field(default_factory=list)
    #: the earliest value starting after it, and that start: the approved value holds until
    #: then (superseded by it), and that value is left as it is
    yields_to: tuple[URIRef, datetime] | None = None
    #: superseded values superseded again, earlier: (fact, the end believed so far, the new
    #: end); both supersessions stay in the log, each with its belief time
    moved: tuple[tuple[URIRef, datetime, datetime], ...] = ()

    def explain(self, scope: Scope) -> str:
        """The receipt's word on the ends this approval corrects and the value it yields to."""
        words = [
            f"{scope.local_id(fact)}'s end corrected from {_day(was)} to {_day(now)} (the "
            "earlier end stays recorded)"
            for fact, was, now in self.moved
            if now < was
        ]
        if self.yields_to is not None:
            later, until = self.yields_to
            words.append(
                f"holds until {scope.local_id(later)} starts ({_day(until)}), which stays "
                "(a later value)"
            )
        return "".join(f"; {word}" for word in words)


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


def _starts_after(fact: Fact, starts: datetime | None) -> bool:
    """Whether ``fact`` starts after the approved value does (both dated)."""
    return starts is not None and fact.valid_from is not None and fact.valid_from > starts


def _said_wrong(
    fact: URIRef, how: Relation, judged: tuple[URIRef, ...], chosen: Relation | None
) -> bool:
    """Whether someone said ``fact`` was never true: the owner's ``was_wrong``, or a held
    ``was_wrong`` verdict naming it. Only that retracts a value starting later."""
    explicit = (chosen is not None and chosen.closes) or fact in judged
    return how is Relation.WAS_WRONG and explicit


def _day(moment: datetime) -> str:
    """A valid-time bound as a receipt's reason names it: the day when it falls at midnight
    (the usual ``valid_from="2026-05-01"``), else the full instant, so two bounds on one day
    are told apart."""
    midnight = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return moment.date().isoformat() if moment == midnight else moment.isoformat()


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
