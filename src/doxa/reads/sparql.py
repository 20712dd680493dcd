"""Hand-written SPARQL, held inside its scope: read-only, no network, no other scope."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rdflib import URIRef

from doxa.errors import ScopeViolation
from doxa.store import Dataset, QueryResult, Store

__all__ = ["narrow", "run_sparql"]

_NOISE = re.compile(
    r"""'''.*?'''|\"\"\".*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|<[^<>\s]*>|\#[^\n]*"""
    r"|[?$]\w+|[\w.-]*:[\w.-]*",  # variables and prefixed names are never keywords
    re.DOTALL,
)
_UPDATE = re.compile(
    r"\b(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b", re.IGNORECASE
)
_SERVICE = re.compile(r"\bSERVICE\b", re.IGNORECASE)


def narrow(
    dataset: Dataset,
    default: Sequence[str] | None,
    named: Sequence[str] | None,
    *,
    allowed: Callable[[URIRef], bool],
) -> Dataset:
    """The dataset a caller named (SPARQL Protocol ``default-graph-uri``/``named-graph-uri``).

    Naming either list replaces the whole dataset, as the Protocol says (an unnamed list is
    empty); each graph must be one ``allowed`` accepts, so a caller can only narrow ``dataset``.
    Naming neither keeps ``dataset``.

    >>> whole = Dataset(default=(URIRef("urn:a"), URIRef("urn:b")))
    >>> narrow(whole, ["urn:a"], None, allowed=lambda g: g in whole.default)
    Dataset(default=(rdflib.term.URIRef('urn:a'),), named=())
    """
    if default is None and named is None:
        return dataset
    graphs = []
    for given in (default or [], named or []):
        chosen = []
        for iri in given:
            graph = URIRef(iri)
            if not allowed(graph):
                raise ScopeViolation(
                    f"The graph <{iri}> is not in this scope's dataset; name only graphs the "
                    "scope's readers see (its topic graphs, rules, log, current and search), "
                    "or leave the dataset out to query all of them."
                )
            chosen.append(graph)
        graphs.append(tuple(dict.fromkeys(chosen)))
    return Dataset(default=graphs[0], named=graphs[1])


def run_sparql(
    store: Store,
    sparql: str,
    dataset: Dataset,
    *,
    max_rows: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> QueryResult:
    """Run a read-only query over ``dataset`` only; FROM and FROM NAMED cannot widen it."""
    bare = _NOISE.sub(" ", sparql)
    if _SERVICE.search(bare):
        raise ScopeViolation(
            "SERVICE is not allowed: a query may not make network calls from the store; "
            "query the other endpoint yourself."
        )
    if _UPDATE.search(bare):
        raise ScopeViolation(
            "This is a SPARQL update, and reads are read-only; write through the gate with "
            "Memory.remember (or `doxa remember`)."
        )
    return store.run(sparql, dataset=dataset, max_rows=max_rows, stop=stop)
