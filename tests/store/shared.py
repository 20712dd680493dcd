"""A store as doxa sees one that other processes write: only the base ``Store`` contract."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence

from rdflib import URIRef
from rdflib.term import Node

from doxa.store import Change, Dataset, EmbeddedStore, Quad, QueryResult, Row
from doxa.store.base import Binding


class SharedView:
    """An in-memory embedded store behind the base protocol alone, as if other processes
    wrote it too: no cache (no ``SoleWriter``), so every read goes to the store and every
    publish claims its slot, as on a SPARQL server."""

    def __init__(self, store: EmbeddedStore | None = None) -> None:
        self.inner = store if store is not None else EmbeddedStore()
        self.lock: threading.RLock = self.inner.lock

    def select(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> list[Row]:
        return self.inner.select(sparql, dataset=dataset, bindings=bindings)

    def column(
        self,
        sparql: str,
        variable: str,
        *,
        dataset: Dataset,
        bindings: Mapping[str, Binding] | None = None,
    ) -> list[str]:
        return self.inner.column(sparql, variable, dataset=dataset, bindings=bindings)

    def ask(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> bool:
        return self.inner.ask(sparql, dataset=dataset, bindings=bindings)

    def referrers(
        self, predicate: URIRef, objects: Sequence[Node], graph: URIRef
    ) -> dict[str, list[str]]:
        return self.inner.referrers(predicate, objects, graph)

    def describe(
        self,
        subjects: Sequence[URIRef],
        graphs: Sequence[URIRef],
        predicates: Sequence[URIRef] | None = None,
    ) -> dict[str, list[tuple[Node, Node]]]:
        return self.inner.describe(subjects, graphs, predicates)

    def run(
        self,
        sparql: str,
        *,
        dataset: Dataset,
        max_rows: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> QueryResult:
        return self.inner.run(sparql, dataset=dataset, max_rows=max_rows, stop=stop)

    def apply(self, change: Change) -> None:
        self.inner.apply(change)

    def graphs(self) -> list[URIRef]:
        return self.inner.graphs()

    def quads(self, graph: URIRef | None = None) -> Iterator[Quad]:
        return self.inner.quads(graph)

    def load(self, data: bytes, *, format: str, graph: URIRef) -> int:
        return self.inner.load(data, format=format, graph=graph)

    def clear_graph(self, graph: URIRef) -> None:
        self.inner.clear_graph(graph)

    def flush(self) -> None:
        self.inner.flush()

    def close(self) -> None:
        self.inner.close()
