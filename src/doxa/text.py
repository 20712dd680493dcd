"""Words: how texts are normalised for duplicate detection and for the recall index.

Normalising folds case and compatibility forms (NFKC, then NFKD without combining marks) and
drops format characters (Unicode category Cf: zero-width space and joiners, the byte order
mark, bidirectional marks, the soft hyphen), so text that reads the same gets the same key.
``legacy=True`` gives the form doxa used before format characters were dropped (issue 14):
index keys and tombstones written then are still matched.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

__all__ = ["name_key", "normalise", "text_key", "visible", "with_article", "words"]

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


def with_article(word: str) -> str:
    """``word`` after the indefinite article its sound takes (doxa's own names: authorities,
    kinds), so a message reads "an agent write", not "a agent write".

    >>> with_article("agent"), with_article("owner"), with_article("tool")
    ('an agent', 'an owner', 'a tool')
    """
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def visible(text: str) -> str:
    """The text in NFKC without format characters (zero-width space, joiners, BOM, bidi marks).

    >>> visible("Wed\u200bnes\u00addAY\ufeff")
    'WednesdAY'
    """
    if text.isascii():  # no ASCII character is a format character, nor changes in NFKC
        return text
    folded = unicodedata.normalize("NFKC", text)
    return "".join(c for c in folded if unicodedata.category(c) != "Cf")


def normalise(text: str, *, legacy: bool = False) -> str:
    """Case-folded, accent-stripped words joined by single spaces, format characters dropped.

    >>> normalise("  The weekly Supplier-call   is on WEDNESDAY. ")
    'the weekly supplier call is on wednesday'
    >>> normalise("Wed\u200bnesday"), normalise("Wed\u200bnesday", legacy=True)
    ('wednesday', 'wed nesday')
    """
    if not legacy:
        text = visible(text)
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_WORD.findall(plain))


def words(text: str, *, legacy: bool = False) -> list[str]:
    """The distinct index words of a text, in order: normalised, without stop words.

    >>> words("The weekly supplier call is on Wednesday")
    ['weekly', 'supplier', 'call', 'wednesday']
    """
    seen: dict[str, None] = {}
    for token in normalise(text, legacy=legacy).split():
        word = token.lstrip("+-\u2212")  # recall finds "18" in "-18"
        if word and word not in _STOP and any(c.isalnum() for c in word):
            seen.setdefault(word, None)
    return list(seen)


def text_key(text: str, *, legacy: bool = False) -> str:
    """An index key shared by texts that are the same once normalised.

    For a text without format characters the key is the same as with ``legacy=True``.

    >>> text_key("Call on Wednesday.") == text_key("call  on wed\u200bnesday")
    True
    """
    digest = hashlib.sha256(normalise(text, legacy=legacy).encode("utf-8")).hexdigest()[:24]
    return f"={digest}"


# a lower-case letter or digit followed by a capital: where a camelCase local name splits
_CAMEL = re.compile(r"(?<=[^\W_])(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])")


@functools.cache
def _lookalikes() -> dict[int, str]:
    """Letters that merely look like an ASCII letter or digit (Unicode TR39 confusables) to it."""
    # imported on first use: the table is large, and most names are ASCII
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[int, str] = {}
    for char, entries in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        for entry in entries:
            target = entry["c"]
            if len(target) == 1 and target.isascii() and target.isalnum():
                table[ord(char)] = target.lower()
                break
    return table


def name_key(name: str) -> str:
    """The key two spellings of one name share: what names are compared by, never the raw text.

    camelCase is split into words; then NFKC, format characters dropped, case folded,
    accents stripped, look-alike letters read as the ASCII letter they imitate (so ``Bоb``
    with a Cyrillic ``о`` meets ``Bob`` instead of minting a twin), punctuation and spacing
    reduced to single spaces. The key may be empty (a name of punctuation only).

    >>> name_key("dayOfWeek") == name_key("Day of  week") == name_key("day-of-week")
    True
    >>> name_key("B\u043eb"), name_key("Caf\u00e9")
    ('bob', 'cafe')
    """
    text = _CAMEL.sub(" ", visible(name))
    if not text.isascii():
        text = text.casefold().translate(_lookalikes())
    words = normalise(text, legacy=True).split()
    return " ".join(w for w in words if any(c.isalnum() for c in w))
