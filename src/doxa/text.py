"""Words: how texts are normalised for duplicate detection and for the recall index."""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["normalise", "text_key", "words"]

# signed numbers, words, and the symbols that change a statement's meaning
_WORD = re.compile(
    r"(?<![^\W_])[+\-\u2212]?\d+(?:[.,]\d+)*|[^\W_]+|[<>=\u2264\u2265\u2260%$\u20ac\u00a3\u00a5#@&*/+]",
    re.UNICODE,
)
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "will",
        "with",
    ]
)


def normalise(text: str) -> str:
    """Case-folded, accent-stripped words joined by single spaces.

    >>> normalise("  The weekly Supplier-call   is on WEDNESDAY. ")
    'the weekly supplier call is on wednesday'
    """
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_WORD.findall(plain))


def words(text: str) -> list[str]:
    """The distinct index words of a text, in order: normalised, without stop words.

    >>> words("The weekly supplier call is on Wednesday")
    ['weekly', 'supplier', 'call', 'wednesday']
    """
    seen: dict[str, None] = {}
    for token in normalise(text).split():
        word = token.lstrip("+-\u2212")  # recall finds "18" in "-18"
        if word and word not in _STOP and any(c.isalnum() for c in word):
            seen.setdefault(word, None)
    return list(seen)


def text_key(text: str) -> str:
    """An index key shared by texts that are the same once normalised.

    >>> text_key("Call on Wednesday.") == text_key("call  on wednesday")
    True
    """
    digest = hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:24]
    return f"={digest}"
