"""Receipts: one per decision, hash-chained so an auditor can verify the log from an export.

A receipt's hash is SHA-256 over the sorted N-Triples lines of its own triples, leaving out
``doxa:receiptHash`` itself. Each receipt names the previous one and carries its hash, so
changing, removing or reordering any receipt breaks every hash after it.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.errors import ChainBroken, NotFound, StoreError
from doxa.model import Outcome, Relation
from doxa.store.convert import ntriples, read_quads
from doxa.terms import dt_literal
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = [
    "ChainHead",
    "ReceiptDraft",
    "content_digest",
    "receipt_triples",
    "verify_chain",
    "verify_export",
]

Triple = tuple[Node, Node, Node]


@dataclass(frozen=True)
class ChainHead:
    """The latest receipt of a scope: where the next one links to."""

    receipt: URIRef | None
    receipt_hash: str
    sequence: int


@dataclass(frozen=True)
class ReceiptDraft:
    """What a decision records, before it is numbered and chained."""

    outcome: Outcome
    reason: str
    judge: str
    judge_version: str
    relation: Relation | None = None
    decides: URIRef | None = None
    targets: tuple[URIRef, ...] = ()
    consulted: tuple[URIRef, ...] = ()
    input_digest: str = ""
    content_digest: str = ""
    actor: URIRef | None = None
    grants_kind: str | None = None


def digest(lines: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()


def content_digest(triples: Iterable[Triple]) -> str:
    """SHA-256 over the sorted N-Triples lines of triples (literals as the store keeps them)."""
    return digest(f"{ntriples(s)} {ntriples(p)} {ntriples(o)} ." for s, p, o in triples)


def receipt_triples(
    iri: URIRef, draft: ReceiptDraft, head: ChainHead, recorded_at: datetime
) -> tuple[list[Triple], str]:
    """The triples of a receipt chained after ``head``, and the receipt's hash."""
    triples: list[Triple] = [
        (iri, RDF.type, DOXA.Receipt),
        (iri, DOXA.sequence, Literal(head.sequence + 1)),
        (iri, DOXA.outcome, draft.outcome.iri),
        (iri, DOXA.recordedAt, dt_literal(recorded_at)),
        (iri, DOXA.judge, Literal(draft.judge)),
        (iri, DOXA.judgeVersion, Literal(draft.judge_version)),
        (iri, DOXA.reason, Literal(draft.reason)),
        (iri, DOXA.previousHash, Literal(head.receipt_hash)),
    ]
    if head.receipt is not None:
        triples.append((iri, DOXA.previous, head.receipt))
    if draft.relation is not None:
        triples.append((iri, DOXA.relation, draft.relation.iri))
    if draft.decides is not None:
        triples.append((iri, DOXA.decides, draft.decides))
    triples.extend((iri, DOXA.target, t) for t in draft.targets)
    triples.extend((iri, DOXA.consulted, c) for c in draft.consulted)
    if draft.input_digest:
        triples.append((iri, DOXA.inputDigest, Literal(draft.input_digest)))
    if draft.content_digest:
        triples.append((iri, DOXA.contentDigest, Literal(draft.content_digest)))
    if draft.actor is not None:
        triples.append((iri, PROV.wasAttributedTo, draft.actor))
    if draft.grants_kind is not None:
        triples.append((iri, DOXA.grantsKind, Literal(draft.grants_kind)))
    receipt_hash = content_digest(triples)
    triples.append((iri, DOXA.receiptHash, Literal(receipt_hash)))
    return triples, receipt_hash


def verify_chain(quads: Iterable[tuple[Node, Node, Node, Node]]) -> dict[str, int]:
    """Check every scope's receipt chain and every admitted claim's content digest.

    Takes the quads of an export (or of a live store); returns the number of receipts
    verified per log graph. Raises :class:`ChainBroken` naming the first receipt that fails.
    """
    receipts: dict[Node, set[Node]] = defaultdict(set)
    by_node: dict[tuple[Node, Node], list[Triple]] = defaultdict(list)
    claim_graph: dict[Node, Node] = {}
    heads: dict[Node, Node] = {}
    for s, p, o, g in quads:
        by_node[(g, s)].append((s, p, o))
        if p == DOXA.head:
            heads[g] = o
        elif p == RDF.type and o == DOXA.Receipt:
            receipts[g].add(s)
        elif p == RDF.type and o == DOXA.Claim:
            claim_graph[s] = g
    claims = {s: by_node[(g, s)] for s, g in claim_graph.items()}
    verified: dict[str, int] = {}
    for log, members in receipts.items():
        subjects = {r: by_node[(log, r)] for r in members}
        chain = sorted(members, key=lambda r: _int(_value(subjects[r], DOXA.sequence)))
        previous_hash = ""
        previous: Node | None = None
        for position, receipt in enumerate(chain, start=1):
            triples = subjects[receipt]
            name = str(receipt)
            if _int(_value(triples, DOXA.sequence)) != position:
                raise ChainBroken(
                    f"Receipt {name} has sequence {_value(triples, DOXA.sequence)}, expected "
                    f"{position}: a receipt is missing or was renumbered."
                )
            stated = str(_value(triples, DOXA.receiptHash) or "")
            body = [t for t in triples if t[1] != DOXA.receiptHash]
            if content_digest(body) != stated:
                raise ChainBroken(
                    f"Receipt {name} does not match its hash: its triples were altered."
                )
            if str(_value(triples, DOXA.previousHash) or "") != previous_hash:
                raise ChainBroken(
                    f"Receipt {name} does not link to the receipt before it: the chain was "
                    "cut or reordered."
                )
            if _value(triples, DOXA.previous) != previous:
                raise ChainBroken(f"Receipt {name} names the wrong previous receipt.")
            _check_content(receipt, triples, claims)
            previous_hash, previous = stated, receipt
        if heads.get(log) not in (None, previous):
            raise ChainBroken(f"The head of {log} is not its latest receipt: receipts were cut.")
        verified[str(log)] = len(chain)
    return verified


def _check_content(receipt: Node, triples: list[Triple], claims: dict[Node, list[Triple]]) -> None:
    expected = _value(triples, DOXA.contentDigest)
    decided = _value(triples, DOXA.decides)
    if expected is None or decided is None or decided not in claims:
        return  # not an admission, or the claim was erased since
    if content_digest(claims[decided]) != str(expected):
        raise ChainBroken(
            f"Claim {decided} does not match the digest its receipt {receipt} recorded: "
            "the claim was altered after it was admitted."
        )


def _int(node: Node | None) -> int:
    try:
        return int(str(node))
    except ValueError:
        return 0


def _value(triples: list[Triple], predicate: URIRef) -> Node | None:
    for _, p, o in triples:
        if p == predicate:
            return o
    return None


def verify_export(path: str | Path) -> dict[str, int]:
    """Verify the receipt chains in an N-Quads export file, from the file alone.

    Returns the number of receipts verified per log graph; raises :class:`ChainBroken`.
    """
    file = Path(path)
    if not file.is_file():
        raise NotFound(f"There is no export file at {file}; check the path.")
    try:
        data = file.read_bytes()
    except OSError as error:
        raise StoreError(f"Cannot read {file}: {error.strerror}.") from None
    form = "trig" if file.suffix == ".trig" else "nquads"
    # receipts live in named graphs only: a triple in the default graph belongs to no log
    return verify_chain(
        (s, p, o, g)
        for s, p, o, g in read_quads(data, format=form, source=str(file))
        if g is not None
    )
