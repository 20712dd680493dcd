"""Which file added which ontology triples: one named graph per loaded source.

The judge reads the union, ``urn:doxa:ontology`` (doxa's own ontology plus every domain
ontology added), and its owlrl closure. Each ``add_ontology`` also keeps what it loaded in
``urn:doxa:ontology:source:NAME``, so a source can be listed, shown and removed: removing
one deletes from the union only the triples no other source (and not doxa's own ontology)
also states, then the caller closes the ontology again. Blank nodes are replaced by IRIs
under the source's graph when loaded (as the closure does), so a triple is the same triple in
the source graph and in the union on every backend (a remote server renames blank nodes).

Adding a source under a name already loaded replaces it: the file's current content is what
the name stands for.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from rdflib import BNode, Graph, URIRef
from rdflib.term import Node

from doxa.errors import NotFound
from doxa.resources import data_file
from doxa.scope import check_name
from doxa.store import Change, Store
from doxa.vocabulary import ONTOLOGY_GRAPH

__all__ = [
    "UNRECORDED",
    "OntologySource",
    "add_source",
    "list_sources",
    "remove_source",
    "source_graph",
    "source_name",
    "source_triples",
]

_PREFIX = "urn:doxa:ontology:source:"
#: where a source is parsed before it replaces anything: a file that fails to parse leaves
#: the source of that name, and the union, as they were
_STAGING = URIRef("urn:doxa:ontology:staging")

#: the name :func:`list_sources` gives triples of the union no source records (loaded before
#: sources were recorded); they are never removed by removing a source
UNRECORDED = "(unrecorded)"

Triple = tuple[Node, Node, Node]


@dataclass(frozen=True)
class OntologySource:
    """One loaded ontology source: its name and how many triples it holds."""

    name: str
    triples: int


def source_name(name: str) -> str:
    """The normalised name of a source: NFKC, case-folded, then checked like a topic name
    (``Domain.TTL`` and ``domain.ttl`` are one source; a name with spaces is refused)."""
    folded = unicodedata.normalize("NFKC", name.strip()).casefold()
    return check_name(folded, "ontology source")


def source_graph(name: str) -> URIRef:
    return URIRef(_PREFIX + source_name(name))


def _triples(store: Store, graph: URIRef) -> set[Triple]:
    return {(s, p, o) for s, p, o, _ in store.quads(graph)}


def _skolem(graph: URIRef, node: Node) -> Node:
    return URIRef(f"{graph}:node:{node}") if isinstance(node, BNode) else node


def _blank(triple: Triple) -> bool:
    return any(isinstance(term, BNode) for term in triple)


def _names(store: Store) -> list[str]:
    return sorted(str(g)[len(_PREFIX) :] for g in store.graphs() if str(g).startswith(_PREFIX))


def _base() -> set[Triple]:
    """doxa's own ontology: its triples are never removed with a source."""
    graph = Graph().parse(data_file("ontology", "doxa.ttl"), format="turtle")
    return {(s, p, o) for s, p, o in graph}


def add_source(store: Store, name: str, data: bytes, fmt: str) -> int:
    """Load ``data`` as source ``name`` (replacing a source of that name) and into the union;
    returns the number of triples the source holds. The caller holds the store's lock and
    closes the ontology afterwards."""
    graph = source_graph(name)
    store.clear_graph(_STAGING)
    try:
        store.load(data, format=fmt, graph=_STAGING)  # the store's parser, and its errors
        loaded = _triples(store, _STAGING)
    finally:
        store.clear_graph(_STAGING)
    if str(graph)[len(_PREFIX) :] in _names(store):
        remove_source(store, name)
    skolem = {(_skolem(graph, s), p, _skolem(graph, o)) for s, p, o in loaded}
    store.apply(
        Change(
            insert=[(s, p, o, graph) for s, p, o in skolem]
            + [(s, p, o, ONTOLOGY_GRAPH) for s, p, o in skolem]
        )
    )
    return len(skolem)


def remove_source(store: Store, name: str) -> int:
    """Remove source ``name``: its graph, and from the union every triple of it that neither
    another source nor doxa's own ontology states. Returns how many left the union."""
    graph = source_graph(name)
    if str(graph)[len(_PREFIX) :] not in _names(store):
        raise NotFound(
            f"No ontology source is named {name!r}; list them with `doxa ontology list`."
        )
    kept: set[Triple] = _base()
    for other in _names(store):
        if other != str(graph)[len(_PREFIX) :]:
            kept |= _triples(store, URIRef(_PREFIX + other))
    gone = _triples(store, graph) - kept
    store.apply(Change(delete=[(s, p, o, ONTOLOGY_GRAPH) for s, p, o in gone]))
    store.clear_graph(graph)
    return len(gone)


def list_sources(store: Store) -> list[OntologySource]:
    """Every source by name, then the union's triples no source records, if any."""
    found = [
        OntologySource(name, len(_triples(store, URIRef(_PREFIX + name)))) for name in _names(store)
    ]
    base = _base()
    recorded = {t for t in base if not _blank(t)}
    for name in _names(store):
        recorded |= _triples(store, URIRef(_PREFIX + name))
    union = _triples(store, ONTOLOGY_GRAPH)
    # blank nodes get a new label every parse, so those triples are counted, not matched:
    # doxa's own ontology has some; sources have none (they are skolemised)
    blank = sum(1 for t in union if _blank(t)) - sum(1 for t in base if _blank(t))
    unrecorded = len({t for t in union if not _blank(t)} - recorded) + max(blank, 0)
    if unrecorded:
        found.append(OntologySource(UNRECORDED, unrecorded))
    return found


def source_triples(store: Store, name: str) -> Iterable[Triple]:
    """The triples source ``name`` holds, sorted by their N-Triples text."""
    graph = source_graph(name)
    if str(graph)[len(_PREFIX) :] not in _names(store):
        raise NotFound(
            f"No ontology source is named {name!r}; list them with `doxa ontology list`."
        )
    return sorted(_triples(store, graph), key=lambda t: tuple(x.n3() for x in t))
