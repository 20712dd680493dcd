"""The read-only scope view over the embedded store, built on oxrdflib's ``OxigraphStore``.

oxrdflib already turns pyoxigraph quads into rdflib triples and back; this subclass keeps its
conversions and answers from the live database (``reading``, the embedded store's open
generation, so a compaction never pulls it away mid-read) while the guards of
:mod:`doxa.store.view` refuse every write and keep each read inside the scope's graphs.
Nothing is copied: triple patterns stream from ``quads_for_pattern``, one graph at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager
from typing import NoReturn

import pyoxigraph as ox
from oxrdflib import OxigraphStore
from rdflib import Graph, URIRef

from doxa.store.base import Change, Store
from doxa.store.cache import CacheKey, Derived
from doxa.store.capabilities import cache_of
from doxa.store.convert import from_ox, to_ox
from doxa.store.view import Pattern, ScopeGraphs, StoreView, Triple

__all__ = ["OxigraphView"]


class OxigraphView(StoreView, OxigraphStore):
    """oxrdflib's store over one scope of the live embedded database, read-only.

    Queries go through the embedded store's own ``run`` (as :class:`StoreView`'s do); triple
    patterns, counts and contexts read the database directly.
    """

    def __init__(
        self,
        store: Store,
        reading: Callable[[], AbstractContextManager[ox.Store]],
        scope_graphs: ScopeGraphs,
    ) -> None:
        super().__init__(store, scope_graphs)
        self._reading = reading
        self._graphs: dict[URIRef, Graph] = {}

    @property
    def _inner(self) -> NoReturn:
        # oxrdflib's own methods would reach the whole database; every one is replaced here
        self._refuse("the raw Oxigraph store")

    def close(self, commit_pending_transaction: bool = False) -> None:
        """The view owns no database: closing it leaves the memory's store open."""

    def triples(
        self, triple_pattern: Pattern, context: Graph | None = None
    ) -> Iterator[tuple[Triple, Iterator[Graph | None]]]:
        pattern = _pattern(triple_pattern)
        if pattern is None:
            return  # a literal subject, a variable or a formula matches nothing stored
        s, p, o = pattern
        whole = self.scope_graphs.reads_union(context)
        with self._reading() as store:
            if whole and (s is not None or o is not None):
                # a bound subject or object is selective: one lookup over every graph, the
                # scope's kept (pySHACL asks thousands of these; one per graph would cost
                # a lookup per topic each)
                for quad in store.quads_for_pattern(s, p, o, None):
                    context_graph = self._visible_graph(quad.graph_name)
                    if context_graph is not None:
                        yield _triple(quad), iter((context_graph,))
                return
            for graph in self.scope_graphs.graphs_for(context):
                context_graph = self._graph(graph)
                for quad in store.quads_for_pattern(s, p, o, ox.NamedNode(str(graph))):
                    yield _triple(quad), iter((context_graph,))

    def _graph(self, graph: URIRef) -> Graph:
        """The one rdflib ``Graph`` this view hands out for ``graph``."""
        found = self._graphs.get(graph)
        if found is None:
            found = self._graphs[graph] = Graph(store=self, identifier=graph)
        return found

    def _visible_graph(self, name: object) -> Graph | None:
        """The view's graph for a stored graph name, or None outside the scope."""
        if not isinstance(name, ox.NamedNode):
            return None
        graph = URIRef(name.value)
        return self._graph(graph) if self.scope_graphs.visible(graph) else None

    def __len__(self, context: Graph | None = None) -> int:
        """How many distinct triples the graphs hold, kept until the store next changes.

        rdflib asks this for every ``if graph:`` (a ``Graph`` has no ``__bool__``), and
        pySHACL asks it again and again; counting is a scan of the scope, so an audit that
        recounted each time grew with the square of the scope.
        """
        graphs = self.scope_graphs.graphs_for(context)
        if not graphs:
            return 0
        cache = cache_of(self.store)
        kept = cache.get_or_make(_COUNTS, _KeptCounts) if cache is not None else None
        if kept is not None:
            found = kept.counts.get(graphs)
            if found is not None:
                return found
        generation = kept.generation if kept is not None else 0
        count = self._count(graphs)
        if kept is not None and kept.generation == generation:
            if len(kept.counts) >= _COUNTS_KEPT:
                kept.counts.clear()
            kept.counts[graphs] = count
        return count

    def _count(self, graphs: tuple[URIRef, ...]) -> int:
        with self._reading() as store:
            solutions = store.query(
                "SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?s ?p ?o "
                "WHERE { GRAPH ?g { ?s ?p ?o } } }",
                default_graph=[],
                named_graphs=[ox.NamedNode(str(g)) for g in graphs],
            )
            assert isinstance(solutions, ox.QuerySolutions)
            count = next(iter(solutions))[0]
            return int(count.value) if count is not None else 0

    def contexts(self, triple: Triple | None = None) -> Generator[Graph, None, None]:
        graphs = self.scope_graphs.dataset().default
        with self._reading() as store:
            for graph in graphs:
                name = ox.NamedNode(str(graph))
                if triple is None:
                    present = store.contains_named_graph(name)
                else:
                    pattern = _pattern(triple)
                    present = pattern is not None and (
                        next(iter(store.quads_for_pattern(*pattern, name)), None) is not None
                    )
                if present:
                    yield Graph(store=self, identifier=graph)


class _KeptCounts(Derived):
    """Triple counts of scope views, forgotten at every change of the store (a count read
    while a write lands is not kept: its generation moved on)."""

    def __init__(self) -> None:
        self.counts: dict[tuple[URIRef, ...], int] = {}
        self.generation = 0

    def changed(self, change: Change) -> None:
        self.forget()

    def reset(self, graph: URIRef | None) -> None:
        self.forget()

    def forget(self) -> None:
        self.generation += 1
        self.counts = {}


_COUNTS: CacheKey[_KeptCounts] = CacheKey("doxa.view_counts")
_COUNTS_KEPT = 64  # sets of graphs counted; a scope's views ask about a handful


OxPattern = tuple[
    ox.NamedNode | ox.BlankNode | None,
    ox.NamedNode | None,
    ox.NamedNode | ox.BlankNode | ox.Literal | None,
]


def _pattern(triple: Pattern) -> OxPattern | None:
    """``triple`` as a pyoxigraph pattern, or None when no stored triple can match it."""
    try:
        s, p, o = (None if t is None else to_ox(t) for t in triple)
    except TypeError:
        return None  # a variable, a formula or a path is not a stored term
    if isinstance(s, ox.Literal) or not (p is None or isinstance(p, ox.NamedNode)):
        return None
    return s, p, o


def _triple(quad: ox.Quad) -> Triple:
    return (from_ox(quad.subject), from_ox(quad.predicate), from_ox(quad.object))
