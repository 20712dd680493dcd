"""Word and stem index entries for claims indexed before stems existed, filled in by reindex.

A claim's words and stems (``doxa:term`` literals in ``<scope>/search``, see
:mod:`doxa.gate.index`) are written with it when it is admitted. A store written by a doxa
from before stemming has claims carrying their words only: BM25 recall then matches them on
exact words, so "where does alice live" misses "Alice lives in Lyon". :func:`fill_words`
gives each such claim the entries it lacks, worked out from its own triples exactly as the
gate works them out at admission (:func:`~doxa.gate.index.word_terms`).

Only the derived search graph changes: nothing a receipt covers, and no key (live keys
depend on the claim's endings, which a claim indexed before stems already has right). It
needs no embedder. Idempotent: a claim that has stems is not read again, and only missing
literals are inserted; a claim erased between the read and the write is skipped (checked
under the store's lock, which an erasure takes too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.gate.index import STEM, TERM, word_terms
from doxa.scope import Scope
from doxa.store import Change, Store
from doxa.store.capabilities import PlainValues
from doxa.vocabulary import DOXA, RDF

__all__ = ["BATCH", "fill_words", "unstemmed"]

#: claims read and written per change
BATCH = 500

_OWN = (DOXA.text, RDF.subject, RDF.predicate, RDF.object)
_TERM, _TOPIC = str(TERM), str(DOXA.topic)


def unstemmed(store: Store, scope: Scope) -> list[tuple[URIRef, str]]:
    """The claims the search graph holds (admitted, not erased) that carry no stem, oldest
    IRI first, each with its topic: what :func:`fill_words` reads. One pass over the search
    graph (as strings where the store can give them)."""
    topics: dict[str, str] = {}
    stemmed: set[str] = set()
    triples: Iterable[tuple[str, str, str]]
    if isinstance(store, PlainValues):
        triples = store.values(scope.search)
    else:
        triples = ((str(s), str(p), str(o)) for s, p, o, _ in store.quads(scope.search))
    for claim, predicate, value in triples:
        if predicate == _TOPIC:
            topics[claim] = value
        elif predicate == _TERM and value.startswith(STEM):
            stemmed.add(claim)
    return [(URIRef(c), topics[c]) for c in sorted(topics) if c not in stemmed]


def fill_words(
    store: Store, scope: Scope, *, progress: Callable[[int, int], None] | None = None
) -> int:
    """Give every claim without stems the word and stem entries it lacks, in batches of
    :data:`BATCH` (each read by its IRIs: a claim's cost does not grow with the store);
    ``progress`` hears (done, total) before the first batch and after each. Returns how
    many claims got entries."""
    todo = unstemmed(store, scope)
    total, filled = len(todo), 0
    if progress is not None:
        progress(0, total)
    for start in range(0, total, BATCH):
        batch = todo[start : start + BATCH]
        graphs = [*sorted({scope.topic(topic) for _, topic in batch}), scope.rules]
        own = store.describe([claim for claim, _ in batch], graphs, _OWN)
        wanted = {
            claim: word_terms(_own_pairs(pairs), scope.language)
            for claim, _ in batch
            if (pairs := own.get(str(claim))) and any(p == DOXA.text for p, _ in pairs)
        }
        filled += _add(store, scope, wanted)
        if progress is not None:
            progress(start + len(batch), total)
    return filled


def _own_pairs(pairs: list[tuple[Node, Node]]) -> list[tuple[URIRef, Node]]:
    """The described pairs as a claim's own (their predicates are the IRIs asked for)."""
    return [(p, o) for p, o in pairs if isinstance(p, URIRef)]


def _add(store: Store, scope: Scope, wanted: dict[URIRef, list[Literal]]) -> int:
    """Insert each claim's missing terms, for the claims the search graph still holds."""
    if not wanted:
        return 0
    search = scope.search
    with store.lock:  # an erasure takes this lock too: it cannot slip in between
        present = store.describe(list(wanted), [search], (TERM, DOXA.topic))
        change = Change()
        filled = 0
        for claim, terms in wanted.items():
            pairs = present.get(str(claim))
            if not pairs or not any(p == DOXA.topic for p, _ in pairs):
                continue  # erased meanwhile: nothing of it may come back
            have = {str(o) for p, o in pairs if p == TERM}
            new = [t for t in dict.fromkeys(terms) if str(t) not in have]
            if new:
                change.insert += [(claim, TERM, t, search) for t in new]
                filled += 1
        if change.insert:
            store.apply(change)
    return filled
