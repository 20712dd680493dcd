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
import threading
import unicodedata
from functools import lru_cache

import snowballstemmer

from doxa.errors import InvalidInput

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "ascii_lookalikes",
    "check_language",
    "label_words",
    "name_key",
    "normal_iri",
    "normalise",
    "stemmed",
    "stems",
    "text_key",
    "unconfused",
    "visible",
    "with_article",
    "words",
]

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
    if decomposed.isascii():  # no ASCII character is a combining mark: nothing to strip
        return " ".join(_WORD.findall(decomposed))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_WORD.findall(plain))


def words(text: str, *, legacy: bool = False) -> list[str]:
    """The distinct index words of a text, in order: normalised, without stop words.

    >>> words("The weekly supplier call is on Wednesday")
    ['weekly', 'supplier', 'call', 'wednesday']
    """
    return [w for w in _tokens(normalise(text, legacy=legacy)) if w not in _STOP]


def _tokens(normalised: str) -> list[str]:
    """The distinct tokens of a normalised text that hold a letter or digit, in order, a
    leading sign dropped (recall finds "18" in "-18"); stop words kept."""
    seen: dict[str, None] = {}
    for token in normalised.split():
        word = token.lstrip("+-\u2212")
        if word and any(c.isalnum() for c in word):
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


# where a local name or a name splits into words: a lower-case letter or digit followed by a
# capital (camelCase), or a run of "_", "-" or "." (one definition: name keys are stored, so
# every reader must split the same way)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.]+")


@functools.cache
def ascii_lookalikes() -> dict[int, str]:
    """Letters that merely look like an ASCII letter or digit (Unicode TR39 confusables), each
    to the ASCII character it imitates: the one table the names and the instruction screen
    fold look-alikes by. Build a ``str.translate`` table from a copy; do not change it."""
    # imported on first use: the table is large, and most text is ASCII
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[int, str] = {}
    for char, entries in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        for entry in entries:
            target = entry["c"]
            if len(target) == 1 and target.isascii() and target.isalnum():
                table[ord(char)] = target
                break
    return table


@functools.cache
def _lookalikes() -> dict[int, str]:
    """:func:`ascii_lookalikes`, to lower-case letters (a name key is case-folded)."""
    return {code: target.lower() for code, target in ascii_lookalikes().items()}


def unconfused(text: str) -> str:
    """The text with format characters dropped, case folded and look-alike letters read as
    the ASCII letter they imitate (the folding :func:`name_key` uses), for comparing content
    a look-alike letter must not make new (the erasure guard). ASCII text is only folded.

    >>> unconfused("diabеtes") == unconfused("Diabetes") == "diabetes"
    True
    """
    folded = visible(text).casefold()
    return folded if folded.isascii() else folded.translate(_lookalikes())


def name_key(name: str) -> str:
    """The key two spellings of one name share: what names are compared by, never the raw text.

    camelCase is split into words; then NFKC, format characters dropped, case folded,
    accents stripped, look-alike letters read as the ASCII letter they imitate (so ``Bоb``
    with a Cyrillic ``о`` meets ``Bob`` instead of minting a twin), and spacing and
    punctuation between words reduced to single spaces. What tells names apart stays: symbols
    (``C++``, ``C#``, ``$5``, ``€5``, ``50%``, ``30°``), a sign before a number (``-5``) and
    a superscript or subscript (``m²`` is ``m^2``, never ``m2``). The key may be empty (a name
    with no letter or digit).

    >>> name_key("dayOfWeek") == name_key("Day of  week") == name_key("day-of-week")
    True
    >>> name_key("B\u043eb"), name_key("Caf\u00e9")
    ('bob', 'cafe')
    >>> [name_key(n) for n in ("C++", "C#", "C", "-5", "5", "$5", "\u20ac5", "m\u00b2")]
    ['c++', 'c#', 'c', '-5', '5', '$5', '\u20ac5', 'm^2']
    """
    text = _CAMEL_CASE.sub(" ", visible(_marked_scripts(name)))
    if not text.isascii():
        text = unconfused(text)
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    if not decomposed.isascii():
        decomposed = "".join(c for c in decomposed if not unicodedata.combining(c))
    tokens = [t.replace("\u2212", "-") for t in _NAME_TOKEN.findall(decomposed)]
    return " ".join(tokens) if any(c.isalnum() for t in tokens for c in t) else ""


