"""Sentences compared word by word: the text rules of the rule judge, offline.

Two questions, both on normalised words (:func:`doxa.text.normalise`), never on raw text:

- :func:`revision_shape`: how a write's text stands to the text of the fact it names in
  ``revises`` (the same words, the same words with more, or something else: a change);
- :func:`frame` and :func:`another_value`: whether a text-only write is *the same sentence
  with another value* as a stored one: "The weekly supplier call is on Wednesday" and "The
  weekly supplier call moved to Thursday". The rule, chosen from the measurements in
  ``bench/bench_consolidation.py`` and written out in ``docs/judge.md``, is deliberately
  narrow, because a wrong closing is the worst thing a judge can do and ``new`` is what a
  miss costs:

  1. a sentence *states a value* when it reads SUBJECT CUE VALUE: the first cue word is
     ``is`` or ``was`` (optionally followed by ``now`` and one preposition: on, at, in, to,
     from, by) or a change verb ``moved``, ``changed``, ``switched`` (with ``to``, an
     optional ``has`` before it belonging to the cue);
  2. the SUBJECT names a thing, not a person or a class: at least two words, starting with
     a determiner (the, my, our, your, his, her, their) or holding a possessive (``Bob's``);
  3. the VALUE is one to four words, not a description or a list: it does not start with
     ``a``, ``an``, ``not``, ``no``, ``also``, ``one``, ``another`` and holds no ``and``,
     ``or``, ``also``, ``too``, ``not``;
  4. two sentences are the same sentence with another value when their SUBJECTs are the
     same words and their VALUEs differ; the same VALUE is the same statement.

  Plural copulas (``are``, ``were``) never state a value: "Alice's languages are French"
  lists one of many. A verb that is not a cue ("Alice speaks French", "Alice likes tea")
  states no value either, so multi-valued statements stay ``new``.

>>> frame("The weekly supplier call is on Wednesday")
Frame(subject=('the', 'weekly', 'supplier', 'call'), value=('wednesday',))
>>> another_value("The weekly supplier call moved to Thursday",
...               "The weekly supplier call is on Wednesday")
True
>>> another_value("Alice speaks German", "Alice speaks French")
False
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from doxa.text import normalise

__all__ = [
    "Frame",
    "another_value",
    "frame",
    "frame_key",
    "revision_shape",
    "says_not",
    "value_words",
]

_COPULAS = frozenset({"is", "was"})
_CHANGES = frozenset({"moved", "changed", "switched"})
_PREPOSITIONS = frozenset({"on", "at", "in", "to", "from", "by"})
_DETERMINERS = frozenset({"the", "my", "our", "your", "his", "her", "their"})
_NOT_A_VALUE_START = frozenset({"a", "an", "not", "no", "also", "one", "another"})
_NOT_IN_A_VALUE = frozenset({"and", "or", "also", "too", "not"})
_MAX_VALUE = 4
#: the words that deny what follows them
_DENIALS = frozenset({"not", "never"})
#: words that say the world changed: with one of them, "not X" is what was, not a mistake
_CHANGE_CUES = frozenset(
    {"now", "anymore", "moved", "changed", "switched", "since", "nowadays", "currently", "became"}
)


@dataclass(frozen=True)
class Frame:
    """A sentence that states one value of one thing: its subject's and value's words."""

    subject: tuple[str, ...]
    value: tuple[str, ...]


def frame(text: str) -> Frame | None:
    """The subject and value a text states, or None when it states no single value."""
    tokens = normalise(text).split()
    for at, token in enumerate(tokens):
        if token in _COPULAS:
            rest = tokens[at + 1 :]
            if rest[:1] == ["now"]:
                rest = rest[1:]
            if rest[:1] and rest[0] in _PREPOSITIONS:
                rest = rest[1:]
            break
        if token in _CHANGES:
            if tokens[at + 1 : at + 2] != ["to"]:
                return None
            rest = tokens[at + 2 :]
            break
    else:
        return None
    subject = tokens[:at]
    if subject[-1:] == ["has"]:
        subject = subject[:-1]
    if len(subject) < 2 or not (subject[0] in _DETERMINERS or "s" in subject[1:]):
        return None
    if not 1 <= len(rest) <= _MAX_VALUE or rest[0] in _NOT_A_VALUE_START:
        return None
    if _NOT_IN_A_VALUE & set(rest):
        return None
    return Frame(tuple(subject), tuple(rest))


def frame_key(text: str) -> str | None:
    """An index key shared by the texts that state a value of the same subject, or None.

    ``"=v"`` and 24 hex digits: it starts like a text key, so it leaves the gate's live
    lookups exactly when a text key does (when its claim ends).

    >>> frame_key("The call is on Monday") == frame_key("the call moved to Friday")
    True
    >>> frame_key("Alice speaks French") is None
    True
    """
    found = frame(text)
    if found is None:
        return None
    digest = hashlib.sha256(("value of " + " ".join(found.subject)).encode("utf-8"))
    return f"=v{digest.hexdigest()[:24]}"


def another_value(new: str, old: str) -> bool:
    """Whether ``new`` is ``old`` with another value: the same subject, a different value."""
    a, b = frame(new), frame(old)
    return a is not None and b is not None and a.subject == b.subject and a.value != b.value


def revision_shape(new: str, old: str) -> Literal["same", "detail", "change"]:
    """How a write's text stands to the text of the fact it says it revises.

    ``same``: the same words once normalised (or the same subject and value); ``detail``:
    every word of the old text, in order, with more; ``change``: anything else.

    >>> revision_shape("Call on Wednesday at 10", "call on wednesday")
    'detail'
    >>> revision_shape("Call on Thursday", "Call on Wednesday")
    'change'
    """
    a, b = normalise(new).split(), normalise(old).split()
    if a == b:
        return "same"
    found, other = frame(new), frame(old)
    if found is not None and found == other:
        return "same"
    if len(a) > len(b) and _in_order(b, a):
        return "detail"
    return "change"


def _in_order(part: list[str], whole: list[str]) -> bool:
    """Whether every word of ``part`` appears in ``whole``, in the same order."""
    remaining = iter(whole)
    return all(word in remaining for word in part)


def says_not(text: str, value: tuple[str, ...]) -> bool:
    """Whether ``text`` says outright that ``value`` (normalised words) is not so: ``not`` or
    ``never`` (and one preposition) and then the value, as in "Bob was born in 1977, not
    1971" or "the call was never on Wednesday". The one correction
    cue the rule judge is sure of: the writer names the old value and denies it, so the old
    value was wrong rather than replaced.

    >>> says_not("Bob lives in Lisbon, not Paris", ("paris",))
    True
    >>> says_not("Bob lives in Lisbon, not far from Paris", ("paris",))
    False
    >>> says_not("Bob lives in Lisbon", ("paris",))
    False
    >>> says_not("The supplier call was never on Wednesday", ("wednesday",))
    True

    A change cue anywhere ("now", "anymore", "no longer", "moved", "since" …) makes it a
    change, not a denial: "the call is now on Thursday, not Wednesday anymore".

    >>> says_not("The call is now on Thursday, not Wednesday anymore", ("wednesday",))
    False
    """
    if not value:
        return False
    tokens = normalise(text).split()
    if _CHANGE_CUES.intersection(tokens) or "no longer" in " ".join(tokens):
        return False
    width = len(value)
    for at, token in enumerate(tokens):
        if token not in _DENIALS:
            continue
        rest = tokens[at + 1 :]
        if rest[:1] and rest[0] in _PREPOSITIONS:
            rest = rest[1:]  # "never on Wednesday", "not in Paris"
        if tuple(rest[:width]) == value:
            return True
    return False


def value_words(value: str) -> tuple[str, ...]:
    """The normalised words of a value as a person would write it: an IRI's local name with
    its camel case split ("FlatWhite": flat white), or a literal's text.

    >>> value_words("http://example.org/FlatWhite"), value_words("bob@example.org")
    (('flat', 'white'), ('bob', '@', 'example', 'org'))
    """
    local = value.rstrip("/#")
    if "://" in local or local.startswith("urn:"):
        local = local.rsplit("#", 1)[-1].rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        spaced = "".join(
            f" {c}" if c.isupper() and at and not local[at - 1].isupper() else c
            for at, c in enumerate(local)
        )
        local = spaced.replace("_", " ").replace("-", " ")
    return tuple(normalise(local).split())
