"""Receipts: one per decision, hash-chained so an auditor can verify the log from an export.

A receipt's hash is SHA-256 over the sorted, distinct N-Triples lines of its own triples,
leaving out ``doxa:receiptHash`` itself: a set, as the store keeps it (a write naming a
source twice, or its turn among its sources, stores each triple once). Each receipt names
the previous one and carries its hash, so changing, removing or reordering any receipt breaks
every hash after it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.model import Outcome, Relation
from doxa.reads.ledger import closing_minute
from doxa.scope import Role, graph_role
from doxa.store.convert import ntriples
from doxa.terms import dt_literal
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = [
    "ChainHead",
    "Held",
    "ReceiptDraft",
    "Triple",
    "content_digest",
    "covered",
    "held_digest",
    "held_nodes",
    "name_entry",
    "produced_digest",
    "quad_digest",
    "read_name_entry",
    "receipt_triples",
    "work_area",
]

Triple = tuple[Node, Node, Node]

_COVERED = frozenset({Role.TOPIC, Role.RULES, Role.LOG})
_WORK_AREAS = frozenset({Role.PENDING, Role.QUARANTINE})


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
    produced: tuple[URIRef, ...] = ()
    #: the nodes the decision wrote into or took out of pending or quarantine, as it left them
    held: Held | None = None
    #: each vocabulary node the decision wrote, as it left it (:func:`name_entry`)
    names: tuple[str, ...] = ()
    #: whether ``names`` covers every node of the vocabulary (the scope's first name receipt)
    name_baseline: bool = False
    actor: URIRef | None = None
    grants_kind: str | None = None
    kind: str | None = None  # the kind of memory the decided write belongs to
    scores_judge: str | None = None  # "name/version" this decision scores in the ledger
    agreements: int = 0
    decisions: int = 0
    origins: tuple[URIRef, ...] = ()  # sources, turn and writer of the write, to spot bursts
    clears: URIRef | None = None


def digest(lines: Iterable[str]) -> str:
    """SHA-256 over the distinct lines, sorted, joined by newlines.

    The store keeps a set of quads, so a line given twice counts once. For distinct lines
    this is exactly the digest receipts have always used, so older receipts still verify.

    >>> digest(["b", "a", "b"]) == digest(["a", "b"])
    True
    """
    return hashlib.sha256("\n".join(sorted(set(lines))).encode("utf-8")).hexdigest()


def content_digest(triples: Iterable[Triple]) -> str:
    """SHA-256 over the sorted, distinct N-Triples lines of triples (as the store keeps them)."""
    return digest(f"{ntriples(s)} {ntriples(p)} {ntriples(o)} ." for s, p, o in triples)


def quad_digest(quads: Iterable[tuple[Node, Node, Node, Node]]) -> str:
    """SHA-256 over the sorted, distinct N-Quads lines of quads."""
    return digest(
        f"{ntriples(s)} {ntriples(p)} {ntriples(o)} {ntriples(g)} ." for s, p, o, g in quads
    )


def produced_digest(node_digests: Mapping[Node, str | None]) -> str:
    """A receipt's content digest: over each produced node's own quad digest.

    One digest per node lets an erased node be accounted for by the digest its tombstone
    kept, while every other node of the receipt is still checked against its quads.
    """
    return digest(f"{ntriples(node)} {value}" for node, value in node_digests.items())


def covered(graph: Node) -> bool:
    """Whether a graph's content is covered by receipts: topics, rules and the log.

    Derived graphs (current, search) are rebuildable; pending and quarantine are work areas
    whose content is covered once admitted.
    """
    return graph_role(graph) in _COVERED


def work_area(graph: Node) -> bool:
    """Whether a graph is a work area: pending (held writes) or quarantine.

    What waits there is not yet part of the record, but a later decision reads it (an
    approval admits the held write as it stands), so every decision that writes into a work
    area or takes a node out of one says so in its receipt (:func:`held_nodes`).
    """
    return graph_role(graph) in _WORK_AREAS


Quads = Iterable[tuple[Node, Node, Node, Node]]


@dataclass(frozen=True)
class Held:
    """What a decision leaves in the work areas: the nodes it touched there, and their
    digests in pending and in quarantine (each over every node, "" when none)."""

    nodes: tuple[URIRef, ...] = ()
    pending: str = ""
    quarantine: str = ""


def held_nodes(insert: Quads, delete: Quads = ()) -> Held:
    """The nodes a decision's change writes into or takes out of a work area, with their
    digests there as the decision leaves them (as :func:`produced_digest` digests produced
    nodes), one for pending and one for the quarantine, which an ordinary export leaves out.

    A node is always written whole (a hold, a re-hold, a move) or taken out whole (an
    approval, a rejection, an erasure), so what the change inserts is what the node holds
    afterwards, and a node it only deletes holds nothing: the digests need no read.
    """
    nodes: set[URIRef] = set()
    inserted: list[tuple[Node, Node, Node, Node]] = []
    for quad in delete:
        if work_area(quad[3]) and isinstance(quad[0], URIRef):
            nodes.add(quad[0])
    for quad in insert:
        if work_area(quad[3]) and isinstance(quad[0], URIRef):
            nodes.add(quad[0])
            inserted.append(quad)
    if not nodes:
        return Held()
    ordered = tuple(sorted(nodes, key=str))
    return Held(
        ordered,
        held_digest(ordered, [q for q in inserted if graph_role(q[3]) is Role.PENDING]),
        held_digest(ordered, [q for q in inserted if graph_role(q[3]) is Role.QUARANTINE]),
    )


def held_digest(nodes: Iterable[Node], quads: Quads) -> str:
    """The digest of ``nodes``' quads among ``quads`` (one work area's), a node with none
    counting as empty: what a receipt's ``doxa:heldDigest`` (pending) or
    ``doxa:quarantineDigest`` records and what verify recomputes."""
    found: dict[Node, list[tuple[Node, Node, Node, Node]]] = {node: [] for node in nodes}
    for quad in quads:
        if quad[0] in found:
            found[quad[0]].append(quad)
    digests: dict[Node, str | None] = {node: quad_digest(q) for node, q in found.items()}
    return produced_digest(digests)


def name_entry(node: URIRef, quads: Quads) -> str:
    """A receipt's ``doxa:nameDigest`` for one vocabulary node: its IRI, a space and the
    digest of its quads there (one entry per node, so an erasure can take off one name's)."""
    return f"{node} {quad_digest(quads)}"


def read_name_entry(entry: str) -> tuple[str, str] | None:
    """The node IRI and digest of a ``doxa:nameDigest`` entry (None: not one)."""
    node, _, digest = entry.rpartition(" ")
    return (node, digest) if node and len(digest) == 64 else None


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
    triples.extend((iri, DOXA.produced, node) for node in draft.produced)
    if draft.held is not None:
        triples.extend((iri, DOXA.holds, node) for node in draft.held.nodes)
        triples.append((iri, DOXA.heldDigest, Literal(draft.held.pending)))
        triples.append((iri, DOXA.quarantineDigest, Literal(draft.held.quarantine)))
    triples.extend((iri, DOXA.nameDigest, Literal(entry)) for entry in draft.names)
    if draft.name_baseline:
        triples.append((iri, DOXA.nameBaseline, Literal(True)))
    if draft.actor is not None:
        triples.append((iri, PROV.wasAttributedTo, draft.actor))
    if draft.grants_kind is not None:
        triples.append((iri, DOXA.grantsKind, Literal(draft.grants_kind)))
    if draft.kind is not None:
        triples.append((iri, DOXA.kind, Literal(draft.kind)))
    if draft.scores_judge is not None:
        triples += [
            (iri, DOXA.scoresJudge, Literal(draft.scores_judge)),
            (iri, DOXA.agreements, Literal(draft.agreements)),
            (iri, DOXA.decisions, Literal(draft.decisions)),
        ]
    triples.extend((iri, DOXA.origin, origin) for origin in draft.origins)
    if draft.outcome is Outcome.ADMITTED and draft.relation is not None and draft.relation.closes:
        # the key the burst count finds automatic closings by (reads/ledger.py)
        triples.append((iri, DOXA.closingMinute, closing_minute(recorded_at)))
    if draft.clears is not None:
        triples.append((iri, DOXA.clears, draft.clears))
    receipt_hash = content_digest(triples)
    triples.append((iri, DOXA.receiptHash, Literal(receipt_hash)))
    return triples, receipt_hash
