"""Erasure: a fact (or everything about a subject) leaves every graph; a tombstone stays.

The tombstone is one ``doxa:Erasure`` event per erased node. It keeps the node's IRI, when,
by whom and why, the SHA-256 digest of the node's quads (so the receipt that admitted it
still verifies without its content) and, for a claim, a *salted* hash of its content (so the
same content written again is refused, while the hash alone reveals nothing to someone
without the scope's salt). Removing triples is not enough for Oxigraph, whose files keep
every string they ever held; the gate compacts the store afterwards (see
``EmbeddedStore.compact``).
"""

from __future__ import annotations

import hashlib
import secrets
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.gate.receipts import content_digest, quad_digest
from doxa.ontology import PropertyTable
from doxa.ontology.closure import property_table
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Change, Dataset, Quad, Store
from doxa.store.cache import CacheKey
from doxa.store.capabilities import cache_of
from doxa.store.convert import ntriples
from doxa.text import text_key, unconfused, visible
from doxa.vocabulary import DOXA, RDF, XSD

__all__ = [
    "ErasurePlan",
    "claim_hashes",
    "content_hashes",
    "erasure_plan",
    "erasure_record",
    "remember_salt",
    "salt",
    "strip_origins",
    "subject_hash",
    "unused_names",
]


def salt(store: Store, scope: Scope, *, create: Change | None = None) -> str | None:
    """The scope's salt for content hashes; with ``create``, a new one is added to it."""
    cache = cache_of(store)
    found = cache.get(SALT.of(scope.name)) if cache is not None else None
    if found is None:  # "" remembers that the scope has no salt yet
        rows = store.select(query("scope_salt"), dataset=Dataset(default=(scope.log,)))
        found = str(rows[0]["salt"]) if rows else ""
    if not found and create is not None:
        found = secrets.token_hex(32)
        create.insert.append((scope.log, DOXA.salt, Literal(found), scope.log))
    remember_salt(store, scope, found)
    return found or None


def remember_salt(store: Store, scope: Scope, value: str) -> None:
    """Keep the scope's salt (``""``: none yet) in the store's cache, where it has one: the
    salt is written once and never changes, so no write needs to tell the cache of it."""
    cache = cache_of(store)
    if cache is not None:
        cache.put(SALT.of(scope.name), value)


#: the store cache's key of a scope's salt
SALT: CacheKey[str] = CacheKey("doxa.salt")


def _hash(salt_value: str, content: str) -> str:
    return hashlib.sha256(f"{salt_value}\n{content}".encode()).hexdigest()


def subject_hash(salt_value: str, iri: Node) -> str:
    return _hash(salt_value, f"subject {ntriples(iri)}")


def content_hashes(
    salt_value: str,
    table: PropertyTable,
    *,
    text: str,
    subject: Node | None,
    predicate: Node | None,
    obj: Node | None,
) -> list[str]:
    """The salted hashes a claim's content is known by: its normalised text and its statement
    (in canonical form, so an equivalent or inverse phrasing is the same content).

    Texts and string objects are compared without format characters (a zero-width space
    does not make erased content new); the hashes of the form used before that (issue 14)
    come too, so tombstones written then still guard. A text, and a string object's text
    key, are also hashed with look-alike letters read as the ASCII letter they imitate and
    case folded (:func:`doxa.text.unconfused`), so "diabеtes" with a Cyrillic ``е`` or the
    object "Diabetes" is the erased "diabetes". Tombstones keep every hash given here,
    and a write is refused when any of its hashes is on a tombstone.
    """
    keys = dict.fromkeys((text_key(text), text_key(text, legacy=True), text_key(unconfused(text))))
    found = [_hash(salt_value, f"text {key}") for key in keys]
    if subject is not None and isinstance(predicate, URIRef) and obj is not None:
        s, p, o = table.normalise(subject, predicate, obj)
        forms = [o]
        folded: str | None = None
        if isinstance(o, Literal) and (o.datatype is None or o.datatype == XSD.string):
            forms.append(Literal(visible(str(o)), lang=o.language))
            folded = text_key(unconfused(str(o)))
        for form in dict.fromkeys(forms):
            found.append(
                _hash(salt_value, f"statement {ntriples(s)} {ntriples(p)} {ntriples(form)}")
            )
        if folded is not None:  # a string object compared as text is: case, look-alikes
            found.append(_hash(salt_value, f"statement {ntriples(s)} {ntriples(p)} {folded}"))
    return found


