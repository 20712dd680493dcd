"""Verifying the receipt chain: from an export file alone, or from a live store's quads.

The gate writes the chain (:mod:`doxa.gate.receipts`); an auditor checks it here, with
nothing but the quads: every receipt's hash and link, and that receipts account for every
claim and event the graphs hold.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.errors import ChainBroken, InvalidInput, NotFound, StoreError
from doxa.gate.basis import basis_entries, question
from doxa.gate.index import COPIED, FRONT, PAST, STEM, TERM, claim_stems
from doxa.gate.receipts import (
    Triple,
    content_digest,
    covered,
    held_digest,
    produced_digest,
    quad_digest,
    read_name_entry,
)
from doxa.judges.patterns import head_keys
from doxa.judges.sentences import frame_key
from doxa.model import Outcome
from doxa.scope import Role, graph_role
from doxa.store.convert import ntriples, read_quads
from doxa.terms import instant
from doxa.text import DEFAULT_LANGUAGE, LANGUAGES, text_key, unconfused, words
from doxa.vocabulary import DOXA, RDF

__all__ = [
    "LogHead",
    "check_heads",
    "export_heads",
    "verify_chain",
    "verify_export",
    "verify_heads",
]

#: ``rdf:type``, read once: rdflib builds it anew on each attribute read (a few per quad)
_TYPE = RDF.type


@dataclass(frozen=True)
class LogHead:
    """Where a verified log ends: how many receipts it holds and the last one's hash.

    A chain verifies from its first receipt on, so a log cut after its Nth receipt verifies
    as a shorter log; only a head known from elsewhere (printed by ``doxa verify`` when the
    export was made, kept by the auditor) tells the cut from the whole."""

    receipts: int
    hash: str  # the latest receipt's doxa:receiptHash; "" for an empty log


def verify_chain(
    quads: Iterable[tuple[Node, Node, Node, Node]], *, quarantine: bool | None = None
) -> dict[str, int]:
    """Check every scope's receipt chain and that receipts account for every claim and event.

    Takes the quads of an export (or of a live store); returns the number of receipts
    verified per log graph. Raises :class:`ChainBroken` naming the first thing that fails:
    a receipt altered, missing or out of order; a claim or event altered, moved or removed
    after its receipt was written; or a claim or event that no receipt produced.
    """
    return {log: head.receipts for log, head in verify_heads(quads, quarantine=quarantine).items()}


def verify_heads(
    quads: Iterable[tuple[Node, Node, Node, Node]], *, quarantine: bool | None = None
) -> dict[str, LogHead]:
    """:func:`verify_chain`, returning each log's :class:`LogHead` (count and last hash).

    ``quarantine`` says whether the quads show the quarantine; None reads it off the quads:
    an audit export's marker, or any quad in a quarantine graph (an ordinary export leaves
    the quarantine out, and a store loaded from one has none).
    """
    by_node: dict[tuple[Node, Node], list[Triple]] = defaultdict(list)
    content: dict[Node, list[tuple[Node, Node, Node, Node]]] = defaultdict(list)
    receipts: dict[Node, set[Node]] = defaultdict(set)
    accountable: set[Node] = set()
    heads: dict[Node, Node] = {}
    derived: list[tuple[Node, Node, Node, Node]] = []
    erased: dict[Node, Node] = {}  # erasure event -> the node it erased
    kept: dict[Node, str] = {}  # erasure event -> the digest it kept
    waiting: dict[Node, list[tuple[Node, Node, Node, Node]]] = defaultdict(list)
    marked = False  # an audit export: it shows the quarantine
    foreign: list[tuple[Node, Node, Node, Node]] = []  # in a graph no doxa writer writes
    names: dict[tuple[Node, Node], list[tuple[Node, Node, Node, Node]]] = defaultdict(list)
    named: dict[tuple[Node, Node], tuple[Node, str]] = {}  # the latest entry of each name
    baselined: set[Node] = set()  # vocabularies whose every name must have an entry
    for s, p, o, g in quads:
        by_node[(g, s)].append((s, p, o))
        role = graph_role(g)
        if role in _WORK_AREAS:
            waiting[s].append((s, p, o, g))
        elif role is Role.VOCABULARY:
            names[(g, s)].append((s, p, o, g))
        elif role in _DERIVED:
            derived.append((s, p, o, g))
        elif role is Role.EXPORT and s == g and (p, o) == (_TYPE, DOXA.AuditExport):
            marked = True  # an audit export: it shows the quarantine
        elif role is None or role is Role.EXPORT:
            foreign.append((s, p, o, g))
        if covered(g):
            content[s].append((s, p, o, g))
            if p == DOXA.ends:
                erased[s] = o
            elif p == DOXA.contentDigest:
                kept[s] = str(o)
        if p == DOXA.head:
            heads[g] = o
        elif p == _TYPE and o == DOXA.Receipt:
            receipts[g].add(s)
        elif p == _TYPE and o in _ACCOUNTABLE and covered(g):
            accountable.add(s)
    if foreign:
        s, p, o, g = min(foreign, key=lambda q: tuple(ntriples(t) for t in q))
        raise ChainBroken(
            f"{ntriples(s)} {ntriples(p)} {ntriples(o)} is in graph {g}, which doxa never "
            "writes (an export holds its scopes' graphs and, for an audit, one marker quad): "
            "it was added after the export; ask for the export again."
        )
    erasures = {
        q[0] for found in content.values() for q in found if (q[1], q[2]) == (_TYPE, DOXA.Erasure)
    }
    # what each erased node's quads digested to, as its tombstone kept it
    tombstones = {
        node: kept[event] for event, node in erased.items() if event in kept and event in erasures
    }
    resealed = _reseals(content, receipts, by_node)
    verified: dict[str, LogHead] = {}
    holders = _Holders()
    produced_anywhere: set[Node] = set()
    digested: set[Node] = set()  # produced by a receipt whose content digest covers them
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
            # an erasure that took origins off this receipt resealed it with the new digest
            if content_digest(body) != resealed.get(receipt, stated):
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
            in_log = graph_role(log) is Role.LOG  # a "receipt" elsewhere vouches for nothing
            if in_log:
                holders.read(receipt, triples)
                _read_names(log, receipt, triples, named)
                if _value(triples, DOXA.nameBaseline) == Literal(True):
                    baselined.add(_vocabulary_of(log))
            produced = [o for _, p, o in triples if p == DOXA.produced]
            produced_anywhere.update(produced)
            expected = _value(triples, DOXA.contentDigest)
            if expected is not None and in_log:
                digested.update(produced)  # a "receipt" outside a log vouches for nothing
            if expected is not None:
                digests = {
                    node: quad_digest(content[node])
                    if node in content
                    else tombstones.get(node, "")
                    for node in produced
                }
                if None in digests.values() or produced_digest(digests) != str(expected):
                    raise ChainBroken(
                        f"What receipt {name} admitted does not match the digest it recorded: "
                        "a claim or event was altered, moved or removed after it was written."
                    )
            previous_hash, previous = stated, receipt
        if heads.get(log) not in (None, previous):
            raise ChainBroken(f"The head of {log} is not its latest receipt: receipts were cut.")
        if graph_role(log) is Role.LOG and chain:
            _check_bookkeeping(log, heads, by_node, subjects)
        verified[str(log)] = LogHead(len(chain), previous_hash)
    _check_derived(derived, content)
    unaccounted = sorted(str(n) for n in accountable - produced_anywhere)
    if unaccounted:
        more = f" (and {len(unaccounted) - 1} more)" if len(unaccounted) > 1 else ""
        raise ChainBroken(
            f"{unaccounted[0]} is in the record but no receipt produced it{more}: "
            "it was written past the gate."
        )
    _check_strays(content, receipts, digested)
    if quarantine is None:
        quarantine = marked or any(
            graph_role(q[3]) is Role.QUARANTINE for found in waiting.values() for q in found
        )
    holders.check(waiting, quarantine=quarantine)
    _check_names(names, named, baselined)
    return verified


_WORK_AREAS = frozenset({Role.PENDING, Role.QUARANTINE})
_DERIVED = frozenset({Role.SEARCH, Role.CURRENT})


def _read_names(
    log: Node,
    receipt: Node,
    triples: list[Triple],
    named: dict[tuple[Node, Node], tuple[Node, str]],
) -> None:
    """Note each vocabulary name a receipt digested (``doxa:nameDigest``); read in chain
    order, the latest entry of a name wins."""
    vocabulary = _vocabulary_of(log)
    for _, p, o in triples:
        if p == DOXA.nameDigest and (entry := read_name_entry(str(o))) is not None:
            named[(vocabulary, URIRef(entry[0]))] = (receipt, entry[1])


def _vocabulary_of(log: Node) -> URIRef:
    """The vocabulary graph of the scope whose log is ``log``."""
    return URIRef(str(log)[: -len("/log")] + "/vocabulary")


def _check_names(
    names: dict[tuple[Node, Node], list[tuple[Node, Node, Node, Node]]],
    named: dict[tuple[Node, Node], tuple[Node, str]],
    baselined: set[Node],
) -> None:
    """Each vocabulary name must be as the latest receipt that wrote it left it.

    A name decides what later writes' names resolve to (a label changed from "Bob" to
    "Robert" would send the next "Bob" elsewhere), so a name a receipt digested that was
    altered, added to, cut or deleted fails. Once a scope has its names' baseline (a receipt
    that digested every name, ``doxa:nameBaseline``), a name no receipt digested was added
    past the gate and fails too. Before it, such a name is accepted: names written before
    name digests existed have none (docs/decisions.md)."""
    for graph, node in sorted(names, key=str):
        if graph in baselined and (graph, node) not in named:
            raise ChainBroken(
                f"The name {ntriples(node)} in {graph} was written by no receipt (the "
                "scope's receipts digest every name since its baseline): it was added past "
                "the gate; restore the scope from a backup or an export that verifies."
            )
    for (graph, node), (receipt, digest) in sorted(named.items(), key=str):
        if quad_digest(names.get((graph, node), [])) != digest:
            raise ChainBroken(
                f"The name {ntriples(node)} in {graph} is not what receipt {receipt} left: "
                "the vocabulary was altered after the decision that wrote it; restore the "
                "scope from a backup or an export that verifies."
            )


class _Holders:
    """The receipts that wrote into or took nodes out of the work areas (pending,
    quarantine), read in chain order, and the check that what waits there is what the
    latest of them left.

    A receipt names each node it touched there (``doxa:holds``) and digests the nodes'
    quads as it left them, in pending (``doxa:heldDigest``) and in the quarantine
    (``doxa:quarantineDigest``; a node taken out digests to nothing). The latest receipt
    holding a node decides it: the quads of all its nodes must match its digests, so a
    waiting write altered, added to, cut or deleted fails, and a write that left the work
    area (approved, rejected, moved, erased) must stay gone. The quarantine is checked where
    it is shown (the live store, an audit export); an ordinary export leaves it out. An
    erasure takes the digests off the receipts that held the erased write (they would
    confirm a guess of the words); the erasure's own receipt then holds those nodes, gone.
    Receipts written before held digests existed hold nothing: a held or quarantined write
    such a receipt decided is accepted as it waits, and anything else waiting fails.
    """

    _LEGACY = frozenset({Outcome.HELD.iri, Outcome.QUARANTINED.iri})

    def __init__(self) -> None:
        self.latest: dict[Node, Node] = {}  # node -> the latest receipt holding it
        self.nodes: dict[Node, list[Node]] = {}  # receipt -> the nodes it holds
        #: receipt -> its digests in pending and quarantine (gone once erased)
        self.digests: dict[Node, tuple[str | None, str | None]] = {}
        self.legacy: set[Node] = set()  # what pre-digest hold receipts decided

    def read(self, receipt: Node, triples: list[Triple]) -> None:
        nodes = [o for _, p, o in triples if p == DOXA.holds]
        if not nodes:
            decides = _value(triples, DOXA.decides)
            if decides is not None and _value(triples, DOXA.outcome) in self._LEGACY:
                self.legacy.add(decides)
            return
        self.nodes[receipt] = nodes
        pending, quarantine = (_value(triples, p) for p in (DOXA.heldDigest, DOXA.quarantineDigest))
        self.digests[receipt] = (
            None if pending is None else str(pending),
            None if quarantine is None else str(quarantine),
        )
        for node in nodes:
            self.latest[node] = receipt

    def check(
        self, waiting: dict[Node, list[tuple[Node, Node, Node, Node]]], *, quarantine: bool
    ) -> None:
        """Check what waits; ``quarantine``: whether these quads show the quarantine."""
        for node in sorted(waiting, key=str):
            if node not in self.latest and not self._legacy(node, waiting[node]):
                q = waiting[node][0]
                raise ChainBroken(
                    f"{ntriples(node)} waits in {q[3]} but no receipt held it: it was written "
                    "past the gate; restore the scope from a backup or an export that "
                    "verifies."
                )

        def among(nodes: list[Node], area: Role) -> list[tuple[Node, Node, Node, Node]]:
            """The quads of ``nodes`` in one work area (each node's, read off ``waiting``)."""
            return [q for n in nodes for q in waiting.get(n, ()) if graph_role(q[3]) is area]

        for receipt in sorted(set(self.latest.values()), key=str):
            nodes = self.nodes[receipt]
            in_pending, in_quarantine = self.digests[receipt]
            if in_pending is not None and all(self.latest[n] == receipt for n in nodes):
                if held_digest(nodes, among(nodes, Role.PENDING)) == in_pending and (
                    not quarantine
                    or in_quarantine is None
                    or held_digest(nodes, among(nodes, Role.QUARANTINE)) == in_quarantine
                ):
                    continue
                altered = nodes
            else:  # erased since (its digests taken off), or some nodes held again later:
                altered = [n for n in nodes if self.latest[n] == receipt and n in waiting]
                if not altered:  # what it alone still answers for is gone, as it must be
                    continue
            node = next((n for n in altered if n in waiting), altered[0])
            raise ChainBroken(
                f"{ntriples(node)} is not what receipt {receipt} left in the pending or "
                "quarantine graph: a waiting write was altered, added, cut or deleted after "
                "it was held; restore the scope from a backup or an export that verifies."
            )

    def _legacy(self, node: Node, quads: list[tuple[Node, Node, Node, Node]]) -> bool:
        """Whether a pre-digest hold receipt decided ``node`` or the claim it proposes."""
        return node in self.legacy or any(
            q[1] == DOXA.proposes and q[2] in self.legacy for q in quads
        )


def _check_strays(
    content: dict[Node, list[tuple[Node, Node, Node, Node]]],
    receipts: dict[Node, set[Node]],
    digested: set[Node],
) -> None:
    """Every quad of a covered graph must be vouched for by the chain.

    The gate's queries match patterns, not only typed nodes, so a quad no receipt covers
    could still decide an outcome (an untyped ``doxa:ends`` silencing a rule, an untyped
    ``doxa:grantsKind`` granting closing). A quad is accounted for when its subject is a
    receipt of that log (the receipt's hash covers its triples there), a node a receipt
    produced with a content digest (the digest covers all its quads in covered graphs), or
    the log's own bookkeeping: one chain head (checked against the latest receipt above),
    one change counter and one erasure salt. Anything else was written past the gate.
    """
    for subject, quads in content.items():
        if subject in digested:
            continue
        bookkeeping: dict[tuple[Node, Node], int] = defaultdict(int)
        for s, p, o, g in quads:
            if subject in receipts.get(g, ()) and graph_role(g) is Role.LOG:
                continue
            if s == g and graph_role(g) is Role.LOG and _bookkeeping(p, o):
                bookkeeping[(g, p)] += 1
                if bookkeeping[(g, p)] == 1:
                    continue
            raise ChainBroken(
                f"{ntriples(s)} {ntriples(p)} {ntriples(o)} in graph {g} belongs to no "
                f"receipted node: subject {s} was written past the gate, since no receipt's "
                "hash or content digest covers it; restore the scope from a backup or an "
                "export that verifies."
            )


def _check_bookkeeping(
    log: Node,
    heads: dict[Node, Node],
    by_node: dict[tuple[Node, Node], list[Triple]],
    receipts: dict[Node, list[Triple]],
) -> None:
    """A log with receipts names its head (the gate chains the next receipt after it: without
    it, the next decision would start a second chain at 1), and, once a receipt admitted a
    fact, carries its change counter (what a decision re-reads to see that a write landed
    while it judged). The counter's value is not derived: no outcome depends on it."""
    if log not in heads:
        raise ChainBroken(
            f"{log} names no head receipt (doxa:head): it was removed, and the next decision "
            "would start a second chain; restore the scope from a backup or an export that "
            "verifies."
        )
    facts = f"{str(log)[: -len('/log')]}/fact/"
    admitted = any(
        p == DOXA.produced and str(o).startswith(facts)
        for triples in receipts.values()
        for _, p, o in triples
    )
    counted = any(p == DOXA.version for _, p, _ in by_node.get((log, log), ()))
    if admitted and not counted:
        raise ChainBroken(
            f"{log} has no change counter (doxa:version), though its receipts admitted facts: "
            "it was removed; restore the scope from a backup or an export that verifies."
        )


def _bookkeeping(predicate: Node, value: Node) -> bool:
    """Whether a quad on a log graph itself is its chain head, change counter or salt."""
    if predicate == DOXA.head:
        return isinstance(value, URIRef)
    if predicate == DOXA.salt:
        return isinstance(value, Literal)
    if predicate == DOXA.version:
        return isinstance(value, Literal) and type(value.toPython()) is int
    return False


def _reseals(
    content: dict[Node, list[tuple[Node, Node, Node, Node]]],
    receipts: dict[Node, set[Node]],
    by_node: dict[tuple[Node, Node], list[Triple]],
) -> dict[Node, str]:
    """Each resealed receipt's digest, from its latest reseal (the one produced last)."""
    produced_at: dict[Node, int] = {}
    for log, members in receipts.items():
        for receipt in members:
            triples = by_node[(log, receipt)]
            sequence = _int(_value(triples, DOXA.sequence))
            for _, p, o in triples:
                if p == DOXA.produced:
                    produced_at[o] = sequence
    latest: dict[Node, tuple[int, str]] = {}
    for node, quads in content.items():
        if not any(q[1:3] == (_TYPE, DOXA.Reseal) for q in quads):
            continue
        values = {q[1]: q[2] for q in quads}
        sealed, body = values.get(DOXA.reseals), values.get(DOXA.bodyDigest)
        if sealed is None or body is None:
            continue
        at = produced_at.get(node, -1)
        if sealed not in latest or at > latest[sealed][0]:
            latest[sealed] = (at, str(body))
    return {receipt: body for receipt, (_, body) in latest.items()}


def _check_derived(
    derived: list[tuple[Node, Node, Node, Node]],
    content: dict[Node, list[tuple[Node, Node, Node, Node]]],
) -> None:
    """Derived graphs must follow from the record.

    ``current`` is rebuilt from the receipted claims and compared both ways: it holds exactly
    the statements of the live structured claims of the topic graphs (not superseded, not
    retracted). An index entry of ``search`` must follow from its claim (the statement keys
    depend on the ontology, which an export does not carry, so those are checked loosely).
    """
    terms: dict[Node, set[Node]] = {}
    entries = _Entries(content)
    every_language: set[Node] = set()  # claims whose stems were tried in every language
    current: dict[Node, set[Triple]] = defaultdict(set)
    for s, p, o, g in derived:
        if graph_role(g) is Role.CURRENT:
            current[g].add((s, p, o))
            continue
        if p == TERM:
            if s not in terms:
                terms[s] = _own_terms(
                    content.get(s, []), entries.spellings(s), entries.stems(s, DEFAULT_LANGUAGE)
                )
            if str(o).startswith(STEM) and o not in terms[s] and s not in every_language:
                # stems follow the scope's language, which an export does not name
                every_language.add(s)
                terms[s] |= _own_stems(content.get(s, []), LANGUAGES)
            # statement keys ("@…") follow the ontology's property table, which an export
            # does not carry: a structured claim may hold any; words and text keys must match
            # (a superseded claim's past and front keys, "~@…" and "^@…", likewise)
            ok = o in terms[s] or (
                _STATEMENT_KEY.fullmatch(str(o)) is not None and _structured(content.get(s, []))
            )
        else:
            # a copy of a claim's own field (topic, clocks), a link to what it rests on, or
            # an empty search result's question: exactly what the writer indexed for it
            ok = (p, o) in entries.of(s)
        if not ok:
            raise ChainBroken(
                f"{ntriples(s)} {ntriples(p)} {ntriples(o)} in {g} does not follow from any "
                "receipted claim: a derived graph was altered."
            )
    _check_indexed(derived, content, entries)
    expected = _live_statements(content)
    for graph in sorted({*current, *expected}, key=str):
        have, want = current.get(graph, set()), expected.get(graph, set())
        for label, found in (
            ("does not follow from", have - want),
            ("is missing for", want - have),
        ):
            if found:
                s, p, o = min(found, key=lambda t: tuple(ntriples(x) for x in t))
                raise ChainBroken(
                    f"{ntriples(s)} {ntriples(p)} {ntriples(o)} in {graph} {label} the live "
                    "receipted claims: a derived graph was altered."
                )


def _entries(claim: Node, quads: list[tuple[Node, Node, Node, Node]]) -> set[tuple[Node, Node]]:
    """The search-graph entries, beside its words and keys, that the writer gives a claim
    (:func:`doxa.gate.index.index_entries` and :func:`doxa.gate.basis.basis_entries`): the
    copies of its topic and clocks, its links, its question. Nothing, for a node that is not
    a claim of a topic or the rules."""
    if not isinstance(claim, URIRef) or not _indexed_claim(quads):
        return set()
    own = [
        (q[1], q[2])
        for q in quads
        if isinstance(q[1], URIRef) and graph_role(q[3]) in _CLAIM_GRAPHS
    ]
    copies: set[tuple[Node, Node]] = {(p, o) for p, o in own if p in COPIED}
    asked = question(own) if (DOXA.support, DOXA.Absent) in own else None
    return copies | {(p, o) for _, p, o in basis_entries(claim, own, asked)}


_CLAIM_GRAPHS = frozenset({Role.TOPIC, Role.RULES})


def _indexed_claim(quads: list[tuple[Node, Node, Node, Node]]) -> bool:
    """Whether these quads are a claim the writer indexed: typed a claim in a topic graph or
    the rules (a claim waiting in pending or the quarantine is not indexed)."""
    return any(q[1:3] == (_TYPE, DOXA.Claim) and graph_role(q[3]) in _CLAIM_GRAPHS for q in quads)


def _check_indexed(
    derived: list[tuple[Node, Node, Node, Node]],
    content: dict[Node, list[tuple[Node, Node, Node, Node]]],
    entries: _Entries,
) -> None:
    """Every claim has its search entries: the copies of its topic and clocks, its links and
    question, and the words of its text (as normalised now or before format characters were
    dropped). Without this check, dropping a claim's entries hid it from ``recall`` and the
    gate's lookups and still verified.

    Stems and keys are required as far as the export shows which the claim was given
    (:func:`_lost_stems`, :func:`_lost_keys`): stems follow the scope's language, keys the
    ontology and the doxa that wrote the claim, none of which an export names. Each one
    present is also held to its claim (:func:`_check_derived`)."""
    indexed: dict[Node, set[tuple[Node, Node]]] = defaultdict(set)
    for s, p, o, g in derived:
        if graph_role(g) is Role.SEARCH:
            indexed[s].add((p, o))
    ended = _ended(content)
    since = _Since(indexed)
    history = _History(content)
    missing: list[tuple[str, Node, Node, Node]] = []
    for claim in content:
        want = entries.of(claim)
        if not want:
            continue
        have = indexed.get(claim, set())
        lost = want - have
        spellings = entries.spellings(claim)
        terms = {o for p, o in have if p == TERM}
        if not lost and spellings and not any(spelled <= terms for spelled in spellings):
            lost = {(TERM, word) for word in spellings[0] - terms}
        if not lost:
            lost = {(TERM, t) for t in _lost_stems(claim, terms, entries, since)}
        if not lost and claim not in ended:
            lost = {(TERM, t) for t in _lost_keys(claim, content[claim], terms, since)}
        if not lost and history.lost_past(claim, content[claim], terms):
            lost = {(TERM, Literal(PAST + "@"))}  # any past key: named by its kind
        missing += [(str(claim), claim, p, o) for p, o in lost]
    missing += history.lost_fronts(indexed)
    if missing:
        _, claim, p, o = min(missing, key=lambda m: (m[0], str(m[2]), str(m[3])))
        raise ChainBroken(
            f"{ntriples(claim)} {ntriples(p)} {ntriples(o)} is missing from the search "
            "graph: an index entry of a receipted claim was removed (recall and the gate "
            "would no longer find it)."
        )


class _History:
    """The claims the record superseded (with the latest end any supersession gave each) and
    retracted, and the check of the statements' fronts against them.

    A superseded structured claim keeps a past key (``~@…``) for each statement key it had;
    the claims of a statement superseded latest in valid time carry its front key (``^@…``),
    which stays through a retraction (:mod:`doxa.gate.index`). The gate reads the front to
    know that a write starting after it need not read the history, so a dropped front key
    would let a back-dated value miss the superseded ones it overlaps."""

    def __init__(self, content: dict[Node, list[tuple[Node, Node, Node, Node]]]) -> None:
        self.superseded: dict[Node, datetime | None] = {}
        self.retracted: set[Node] = set()
        for quads in content.values():
            kinds = {q[2] for q in quads if q[1] == _TYPE}
            targets = [q[2] for q in quads if q[1] == DOXA.ends]
            if DOXA.Retraction in kinds:
                self.retracted.update(targets)
            if DOXA.Supersession not in kinds:
                continue
            until = next((q[2] for q in quads if q[1] == DOXA.validUntil), None)
            end = _instant(until)
            for target in targets:
                before = self.superseded.get(target)
                self.superseded[target] = (
                    end if before is None or (end is not None and end > before) else before
                )

    def lost_past(
        self, claim: Node, quads: list[tuple[Node, Node, Node, Node]], terms: set[Node]
    ) -> bool:
        """Whether a superseded (not retracted) structured claim has lost every past key."""
        return (
            claim in self.superseded
            and claim not in self.retracted
            and _structured(quads)
            and not any(str(t).startswith(PAST) for t in terms)
        )

    def lost_fronts(
        self, indexed: dict[Node, set[tuple[Node, Node]]]
    ) -> list[tuple[str, Node, Node, Node]]:
        """A front key missing from a statement: none of its superseded claims carries it,
        or a claim that ends later than every front claim does not."""
        carriers: dict[str, list[Node]] = defaultdict(list)
        fronts: dict[str, set[Node]] = defaultdict(set)
        for claim, have in indexed.items():
            for p, o in have:
                key = str(o)
                if p != TERM or not key.startswith((PAST, FRONT)):
                    continue
                carriers[key[1:]].append(claim)
                if key.startswith(FRONT):
                    fronts[key[1:]].add(claim)
        missing: list[tuple[str, Node, Node, Node]] = []
        for key, claims in carriers.items():
            ends = {c: self.superseded.get(c) for c in claims}
            if any(end is None for end in ends.values()):
                continue  # a claim superseded without an end: nothing to order by
            latest = max(end for end in ends.values() if end is not None)
            on_front = fronts.get(key, set())
            if not on_front or any(ends[c] != latest for c in on_front):
                claim = max((c for c in claims if ends[c] == latest), key=str)
                missing.append((str(claim), claim, TERM, Literal(FRONT + key)))
        return missing


def _instant(node: Node | None) -> datetime | None:
    """The instant an ``xsd:dateTime`` literal holds; None for anything else."""
    if not isinstance(node, Literal):
        return None
    try:
        return instant(node)
    except ValueError:
        return None


class _Since:
    """Since which claim of each scope its claims carry stems, and head keys: the first
    claim (ids follow the clock) that carries any. A claim written before a kind of entry
    existed has none of it; one written after was given all of its own, so dropping every
    stem or head key of a later claim fails too, as a claim from before cannot explain it."""

    def __init__(self, indexed: dict[Node, set[tuple[Node, Node]]]) -> None:
        self.stems: dict[str, str] = {}
        self.heads: dict[str, str] = {}
        for claim, have in indexed.items():
            scope, _, local = str(claim).rpartition("/fact/")
            if not local:
                continue
            terms = [str(o) for p, o in have if p == TERM]
            for marks, first in ((STEM, self.stems), (_HEAD_KEYS, self.heads)):
                if any(t.startswith(marks) for t in terms) and local < first.get(scope, "~"):
                    first[scope] = local

    @staticmethod
    def _after(first: dict[str, str], claim: Node) -> bool:
        scope, _, local = str(claim).rpartition("/fact/")
        return scope in first and local > first[scope]

    def stemmed(self, claim: Node) -> bool:
        """Whether ``claim`` was written after its scope's first stemmed claim."""
        return self._after(self.stems, claim)

    def headed(self, claim: Node) -> bool:
        """Whether ``claim`` was written after its scope's first claim with head keys."""
        return self._after(self.heads, claim)


#: how a head key starts (:func:`doxa.judges.patterns.head_keys`)
_HEAD_KEYS = ("=h2", "=h3")


#: a statement key as :func:`doxa.ontology.statement_key` writes it, live, past or front
_STATEMENT_KEY = re.compile(r"[~^]?@[0-9a-f]{24}")


def _lost_stems(claim: Node, terms: set[Node], entries: _Entries, since: _Since) -> set[Node]:
    """The stems a claim lacks. A claim indexed before stems existed has none (reindex gives
    them); one that has any, or was written after a stemmed claim of its scope, was given
    all of one language's, so those of the language that fits best (the default first)
    must all be there."""
    have = {t for t in terms if str(t).startswith(STEM)}
    if not have and not since.stemmed(claim):
        return set()
    best: set[Node] | None = None
    for language in (DEFAULT_LANGUAGE, *LANGUAGES):
        lost = set(entries.stems(claim, language) - have)
        if not lost:
            return set()
        if best is None or len(lost) < len(best):
            best = lost
    return best or set()


def _lost_keys(
    claim: Node, quads: list[tuple[Node, Node, Node, Node]], terms: set[Node], since: _Since
) -> set[Node]:
    """The live keys a live claim of a topic lacks (a rule has none). A structured claim has
    at least one statement key (which ones follow the ontology); a text-only claim has its
    text key, in one of its two normalisations, and once it has the keys of its first words
    (written since 2026-12-03) or was written after a claim of its scope that has them, all
    of them and the key of the value it states."""
    if not any(q[1:3] == (_TYPE, DOXA.Claim) and graph_role(q[3]) is Role.TOPIC for q in quads):
        return set()
    if _structured(quads):
        if any(str(t).startswith("@") for t in terms):
            return set()
        return {Literal("@")}  # any statement key: named by its kind
    text = next((str(q[2]) for q in quads if q[1] == DOXA.text), None)
    if text is None:
        return set()
    keys = {Literal(text_key(text, legacy=legacy)) for legacy in (False, True)}
    if not keys & terms:
        return {Literal(text_key(text))}
    heads: set[Node] = {Literal(head) for head in head_keys(text)}
    if not heads & terms and not since.headed(claim):
        return set()
    value = frame_key(text)
    return (heads | ({Literal(value)} if value is not None else set())) - terms


class _Entries:
    """Each claim's search entries beside its words and keys (:func:`_entries`), worked out
    once per claim for both directions of the check."""

    def __init__(self, content: dict[Node, list[tuple[Node, Node, Node, Node]]]) -> None:
        self._content = content
        self._found: dict[Node, set[tuple[Node, Node]]] = {}
        self._spellings: dict[Node, tuple[frozenset[Literal], ...]] = {}
        self._stems: dict[tuple[Node, str], frozenset[Node]] = {}

    def spellings(self, claim: Node) -> tuple[frozenset[Literal], ...]:
        """The index words of the claim's text, as normalised now and as before format
        characters were dropped (claims indexed then); none for a node without a text."""
        found = self._spellings.get(claim)
        if found is None:
            quads = self._content.get(claim, [])
            text = next((str(q[2]) for q in quads if q[1] == DOXA.text), None)
            found = self._spellings[claim] = (
                ()
                if text is None
                else tuple(
                    frozenset(map(Literal, words(text, legacy=legacy))) for legacy in (False, True)
                )
            )
        return found

    def stems(self, claim: Node, language: str) -> frozenset[Node]:
        """The stem terms the claim's text and labels give it in ``language``."""
        found = self._stems.get((claim, language))
        if found is None:
            quads = self._content.get(claim, [])
            found = self._stems[(claim, language)] = frozenset(_own_stems(quads, (language,)))
        return found

    def of(self, claim: Node) -> set[tuple[Node, Node]]:
        found = self._found.get(claim)
        if found is None:
            found = self._found[claim] = _entries(claim, self._content.get(claim, []))
        return found


def _live_statements(
    content: dict[Node, list[tuple[Node, Node, Node, Node]]],
) -> dict[Node, set[Triple]]:
    """What each scope's ``current`` graph must hold: the statements of its live structured
    claims in topic graphs (claims not ended by a supersession or a retraction)."""
    ended = _ended(content)
    found: dict[Node, set[Triple]] = defaultdict(set)
    for claim, quads in content.items():
        if claim in ended:
            continue
        graph = quads[0][3]
        text = str(graph)
        if graph_role(graph) is not Role.TOPIC or not any(
            q[1:3] == (_TYPE, DOXA.Claim) for q in quads
        ):
            continue
        values = {q[1]: q[2] for q in quads if q[3] == graph}
        s, p, o = (values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
        if s is not None and p is not None and o is not None:
            found[URIRef(text.split("/topic/", 1)[0] + "/current")].add((s, p, o))
    return found


def _ended(content: dict[Node, list[tuple[Node, Node, Node, Node]]]) -> set[Node]:
    """The claims a supersession or a retraction of the record ended."""
    ended: set[Node] = set()
    for quads in content.values():
        kinds = {q[2] for q in quads if q[1] == _TYPE}
        if kinds & {DOXA.Supersession, DOXA.Retraction}:
            ended.update(q[2] for q in quads if q[1] == DOXA.ends)
    return ended


def _own_terms(
    quads: list[tuple[Node, Node, Node, Node]],
    spellings: tuple[frozenset[Literal], ...],
    stems: frozenset[Node],
) -> set[Node]:
    """The index words and keys a claim's own text gives it (as normalised now, or as
    before format characters were dropped, for claims indexed then); ``spellings`` are its
    words both ways (:meth:`_Entries.spellings`), ``stems`` its stems in the default
    language (:meth:`_Entries.stems`)."""
    text = next((str(q[2]) for q in quads if q[1] == DOXA.text), None)
    if text is None:
        return set()
    value, heads = frame_key(text), head_keys(text)
    return (
        {Literal(text_key(text, legacy=legacy)) for legacy in (False, True)}
        | {Literal(text_key(unconfused(text)))}  # outside text's folded key
        | {word for spelled in spellings for word in spelled}
        | ({Literal(value)} if value is not None else set())
        | {Literal(head) for head in heads}
        | stems
    )


def _own_stems(quads: list[tuple[Node, Node, Node, Node]], languages: Iterable[str]) -> set[Node]:
    """The stem terms a claim's text and labels give it in any of ``languages``."""
    pairs = [(q[1], q[2]) for q in quads if isinstance(q[1], URIRef)]
    if not any(p == DOXA.text for p, _ in pairs):
        return set()
    return {Literal(STEM + stem) for lang in languages for stem in claim_stems(pairs, lang)}


def _structured(quads: list[tuple[Node, Node, Node, Node]]) -> bool:
    predicates = {q[1] for q in quads}
    return RDF.subject in predicates and RDF.predicate in predicates


_ACCOUNTABLE = frozenset(
    {
        DOXA.Claim,
        DOXA.Supersession,
        DOXA.Retraction,
        DOXA.Corroboration,
        DOXA.Erasure,
        DOXA.Reseal,
    }
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
    """Verify the receipt chains in an export file (N-Quads or TriG), from the file alone.

    The format comes from the suffix (``.trig``, ``.nq``); any other file is read as N-Quads,
    then as TriG. Returns the number of receipts verified per log graph; raises
    :class:`ChainBroken`.
    """
    return {log: head.receipts for log, head in export_heads(path).items()}


def export_heads(path: str | Path, *, expected: Iterable[str] = ()) -> dict[str, LogHead]:
    """:func:`verify_export`, returning each log's :class:`LogHead`.

    ``expected`` are heads the auditor kept (receipt hashes, as ``doxa verify`` printed
    them): each log's head must be one of them and each of them some log's head, so a log
    whose newest receipts were cut off fails (:class:`ChainBroken`) instead of verifying as
    a shorter log.
    """
    heads = _export_heads(path)
    check_heads(heads, expected)
    return heads


def check_heads(heads: dict[str, LogHead], expected: Iterable[str]) -> None:
    """Raise :class:`ChainBroken` unless each log of ``heads`` ends at one of ``expected``
    and each of ``expected`` ends some log (nothing to check when ``expected`` is empty)."""
    kept = {h.strip().lower() for h in expected}
    if kept:
        found = {head.hash for head in heads.values()}
        for log, head in sorted(heads.items()):
            if head.hash not in kept:
                raise ChainBroken(
                    f"The log {log} ends at receipt hash {head.hash or '(none)'} after "
                    f"{head.receipts} receipt(s), not at the head you gave: receipts were cut "
                    "off (or added); ask for the export again, or check the head you kept."
                )
        unmatched = sorted(kept - found)
        if unmatched:
            raise ChainBroken(
                f"No log of the export ends at {unmatched[0]}: its receipts up to that head "
                "are missing; ask for the export again, or check the head you kept."
            )


def _export_heads(path: str | Path) -> dict[str, LogHead]:
    file = Path(path)
    if not file.is_file():
        raise NotFound(f"There is no export file at {file}; check the path.")
    try:
        data = file.read_bytes()
    except OSError as error:
        raise StoreError(f"Cannot read {file}: {error.strerror}.") from None
    suffix = file.suffix.lower()
    if suffix == ".trig":
        forms = ["trig"]
    elif suffix in (".nq", ".nquads"):
        forms = ["nquads"]
    else:
        forms = ["nquads", "trig"]
    for form in forms:
        try:
            quads = list(read_quads(data, format=form, source=str(file)))
        except InvalidInput:
            if form == forms[-1]:
                raise
            continue
        break
    if quads and all(g is None for *_, g in quads):
        raise InvalidInput(
            f"{file} holds no named graphs (a Turtle projection?), so it has no receipt chain "
            "to verify; verify the N-Quads or TriG export instead."
        )
    # doxa names the graph of every quad it exports: a triple in the default graph was added
    loose = next(((s, p, o) for s, p, o, g in quads if g is None), None)
    if loose is not None:
        raise ChainBroken(
            f"{' '.join(ntriples(t) for t in loose)} is outside any named graph, where doxa "
            "never writes: it was added after the export; ask for the export again."
        )
    return verify_heads([(s, p, o, g) for s, p, o, g in quads if g is not None])
