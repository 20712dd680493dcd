"""Embeddings: a text's vector from any OpenAI-compatible ``/embeddings`` endpoint.

Configured like the LLM judge (:meth:`EmbedConfig.from_env` reads ``DOXA_EMBED_*``); the
``openai`` client is imported only when a client is made. Every answer is checked before a
vector is used: one finite, non-zero vector of numbers per text, all of one dimension (the
first answer fixes it, or :attr:`EmbedConfig.dimensions`). Anything else (the endpoint down,
a timeout, an error status, a body that is not such a list) raises
:class:`~doxa.EmbeddingUnavailable`; a caller that writes keeps the write and records the
vector as missing.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Self

from doxa.errors import EmbeddingUnavailable, InvalidInput
from doxa.judges.llm import LLMConfig

if TYPE_CHECKING:
    import openai

__all__ = [
    "FLOAT32_MAX",
    "EmbedConfig",
    "Embedder",
    "OpenAIEmbedder",
    "checked_vector",
    "checked_vectors",
    "embed_checked",
]

#: an embedding is a local call in most setups: a write waits this long at most for it
DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class EmbedConfig(LLMConfig):
    """Where embeddings are asked: an OpenAI-compatible ``base_url``, a model, a key, a
    timeout (10 s by default), and optionally the dimension every vector must have.

    >>> EmbedConfig(base_url="http://127.0.0.1:11434/v1", model="nomic-embed-text").timeout
    10.0
    >>> EmbedConfig.from_env({}) is None
    True
    >>> EmbedConfig.from_env({"DOXA_EMBED_MODEL": "text-embedding-3-small"}).base_url
    'https://api.openai.com/v1'
    """

    timeout: float = DEFAULT_TIMEOUT
    dimensions: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        dims = self.dimensions
        if dims is not None and (isinstance(dims, bool) or not isinstance(dims, int) or dims < 1):
            raise InvalidInput(
                f"dimensions {dims!r} is not a positive whole number; pass e.g. 768."
            )

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, prefix: str = "DOXA_EMBED"
    ) -> Self | None:
        """Read ``DOXA_EMBED_BASE_URL``, ``DOXA_EMBED_MODEL``, ``DOXA_EMBED_API_KEY`` (else
        ``OPENAI_API_KEY``) and ``DOXA_EMBED_TIMEOUT``; None when no endpoint is set up
        (recall is then words only). Raises :class:`~doxa.InvalidInput` as
        :meth:`LLMConfig.from_env` does."""
        return super().from_env(environ, prefix=prefix)


class Embedder(Protocol):
    """Anything that turns texts into vectors: the endpoint's client, or a test's table."""

    @property
    def model(self) -> str:
        """The model's name, stored beside each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One checked vector per text, in order. Raises :class:`~doxa.EmbeddingUnavailable`."""
        ...


def checked_vectors(answer: object, count: int, dimensions: int | None) -> list[list[float]]:
    """The vectors of an ``/embeddings`` answer body, or :class:`~doxa.EmbeddingUnavailable`
    saying what was wrong with it.

    >>> checked_vectors({"data": [{"index": 0, "embedding": [0.6, 0.8]}]}, 1, None)
    [[0.6, 0.8]]
    >>> try:
    ...     checked_vectors({"data": [{"index": 0, "embedding": [1, "x"]}]}, 1, None)
    ... except EmbeddingUnavailable as error:
    ...     print(str(error).split(";")[0])
    the embeddings endpoint answered a vector that is not a list of numbers
    """
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise _garbage(f"no list of {count} embeddings")
    by_index: dict[int, list[float]] = {}
    for position, item in enumerate(data):
        index = item.get("index", position) if isinstance(item, dict) else None
        vector = item.get("embedding") if isinstance(item, dict) else None
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise _garbage("an embedding without a valid index")
        if index in by_index:
            raise _garbage(f"two embeddings for input {index}")
        by_index[index] = checked_vector(vector)
    vectors = [by_index[i] for i in range(count)]
    wanted = dimensions if dimensions is not None else len(vectors[0])
    for vector in vectors:
        if len(vector) != wanted:
            raise _garbage(f"a vector of {len(vector)} dimensions where {wanted} were expected")
    return vectors


#: the largest magnitude a float32 holds: the meaning graph keeps vectors as float32
FLOAT32_MAX = 3.4028234663852886e38


