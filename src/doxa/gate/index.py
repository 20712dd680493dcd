"""Index entries in a scope's search graph: the keys the gate and ``recall`` look up.

Three kinds of ``doxa:term`` literal hang off each claim in ``<scope>/search``:

- ``"@…"`` — a key of its subject and predicate (structured claims; live claims only);
- ``"=…"`` — a key of its normalised text (text-only claims; live claims only);
- plain words of its text, for ``recall`` (kept after the claim ends, for ``include_ended``).

Beside them, a copy of the claim's topic and both clocks' fields (``doxa:topic``,
``doxa:recordedAt``, ``doxa:validFrom``, ``doxa:validUntil``): ``recall`` checks liveness
and finds each candidate's graph within this one graph and the log, instead of probing every
topic graph of the scope for every candidate.

The two keys are removed when a claim ends, so a lookup returns only live claims however
long a statement's history grows.
"""

from __future__ import annotations

import hashlib

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.store.convert import ntriples
from doxa.text import text_key, words
from doxa.vocabulary import DOXA, RDF

__all__ = ["TERM", "index_entries", "index_terms", "live_keys", "statement_key"]

TERM = DOXA["term"]


def statement_key(subject: Node, predicate: Node) -> Literal:
    """The key shared by every claim about one subject and predicate."""
    text = f"{ntriples(subject)} {ntriples(predicate)}"
    return Literal("@" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24])


def live_keys(pairs: list[tuple[URIRef, Node]]) -> list[Literal]:
    """The keys a live claim carries: statement key, or text key for a text-only claim."""
    values = dict(pairs)
    if (RDF.type, DOXA.Rule) in pairs:
        return []
    subject, predicate = values.get(RDF.subject), values.get(RDF.predicate)
    if subject is not None and predicate is not None:
        return [statement_key(subject, predicate)]
    return [Literal(text_key(str(values[DOXA.text])))]


def index_terms(pairs: list[tuple[URIRef, Node]]) -> list[Literal]:
    """Every index literal of a newly admitted claim."""
    text = str(dict(pairs)[DOXA.text])
    return [*live_keys(pairs), *(Literal(w) for w in words(text))]


_COPIED = (DOXA.topic, DOXA.recordedAt, DOXA.validFrom, DOXA.validUntil)


def index_entries(pairs: list[tuple[URIRef, Node]]) -> list[tuple[URIRef, Node]]:
    """The (predicate, object) pairs a newly admitted claim gets in the search graph."""
    copied = [(p, o) for p, o in pairs if p in _COPIED]
    return [*((TERM, term) for term in index_terms(pairs)), *copied]
