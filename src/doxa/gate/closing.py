"""Closing policy: whether the judge may end facts on its own, and the alarm that stops it.

Ending a fact (a supersession or a retraction) is the one decision a wrong judge cannot undo
quietly, so the judge earns it per kind through the ledger (or the owner grants it), and a
closing that looks like an attack (a weaker write closing a stronger fact, a burst of
closings by one writer or from one source or turn, a clash with the owner's rules) raises an
alarm that stops every automatic closing in the scope until the owner clears it.
"""

from __future__ import annotations

from datetime import datetime

from rdflib import Literal, URIRef

from doxa.gate.record import Decision
from doxa.judges.base import Evidence, Judge
from doxa.model import ClosingPolicy, Proposal
from doxa.reads.ledger import alarm_open, judge_key, origins, recent_closings, standing, suspicion
from doxa.resources import query
from doxa.scope import Scope, new_id
from doxa.store import Dataset, Store
from doxa.terms import dt_literal
from doxa.vocabulary import DOXA, RDF

__all__ = ["Closing"]


class Closing:
    """One scope's closing policy, as the ledger and the owner's grants say it stands."""

    def __init__(self, store: Store, scope: Scope, judge: Judge, policy: ClosingPolicy) -> None:
        self.store = store
        self.scope = scope
        self.judge = judge
        self.policy = policy

    def refusal(self, kind: str, judge: str | None = None) -> str | None:
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

    def held_because(
        self,
        decision: Decision,
        proposal: Proposal,
        evidence: Evidence,
        targets: tuple[URIRef, ...],
        judge: str,
        now: datetime,
    ) -> str | None:
        """Why a closing the judge decided must wait for the owner, or None if it may go on.

        A closing that looks suspicious raises an alarm, written into ``decision``.
        """
        refusal = self.refusal(proposal.kind, judge)
        if refusal is not None:
            return refusal
        closing = [f for f in evidence.consulted if f.iri in targets]
        since = now - self.policy.burst_window
        alarm = suspicion(
            proposal,
            closing,
            evidence.rules,
            evidence.properties,
            closed_recently=recent_closings(self.store, self.scope, origins(proposal), since, now),
            policy=self.policy,
        )
        if alarm is None:
            return None
        self._raise_alarm(decision, proposal.iri, alarm, now)
        return (
            f"alarm raised, {alarm}; automatic closing is stopped in this scope until the "
            "owner clears the alarm"
        )

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