def checked_vector(value: object) -> list[float]:
    """One vector as doxa keeps it, or :class:`~doxa.EmbeddingUnavailable`: a non-empty
    list of finite numbers (no booleans) that float32 can hold, not all zero once rounded to
    float32 (the meaning graph's precision), so that keeping it can never fail a write.

    >>> checked_vector([0.6, 0.8])
    [0.6, 0.8]
    >>> try:
    ...     checked_vector([1e39, 0.0])
    ... except EmbeddingUnavailable as error:
    ...     print(str(error).split(";")[0])
    the embeddings endpoint answered a vector with values beyond float32's range
    """
    if not isinstance(value, list) or not value:
        raise _garbage("a vector that is not a list of numbers")
    if any(isinstance(x, bool) or not isinstance(x, int | float) for x in value):
        raise _garbage("a vector that is not a list of numbers")
    try:
        vector = [float(x) for x in value]
    except OverflowError:  # an int too large for a float
        raise _garbage("a vector with values beyond float32's range") from None
    if not all(math.isfinite(x) for x in vector):
        raise _garbage("a vector with NaN or infinite values")
    if any(abs(x) > FLOAT32_MAX for x in vector):
        raise _garbage("a vector with values beyond float32's range")
    if not any(struct.unpack(f"<{len(vector)}f", struct.pack(f"<{len(vector)}f", *vector))):
        raise _garbage("a vector of zeros (it has no direction to compare)")
    return vector


def embed_checked(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """``embedder``'s vectors for ``texts``, one per text, each :func:`checked_vector`, all
    of one dimension; :class:`~doxa.EmbeddingUnavailable` otherwise. Every caller asks
    through this, whatever the embedder: one written by a user is checked like the
    endpoint's answer, so no vector it gives can fail a write under the store's lock."""
    vectors = embedder.embed(texts)
    if len(vectors) != len(texts):
        raise EmbeddingUnavailable(
            f"the embedder gave {len(vectors)} vectors for "
            + ("one text" if len(texts) == 1 else f"{len(texts)} texts")
            + "; it must give one per text (then run doxa reindex)."
        )
    checked = [checked_vector(list(vector)) for vector in vectors]
    if len({len(vector) for vector in checked}) > 1:
        raise _garbage("vectors of different dimensions in one answer")
    return checked


def _garbage(what: str) -> EmbeddingUnavailable:
    return EmbeddingUnavailable(
        f"the embeddings endpoint answered {what}; check that DOXA_EMBED_MODEL names an "
        "embedding model."
    )


class OpenAIEmbedder:
    """The client of one OpenAI-compatible ``/embeddings`` endpoint (Ollama, vLLM, llama.cpp
    server, OpenAI). Thread-safe; no retries (a missing vector is filled in by reindex)."""

    def __init__(self, config: EmbedConfig) -> None:
        self.config = config
        self._client: openai.OpenAI | None = None
        self._dimensions = config.dimensions  # the first good answer fixes it

    @property
    def model(self) -> str:
        return self.config.model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        import openai

        try:
            raw = self._openai().embeddings.with_raw_response.create(
                model=self.config.model, input=list(texts), encoding_format="float"
            )
            body = json.loads(raw.http_response.text)
        except openai.APITimeoutError:
            raise EmbeddingUnavailable(
                f"the embeddings endpoint {self.config.base_url} did not answer within "
                f"{self.config.timeout:g} s; raise DOXA_EMBED_TIMEOUT or run doxa reindex later."
            ) from None
        except openai.APIStatusError as error:
            raise EmbeddingUnavailable(
                f"the embeddings endpoint {self.config.base_url} answered HTTP "
                f"{error.status_code}; check DOXA_EMBED_MODEL and the key, then run doxa reindex."
            ) from None
        except openai.APIConnectionError:
            raise EmbeddingUnavailable(
                f"the embeddings endpoint {self.config.base_url} cannot be reached; start it "
                "or fix DOXA_EMBED_BASE_URL, then run doxa reindex."
            ) from None
        except ValueError:  # the body is not JSON
            raise _garbage("a body that is not JSON") from None
        vectors = checked_vectors(body, len(texts), self._dimensions)
        if self._dimensions is None:
            self._dimensions = len(vectors[0])
        return vectors

    def close(self) -> None:
        """Close the HTTP connections now (not when the garbage collector finds them); a
        later :meth:`embed` opens new ones."""
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def _openai(self) -> openai.OpenAI:
        if self._client is None:
            import openai

            self._client = openai.OpenAI(
                base_url=self.config.base_url,
                api_key=self.config.api_key or "not-needed",
                timeout=self.config.timeout,
                max_retries=self.config.max_retries,
            )
        return self._client
