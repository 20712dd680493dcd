"""The store interface: what every backend (embedded Oxigraph, a remote SPARQL server) offers.

A backend stores quads in named graphs, answers SPARQL over an explicit dataset, and applies a
:class:`Change` atomically: all its deletions and insertions, or none.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rdflib import URIRef
from rdflib.term import Node

from doxa.store.convert import ntriples

__all__ = [
    "SLOTS_GRAPH",
    "SLOT_TOKEN",
    "Binding",
    "Change",
    "Dataset",
    "Quad",
    "QueryResult",
    "Row",
    "Store",
    "bind_values",
]

Quad = tuple[Node, Node, Node, URIRef]
Row = dict[str, Node]


@dataclass(frozen=True)
class Dataset:
    """The graphs a query may see: its default graph (their union) and its named graphs.

    A query never sees any graph outside these two lists, whatever its text says.
    """

    default: tuple[URIRef, ...]
    named: tuple[URIRef, ...] = ()


#: Where backends keep slot claims, one triple each: ``<slot> SLOT_TOKEN "time nonce"``.
SLOTS_GRAPH = URIRef("urn:doxa:slots")
#: The predicate of a slot claim.
SLOT_TOKEN = URIRef("urn:doxa:slot-token")


@dataclass
class Change:
    """Quads to delete and insert in one atomic step.

    With a ``slot`` (an IRI) the change is conditional: it applies only if no earlier change
    claimed the same slot, and claims it (a triple in :data:`SLOTS_GRAPH` that stays).
    Otherwise the backend raises :class:`~doxa.WriteConflict` and applies nothing. Slots are
    how writers in several processes agree on who publishes next.
    """

    delete: list[Quad] = field(default_factory=list)
    insert: list[Quad] = field(default_factory=list)
    slot: URIRef | None = None

    def extend(self, other: Change) -> None:
        self.delete.extend(other.delete)
        self.insert.extend(other.insert)

    def to_update(self, *, block: int | None = None) -> str:
        """The change as one SPARQL Update request (DELETE DATA; INSERT DATA).

        ``block`` splits the data into operations of at most that many quads, for servers
        whose parsers give up on long data blocks (Virtuoso 7 does, near 10,000 triples).
        """
        parts = []
        for verb, quads in (("DELETE", self.delete), ("INSERT", self.insert)):
            size = block or max(len(quads), 1)
            for start in range(0, len(quads), size):
                parts.append(f"{verb} DATA {{ {_quads_text(quads[start : start + size])} }}")
        return " ;\n".join(parts)


def _quads_text(quads: Iterable[Quad]) -> str:
    by_graph: dict[URIRef, list[str]] = {}
    for s, p, o, g in quads:
        by_graph.setdefault(g, []).append(f"{ntriples(s)} {ntriples(p)} {ntriples(o)} .")
    return " ".join(f"GRAPH {ntriples(g)} {{ {' '.join(lines)} }}" for g, lines in by_graph.items())


_WHERE = re.compile(r"\bWHERE\s*\{", re.IGNORECASE)


Binding = Node | None | Sequence[Node]


def bind_values(sparql: str, bindings: Mapping[str, Binding]) -> str:
    """Inject bindings as ``VALUES`` blocks at the top of the first ``WHERE`` group.

    A single term binds one value; ``None`` binds nothing (``UNDEF``), so one query file
    serves both "filter by X" and "any X"; a sequence binds the variable to each of its
    values. Works on every SPARQL 1.1 server, unlike engine-specific substitutions.

    >>> bind_values("SELECT ?s WHERE { ?s ?p ?o }", {"p": URIRef("http://ex/p")})
    'SELECT ?s WHERE { VALUES (?p) { (<http://ex/p>) } ?s ?p ?o }'
    """
    if not bindings:
        return sparql
    match = _WHERE.search(sparql)
    if match is None:
        raise ValueError("query has no WHERE group to bind values into")
    single = {k: v for k, v in bindings.items() if v is None or isinstance(v, Node)}
    blocks = []
    if single:
        names = " ".join(f"?{name}" for name in single)
        values = " ".join("UNDEF" if v is None else ntriples(v) for v in single.values())
        blocks.append(f" VALUES ({names}) {{ ({values}) }}")
    for name, value in bindings.items():
        if name not in single:
            assert value is not None
            assert not isinstance(value, Node)
            rows = " ".join(ntriples(v) for v in value)
            blocks.append(f" VALUES ?{name} {{ {rows} }}")
    return sparql[: match.end()] + "".join(blocks) + sparql[match.end() :]


class Store(Protocol):
    """A quad store that answers SPARQL over an explicit dataset and applies atomic changes.

    ``lock`` serialises the gate's decisions on this store: every Memory bound to the same
    store object shares it. This is all a backend must offer; what else it can do (a cache,
    a journal, compaction, backups, ...) it declares by inheriting the classes of
    :mod:`doxa.store.capabilities`.
    """

    lock: threading.RLock

    def select(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> list[Row]:
        """Run a SELECT; every row is fully read before this returns."""
        ...

    def column(
        self,
        sparql: str,
        variable: str,
        *,
        dataset: Dataset,
        bindings: Mapping[str, Binding] | None = None,
    ) -> list[str]:
        """Run a SELECT and return one variable's values as plain strings (IRIs, lexical
        forms): the fast path for long lists of ids."""
        ...

    def ask(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> bool: ...

    def referrers(
        self, predicate: URIRef, objects: Sequence[Node], graph: URIRef
    ) -> dict[str, list[str]]:
        """For each object (an IRI or a literal, keyed by its string), the IRIs of the
        subjects of ``(?, predicate, object)`` in ``graph`` (objects with none are left out):
        one round trip for many objects."""
        ...

    def describe(
        self,
        subjects: Sequence[URIRef],
        graphs: Sequence[URIRef],
        predicates: Sequence[URIRef] | None = None,
    ) -> dict[str, list[tuple[Node, Node]]]:
        """Every ``(predicate, object)`` of each subject in the union of ``graphs`` (only
        ``predicates``, when given), keyed by the subject's IRI; subjects with no triple there
        are left out."""
        ...

    def run(
        self,
        sparql: str,
        *,
        dataset: Dataset,
        max_rows: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> QueryResult:
        """Run any read-only query form; used by hand-written SPARQL.

        Reads at most ``max_rows`` rows (or triples) and stops reading as soon as ``stop()``
        says so; either marks the result ``truncated``.
        """
        ...

    def apply(self, change: Change) -> None:
        """Apply all deletions then all insertions atomically.

        Raises :class:`~doxa.WriteConflict` (and applies nothing) when ``change.slot`` was
        claimed before.
        """
        ...

    def graphs(self) -> list[URIRef]:
        """Every named graph in the store."""
        ...

    def quads(self, graph: URIRef | None = None) -> Iterator[Quad]:
        """Every quad, or those of one graph."""
        ...

    def load(self, data: bytes, *, format: str, graph: URIRef) -> int:
        """Parse RDF data into ``graph``; returns the number of triples added."""
        ...

    def clear_graph(self, graph: URIRef) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class QueryResult:
    """The result of a hand-written query: rows, triples, or a boolean."""

    form: str  # "select", "construct" or "ask"
    variables: tuple[str, ...] = ()
    rows: tuple[tuple[Node | None, ...], ...] = ()
    triples: tuple[tuple[Node, Node, Node], ...] = ()
    boolean: bool | None = None
    #: more rows (or triples) existed than were read: a row cap or a stop cut the result
    truncated: bool = False
