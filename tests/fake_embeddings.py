"""A fake but meaningful embedder: hashed bags of concepts, in process or behind a fake
OpenAI-compatible ``/v1/embeddings`` endpoint on loopback.

A text's words are mapped through a small synonym table to concepts ("peanuts" and "nut"
are both ``nut``; "tea" and "beverage" both ``beverage``); each concept is hashed to a few
signed dimensions, so texts sharing concepts point the same way and texts sharing none are
orthogonal. Deterministic: the same text always gets the same vector, in every process.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from tests.judges.fake_openai import FakeOpenAI, Reply

__all__ = [
    "CONCEPTS",
    "DIMENSIONS",
    "ConceptEmbedder",
    "concept_vector",
    "embeddings_reply",
    "running_embeddings",
]

ROUTE = "/v1/embeddings"
DIMENSIONS = 64
MODEL = "fake-concepts"

#: word -> concept: the synonyms and paraphrases the tests and the benchmark rely on
CONCEPTS: dict[str, str] = {
    "nut": "nut",
    "nuts": "nut",
    "peanut": "nut",
    "peanuts": "nut",
    "allergy": "allergy",
    "allergies": "allergy",
    "allergic": "allergy",
    "tea": "beverage",
    "coffee": "beverage",
    "beverage": "beverage",
    "beverages": "beverage",
    "drink": "beverage",
    "drinks": "beverage",
    "juice": "beverage",
    "live": "home",
    "lives": "home",
    "living": "home",
    "home": "home",
    "reside": "home",
    "resides": "home",
    "moved": "home",
    "car": "vehicle",
    "vehicle": "vehicle",
    "drives": "vehicle",
    "automobile": "vehicle",
    "physician": "doctor",
    "doctor": "doctor",
    "gp": "doctor",
    "dog": "pet",
    "cat": "pet",
    "pet": "pet",
    "puppy": "pet",
    "job": "work",
    "works": "work",
    "employer": "work",
    "employed": "work",
    "nurse": "work",
    "learning": "study",
    "studying": "study",
    "language": "language",
    "japanese": "language",
    "instrument": "instrument",
    "cello": "instrument",
    "violin": "instrument",
    "trumpet": "instrument",
    "banjo": "instrument",
    "plays": "instrument",
    "playing": "instrument",
    "hatchback": "vehicle",
    "drive": "vehicle",
    "read": "reading",
    "reads": "reading",
    "books": "reading",
    "move": "home",
    "own": "own",
    "owns": "own",
}
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "does",
        "do",
        "what",
        "where",
        "who",
        "with",
        "by",
        "my",
        "his",
        "her",
        "has",
        "have",
        "their",
    ]
)


def _dimensions_of(concept: str, dims: int) -> list[tuple[int, float]]:
    digest = hashlib.sha256(concept.encode()).digest()
    return [(digest[i] % dims, 1.0 if digest[i + 8] % 2 else -1.0) for i in range(3)]


def concept_vector(
    text: str, *, dims: int = DIMENSIONS, concepts: Mapping[str, str] = CONCEPTS
) -> list[float]:
    """The text's bag of concepts as a unit vector (a text of stop words only: one fixed
    direction, so the vector is never zero)."""
    vector = [0.0] * dims
    words = [w for w in re.findall(r"\w+", text.lower()) if w not in _STOP]
    for word in words or ["<empty>"]:
        for index, sign in _dimensions_of(concepts.get(word, word), dims):
            vector[index] += sign
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    if not any(vector):
        vector[0] = norm = 1.0
    return [x / norm for x in vector]


class ConceptEmbedder:
    """The in-process :class:`doxa.reads.embeddings.Embedder` of :func:`concept_vector`;
    ``fail`` (a reason) makes every call raise as an endpoint that is down would."""

    def __init__(self, *, dims: int = DIMENSIONS, model: str = MODEL) -> None:
        self.dims = dims
        self._model = model
        self.calls = 0
        self.fail: str | None = None

    @property
    def model(self) -> str:
        return self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        from doxa import EmbeddingUnavailable

        self.calls += 1
        if self.fail is not None:
            raise EmbeddingUnavailable(self.fail)
        return [concept_vector(t, dims=self.dims) for t in texts]


def embeddings_reply(request: dict[str, Any]) -> Reply:
    """An ``/embeddings`` answer for a request, as OpenAI shapes it."""
    texts = request.get("input", [])
    texts = [texts] if isinstance(texts, str) else texts
    body = {
        "object": "list",
        "model": request.get("model", MODEL),
        "data": [
            {"object": "embedding", "index": i, "embedding": concept_vector(t)}
            for i, t in enumerate(texts)
        ],
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    }
    return Reply(body=json.dumps(body).encode())


@contextmanager
def running_embeddings() -> Iterator[FakeOpenAI]:
    """A started fake ``/v1/embeddings`` endpoint, stopped on exit; script it with
    ``reply``/``always`` (``tests.judges.fake_openai``'s ``status``, ``garbage``, delays)."""
    fake = FakeOpenAI(route=ROUTE, responder=embeddings_reply).start()
    try:
        yield fake
    finally:
        fake.stop()
