"""Erasing: the owner's one decision that takes content out of the store for good.

:mod:`doxa.gate.erasure` works out *what* an erasure deletes (its plan) and the salted
hashes that remember it; this module carries the erasure out as a decision: the deletes,
origins only the erased writes used leaving the receipts, one tombstone per erased node and
one receipt. It also refuses a write that brings erased content back.
"""

from __future__ import annotations

from typing import Any

from rdflib import Literal, URIRef

from doxa.errors import ErasedContent, Listing, NotFound
from doxa.gate.basis import Ended
from doxa.gate.deciding import Decider
from doxa.gate.erasure import (
    claim_hashes,
    content_hashes,
    erasure_plan,
    remember_salt,
    salt,
    strip_origins,
    subject_hash,
)
from doxa.gate.receipts import ReceiptDraft
from doxa.gate.record import Decision
from doxa.model import Outcome, Proposal, Receipt
from doxa.ontology.closure import property_table
from doxa.resources import query
from doxa.scope import new_id
from doxa.store import Dataset
from doxa.terms import dt_literal, instant
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["Erasing", "Tombstone"]

#: one erased node: its IRI, the digest of its content, the salted hashes of its values
Tombstone = tuple[URIRef, str | None, list[str]]


class Erasing:
    """Erasure decisions for one scope of one store, and the check that keeps them final."""

    def __init__(self, decider: Decider) -> None:
        self.decider = decider
        self.store = decider.store
        self.scope = decider.scope
        self.record = decider.record

    def refuse_erased(self, proposal: Proposal) -> None:
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

        def step(decision: Decision) -> Receipt:
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
                    f"There is no {what} to erase in scope {self.scope.name!r}",
                    listings=(Listing.ENDED_FACTS, Listing.HELD, Listing.QUARANTINE),
                    lead="list what there is with",
                )
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
            tombstones: list[Tombstone] = []
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

        return self.decider.decide(step)

    def reapply_erasure(self, record: dict[str, Any]) -> Receipt:
        """Apply a journaled erasure again (to a restored backup): delete whatever of its
        nodes the backup still holds and write its tombstones, with a new receipt."""

        def step(decision: Decision) -> Receipt:
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
            tombstones: list[Tombstone] = [
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

        return self.decider.decide(step)

    def _strip_origins(self, decision: Decision) -> None:
        """Origins only the erased writes used and their input digests leave the receipts
        (reseals say so); names only they used leave the vocabulary."""
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
        tombstones: list[Tombstone],
        claims: list[URIRef],
        reason: str,
        actor: URIRef,
        salt_value: str,
    ) -> Receipt:
        """Write one erasure tombstone per node and commit them with one receipt.

        The journal line carries the tombstones (never content), so a restored backup gets
        them back (see :meth:`reapply_erasure`).
        """
        now = self.decider.clock.now()
        log = self.scope.log
        erased = set(claims)
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
            if node in erased:  # what rested on it is flagged, naming only this tombstone
                decision.ended.append(Ended(node, event, "erased"))
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
