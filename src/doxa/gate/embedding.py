"""Vectors for admitted facts: computed outside the store's lock, never a reason to refuse.

One write (:meth:`doxa.Memory.remember`): :func:`embed_write` asks for the text's vector once,
after the shapes pass and before the gate decides; the gate gathers the write's close facts
with it (hybrid, as recall ranks) and publishes it in the decision's own change beside the
claim, so there is no second embedding call and no second transaction. Bulk and owner paths
(import, approve, release): :func:`embed_facts` asks after the gate published, in batches,
and writes the vectors only while the search graph still holds the claim, checked under the
store's lock, so a fact erased while its vector was being computed gets none.

When the endpoint gives no usable vector the fact is recorded as missing one
(``doxa:embeddingMissing`` with the reason) and is found by its words until :func:`reindex`
fills it in.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rdflib import URIRef

from doxa.errors import EmbeddingUnavailable
from doxa.reads.embeddings import Embedder, embed_checked
from doxa.reads.vectors import Meaning, missing_quads, unembedded, vector_quads
from doxa.scope import Scope
from doxa.store import Change, Quad, Store
from doxa.vocabulary import DOXA

__all__ = ["BATCH", "Reindexed", "WriteVector", "embed_facts", "embed_write", "reindex"]

log = logging.getLogger(__name__)

#: texts sent per ``/embeddings`` request by reindex
BATCH = 64


@dataclass(frozen=True)
class Reindexed:
    """What :func:`reindex` did: how many facts lacked a vector, how many it filled, how many
    still lack one, and why (None when none is left); ``stemmed``: how many facts written
    before stems existed got their word and stem entries (:mod:`doxa.gate.restemming`);
    ``vectors``: False when no embedder is configured, so only the words were looked at."""

    lacking: int
    filled: int
    missing: int
    reason: str | None = None
    stemmed: int = 0
    vectors: bool = True


@dataclass(frozen=True)
class WriteVector:
    """One write's vector, asked once before the gate decides, or why there is none.

    ``meaning`` (None when the endpoint gave nothing usable) lets the gate gather the write's
    close facts by meaning as well as words; :meth:`quads` is what the admitted claim gets
    in the meaning graph, in the decision's own change."""

    meaning: Meaning | None
    missing: str | None = None

    def quads(self, scope: Scope, claim: URIRef) -> list[Quad]:
        """The meaning graph's triples for ``claim``: its vector, or the missing note."""
        if self.meaning is not None:
            return vector_quads(scope, claim, self.meaning.vector, self.meaning.model)
        return missing_quads(scope, claim, self.missing or "no vector was asked")


def embed_write(embedder: Embedder, text: str) -> WriteVector:
    """Ask ``embedder`` for one write's vector (one call); the endpoint down, slow or
    answering garbage gives a :class:`WriteVector` without one, and a logged warning: the
    write goes on, gathered by words only."""
    try:
        vectors = embed_checked(embedder, [text])
    except EmbeddingUnavailable as error:
        log.warning("no vector for the write (gathered by words only): %s", error)
        return WriteVector(None, str(error))
    return WriteVector(Meaning(vectors[0], embedder.model))


def embed_facts(
    store: Store, scope: Scope, embedder: Embedder, facts: Sequence[tuple[URIRef, str]]
) -> str | None:
    """Ask for the vectors of ``facts`` (claim, text) and keep them; None when all were kept,
    else the reason none was (each fact then carries it as its missing note)."""
    if not facts:
        return None
    try:
        vectors = embed_checked(embedder, [text for _, text in facts])
    except EmbeddingUnavailable as error:
        reason = str(error)
        log.warning("no vector for %d fact(s): %s", len(facts), reason)
        _keep(store, scope, {claim: missing_quads(scope, claim, reason) for claim, _ in facts})
        return reason
    model = embedder.model
    kept = {
        claim: vector_quads(scope, claim, vector, model)
        for (claim, _), vector in zip(facts, vectors, strict=True)
    }
    _keep(store, scope, kept)
    return None


def _keep(store: Store, scope: Scope, quads: dict[URIRef, list[Quad]]) -> None:
    """Replace each claim's meaning triples by ``quads``, for the claims still admitted."""
    claims = list(quads)
    with store.lock:  # an erasure takes this lock too: it cannot slip in between
        alive = store.describe(claims, [scope.search], (DOXA.topic,))
        old = store.describe(claims, [scope.meaning])
        change = Change()
        for claim in claims:
            if str(claim) not in alive:
                continue  # erased (or ended out of the index) meanwhile: no vector for it
            change.delete += [(claim, p, o, scope.meaning) for p, o in old.get(str(claim), [])]
            change.insert += quads[claim]
        if change.insert:
            store.apply(change)


def reindex(
    store: Store,
    scope: Scope,
    embedder: Embedder,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> Reindexed:
    """Fill in the vector of every admitted fact that has none of ``embedder``'s model, in
    batches of :data:`BATCH`; ``progress`` hears (done, total) after each batch. Stops at the
    first batch the endpoint cannot answer and says so in the result (what was filled stays).
    Idempotent: a second run finds nothing to do."""
    todo = unembedded(store, scope, embedder.model)
    total, filled = len(todo), 0
    if progress is not None:
        progress(0, total)
    for start in range(0, total, BATCH):
        batch = todo[start : start + BATCH]
        graphs = [*sorted({scope.topic(topic) for _, topic in batch}), scope.rules]
        texts = store.describe([claim for claim, _ in batch], graphs, (DOXA.text,))
        facts = [
            (claim, str(pairs[0][1])) for claim, _ in batch if (pairs := texts.get(str(claim)))
        ]
        reason = embed_facts(store, scope, embedder, facts)
        if reason is not None:
            return Reindexed(total, filled, total - filled, reason)
        filled += len(facts)
        if progress is not None:
            progress(start + len(batch), total)
    return Reindexed(total, filled, total - filled)
