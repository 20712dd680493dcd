"""The owner's desk: every decision only the owner makes, and what the owner decides on.

``memory.owner`` (an :class:`Owner`) approves, rejects and answers held writes, retracts,
confirms and erases facts, grants and revokes earned closing, clears alarms and reviews the
quarantine; each leaves a receipt. What each decision takes, who may call it and what it
returns is listed once, in :data:`doxa.memory.decisions.DECISIONS`, from which the CLI, REST,
the review page, MCP and the remote client are built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace as dataclass_replace
from typing import TYPE_CHECKING

from rdflib import Literal, URIRef

from doxa.audit.purge import purge_later
from doxa.audit.validation import clear_inferred
from doxa.errors import InvalidInput, NotFound
from doxa.gate.erasure import salt, subject_hash
from doxa.memory.arguments import (
    ID,
    checked_id,
    fact_id_of,
    held_id_of,
    only,
    required_reason,
)
from doxa.model import (
    Alarm,
    Fact,
    FactStatus,
    HeldWrite,
    Outcome,
    Receipt,
    Relation,
    Standing,
)
from doxa.reads.claims import load_facts
from doxa.reads.ledger import alarms, standings
from doxa.resources import query
from doxa.scope import check_name
from doxa.store import Dataset
from doxa.store.capabilities import Compactable, cache_of
from doxa.store.convert import forget_terms
from doxa.terms import as_iri, as_text

if TYPE_CHECKING:
    from doxa.memory.memory import Memory

__all__ = ["SERVER_FILES_NOT_PURGED", "Owner"]

#: what an erasure's receipt adds on a SPARQL server: the server's files are its own business
SERVER_FILES_NOT_PURGED = (
    "the SPARQL server's own files (log, journal, checkpoints, backups) still hold the "
    "content until the server's tools purge them; see docs/remote.md, Erasure on a server"
)


class Owner:
    """The owner's decisions on one memory's scope (``memory.owner``)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self.store = memory.store
        self.scope = memory.scope
        self.gate = memory.gate
        self.clock = memory.clock

    def rejudge(self) -> list[Receipt]:
        """Judge again every write held because the judge could not answer.

        Returns the new receipts; writes the judge still cannot answer for stay held. The
        facts it admits get their vectors afterwards, in one call (with an ``embedder``).
        """
        receipts = self.gate.rejudge()
        self.gate.embed_admitted(self._memory.embedder, receipts)
        return receipts

    def unchecked(self) -> list[str]:
        """Ids of the writes held because the judge could not answer, oldest first: what
        :meth:`rejudge` would judge again (the HTTP server asks before it does)."""
        return self.gate.record.unchecked()

    def approve(
        self, item: str | HeldWrite, *, as_relation: str | Relation | None = None
    ) -> Receipt:
        """Apply a held write's outcome (the owner's decision); leaves a receipt. A write held
        with "replace or add?" is answered with ``as_relation``: ``replaces`` (one value at a
        time: the old value ends), ``new`` (a second value: both stay) or ``was_wrong`` (the
        property never changes: the old value was wrong); the answer is kept for the
        predicate or sentence pattern and decides every write waiting on the same question.
        Such a write needs the answer: approving it without one raises
        :class:`~doxa.InvalidInput` and changes nothing (it would leave both values live and
        teach nothing). For any other held write, without it the judge's relation applies."""
        relation = Relation.parse(as_relation) if as_relation is not None else None
        receipt = self.gate.approve(held_id_of(item), as_relation=relation)
        self.gate.embed_admitted(self._memory.embedder, [receipt])
        return receipt

    def reject(self, item: str | HeldWrite, *, reason: str = "") -> Receipt:
        """Discard a held write (the owner's decision); leaves a receipt."""
        return self.gate.owner.reject(held_id_of(item), reason=as_text(reason, "reason"))

    def retract(self, fact: str | Fact, *, reason: str) -> Receipt:
        """Say a fact was never true; belief in it ends now, nothing is deleted."""
        required_reason(reason, "A retraction needs a reason; say why the fact was never true.")
        return self.gate.owner.retract(fact_id_of(fact), reason=reason)

    def confirm(self, fact: str | Fact, *, reason: str) -> Receipt:
        """The owner says a flagged fact stands on its own: its basis-ended flags no longer
        count from now on (a read as of an earlier time still shows them). Leaves a receipt
        (outcome ``cleared``); raises :class:`~doxa.NotFound` for a fact that is not live
        and flagged, :class:`~doxa.InvalidInput` without a reason."""
        required_reason(reason, "Confirming a fact needs a reason; say what you checked.")
        return self.gate.owner.confirm(fact_id_of(fact), reason=reason)

    def erase(self, target: str | Fact, *, reason: str, wait: bool = False) -> Receipt:
        """Erase a fact (an id or a :class:`Fact`), or everything about a subject (an IRI).

        When this returns, the content has left every graph, read and export, a tombstone
        keeps the id, time, who, why and a salted hash (so the same content written again
        raises :class:`~doxa.ErasedContent`), and the erasure is journaled. Its bytes leave
        the store's files and backups in the background, while reads and writes go on
        (``memory.admin.purge`` waits for that; ``memory.close`` does too). With ``wait``,
        this call waits for it. Erasing a target again finishes an interrupted purge and
        returns the first erasure's receipt. Erasure is final.
        """
        return self.erase_many([target], reason=reason, wait=wait)[0]

    def erase_many(
        self, targets: Sequence[str | Fact], *, reason: str, wait: bool = False
    ) -> list[Receipt]:
        """Erase several facts and subjects, one receipt each; one purge makes them all real.

        Targets are erased in order; if one is not found, :class:`~doxa.NotFound` names it
        after the erasures before it have been made (a fact an earlier target already took is
        skipped). A target erased before (a retry) gives back its first receipt.
        """
        required_reason(reason, "An erasure needs a reason; say why the content must go.")
        if isinstance(targets, str | Fact):
            raise InvalidInput("erase_many takes a list of targets; erase takes one.")
        if not isinstance(self.store, Compactable):  # the receipt says what doxa could not do
            reason = f"{reason} ({SERVER_FILES_NOT_PURGED})"
        receipts: list[Receipt] = []
        claims: list[URIRef] = []
        erased: list[Receipt] = []
        try:
            for target in targets:
                fact_id: str | None = None
                subject: URIRef | None = None
                if isinstance(target, Fact) or (isinstance(target, str) and ID.fullmatch(target)):
                    fact_id = fact_id_of(target)
                    key = self.scope.fact(fact_id)
                    if key in claims:
                        continue
                else:
                    key = subject = as_iri(target, "subject")
                try:
                    receipt = self.gate.erasing.erase(
                        fact_id=fact_id, subject=subject, reason=reason, actor=self._owner
                    )
                except NotFound:  # erased before: a retry, or another thread just now
                    earlier = self._erased_before(key)
                    if earlier is None:
                        raise
                    receipt = earlier
                receipts.append(receipt)
                if receipt not in erased and receipt.outcome is Outcome.ERASED:
                    erased.append(receipt)
                claims += [self.scope.fact(t) for t in receipt.targets]
        finally:
            if receipts:
                # no cache keeps the erased words: the scope's word index is read afresh (the
                # erasure's change alone would only reach it at the next recall)
                cache = cache_of(self.store)
                if cache is not None:
                    cache.reset(self.scope.search)
                with self.store.lock:  # an audit's inferences may restate what was erased
                    clear_inferred(self.store, self.scope)
                purge_later(self.store, self.clock, self.scope, erased, wait=wait)
                forget_terms()  # nor in this process's caches of converted terms
        return receipts

    @property
    def _owner(self) -> URIRef:
        return self.scope.standpoint("owner")

    def _erased_before(self, key: URIRef) -> Receipt | None:
        """The erasure receipt whose tombstone ends ``key`` (a node) or keeps its subject
        hash; None when it was never erased."""
        keys: list[object] = [key]
        salt_value = salt(self.store, self.scope)
        if salt_value is not None:
            keys.append(Literal(subject_hash(salt_value, key)))
        for value in keys:
            rows = self.store.select(
                query("erasure_receipt"),
                dataset=only(self.scope.log),
                bindings={"key": value},  # type: ignore[dict-item]
            )
            if rows:
                local = self.scope.local_id(URIRef(str(rows[0]["receipt"])))
                for receipt in self._memory.receipts():
                    if receipt.id == local:
                        return receipt
        return None

    def quarantined(self) -> list[Fact]:
        """Writes judged to be outside text acting as an instruction, oldest first.

        Only the owner's review sees them: no ordinary read, export or SPARQL query does.
        """
        rows = self.store.select(
            query("quarantined"), dataset=Dataset(default=(self.scope.quarantine,))
        )
        iris = [URIRef(str(row["claim"])) for row in rows]
        found = load_facts(self.store, self.scope, Dataset(default=(self.scope.quarantine,)), iris)
        return [dataclass_replace(f, status=FactStatus.QUARANTINED) for f in found]

    def release(self, fact: str | Fact, *, reason: str) -> Receipt:
        """The owner says a quarantined write is no instruction: it is judged as a quotation.

        It keeps its authority and source; the receipt records the owner's release.
        """
        required_reason(reason, "Releasing needs a reason; say why the text is harmless.")
        receipt = self.gate.owner.release(fact_id_of(fact), reason=reason)
        self.gate.embed_admitted(self._memory.embedder, [receipt])
        return receipt

    def discard(self, fact: str | Fact, *, reason: str = "") -> Receipt:
        """The owner throws a quarantined write away; its receipt stays."""
        as_text(reason, "reason")
        return self.gate.owner.discard(fact_id_of(fact), reason=reason)

    def rescreen(self, *, reason: str = "") -> list[Receipt]:
        """Screen every live outside fact (external, tool) again with the current
        instruction screen; those it now calls instructions move into quarantine.

        Each move leaves an owner's receipt (outcome ``quarantined``) naming the attack
        family and the span; nothing is deleted, and :meth:`release` brings a fact back
        (judged again as a quotation). The owner's and the agent's own words are never
        screened. Idempotent: a second run returns ``[]``.
        """
        as_text(reason, "reason")
        return self.gate.owner.rescreen(reason=reason)

    def grant(self, kind: str, *, reason: str = "granted by the owner") -> Receipt:
        """Let the judge close facts of ``kind`` without asking (recorded as a receipt)."""
        as_text(reason, "reason")
        return self.gate.owner.grant(check_name(kind, "kind"), granted=True, reason=reason)

    def revoke(self, kind: str, *, reason: str = "revoked by the owner") -> Receipt:
        """Take back a grant: closings of ``kind`` wait for the owner again."""
        as_text(reason, "reason")
        return self.gate.owner.grant(check_name(kind, "kind"), granted=False, reason=reason)

    def closing_earned(self, kind: str) -> bool:
        """Whether the judge may close facts of ``kind`` on its own right now."""
        return self.gate.closing_earned(check_name(kind, "kind"))

    def closing_refusal(self, kind: str) -> str | None:
        """Why the judge may not close facts of ``kind`` on its own, or None if it may."""
        return self.gate.closing_refusal(check_name(kind, "kind"))

    def ledger(self) -> list[Standing]:
        """The judge's record with the owner per kind (see :class:`~doxa.Standing`)."""
        return standings(self.store, self.scope, self.gate.policy)

    def alarms(self, *, include_cleared: bool = False) -> list[Alarm]:
        """Alarms raised in this scope, oldest first; open ones only unless asked."""
        found = alarms(self.store, self.scope)
        return found if include_cleared else [a for a in found if a.open]

    def clear_alarm(self, alarm: str | Alarm, *, reason: str) -> Receipt:
        """The owner clears an alarm so automatic closing may resume; leaves a receipt."""
        required_reason(reason, "Clearing an alarm needs a reason; say what you checked.")
        alarm_id = checked_id(alarm.id if isinstance(alarm, Alarm) else alarm, "alarm")
        return self.gate.owner.clear_alarm(alarm_id, reason=reason)
