"""Patterns: two texts that are the same sentence with another value, in any wording.

:mod:`doxa.judges.sentences` reads one English shape ("the X is Y"). This module reads none:
it lines two texts up word by word and asks whether they differ in one place only. "Bob lives
in Paris" and "Bob lives in Berlin" differ in one span, so they are one sentence, the
*pattern* "<name> lives in <value>", with two values; what the owner answers once about a
pattern (one value at a time, or many) then holds for every subject written in it, so
"Carol lives in Rome" after "Carol lives in Oslo" needs no second question. Pure functions,
no store: the gate indexes texts by :func:`head_key` and asks :func:`align` of candidates.

The rules, on tokens (below), chosen so that a wrong alignment is rare, because a pattern
the owner called one-valued closes the old value of every text that aligns with it:

1. **Tokens** are the text's whitespace-separated pieces, each read as its normalised words
   (:func:`doxa.text.normalise`, after look-alike letters, capitals too, are read as the
   ASCII letter they imitate, as :func:`doxa.text.name_key` does), so "555-0101" and
   "New-York" are one token each and punctuation around a word does not count. Pieces with
   no word are skipped. The change cues "now", "currently", "presently" and "nowadays" are
   dropped and "(has) changed to" / "(has) switched to" read as "is": "Bob's phone number
   is now 555-0199" lines up with "Bob's phone number is 555-0101".
2. **Bounds**: a text of more than 1,024 characters or 64 tokens never aligns (a sentence
   that states one value is short); the work is linear in the text, with no regular
   expression of this module's own.
3. **One span**: the common prefix and suffix are stripped; what is left on each side is
   the *value*, one to four tokens on both sides (an empty side is a detail added or
   dropped, not another value), after a *shared prefix of two tokens or more* (the subject
   and its verb: a text whose value comes first never aligns), and no verb of the grammar
   after it ("is", "has" …): in "The call with Nils is on Friday" against "The call with
   Omar is on Friday" the span is what the sentence is about, not its value. A value that
   is part of a name takes the whole name: "New York" against "New Jersey" is that value,
   not "York", and "Room 12" against "Room 14" is not "12"; it takes the article before
   it too, so "drives a Honda" and "drives the Audi" are one pattern.
4. **Values, not a change of meaning**: nothing aligns when either text holds a negation
   ("not", "no", "never", "nor", "cannot", an "n't" form …) or says it adds a value
   ("also", "too", "another", "as well" …); a value holds no conjunction or quantifier
   ("and", "or", "only", "both", "all", "&", "/" between words …), stands beside no "and"
   or "or" (it would be one item of a list) and holds no verb of the sentence's grammar
   ("is", "has", "can" …: "number is 555" against "plan is Basic" is another statement,
   not another value); a value does not start (after "a", "an" or "the") or end with a
   function word (a preposition, a copula, a pronoun: "in Paris" against "near Paris",
   "on Monday" against "at 10", "is" against "was" are a change of relation, not of
   value); and the shared part must hold a word that is neither a name nor a function
   word ("<name> is <value>" or "<name> has a <value>" is too general a pattern to learn
   one answer for).
5. **Names** are tokens written with a capital first letter that are not function words
   ("The", "In", "My" …; a modal past the first word is: "in May", "Will Smith"), in
   either text; a run of them is one ``<name>`` slot of the pattern (with ``'s`` when its
   last token is a possessive). A text without a lower-case letter marks no names
   (capitals tell nothing there). Names stay words in the
   ``subject``: two texts about other people never align, they only share a pattern.

>>> found = align("Bob lives in Berlin", "Bob lives in Paris")
>>> found.pattern, found.new_value, found.old_value
('<name> lives in <value>', 'Berlin', 'Paris')
>>> align("Carol lives in Oslo", "Carol lives in Rome").key == found.key
True
>>> found = align("Maria Keller's team uses Bazel for builds",
...               "Maria Keller's team uses Make for builds")
>>> found.pattern, found.subject
("<name>'s team uses <value> for builds", 'maria keller s team uses <value> for builds')
>>> align("Bob lives in Berlin", "Carol lives in Berlin") is None  # another subject
True
>>> align("Alice speaks German", "Alice does not speak German") is None
True
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

from rdflib import URIRef

from doxa.text import ascii_lookalikes, normalise, unconfused, visible

__all__ = ["PATTERN", "Alignment", "align", "head_key", "head_keys", "pattern_iri"]

#: the IRIs of sentence patterns: what the owner's lesson on one is recorded about
PATTERN = "urn:doxa:pattern:"

_MAX_CHARS = 1024
_MAX_TOKENS = 64
_MAX_VALUE = 4
_MIN_PREFIX = 2

_ARTICLES = frozenset({"a", "an", "the"})
_MODALS = frozenset({"will", "would", "shall", "should", "can", "could", "may", "might", "must"})
#: a value holds none of these: "number is 555" against "plan is Basic" says another thing
_VERBS = _MODALS | frozenset(
    {"am", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do",
     "does", "did"}
)  # fmt: skip
#: words that carry a sentence's grammar, not its content: never a name, never a value's edge
_FUNCTION = _ARTICLES | _VERBS | frozenset(
    {
        # prepositions
        "in", "on", "at", "to", "from", "by", "of", "for", "with", "into", "onto", "near",
        "over", "under", "about", "after", "before", "since", "until", "via", "per", "as",
        "than", "between", "within", "across", "through", "around", "off", "out", "up",
        "down", "inside", "outside",
        # pronouns and determiners
        "i", "me", "my", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her",
        "it", "its", "they", "them", "their", "this", "that", "these", "those", "there",
        "here", "who", "whom", "whose", "which", "what", "where", "when", "why", "how",
        # conjunctions
        "and", "or", "but", "so", "if", "then", "because", "while",
    }
)  # fmt: skip
#: capitalised only because a sentence starts with them
_NOT_NAMES = _FUNCTION | frozenset(
    {"today", "yesterday", "tomorrow", "every", "each", "some", "all", "please", "also"}
)
_NEGATIONS = frozenset(
    {"not", "no", "never", "nobody", "none", "nothing", "nowhere", "neither", "nor", "cannot",
     "without"}
)  # fmt: skip
#: words that say a value is added beside another, not instead of it
_ADDITIVE = frozenset({"also", "too", "another", "additionally", "besides"})
#: words a single value does not hold: lists, quantifiers, restrictions
_NOT_IN_VALUE = _NEGATIONS | _ADDITIVE | frozenset(
    {"and", "or", "but", "plus", "only", "just", "both", "either", "all", "some", "several",
     "many", "etc", "&", "+"}
)  # fmt: skip
#: a value beside one of these is an item of a list
_LISTING = frozenset({"and", "or", "nor", "plus", "&", "+"})
#: change cues dropped before lining up: "is now X" says what "is X" says
_CUES = frozenset({"now", "currently", "presently", "nowadays"})
_CHANGE_VERBS = frozenset({"changed", "switched"})
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"})
_EDGE = ".,;:!?\"'()[]{}<>«»“”„"


@dataclass(frozen=True)
class _Token:
    """One whitespace-separated piece of a text: its normalised words and how it was written."""

    word: str
    raw: str
    name: bool = False
    possessive: bool = False
    negation: bool = False


@dataclass(frozen=True)
class Alignment:
    """Two texts that are one sentence with another value.

    ``pattern``: the sentence with its value as ``<value>`` and its names as ``<name>``
    (readable); ``key``: 24 hex digits of a hash of the pattern, shared by every subject
    written in it (a lesson's id); ``subject``: the sentence's words with the value as
    ``<value>`` and its names kept, which identifies the slot; ``new_value`` and
    ``old_value``: the differing spans as written.
    """

    pattern: str
    key: str
    subject: str
    new_value: str
    old_value: str
    #: the keys of the same sentence read with a wider value (the value taking a word or two
    #: of its neighbours: "<value> row seat" read as "<value> seat"), where a lesson on the
    #: sentence may already stand: values sharing a word ("exit row" / "front row") line up
    #: on the word that differs, a narrower pattern of the same sentence
    wider: tuple[str, ...] = ()


def align(new: str, old: str) -> Alignment | None:
    """``new`` and ``old`` as one sentence with another value, or None (the rules above).

    >>> align("Alice prefers tea", "Alice prefers coffee").pattern
    '<name> prefers <value>'
    >>> align("Bob's phone number is now 555-0199", "Bob's phone number is 555-0101").new_value
    '555-0199'
    >>> align("Bob lives in Paris", "Bob lives in Paris") is None
    True
    """
    a, b = _tokens(new), _tokens(old)
    if a is None or b is None or not _may_align(a) or not _may_align(b):
        return None
    if [t.word for t in a] == [t.word for t in b]:
        return None
    shortest = min(len(a), len(b))
    start = 0
    while start < shortest and a[start].word == b[start].word:
        start += 1
    end = 0  # tokens shared at the end, never overlapping the shared start
    while end < shortest - start and a[-1 - end].word == b[-1 - end].word:
        end += 1

    def named(at: int, from_end: bool, *, number: bool = False) -> bool:
        x, y = (a[-1 - at], b[-1 - at]) if from_end else (a[at], b[at])
        return x.name or y.name or (number and x.raw[:1].isdigit() and y.raw[:1].isdigit())

    # a value that is part of a name takes the whole name ("New York" / "New Jersey",
    # "Room 12" / "Room 14"), and the article before it ("the Library" / "Room 12")
    if start < len(a) - end and start < len(b) - end:
        while start > 0 and named(start - 1, False) and named(start, False, number=True):
            start -= 1
        while end > 0 and named(end - 1, True) and named(end, True, number=True):
            end -= 1
        if start > 0 and a[start - 1].word in _ARTICLES:
            start -= 1
    new_span, old_span = a[start : len(a) - end], b[start : len(b) - end]
    if start < _MIN_PREFIX or not (_is_value(new_span) and _is_value(old_span)):
        return None
    prefix, suffix = a[:start], a[len(a) - end :]
    if _numbered(prefix[-1], new_span) and _numbered(prefix[-1], old_span):
        return None  # "note 3" / "note 4": a number that names the thing, no value of it
    if prefix[-1].word in _LISTING or (suffix and suffix[0].word in _LISTING):
        return None  # one item of a list: "French and German" against "French and Dutch"
    if any(_grammar(t) and t.word in _VERBS for t in suffix):
        return None  # the span is what the sentence is about, not its value
    names = [x.name or y.name for x, y in zip(a, b, strict=False)][:start]
    names += [a[i].name or b[i - len(a) + len(b)].name for i in range(len(a) - end, len(a))]
    shared = [*prefix, *suffix]
    if not any(t.word not in _FUNCTION and not n for t, n in zip(shared, names, strict=True)):
        return None

    def key(cut_prefix: int, cut_suffix: int) -> str:
        """The key of the pattern whose value also takes the prefix's last ``cut_prefix``
        and the suffix's first ``cut_suffix`` tokens."""
        head, tail = prefix[: len(prefix) - cut_prefix], suffix[cut_suffix:]
        slots = [*_slots(head, names[: len(head)]), "<value>"]
        slots += _slots(tail, names[start + cut_suffix :])
        return _pattern_key(" ".join(slots))

    pattern = " ".join([*_slots(prefix, names[:start]), "<value>", *_slots(suffix, names[start:])])
    subject = " ".join([*(t.word for t in prefix), "<value>", *(t.word for t in suffix)])
    room = _MAX_VALUE - max(len(new_span), len(old_span))
    wider = tuple(
        key(p, s)
        for p, s in ((0, 1), (0, 2), (1, 0), (1, 1))
        if 0 < p + s <= room and s <= len(suffix) and len(prefix) - p >= _MIN_PREFIX
    )
    return Alignment(
        pattern, _pattern_key(pattern), subject, _shown(new_span), _shown(old_span), wider
    )


def _numbered(before: _Token, span: list[_Token]) -> bool:
    """Whether ``span`` is a lone number right after a word that counts things ("note 3",
    "item 12", "number 4"): an identifier that says which one, not a value of it. After any
    other word ("is 42", "pays 1700 euros", "the year 1991") or inside a name ("Room 12",
    read whole above) a number is a value.

    >>> align("Alice note 4 about the garden", "Alice note 3 about the garden") is None
    True
    >>> align("Bob's badge number is 4411", "Bob's badge number is 4410") is not None
    True
    >>> align("Bob pays 1700 euros in rent", "Bob pays 1250 euros in rent") is not None
    True
    """
    return (
        len(span) == 1
        and span[0].raw[:1].isdigit()
        and before.word in _COUNTERS
        and not before.name
    )


#: words a number after which names one of many ("note 3"), closed and short on purpose
_COUNTERS = frozenset(
    {
        "note", "notes", "number", "no", "item", "items", "entry", "line", "row", "page",
        "step", "task", "ticket", "issue", "order", "record", "message", "part", "chapter",
        "section", "version", "tree", "test", "case", "run", "batch", "point", "question",
        "example", "fact", "memo", "reminder", "todo", "id", "#",
    }
)  # fmt: skip


def _pattern_key(pattern: str) -> str:
    return hashlib.sha256(("pattern " + pattern).encode("utf-8")).hexdigest()[:24]


def pattern_iri(key: str) -> URIRef:
    """The IRI a sentence pattern's lesson is recorded about (in a scope's vocabulary, as a
    predicate's is): only the pattern's key, a hash, so no word of a text is stored there.

    >>> str(pattern_iri(align("Bob lives in Berlin", "Bob lives in Paris").key))[:18]
    'urn:doxa:pattern:1'
    """
    return URIRef(PATTERN + key)


def head_key(text: str) -> str | None:
    """An index key shared by every text that could align with ``text``, or None when none
    could (fewer than three tokens, too long, a negation or an added value).

    ``"=h2"`` and 24 hex digits of a hash of the first two tokens' words: two texts that
    align share a prefix of at least two tokens, so they share this key.

    >>> head_key("Bob lives in Paris") == head_key("BOB LIVES in Berlin now")
    True
    >>> head_key("Bob lives") is None, head_key("Bob does not live in Paris") is None
    (True, True)
    """
    keys = head_keys(text)
    return keys[-1] if keys else None


def head_keys(text: str) -> tuple[str, ...]:
    """The index keys of ``text``'s first words, the most specific first: its first three
    tokens' key (``"=h3"``, when it has four tokens or more) and its first two tokens' key
    (:func:`head_key`); empty when no text could align with it.

    A head many facts share ("Alice has …") would make a lookup by two words read them all;
    the three-word key finds the texts whose value comes later ("Alice has phone number …")
    among few, so the gate asks it first and reads a bounded number under each key.

    >>> [k[:3] for k in head_keys("Alice has phone number 555-0101")]
    ['=h3', '=h2']
    >>> [k[:3] for k in head_keys("Alice prefers tea")]
    ['=h2']
    """
    tokens = _tokens(text)
    if tokens is None or len(tokens) <= _MIN_PREFIX or not _may_align(tokens):
        return ()
    widths = (_MIN_PREFIX + 1, _MIN_PREFIX) if len(tokens) > _MIN_PREFIX + 1 else (_MIN_PREFIX,)
    return tuple(_head(tokens, width) for width in widths)


def _head(tokens: list[_Token], width: int) -> str:
    head = "|".join(t.word for t in tokens[:width])
    digest = hashlib.sha256((f"head {width} " + head).encode("utf-8")).hexdigest()[:24]
    return f"=h{width}{digest}"


def _tokens(text: str) -> list[_Token] | None:
    """The text's tokens (rule 1), or None past the bounds (rule 2): a fresh list each call,
    read once per text while it is among the last :data:`_KEPT` texts read (a write is
    aligned with up to 32 candidates in the gather and again by the judge, and the same
    candidates come back write after write)."""
    found = _kept_tokens(text)
    return None if found is None else list(found)


#: how many texts' tokens are kept (process memory only; nothing is written anywhere)
_KEPT = 2048


@functools.lru_cache(maxsize=_KEPT)
def _kept_tokens(text: str) -> tuple[_Token, ...] | None:
    found = _read_tokens(text)
    return None if found is None else tuple(found)


def _read_tokens(text: str) -> list[_Token] | None:
    """The text's tokens, read (see :func:`_tokens`)."""
    if len(text) > _MAX_CHARS:
        return None
    shown = visible(text).translate(_APOSTROPHES)
    if len(shown) > _MAX_CHARS * 4:  # a compatibility form can spell out several letters
        return None
    cased = any(c.islower() for c in shown)  # all capitals: capitals name nothing
    lookalikes = ascii_lookalikes()
    tokens: list[_Token] = []
    for piece in shown.split():
        # look-alikes read before case folding too: a capital's fold may look like nothing
        word = normalise(piece if piece.isascii() else unconfused(piece.translate(lookalikes)))
        if not word:
            continue
        if len(tokens) == _MAX_TOKENS:
            return None
        raw = piece.strip(_EDGE)
        head = word.split(" ", 1)[0]
        tokens.append(
            _Token(
                word=word,
                raw=raw,
                name=cased and raw[:1].isupper() and _may_name(head, first=not tokens),
                possessive=raw.lower().endswith("'s"),
                negation=word in _NEGATIONS or raw.lower().endswith("n't"),
            )
        )
    return _canonical(tokens)


def _may_name(word: str, *, first: bool) -> bool:
    """Whether a capitalised word can be a name: not a function word, though a modal past
    the first word can ("in May", "Will Smith")."""
    return word not in _NOT_NAMES or (word in _MODALS and not first)


def _canonical(tokens: list[_Token]) -> list[_Token]:
    """Change cues dropped, "(has) changed to" read as "is" (rule 1)."""
    kept = [t for t in tokens if t.word not in _CUES]
    out: list[_Token] = []
    at = 0
    while at < len(kept):
        token = kept[at]
        if token.word in _CHANGE_VERBS and at + 1 < len(kept) and kept[at + 1].word == "to":
            if out and out[-1].word == "has":
                out.pop()
            out.append(_Token(word="is", raw="is"))
            at += 2
            continue
        out.append(token)
        at += 1
    return out


def _may_align(tokens: list[_Token]) -> bool:
    """Whether a text could be one value of a slot: no negation, no added value (rule 4)."""
    for at, token in enumerate(tokens):
        if token.negation or token.word in _ADDITIVE:
            return False
        if token.word == "as" and at + 1 < len(tokens) and tokens[at + 1].word == "well":
            return False
    return True


def _is_value(span: list[_Token]) -> bool:
    """Whether a differing span reads as a value (rules 3 and 4)."""
    if not 1 <= len(span) <= _MAX_VALUE:
        return False
    for token in span:
        words = token.word.split(" ")
        if _NOT_IN_VALUE.intersection(words) or (token.word in _VERBS and not token.name):
            return False
        if "/" in words and any(w.isalpha() for w in words):  # "Paris/Berlin": a list
            return False
    body = span[1:] if span[0].word in _ARTICLES else span
    return bool(body) and not _grammar(body[0]) and not _grammar(body[-1])


def _grammar(token: _Token) -> bool:
    """A function word, not a name spelt like one ("May")."""
    return token.word in _FUNCTION and not token.name


def _slots(tokens: list[_Token], names: list[bool]) -> list[str]:
    """The pattern's words for a shared part: each run of names one ``<name>`` (rule 5)."""
    out: list[str] = []
    for token, name in zip(tokens, names, strict=True):
        if not name:
            out.append(token.word)
        elif out and out[-1] == "<name>":  # the run goes on
            out[-1] = "<name>'s" if token.possessive else "<name>"
        else:
            out.append("<name>'s" if token.possessive else "<name>")
    return out


def _shown(span: list[_Token]) -> str:
    """A value as written (punctuation around it dropped)."""
    return " ".join(t.raw for t in span)
