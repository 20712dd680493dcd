"""Adding a backend is one module: a store over an rdflib Dataset, written here, runs a Memory.

It implements only the base :class:`doxa.store.Store` protocol (no capability of
``doxa.store.capabilities``): no cache, no journal, no compaction, no backups. doxa treats it
as a store other processes may write (every publish claims its slot) and does without the rest,
with no change to doxa's own code.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from rdflib import Dataset as RdfDataset
from rdflib import Graph, Literal, URIRef
from rdflib.term import Node
from tests.conftest import EX

import doxa
from doxa.errors import InvalidInput, StoreError, WriteConflict
from doxa.store import (
    Change,
    Cloneable,
    Compactable,
    Dataset,
    Journaled,
    OnDisk,
    PlainValues,
    Quad,
    QueryResult,
    Row,
    SoleWriter,
    Store,
)
from doxa.store.base import SLOT_TOKEN, SLOTS_GRAPH, Binding, bind_values
from doxa.store.convert import stored_literal

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_FORMATS = {"turtle": "turtle", "ttl": "turtle", "nt": "nt", "ntriples": "nt", "xml": "xml"}


def _stored(term: Node) -> Node:
    """A term in the form every doxa backend hands back (Oxigraph's canonical literals)."""
    if isinstance(term, Literal) and term.datatype is not None and not term.language:
        if str(term.datatype) == XSD_STRING:
            return Literal(str(term))
        return stored_literal(str(term), str(term.datatype))
    return term


@dataclass
class _Answer:
    form: str
    names: list[str] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    boolean: bool | None = None
    triples: list[Any] = field(default_factory=list)


class RdflibStore:
    """An in-memory store over an rdflib Dataset: the base protocol and nothing more."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.data = RdfDataset()
        self.closed = False

    def _graph(self, name: URIRef) -> Graph:
        return self.data.graph(name)

    def _view(self, dataset: Dataset) -> RdfDataset:
        """A dataset holding only the graphs the query may see: nothing else can leak in."""
        view = RdfDataset()
        for name in dataset.default:
            for triple in self._graph(name):
                view.default_graph.add(triple)
        for name in dataset.named:
            target = view.graph(name)
            for triple in self._graph(name):
                target.add(triple)
        return view

    def _query(self, sparql: str, dataset: Dataset) -> _Answer:
        """Run a query and read its answer whole (rdflib evaluates lazily)."""
        if self.closed:
            raise StoreError("The store is closed.")
        try:
            with warnings.catch_warnings():  # rdflib 7 calls its own deprecated names
                warnings.simplefilter("ignore", DeprecationWarning)
                result = self._view(dataset).query(sparql)
                if result.type == "ASK":
                    return _Answer("ask", boolean=bool(result.askAnswer))
                if result.type in ("CONSTRUCT", "DESCRIBE"):
                    return _Answer("construct", triples=[tuple(t) for t in result])
                names = [str(v) for v in result.vars or ()]
                rows = [tuple(row[n] for n in names) for row in result]
                return _Answer("select", names, rows)
        except Exception as error:  # rdflib's parser raises many types
            raise InvalidInput(f"The SPARQL query is not valid: {error}.") from None

    def select(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> list[Row]:
        answer = self._query(bind_values(sparql, bindings or {}), dataset)
        return [
            {n: _stored(v) for n, v in zip(answer.names, row, strict=False) if v is not None}
            for row in answer.rows
        ]

    def column(
        self,
        sparql: str,
        variable: str,
        *,
        dataset: Dataset,
        bindings: Mapping[str, Binding] | None = None,
    ) -> list[str]:
        rows = self.select(sparql, dataset=dataset, bindings=bindings)
        return [str(row[variable]) for row in rows if variable in row]

    def ask(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> bool:
        return bool(self._query(bind_values(sparql, bindings or {}), dataset).boolean)

    def referrers(
        self, predicate: URIRef, objects: Sequence[Node], graph: URIRef
    ) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for obj in objects:
            subjects = [str(s) for s in self._graph(graph).subjects(predicate, obj)]
            if subjects:
                found[str(obj)] = subjects
        return found

    def describe(
        self,
        subjects: Sequence[URIRef],
        graphs: Sequence[URIRef],
        predicates: Sequence[URIRef] | None = None,
    ) -> dict[str, list[tuple[Node, Node]]]:
        described: dict[str, list[tuple[Node, Node]]] = {}
        for subject in subjects:
            pairs = [
                (p, _stored(o))
                for name in graphs
                for p, o in self._graph(name).predicate_objects(subject)
                if predicates is None or p in predicates
            ]
            if pairs:
                described[str(subject)] = list(dict.fromkeys(pairs))
        return described

    def run(
        self,
        sparql: str,
        *,
        dataset: Dataset,
        max_rows: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> QueryResult:
        answer = self._query(sparql, dataset)
        if answer.form == "ask":
            return QueryResult(form="ask", boolean=answer.boolean)
        if answer.form == "construct":
            triples = tuple(answer.triples)
            cut = max_rows is not None and len(triples) > max_rows
            return QueryResult(form="construct", triples=triples[:max_rows], truncated=cut)
        rows = tuple(tuple(None if v is None else _stored(v) for v in row) for row in answer.rows)
        cut = max_rows is not None and len(rows) > max_rows
        return QueryResult(
            form="select",
            variables=tuple(answer.names),
            rows=rows[:max_rows] if cut else rows,
            truncated=cut,
        )

    def apply(self, change: Change) -> None:
        with self.lock:
            if change.slot is not None:
                claims = self._graph(SLOTS_GRAPH)
                if (change.slot, SLOT_TOKEN, None) in claims:
                    raise WriteConflict("Another writer published to this scope first.")
                claims.add((change.slot, SLOT_TOKEN, Literal("claimed")))
            for s, p, o, g in change.delete:
                self._graph(g).remove((s, p, o))
            for s, p, o, g in change.insert:
                self._graph(g).add((s, p, o))

    def graphs(self) -> list[URIRef]:
        return [
            g.identifier
            for g in self.data.graphs()
            if isinstance(g.identifier, URIRef) and len(g) and g.identifier != self._default()
        ]

    def _default(self) -> URIRef:
        return URIRef(str(self.data.default_graph.identifier))

    def quads(self, graph: URIRef | None = None) -> Iterator[Quad]:
        for name in [graph] if graph is not None else self.graphs():
            for s, p, o in self._graph(name):
                yield s, p, _stored(o), name

    def load(self, data: bytes, *, format: str, graph: URIRef) -> int:
        parsed = Graph()
        parsed.parse(data=data, format=_FORMATS[format.lower()])
        target = self._graph(graph)
        before = len(target)
        with self.lock:
            for triple in parsed.skolemize():
                target.add(triple)
        return len(target) - before

    def clear_graph(self, graph: URIRef) -> None:
        with self.lock:
            self.data.remove_graph(self._graph(graph))

    def flush(self) -> None:
        """Nothing to flush: the data lives in this process's memory."""

    def close(self) -> None:
        self.closed = True


def test_the_store_claims_no_capability() -> None:
    store: Store = RdflibStore()  # mypy checks it implements the protocol
    for capability in (SoleWriter, Journaled, Compactable, OnDisk, Cloneable, PlainValues):
        assert not isinstance(store, capability), capability
    # positive control: the embedded store claims the ones it has
    embedded = doxa.store.EmbeddedStore()
    assert isinstance(embedded, SoleWriter)
    assert isinstance(embedded, Compactable)
    embedded.close()


@pytest.fixture
def memory() -> Iterator[doxa.Memory]:
    clock = doxa.FixedClock("2026-03-01T09:00:00Z")
    mem = doxa.Memory(RdflibStore(), scope="alice", clock=clock, owns_store=True)
    yield mem
    mem.close()


def test_a_memory_runs_on_a_store_with_only_the_base_protocol(memory: doxa.Memory) -> None:
    first = memory.remember("Alice prefers tea", topic="drinks", authority="owner")
    assert (first.outcome, first.relation) == (doxa.Outcome.ADMITTED, doxa.Relation.NEW)
    again = memory.remember("Alice prefers tea", topic="drinks", authority="owner")
    assert again.relation is doxa.Relation.SAME  # the gate read what the first stored
    city = memory.remember(
        "Alice lives in Paris",
        topic="places",
        subject=EX + "alice",
        predicate=EX + "livesIn",
        object=EX + "paris",
        authority="owner",
    )
    assert city.outcome is doxa.Outcome.ADMITTED
    assert {f.text for f in memory.facts()} == {"Alice prefers tea", "Alice lives in Paris"}
    assert [f.text for f in memory.recall("tea")] == ["Alice prefers tea"]
    rows = memory.rdf.sparql("SELECT ?text WHERE { ?c <https://w3id.org/doxa#text> ?text }").rows
    assert sorted(str(r[0]) for r in rows) == ["Alice lives in Paris", "Alice prefers tea"]
    assert city.fact is not None
    gone = memory.owner.retract(city.fact, reason="she moved")
    assert gone.outcome is doxa.Outcome.CLOSED
    assert [f.text for f in memory.facts()] == ["Alice prefers tea"]
    assert memory.verify() == len(memory.receipts()) == 4


def test_without_the_capabilities_doxa_does_without_them(memory: doxa.Memory) -> None:
    """No compaction: an erasure says the files are not purged; no directory: no backups."""
    receipt = memory.remember("Bob's number is 555", topic="contacts", authority="owner")
    assert receipt.fact is not None
    erased = memory.owner.erase(receipt.fact, reason="asked to forget")
    assert erased.outcome is doxa.Outcome.ERASED
    assert memory.facts() == []
    assert not memory.admin.store_purges_files
    assert doxa.memory.SERVER_FILES_NOT_PURGED in erased.reason
    assert memory.admin.purge_status().owed == 0
    with pytest.raises(StoreError, match="Only a store on disk has backups"):
        memory.admin.backup()
    assert memory.admin.backups() == []
    assert memory.verify() == 2


def test_a_publish_on_a_shared_store_is_guarded(memory: doxa.Memory) -> None:
    """Not a SoleWriter: each decision reads the chain head first and claims the next slot,
    so a receipt another process published since is noticed."""
    memory.remember("Alice prefers tea", topic="drinks", authority="owner")
    head = memory.gate.record.mark()
    assert head is not None
    assert head.sequence == 1
    slot = memory.gate.record.slot(head.sequence + 1)
    memory.store.apply(Change(slot=slot))  # another writer published receipt #2
    with pytest.raises(WriteConflict):
        memory.store.apply(Change(slot=slot))
    # control: the embedded store is the only writer of its data, so nothing is guarded
    with doxa.Memory.open(None, scope="alice") as alone:
        assert alone.gate.record.mark() is None
