"""What the agent's reads share: the two clocks, read filters by name, the scope's graphs.

:class:`Reads` holds the few steps every read of :class:`~doxa.Memory` takes before asking
:mod:`doxa.reads` (which topic graphs, which instants, which IRI a name is, the writes
waiting for the judge), so each read method says only what it reads.
"""

from __future__ import annotations

import logging
from dataclasses import replace as dataclass_replace
from datetime import date, datetime
from typing import Literal

from rdflib import URIRef

from doxa.clock import Clock, parse_instant
from doxa.errors import EmbeddingUnavailable
from doxa.gate.gate import Gate
from doxa.gate.names import Role, is_name
from doxa.memory.arguments import UNNAMED
from doxa.model import Fact, FactStatus
from doxa.reads.claims import load_facts
from doxa.reads.embeddings import Embedder, embed_checked
from doxa.reads.vectors import Meaning, numpy_or_none
from doxa.scope import check_name
from doxa.store import Dataset, Store
from doxa.store.capabilities import cache_of
from doxa.terms import as_iri

__all__ = ["Reads", "recall_mode"]

_log = logging.getLogger("doxa.memory")


def recall_mode(store: Store, embedder: Embedder | None) -> Literal["words", "hybrid"]:
    """``"hybrid"`` when recall can fuse words with meaning: an embedder, numpy, and a store
    whose changes this process sees (the vectors are searched in memory)."""
    if embedder is None or cache_of(store) is None or numpy_or_none() is None:
        return "words"
    return "hybrid"


class Reads:
    """The read steps of one memory's scope (its gate and clock)."""

    def __init__(self, gate: Gate, clock: Clock) -> None:
        self.gate = gate
        self.store = gate.store
        self.scope = gate.scope
        self.clock = clock

    def topic_graphs(self, topic: str | None = None) -> list[URIRef]:
        """The topic graphs a read looks in: one topic's, or every topic's that holds claims."""
        if topic is not None:
            return [self.scope.topic(check_name(topic, "topic"))]
        return [g for g in self.gate.record.claim_graphs() if g != self.scope.rules]

    def times(
        self, valid_at: datetime | date | str | None, as_of: datetime | date | str | None
    ) -> tuple[datetime, datetime]:
        """The two clocks of a read: true at ``valid_at``, believed at ``as_of`` (both default
        to now; a bare date for ``as_of`` means the end of that day)."""
        now = self.clock.now()
        believed = parse_instant(as_of) if as_of is not None else now
        # a bare date asks about the whole day: belief at its end, truth at its start
        if (isinstance(as_of, str) and len(as_of.strip()) == 10) or (
            isinstance(as_of, date) and not isinstance(as_of, datetime)
        ):
            believed = believed.replace(hour=23, minute=59, second=59, microsecond=999999)
        return (parse_instant(valid_at) if valid_at is not None else now), believed

    def filter_term(self, value: object, role: Role, what: str) -> URIRef | None:
        """A read filter's IRI: an absolute IRI as it is, a name as :meth:`remember` would
        resolve it (never minting; ``UNNAMED`` when nothing is called that)."""
        if value is None:
            return None
        if not is_name(value):
            return as_iri(value, what)
        found = self.gate.names.find(str(value), role, what)
        return UNNAMED if found is None else found

    def unchecked(self) -> list[Fact]:
        """The writes waiting for a judge that could not answer, flagged ``unchecked``."""
        iris = [self.scope.fact(held) for held in self.gate.record.unchecked()]
        found = load_facts(self.store, self.scope, Dataset(default=(self.scope.pending,)), iris)
        return [dataclass_replace(f, status=FactStatus.UNCHECKED) for f in found]

    def claims(self) -> Dataset:
        """The graphs a fact's history and evidence are read from."""
        graphs = (*self.topic_graphs(), self.scope.rules, self.scope.log)
        return Dataset(default=graphs)

    def query_meaning(self, text: str, embedder: Embedder | None) -> Meaning | None:
        """The query's vector for hybrid recall; None for recall by words (no embedder, or
        the endpoint failed: logged, never an error)."""
        if embedder is None or recall_mode(self.store, embedder) == "words":
            return None
        try:
            vector = embed_checked(embedder, [text])[0]
        except EmbeddingUnavailable as error:
            _log.warning("recall by words only: %s", error)
            return None
        return Meaning(vector, embedder.model)

    # -- the other audiences ------------------------------------------------------------