def erasure_record(
    store: Store, scope: Scope, receipt: URIRef, claims: Sequence[URIRef]
) -> dict[str, Any] | None:
    """The journal's record of an erasure (tombstones, salted hashes, never content), read
    back from the tombstones its receipt produced: for a journal line a crash cut between the
    store's commit and the journal's, so the purge still knows what to take out of backups.
    None when the receipt produced no tombstone."""
    rows = store.select(
        query("erasure_tombstones"),
        dataset=Dataset(default=(scope.log,)),
        bindings={"receipt": receipt},
    )
    if not rows:
        return None
    nodes: dict[str, dict[str, Any]] = {}
    for row in rows:
        node = nodes.setdefault(
            str(row["node"]),
            {"node": str(row["node"]), "digest": None, "hashes": []},
        )
        if "digest" in row:
            node["digest"] = str(row["digest"])
        if "hash" in row and str(row["hash"]) not in node["hashes"]:
            node["hashes"].append(str(row["hash"]))
    return {
        "salt": salt(store, scope) or "",
        "reason": str(rows[0]["reason"]),
        "actor": str(rows[0]["actor"]),
        "claims": [str(c) for c in claims],
        "nodes": [nodes[key] for key in sorted(nodes)],
    }


class ErasurePlan:
    """What erasing some claims deletes, and what their tombstones keep."""

    def __init__(self) -> None:
        self.change = Change()
        self.nodes: list[URIRef] = []  # every erased node: claims, events, held writes
        self.claims: list[URIRef] = []
        self.digests: dict[URIRef, str] = {}  # covered content of each node, before erasure
        self.values: dict[URIRef, dict[URIRef, Node]] = {}  # claims' own values, for hashes


