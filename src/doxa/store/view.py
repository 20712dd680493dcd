"""A read-only rdflib store over one scope's graphs: what ``memory.rdf.dataset`` hands out.

rdflib, pySHACL, owlrl and the other rdflib-based tools read through an rdflib ``Store``. The
views here are such stores, over the live doxa store (nothing is copied), and they hold two
guards that decide on what is asked, never on the text of a request:

- **read-only**: every mutating method of rdflib's ``Store`` (``add``, ``addN``, ``remove``,
  ``update``, ``remove_graph``, ``add_graph`` of a graph outside the scope) raises
  :class:`~doxa.ReadOnly`, whatever the update says or how it is spelled, so a write can only
  go through the gate (``Memory.remember``) and get its verdict and receipt;
- **one scope**: a read sees only the scope's ordinary graphs (``ScopeGraphs``), the same
  dataset ``memory.rdf.sparql`` queries: never another scope, pending or quarantine. A
  graph outside it reads as empty, and naming one as a query's graph is a
  :class:`~doxa.ScopeViolation`.

:class:`StoreView` serves any :class:`~doxa.store.Store` (the remote SPARQL 1.1 backends, a
test's store) through the store's own ``select``/``run``, which already apply the dataset and
the server's dialect; the embedded Oxigraph store has its own view built on oxrdflib
(``doxa.store.oxigraph_view``), which streams from the live database.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from rdflib import Graph, URIRef, Variable
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.plugins.sparql.sparql import Query, Update
from rdflib.query import Result
from rdflib.store import Store as RdflibStore
from rdflib.term import Identifier, Node

from doxa.errors import ReadOnly, ScopeViolation
from doxa.store.base import Dataset, QueryResult, Store, bind_values
from doxa.store.convert import ntriples

__all__ = ["READ_ONLY", "ScopeGraphs", "StoreView", "as_result"]

READ_ONLY = (
    "memory.rdf.dataset() is a read-only view of the scope: {what} would change it outside the "
    "gate; write through Memory.remember (or `doxa remember`) so the write is judged and "
    "receipted."
)

Triple = tuple[Node, Node, Node]
Pattern = tuple[Node | None, Node | None, Node | None]


@dataclass(frozen=True)
class ScopeGraphs:
    """The graphs a view may read, asked afresh on every read so new topics appear.

    ``dataset()`` is the scope's ordinary dataset (as ``memory.rdf.sparql`` sees it);
    ``visible(iri)`` says whether a graph belongs to it (a topic graph written later too);
    ``check(text)`` is the read-only query check (``doxa.reads.sparql.check_query``), which
    returns the text the store may run.
    """

    dataset: Callable[[], Dataset]
    visible: Callable[[URIRef], bool]
    check: Callable[[str], str]

    def graph_of(self, context: object) -> URIRef | None:
        """The scope graph ``context`` names, or None for the scope's union (the default graph).

        Raises :class:`~doxa.ScopeViolation` for a graph outside the scope.
        """
        name = context.identifier if isinstance(context, Graph) else context
        if name is None or name == DATASET_DEFAULT_GRAPH_ID or name == "__UNION__":
            return None
        if isinstance(name, URIRef) and self.visible(name):
            return name
        raise ScopeViolation(
            f"The graph <{name}> is not in this scope's dataset; read only the scope's graphs "
            "(its topic graphs, rules, log, current, search and vocabulary)."
        )

    def reads_union(self, context: object) -> bool:
        """Whether a triple pattern on ``context`` reads the scope's whole union."""
        try:
            return self.graph_of(context) is None
        except ScopeViolation:
            return False

    def graphs_for(self, context: object) -> tuple[URIRef, ...]:
        """The graphs a triple pattern on ``context`` reads: one, all, or none outside."""
        try:
            graph = self.graph_of(context)
        except ScopeViolation:
            return ()  # another scope's graph, pending or quarantine: not there
        return self.dataset().default if graph is None else (graph,)

    def query_dataset(self, query_graph: object) -> Dataset:
        """The dataset a query on ``query_graph`` runs over (its named graphs: the scope's)."""
        whole = self.dataset()
        graph = self.graph_of(query_graph)
        return whole if graph is None else Dataset(default=(graph,), named=whole.named)

    def checked(self, query: Query | str, namespaces: Mapping[str, Any]) -> str:
        """The query text with rdflib's prefixes declared, checked read-only."""
        if not isinstance(query, str):
            raise ScopeViolation(
                "A prepared query cannot be checked against the scope; pass the query text "
                "to query()."
            )
        prologue = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in namespaces.items())
        return self.check(prologue + query)