def loose_name_key(name: str) -> str:
    """The key names had before :func:`name_key` kept symbols (``C++`` and ``C`` shared
    ``c``): what a store written then holds in ``doxa:nameKey``, read only to find those
    entries, whose labels then decide (:mod:`doxa.gate.names`)."""
    text = _CAMEL.sub(" ", visible(name))
    if not text.isascii():
        text = unconfused(text)
    words = normalise(text, legacy=True).split()
    return " ".join(w for w in words if any(c.isalnum() for c in w))


_CAMEL_CASE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# a name's tokens: runs of letters, digits and symbols (currency, maths, degrees, #, %, &,
# @, *), a sign kept where it begins a number; hyphens, dots, underscores, apostrophes and
# other punctuation separate words ("day-of-week" is three words, "-5" one)
_NAME_SYMBOL = (
    r"[^\W_]|[#%&@*\u2030\u00b0^+<=>|~\u00b1\u00d7\u00f7\u2212\u00a2-\u00a5\u20a0-\u20cf$]"
)
_NAME_TOKEN = re.compile(rf"(?:(?<![^\W_])[-\u2212](?=\d))?(?:{_NAME_SYMBOL})+", re.UNICODE)


def _marked_scripts(name: str) -> str:
    """``name`` with each superscript or subscript character spelt ``^x`` or ``~x``, before
    NFKC would read ``m²`` as ``m2`` (and ``H₂O`` as ``H2O``)."""
    if name.isascii():
        return name
    out = []
    for char in name:
        form = unicodedata.decomposition(char)
        if form.startswith(("<super> ", "<sub> ")):
            mark = "^" if form.startswith("<super>") else "~"
            out.append(mark + unicodedata.normalize("NFKC", char))
        else:
            out.append(char)
    return "".join(out)


#: the language recall stems words in unless a scope names another
DEFAULT_LANGUAGE = "english"
#: the Snowball languages a scope may name (``snowballstemmer.algorithms()``)
LANGUAGES: frozenset[str] = frozenset(snowballstemmer.algorithms())
# the stop words above are English; another language keeps every word and lets BM25's
# inverse document frequency weigh its common words down
# (recall's English list adds the words a question is made of, which the stored index words
# keep for compatibility with stores written before stemming)
_STOP_WORDS = {
    DEFAULT_LANGUAGE: _STOP
    | {
        "am", "been", "being", "can", "could", "did", "do", "does", "had", "he", "her",
        "here", "him", "his", "how", "i", "me", "my", "our", "she", "their", "them", "there",
        "they", "us", "we", "what", "when", "where", "which", "who", "whom", "why", "would",
        "you", "your",
    }
}  # fmt: skip


def check_language(value: object) -> str:
    """A scope's stemming language, checked against the Snowball languages.

    Compared after case folding and NFKC, so ``"English"`` is ``"english"``; a look-alike
    spelling (a Cyrillic ``е``) is no language and is refused.

    >>> check_language("English")
    'english'
    """
    if isinstance(value, str):
        folded = unicodedata.normalize("NFKC", value).casefold().strip()
        if folded in LANGUAGES:
            return folded
    raise InvalidInput(
        f"{value!r} is not a stemming language; use one of {', '.join(sorted(LANGUAGES))} "
        f"(the default is {DEFAULT_LANGUAGE!r})."
    )


class _Stemmer:
    """One language's Snowball stemmer behind a lock (a PyStemmer object keeps a cache and
    must not be used by two threads at once), with the stems of words seen lately kept."""

    def __init__(self, language: str) -> None:
        self._stemmer = snowballstemmer.stemmer(language)
        self._lock = threading.Lock()
        self.stem = lru_cache(maxsize=65536)(self._stem)

    def _stem(self, word: str) -> str:
        if not word.isalpha():  # numbers and mixed tokens ("3pm", "b2b") stay as they are
            return word
        with self._lock:
            return str(self._stemmer.stemWord(word))


_STEMMERS: dict[str, _Stemmer] = {}
_STEMMERS_LOCK = threading.Lock()


