"""Shared fixtures: an in-memory store by default, a fixed clock, a small domain ontology."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import doxa

EX = "http://example.org/"

DOMAIN = b"""
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:dayOfWeek a owl:ObjectProperty, owl:FunctionalProperty .
ex:birthYear a owl:DatatypeProperty, owl:FunctionalProperty .
ex:livesIn a owl:ObjectProperty, owl:FunctionalProperty .
ex:likes a owl:ObjectProperty .
"""


@pytest.fixture
def clock() -> doxa.FixedClock:
    return doxa.FixedClock("2026-03-01T09:00:00Z")


@pytest.fixture
def memory(clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    """An in-memory store, scope 'alice', with the example domain ontology loaded."""
    mem = doxa.Memory.open(None, scope="alice", clock=clock)
    mem.add_ontology(DOMAIN)
    yield mem
    mem.close()


def statement(
    mem: doxa.Memory, text: str, subject: str, predicate: str, obj: object, **kwargs: object
) -> doxa.Receipt:
    """Remember a structured statement about example.org terms."""
    kwargs.setdefault("topic", "general")
    return mem.remember(text, subject=EX + subject, predicate=EX + predicate, object=obj, **kwargs)