class ReadOnlyStore(RdflibStore):
    """The mutating half of rdflib's ``Store``, refused: each raises :class:`~doxa.ReadOnly`."""

    scope_graphs: ScopeGraphs

    def _refuse(self, what: str) -> NoReturn:
        raise ReadOnly(READ_ONLY.format(what=what))

    def add(self, triple: Triple, context: Graph, quoted: bool = False) -> None:
        self._refuse("add()")

    def addN(self, quads: Iterable[tuple[Node, Node, Node, Graph]]) -> None:  # noqa: N802
        self._refuse("addN()")

    def remove(self, triple: Pattern, context: Graph | None = None) -> None:
        self._refuse("remove()")

    def update(
        self,
        update: Update | str,
        initNs: Mapping[str, Any],  # noqa: N803
        initBindings: Mapping[str, Identifier],  # noqa: N803
        queryGraph: str,  # noqa: N803
        **kwargs: Any,
    ) -> None:
        self._refuse("a SPARQL update")

    def add_graph(self, graph: Graph) -> None:
        """``Dataset.graph(iri)`` asks this of a graph it hands out: a scope graph already
        exists (nothing to do); any other is outside the scope."""
        self.scope_graphs.graph_of(graph)

    def remove_graph(self, graph: Graph) -> None:
        self._refuse("remove_graph()")

    def open(self, configuration: Any, create: bool = False) -> int | None:
        self._refuse("open()")

    def destroy(self, configuration: str) -> None:
        self._refuse("destroy()")

    def commit(self) -> None:
        """Nothing is ever written, so there is nothing to commit."""

    def rollback(self) -> None:
        """Nothing is ever written, so there is nothing to roll back."""


class StoreView(ReadOnlyStore):
    """A read-only rdflib store over any doxa :class:`~doxa.store.Store` and one scope.

    Triple patterns and queries go to the store's own SPARQL (``select``/``run``) over the
    scope's dataset, so a remote server answers them with the same dialect and dataset rules
    as ``memory.rdf.sparql``.
    """

    context_aware = True
    graph_aware = True
    formula_aware = False
    transaction_aware = False

    def __init__(self, store: Store, scope_graphs: ScopeGraphs) -> None:
        super().__init__()
        self.store = store
        self.scope_graphs = scope_graphs
        self._prefixes: dict[str, URIRef] = {}  # the view's own prefixes, as rdflib binds them

    def bind(self, prefix: str, namespace: URIRef, override: bool = True) -> None:
        if override or prefix not in self._prefixes:
            self._prefixes[prefix] = namespace

    def namespace(self, prefix: str) -> URIRef | None:
        return self._prefixes.get(prefix)

    def prefix(self, namespace: URIRef) -> str | None:
        return next((p for p, ns in self._prefixes.items() if ns == namespace), None)

    def namespaces(self) -> Iterator[tuple[str, URIRef]]:
        yield from list(self._prefixes.items())

    def triples(
        self, triple_pattern: Pattern, context: Graph | None = None
    ) -> Iterator[tuple[Triple, Iterator[Graph | None]]]:
        graphs = self.scope_graphs.graphs_for(context)
        if not graphs:
            return
        s, p, o = triple_pattern
        terms = " ".join(
            f"?{name}" if term is None else ntriples(term)
            for name, term in zip("spo", (s, p, o), strict=True)
        )
        rows = self.store.select(
            f"SELECT ?g ?s ?p ?o WHERE {{ GRAPH ?g {{ {terms} }} }}",
            dataset=Dataset(default=(), named=graphs),
        )
        for row in rows:
            found = (
                row["s"] if s is None else s,
                row["p"] if p is None else p,
                row["o"] if o is None else o,
            )
            graph: Graph | None = Graph(store=self, identifier=URIRef(str(row["g"])))
            yield found, iter((graph,))

    def __len__(self, context: Graph | None = None) -> int:
        graphs = self.scope_graphs.graphs_for(context)
        if not graphs:
            return 0
        rows = self.store.select(
            "SELECT (COUNT(*) AS ?n) WHERE { SELECT DISTINCT ?s ?p ?o "
            "WHERE { GRAPH ?g { ?s ?p ?o } } }",
            dataset=Dataset(default=(), named=graphs),
        )
        return int(str(rows[0]["n"])) if rows else 0

    def contexts(self, triple: Triple | None = None) -> Generator[Graph, None, None]:
        graphs = self.scope_graphs.dataset().default
        if triple is None:
            wanted = graphs
        else:
            s, p, o = (ntriples(t) for t in triple)
            rows = self.store.select(
                f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{ {s} {p} {o} }} }}",
                dataset=Dataset(default=(), named=graphs),
            )
            wanted = tuple(URIRef(str(row["g"])) for row in rows)
        for graph in wanted:
            yield Graph(store=self, identifier=graph)

    def query(
        self,
        query: Query | str,
        initNs: Mapping[str, Any],  # noqa: N803
        initBindings: Mapping[str, Identifier],  # noqa: N803
        queryGraph: str,  # noqa: N803
        **kwargs: Any,
    ) -> Result:
        text = self.scope_graphs.checked(query, initNs)
        dataset = self.scope_graphs.query_dataset(queryGraph)
        if initBindings:
            text = bind_values(text, {str(k): v for k, v in initBindings.items()})
        return as_result(self.store.run(text, dataset=dataset))


def as_result(answer: QueryResult) -> Result:
    """A doxa :class:`~doxa.store.QueryResult` as the ``rdflib.query.Result`` rdflib expects."""
    if answer.form == "ask":
        out = Result("ASK")
        out.askAnswer = bool(answer.boolean)
        return out
    if answer.form == "construct":
        out = Result("CONSTRUCT")
        graph = Graph()
        for triple in answer.triples:
            graph.add(triple)
        out.graph = graph
        return out
    out = Result("SELECT")
    names = [Variable(v) for v in answer.variables]
    out.vars = names
    out.bindings = [
        {
            name: value
            for name, value in zip(names, row, strict=True)
            if isinstance(value, Identifier)
        }
        for row in answer.rows
    ]
    return out
