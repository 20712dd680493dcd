"""The ontology's owlrl closure: computed when the ontology changes, read by the gate.

The closure lives in its own graph beside the ontology, stamped with the digest of the
ontology it came from, so every process (and a remote store) reads the same inferences
through SPARQL. Closing is done once per distinct ontology; writes only read the result.
"""

from __future__ import annotations

import hashlib

import owlrl
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from doxa.ontology import PropertyTable
from doxa.resources import query
from doxa.store import Change, Dataset, Store
from doxa.store.cache import CacheKey, Derived
from doxa.store.capabilities import cache_of
from doxa.vocabulary import CLOSURE_GRAPH, DOXA, ONTOLOGY_GRAPH, OWL, RDF, RDFS, SKOS

__all__ = [
    "broader_objects",
    "close_ontology",
    "next_digest",
    "ontology_digest",
    "property_table",
]

_CLOSURE = Dataset(default=(CLOSURE_GRAPH,))


def ontology_digest(store: Store) -> str | None:
    """The digest of the ontology the stored closure was computed from (None: no closure)."""
    rows = store.select(query("closure_digest"), dataset=_CLOSURE)
    return str(rows[0]["digest"]) if rows else None


def next_digest(previous: str | None, data: bytes) -> str:
    """The ontology's digest after loading ``data``: a hash chain over what was loaded."""
    return hashlib.sha256(f"{previous or ''}\n".encode() + data).hexdigest()


def close_ontology(store: Store, digest: str) -> int:
    """Recompute the closure graph from the ontology graph, stamped with ``digest``.

    ``digest`` names the ontology's content (see :func:`next_digest`): a process that has
    closed the same ontology before reuses its closure. Returns the closure's size.
    """
    closed = _CLOSURES.get(digest)
    if closed is None:
        graph = Graph()
        for s, p, o, _ in store.quads(ONTOLOGY_GRAPH):
            graph.add((s, p, o))
        # SKOS: broader is a sub-property of the transitive broaderTransitive, so the
        # closure holds every narrower-to-broader chain and no query needs a property path
        graph.add((SKOS.broader, RDFS.subPropertyOf, SKOS.broaderTransitive))
        graph.add((SKOS.broaderTransitive, RDF.type, OWL.TransitiveProperty))
        # improved_datatypes=False: owlrl's own literal conversions replace rdflib's for the
        # whole process and are never taken back (valid gMonth "--12" then reads as ill typed)
        owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, improved_datatypes=False).expand(graph)
        # generalised RDF (literal subjects) is legal in the closure, not in a store; blank
        # nodes become IRIs, since some servers (Virtuoso) refuse them in INSERT DATA
        closed = [(_skolem(s), p, _skolem(o)) for s, p, o in graph if _storable(s, p)]
        if len(_CLOSURES) > 16:
            _CLOSURES.clear()
        _CLOSURES[digest] = closed
    # derived data: cleared, then written with its digest in one step; a crash in between
    # leaves no digest, so the next open closes the ontology again
    store.clear_graph(CLOSURE_GRAPH)
    change = Change(insert=[(s, p, o, CLOSURE_GRAPH) for s, p, o in closed])
    change.insert.append((CLOSURE_GRAPH, DOXA.ontologyDigest, Literal(digest), CLOSURE_GRAPH))
    store.apply(change)  # the store's cache hears of it: what was read of the closure goes
    return len(closed)


_CLOSURES: dict[str, list[tuple[Node, Node, Node]]] = {}


def _skolem(node: Node) -> Node:
    if isinstance(node, BNode):
        return URIRef(f"urn:doxa:closure:node:{node}")
    return node


def _storable(subject: Node, predicate: Node) -> bool:
    return not isinstance(subject, Literal) and isinstance(predicate, URIRef)


_TABLES: dict[str, PropertyTable] = {}


class _ClosureReads(Derived):
    """What is read of the closure graph, kept in the store's cache until it changes: the
    property table, and each IRI object's broader objects. Closing the ontology again clears
    and rewrites the closure graph, which forgets both; a read that raced it is not kept (it
    carries the generation it started from)."""

    def __init__(self) -> None:
        self.table: PropertyTable | None = None
        self.broader: dict[Node, frozenset[Node]] = {}
        self.generation = 0

    def changed(self, change: Change) -> None:
        # compared as plain strings: rdflib's term equality runs in Python, this in C
        is_closure = _CLOSURE_IRI.__eq__
        if any(map(is_closure, [q[3] for q in change.insert])) or any(
            map(is_closure, [q[3] for q in change.delete])
        ):
            self.forget()

    def reset(self, graph: URIRef | None) -> None:
        if graph is None or graph == CLOSURE_GRAPH:
            self.forget()

    def forget(self) -> None:
        self.generation += 1
        self.table = None
        self.broader = {}


_CLOSURE_IRI = str(CLOSURE_GRAPH)
#: the store cache's key of what is read of the closure graph
_READS: CacheKey[_ClosureReads] = CacheKey("doxa.closure")


def _reads(store: Store) -> _ClosureReads | None:
    cache = cache_of(store)
    return cache.get_or_make(_READS, _ClosureReads) if cache is not None else None


def property_table(store: Store) -> PropertyTable:
    """The property axioms of the closure, read once per ontology digest."""
    kept = _reads(store)
    if kept is not None and kept.table is not None:
        return kept.table
    generation = kept.generation if kept is not None else 0
    digest = ontology_digest(store) or ""
    table = _TABLES.get(digest)
    if table is None:
        axioms: dict[str, list[tuple[URIRef, URIRef]]] = {}
        for row in store.select(query("property_axioms"), dataset=_CLOSURE):
            pair = (URIRef(str(row["a"])), URIRef(str(row["b"])))
            axioms.setdefault(str(row["how"]), []).append(pair)
        table = PropertyTable.build(
            equivalent=axioms.get("equivalent", ()),
            inverse=axioms.get("inverse", ()),
            sub=axioms.get("sub", ()),
            functional=[a for a, _ in axioms.get("functional", ())],
            unchanging=[a for a, _ in axioms.get("unchanging", ())],
        )
        _TABLES[digest] = table
    if kept is not None and kept.generation == generation:  # else the closure changed meanwhile
        kept.table = table
    return table


BROADER_CACHED = 100_000  # objects whose broader ones the cache keeps, then it starts over


def broader_objects(store: Store, objects: list[Node]) -> dict[Node, frozenset[Node]]:
    """For each IRI object, the objects it is a more specific case of.

    Where the store has a cache, each object's answer is kept until the closure changes (the
    ontology is closed again), so the usual write, whose objects were all seen before, reads
    nothing.
    """
    iris = sorted({o for o in objects if isinstance(o, URIRef)})
    if not iris:
        return {}
    kept = _reads(store)
    known: dict[Node, frozenset[Node]] = {}
    if kept is not None:
        known = kept.broader
        if len(known) > BROADER_CACHED:
            known.clear()
    result: dict[Node, frozenset[Node]] = {}
    missing = []
    for o in iris:
        hit = known.get(o)
        if hit is None:
            missing.append(o)
        elif hit:
            result[o] = hit
    if missing:
        rows = store.select(
            query("broader_objects"), dataset=_CLOSURE, bindings={"object": missing}
        )
        found: dict[Node, set[Node]] = {o: set() for o in missing}
        for row in rows:
            found.setdefault(URIRef(str(row["object"])), set()).add(URIRef(str(row["general"])))
        for node, general in found.items():
            known[node] = frozen = frozenset(general)
            if frozen:
                result[node] = frozen
    return result
