"""The named-graph layout of one scope (one owner's or agent's memory).

| graph                 | holds                                                      |
| --------------------- | ---------------------------------------------------------- |
| ``<scope>/topic/<t>`` | the claims of topic ``t``                                  |
| ``<scope>/rules``     | the owner's standing rules                                 |
| ``<scope>/log``       | receipts and ending events: the append-only audit record   |
| ``<scope>/pending``   | writes waiting for the owner or for the judge              |
| ``<scope>/quarantine``| outside text that acted as an instruction                  |
| ``<scope>/current``   | derived: live structured facts as plain triples            |
| ``<scope>/search``    | derived: the word index that ``recall`` reads              |
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from functools import cached_property

from rdflib import URIRef

from doxa.errors import InvalidInput
from doxa.store.base import Dataset
from doxa.text import DEFAULT_LANGUAGE, check_language

__all__ = ["Scope", "check_name", "new_id"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


def check_name(value: str, what: str) -> str:
    """Check a scope, topic or kind name: lower-case letters, digits, ``_ . -``, 1–64 long.

    >>> check_name("meetings", "topic")
    'meetings'
    """
    if not isinstance(value, str) or not _NAME.match(value):
        raise InvalidInput(
            f"{value!r} is not a valid {what} name; use 1-64 lower-case letters, digits, "
            "'_', '.' or '-', starting with a letter or digit (for example 'meetings')."
        )
    return value


def new_id() -> str:
    """A fresh identifier for a fact, receipt or event, ordered by creation time.

    20 hex digits: 12 of the wall clock in milliseconds, then 8 random ones (32 bits). Ids
    sort in the order they were made, so an index walked in id order meets newer claims
    later, which ``recall`` uses to break ties without reading every candidate.

    >>> a, b = new_id(), new_id()
    >>> len(a), a[:12] <= b[:12]
    (20, True)
    """
    return f"{time.time_ns() // 1_000_000:012x}{secrets.randbits(32):08x}"


@dataclass(frozen=True)
class Scope:
    """The IRIs of one scope's graphs and nodes (its graph IRIs built once, on first use).

    >>> Scope.named("alice").topic("meetings")
    rdflib.term.URIRef('urn:doxa:scope:alice/topic/meetings')
    """

    name: str
    #: the Snowball language recall stems the scope's words in (see :func:`doxa.text.stems`)
    language: str = DEFAULT_LANGUAGE

    @classmethod
    def named(cls, name: str, language: str = DEFAULT_LANGUAGE) -> Scope:
        return cls(check_name(name, "scope"), check_language(language))

    @cached_property
    def iri(self) -> URIRef:
        return URIRef(f"urn:doxa:scope:{self.name}")

    def _graph(self, local: str) -> URIRef:
        return URIRef(f"{self.iri}/{local}")

    def topic(self, topic: str) -> URIRef:
        found = self._topics.get(topic)
        if found is None:
            found = self._topics[topic] = self._graph(f"topic/{topic}")
        return found

    @cached_property
    def _topics(self) -> dict[str, URIRef]:
        """Topic graph IRIs built so far: the gate names the same few on every write."""
        return {}

    @property
    def topic_prefix(self) -> str:
        return f"{self.iri}/topic/"

    @cached_property
    def rules(self) -> URIRef:
        return self._graph("rules")

    @cached_property
    def log(self) -> URIRef:
        return self._graph("log")

    @cached_property
    def pending(self) -> URIRef:
        return self._graph("pending")

    @cached_property
    def quarantine(self) -> URIRef:
        return self._graph("quarantine")

    @cached_property
    def current(self) -> URIRef:
        return self._graph("current")

    @cached_property
    def search(self) -> URIRef:
        return self._graph("search")

    def fact(self, fact_id: str) -> URIRef:
        return self._graph(f"fact/{fact_id}")

    def receipt(self, receipt_id: str) -> URIRef:
        return self._graph(f"receipt/{receipt_id}")

    def event(self, event_id: str) -> URIRef:
        return self._graph(f"event/{event_id}")

    def held(self, held_id: str) -> URIRef:
        return self._graph(f"held/{held_id}")

    def alarm(self, alarm_id: str) -> URIRef:
        return self._graph(f"alarm/{alarm_id}")

    def standpoint(self, whose: str) -> URIRef:
        return self._graph(f"standpoint/{whose}")

    def local_id(self, iri: object) -> str:
        """The id at the end of a fact, receipt, event or held-write IRI."""
        return str(iri).rsplit("/", 1)[-1]

    def owns(self, graph: URIRef) -> bool:
        return str(graph).startswith(f"{self.iri}/")

    def topic_of(self, graph: URIRef) -> str | None:
        text = str(graph)
        return text[len(self.topic_prefix) :] if text.startswith(self.topic_prefix) else None

    def ordinary(self, topic_graphs: list[URIRef]) -> Dataset:
        """What an ordinary reader sees: topics, rules, log and the derived graphs.

        Never pending or quarantine, never another scope.
        """
        graphs = (*topic_graphs, self.rules, self.log, self.current, self.search)
        return Dataset(default=graphs, named=graphs)