def erasure_plan(
    store: Store, scope: Scope, claims: Sequence[URIRef], claim_graphs: Iterable[URIRef]
) -> ErasurePlan:
    """The deletions that take ``claims`` (and their events and held writes) out of every graph
    of the scope, with the digests their tombstones keep."""
    plan = ErasurePlan()
    if not claims:
        return plan
    log_pending = Dataset(default=(scope.log, scope.pending))
    events = [
        URIRef(str(row["node"]))
        for row in store.select(
            query("events_about"), dataset=log_pending, bindings={"claim": list(claims)}
        )
    ]
    nodes = [*claims, *(e for e in events if e not in claims)]
    graphs = (
        *claim_graphs,
        scope.pending,
        scope.quarantine,
        scope.search,
        scope.meaning,  # a vector is derived from the content: it goes with the claim
        scope.log,
    )
    derived = (scope.search, scope.meaning)
    rows = store.select(
        query("node_quads"), dataset=Dataset(default=(), named=graphs), bindings={"node": nodes}
    )
    quads: dict[URIRef, list[Quad]] = defaultdict(list)
    for row in rows:
        node = URIRef(str(row["node"]))
        quads[node].append((node, row["p"], row["o"], URIRef(str(row["g"]))))
    for node in nodes:
        found = quads.get(node, [])
        if not found:
            continue
        plan.nodes.append(node)
        plan.change.delete += found
        covered = [q for q in found if q[3] not in derived and _covered(scope, q[3])]
        if covered:
            plan.digests[node] = quad_digest(covered)
        if node in claims:
            plan.claims.append(node)
            plan.values[node] = {URIRef(str(p)): o for _, p, o, g in found if g not in derived}
    # the statements the erased claims put in ``current``
    for claim in plan.claims:
        values = plan.values[claim]
        statement = tuple(values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
        if None not in statement:
            s, p, o = statement
            assert s is not None
            assert p is not None
            assert o is not None
            plan.change.delete.append((s, p, o, scope.current))
    return plan


def _covered(scope: Scope, graph: URIRef) -> bool:
    return graph not in (scope.pending, scope.quarantine, scope.current)


def claim_hashes(store: Store, salt_value: str, values: dict[URIRef, Node]) -> list[str]:
    """The salted content hashes of one stored claim's values."""
    return content_hashes(
        salt_value,
        property_table(store),
        text=str(values.get(DOXA.text, "")),
        subject=values.get(RDF.subject),
        predicate=values.get(RDF.predicate),
        obj=values.get(RDF.object),
    )


def strip_origins(
    store: Store, scope: Scope, delete: Sequence[Quad], new_node: Callable[[], URIRef]
) -> tuple[list[Quad], list[Quad], list[URIRef]]:
    """Take off receipts the traces of the erased writes: origins only they used, the
    input digests of their content, and the held digests of erased writes that waited.

    A receipt names its write's sources and turn (``doxa:origin``) to count bursts; once the
    erasure's ``delete`` is applied, an origin IRI that no other quad of the scope uses would
    be the last trace of the erased content (a ``mailto:`` or a URL with a name in it). A
    receipt also keeps ``doxa:inputDigest``, an unsalted SHA-256 of the write's fields with
    no ids or times: hashing guessed texts and matching it would confirm the erased content,
    so the digest leaves every receipt that decided about or produced an erased node, and
    every other receipt carrying the same digest (the same content, refused or written
    again). A held digest (``doxa:heldDigest``) leaves the receipts that held an erased
    node in pending or quarantine, and a name's digest (``doxa:nameDigest``) the receipts
    that wrote a vocabulary name the erasure removes, for the same reason (pass those
    names' quads in ``delete``). Each receipt that loses triples
    keeps its hash (the chain still links) and gets one ``doxa:Reseal`` node saying what its
    triples digest to now; the caller has the erasure's receipt produce the reseals, so they
    are covered like any event.

    The names only the erased content used (:func:`unused_names`, once the origins are
    gone too) leave the vocabulary here as well, so that their entries leave the receipts
    with one reseal per receipt for all it loses.

    Returns the quads to delete (receipts' triples and unused names), the quads to insert
    and the reseal nodes.
    """
    removals = _erased_origins(store, scope, delete)
    origins = [(r, p, o, scope.log) for r, pairs in removals.items() for p, o in pairs]
    names = unused_names(store, scope, [*delete, *origins])
    gone = [*delete, *names]
    for receipt, pair in [
        *_erased_inputs(store, scope, gone),
        *_erased_holds(store, scope, gone),
        *_erased_names(store, scope, gone),
    ]:
        removals[receipt].add(pair)
    receipts = sorted(removals)
    if not receipts:
        return names, [], []
    triples = store.select(
        query("node_quads"),
        dataset=Dataset(default=(), named=(scope.log,)),
        bindings={"node": receipts},
    )
    bodies: dict[URIRef, list[tuple[Node, Node, Node]]] = defaultdict(list)
    for row in triples:
        if URIRef(str(row["g"])) == scope.log:
            bodies[URIRef(str(row["node"]))].append((row["node"], row["p"], row["o"]))
    removed: list[Quad] = []
    inserted: list[Quad] = []
    nodes: list[URIRef] = []
    for receipt in receipts:
        body = []
        for s, p, o in bodies[receipt]:
            if (p, o) in removals[receipt]:
                removed.append((s, p, o, scope.log))
            elif p != DOXA.receiptHash:
                body.append((s, p, o))
        node = new_node()
        nodes.append(node)
        inserted += [
            (node, RDF.type, DOXA.Reseal, scope.log),
            (node, DOXA.reseals, receipt, scope.log),
            (node, DOXA.bodyDigest, Literal(content_digest(body)), scope.log),
        ]
    return [*removed, *names], inserted, nodes


def _erased_origins(
    store: Store, scope: Scope, delete: Sequence[Quad]
) -> defaultdict[URIRef, set[tuple[Node, Node]]]:
    """The ``doxa:origin`` pairs to take off each receipt: origins no quad left uses."""
    removals: defaultdict[URIRef, set[tuple[Node, Node]]] = defaultdict(set)
    candidates = sorted({o for _, _, o, _ in delete if isinstance(o, URIRef)})
    if not candidates:
        return removals
    log = Dataset(default=(scope.log,))
    rows = store.select(query("receipts_with_origin"), dataset=log, bindings={"origin": candidates})
    carried: dict[URIRef, set[URIRef]] = defaultdict(set)  # origin -> receipts naming it
    for row in rows:
        carried[URIRef(str(row["origin"]))].add(URIRef(str(row["receipt"])))
    if not carried:
        return removals
    gone = set(delete)
    graphs = tuple(g for g in store.graphs() if isinstance(g, URIRef) and scope.owns(g))
    uses = store.select(
        query("uses_of"),
        dataset=Dataset(default=(), named=graphs),
        bindings={"iri": sorted(carried)},
    )
    kept: set[URIRef] = set()
    for row in uses:
        quad = (row["s"], row["p"], row["o"], URIRef(str(row["g"])))
        if quad in gone or (quad[1] == DOXA.origin and quad[3] == scope.log):
            continue
        kept.add(URIRef(str(row["iri"])))
    for origin, naming in carried.items():
        if origin not in kept:
            for receipt in naming:
                removals[receipt].add((DOXA.origin, origin))
    return removals


def _erased_inputs(
    store: Store, scope: Scope, delete: Sequence[Quad]
) -> list[tuple[URIRef, tuple[Node, Node]]]:
    """The ``doxa:inputDigest`` pairs to take off receipts: those of the erased nodes' writes,
    wherever the same digest is kept."""
    nodes = sorted({s for s, _, _, _ in delete if isinstance(s, URIRef)})
    if not nodes:
        return []
    log = Dataset(default=(scope.log,))
    digests = [
        row["digest"]
        for row in store.select(
            query("receipts_with_input_of"), dataset=log, bindings={"node": nodes}
        )
    ]
    if not digests:
        return []
    rows = store.select(query("receipts_with_input"), dataset=log, bindings={"digest": digests})
    return [(URIRef(str(row["receipt"])), (DOXA.inputDigest, row["digest"])) for row in rows]


def _erased_holds(
    store: Store, scope: Scope, delete: Sequence[Quad]
) -> list[tuple[URIRef, tuple[Node, Node]]]:
    """The held and quarantine digests to take off receipts: those that held an erased node in
    pending or quarantine, whether it still waits or was approved since (the digest of its
    words there would confirm a guess of them, as an input digest would)."""
    nodes = sorted({s for s, _, _, _ in delete if isinstance(s, URIRef)})
    if not nodes:
        return []
    rows = store.select(
        query("receipts_holding"), dataset=Dataset(default=(scope.log,)), bindings={"node": nodes}
    )
    return [(URIRef(str(row["receipt"])), (row["p"], row["digest"])) for row in rows]


def _erased_names(
    store: Store, scope: Scope, delete: Sequence[Quad]
) -> list[tuple[URIRef, tuple[Node, Node]]]:
    """The ``doxa:nameDigest`` entries to take off receipts: those of the vocabulary names
    the erasure removes (an entry keeps the name's IRI, made from the name itself)."""
    nodes = sorted({s for s, _, _, g in delete if isinstance(s, URIRef) and g == scope.vocabulary})
    if not nodes:
        return []
    rows = store.select(
        query("receipts_naming"), dataset=Dataset(default=(scope.log,)), bindings={"node": nodes}
    )
    return [(URIRef(str(row["receipt"])), (DOXA.nameDigest, row["entry"])) for row in rows]


def unused_names(store: Store, scope: Scope, delete: Sequence[Quad]) -> list[Quad]:
    """The vocabulary quads of names only the erased content used, to delete with it.

    A name minted for a write (``<scope>/entity/quixabelle-smith``, labelled "Quixabelle
    Smith") lives in ``<scope>/vocabulary``; once the erasure's ``delete`` is applied, a
    minted IRI that no other quad of the scope uses (another claim, a statement, a held write,
    a receipt) would be the last trace of the erased content: its label, its key and its
    slug all spell the name. Like an origin only the erased writes used (see
    :func:`strip_origins`), it goes, with what the owner taught about it (a predicate's
    cardinality): the vocabulary is not covered by receipts, so nothing is resealed. A name
    still used stays.
    """
    terms = {t for q in delete for t in (q[0], q[2]) if isinstance(t, URIRef)}
    if not terms:
        return []
    rows = store.select(
        query("uses_of"),
        dataset=Dataset(default=(), named=(scope.vocabulary,)),
        bindings={"iri": sorted(terms)},
    )
    own: dict[URIRef, list[Quad]] = defaultdict(list)
    for row in rows:
        iri = URIRef(str(row["iri"]))
        if row["s"] == iri:
            own[iri].append((row["s"], row["p"], row["o"], scope.vocabulary))
    if not own:
        return []
    gone = set(delete)
    graphs = tuple(
        g
        for g in store.graphs()
        if isinstance(g, URIRef) and scope.owns(g) and g != scope.vocabulary
    )
    uses = store.select(
        query("uses_of"),
        dataset=Dataset(default=(), named=graphs),
        bindings={"iri": sorted(own)},
    )
    kept = {
        URIRef(str(row["iri"]))
        for row in uses
        if (row["s"], row["p"], row["o"], URIRef(str(row["g"]))) not in gone
    }
    # a name another name's quads point at (none are written so today) stays too
    kept |= {
        o for quads in own.values() for _, _, o, _ in quads if isinstance(o, URIRef) and o in own
    }
    return [q for iri in sorted(own) if iri not in kept for q in own[iri]]