def _stemmer(language: str) -> _Stemmer:
    found = _STEMMERS.get(language)
    if found is None:
        with _STEMMERS_LOCK:
            found = _STEMMERS.setdefault(language, _Stemmer(check_language(language)))
    return found


def stems(text: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The distinct stems of a text's words, in order: what BM25 recall matches on.

    Words are those of :func:`words` (case and accents folded, format characters dropped),
    without the language's stop words, each reduced by the language's Snowball stemmer, so
    "lives", "living" and "LIVED" meet at one stem.

    >>> stems("Alice lives in Lyon; she is living there")
    ['alic', 'live', 'lyon']
    >>> stems("Les allergies d'Élodie", "french")
    ['le', 'allerg', 'd', 'elod']
    """
    return list(stemmed(text, language))


def stemmed(text: str, language: str = DEFAULT_LANGUAGE) -> dict[str, tuple[str, ...]]:
    """Each stem of :func:`stems`, with the text's words that stem to it (in order).

    >>> stemmed("lives living Lyon")
    {'live': ('lives', 'living'), 'lyon': ('lyon',)}
    """
    return _stemmed(_tokens(normalise(text)), language)


def index_words(
    text: str, labels: str, language: str = DEFAULT_LANGUAGE
) -> tuple[list[str], list[str]]:
    """A new claim's index words (:func:`words` of ``text``) and its stems (:func:`stems` of
    ``text`` and ``labels``), normalising the text once: the gate indexes every write by both.

    >>> index_words("Alice lives in Lyon", "lives In")
    (['alice', 'lives', 'lyon'], ['alic', 'live', 'lyon'])
    """
    tokens = _tokens(normalise(text))
    if labels:
        seen = dict.fromkeys(tokens)
        seen.update(dict.fromkeys(_tokens(normalise(labels))))
        stemmed_tokens = list(seen)
    else:
        stemmed_tokens = tokens
    return [w for w in tokens if w not in _STOP], list(_stemmed(stemmed_tokens, language))


def _stemmed(tokens: list[str], language: str) -> dict[str, tuple[str, ...]]:
    # English drops its stop words (a superset of _STOP) before stemming; another language
    # keeps every token (see _STOP_WORDS)
    stop = _STOP_WORDS.get(language, frozenset())
    stem = _stemmer(language).stem
    found: dict[str, tuple[str, ...]] = {}
    for word in tokens:
        if word not in stop:
            key = stem(word)
            found[key] = (*found.get(key, ()), word)
    return found


@lru_cache(maxsize=8192)  # a write's subject and predicate IRIs recur across writes
def label_words(name: str) -> str:
    """A readable label for an IRI with no ``rdfs:label`` at hand: its last segment (after
    ``#``, ``/`` or ``:``), camel case and separators split into words.

    >>> label_words("https://example.org/ns#livesIn"), label_words("urn:x:a/entity/bob_smith")
    ('lives In', 'bob smith')
    """
    local = re.split(r"[#/:]", name.rstrip("#/:"))[-1]
    return " ".join(part for part in _CAMEL.split(local) if part)


_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def normal_iri(text: str) -> str:
    """``text`` in the one spelling of the IRIs it is equivalent to: percent-encoded
    unreserved characters decoded, other escapes' hex upper-cased (RFC 3986, 6.2.2), the
    scheme lower-cased, and a URN's namespace id too (RFC 8141: ``URN:DOXA:`` is ``urn:doxa:``).

    A guard that compares an IRI with one of doxa's compares the normal forms, so a second
    spelling of the owner's standpoint is the owner's standpoint.

    >>> normal_iri("URN:DOXA:scope:alice/standpoint/%6Fwner")
    'urn:doxa:scope:alice/standpoint/owner'
    >>> normal_iri("http://Example.org/a%2fb")  # a reserved escape stays, the host is kept
    'http://Example.org/a%2Fb'
    """

    def decoded(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else f"%{match.group(1).upper()}"

    text = _PERCENT.sub(decoded, text)
    scheme, colon, rest = text.partition(":")
    if not colon:
        return text
    scheme = scheme.lower()
    if scheme == "urn":
        nid, colon, nss = rest.partition(":")
        rest = f"{nid.lower()}{colon}{nss}"
    return f"{scheme}:{rest}"
