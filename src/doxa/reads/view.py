"""One scope as an rdflib ``Dataset``, read-only: what ``memory.rdf.dataset`` returns.

The scope rules are ``memory.rdf.sparql``'s: the ordinary graphs (topics, rules, log,
current, search, vocabulary), never pending, quarantine or another scope; queries pass the
same read-only check (:func:`doxa.reads.sparql.check_query`). The rdflib store behind it is
the backend's own view (:mod:`doxa.store.view`), which refuses every write.
"""

from __future__ import annotations

from collections.abc import Callable

from rdflib import Dataset as RdflibDataset
from rdflib import Graph, URIRef
from rdflib.store import Store as RdflibStore

from doxa.reads.sparql import check_query
from doxa.scope import Scope
from doxa.store import Dataset, EmbeddedStore, Store
from doxa.store.view import ScopeGraphs, StoreView

__all__ = ["ScopeDataset", "scope_graphs", "scope_view"]


class ScopeDataset(RdflibDataset):
    """rdflib's ``Dataset`` over a scope view, its default graph the union of the scope's
    graphs (``default_union``), as the default graph of ``memory.rdf.sparql`` is.

    rdflib's own ``triples``, ``add`` and ``parse`` still read ``default_context``, which rdflib
    7.2+ deprecates with a warning on each call; here that name is the same graph as
    ``default_graph``, without the warning, so a ``triples()`` loop stays quiet.
    """

    @property
    def default_context(self) -> Graph:
        return self.default_graph  # type: ignore[no-any-return]

    @default_context.setter
    def default_context(self, value: Graph) -> None:
        self.default_graph = value


def scope_graphs(scope: Scope, topic_graphs: Callable[[], list[URIRef]]) -> ScopeGraphs:
    """The graphs of ``scope`` an ordinary reader sees, asked afresh at each read."""
    fixed = frozenset(scope.ordinary([]).named)

    def dataset() -> Dataset:
        return scope.ordinary(topic_graphs())

    def visible(graph: URIRef) -> bool:
        return graph in fixed or scope.topic_of(graph) is not None

    return ScopeGraphs(dataset=dataset, visible=visible, check=lambda q: check_query(q).text)


def scope_view(store: Store, graphs: ScopeGraphs) -> ScopeDataset:
    """A read-only rdflib ``Dataset`` over ``graphs`` of the live ``store`` (no copy).

    Its default graph is the union of the scope's graphs, as in ``memory.rdf.sparql``.
    """
    view: RdflibStore = (
        store.rdflib_view(graphs) if isinstance(store, EmbeddedStore) else StoreView(store, graphs)
    )
    return ScopeDataset(store=view, default_union=True)
