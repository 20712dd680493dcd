"""The scope as RDF, for RDF tools: read-only SPARQL and an rdflib ``Dataset``.

``memory.rdf`` (an :class:`Rdf`) is what a data person or an RDF tool (rdflib, pySHACL,
owlrl, the SPARQL endpoint) reads: the scope's ordinary graphs, never pending, quarantine or
another scope, and nothing it can write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rdflib import Dataset as RdflibDataset

from doxa.memory.reading import Reads
from doxa.reads.sparql import CheckedQuery, narrow, run_sparql
from doxa.reads.view import scope_graphs, scope_view
from doxa.store import QueryResult
from doxa.terms import as_text

__all__ = ["Rdf"]


class Rdf:
    """One memory's scope for RDF tools (``memory.rdf``)."""

    def __init__(self, reads: Reads) -> None:
        self._reads = reads
        self.store = reads.store
        self.scope = reads.scope

    def sparql(
        self,
        query: str | CheckedQuery,
        *,
        default_graphs: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        max_rows: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> QueryResult:
        """Run read-only SPARQL over this scope's ordinary graphs only.

        FROM / FROM NAMED cannot reach other scopes, pending or quarantine; SERVICE and
        updates are refused with :class:`~doxa.ScopeViolation`. ``default_graphs`` and
        ``named_graphs`` (the SPARQL Protocol's dataset) may only narrow the scope's graphs;
        ``max_rows`` caps the rows read and ``stop`` ends reading early (both mark the
        result ``truncated``).
        """
        if not isinstance(query, CheckedQuery):  # a checked query was read as text already
            as_text(query, "query")
        ordinary = self.scope.ordinary(self._reads.topic_graphs())
        dataset = narrow(
            ordinary,
            default_graphs,
            named_graphs,
            allowed=lambda g: g in ordinary.named or self.scope.topic_of(g) is not None,
        )
        return run_sparql(self.store, query, dataset, max_rows=max_rows, stop=stop)

    def dataset(self) -> RdflibDataset:
        """This scope as a read-only rdflib ``Dataset`` over the live store (nothing copied).

        It sees what :meth:`sparql` sees (the scope's ordinary graphs, their union as the
        default graph; never pending, quarantine or another scope, whose graphs read as
        empty), so rdflib, pySHACL, owlrl and other rdflib tools can read the memory in place.
        Every write through it (``add``, ``remove``, ``addN``, ``update``, ``parse``, ``set``)
        raises :class:`~doxa.ReadOnly`: write through ``memory.remember``. The embedded store's
        view is oxrdflib's store; a remote one asks the server through doxa's SPARQL client.
        """
        return scope_view(self.store, scope_graphs(self.scope, self._reads.topic_graphs))
