"""Other spellings of a screen's test text, one definition for every family's tests: a sign
must survive them, and a benign control must stay benign under them (the screen normalises
case, look-alike letters, zero-width characters, markup and fullwidth forms before it looks).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

__all__ = [
    "SPELLINGS",
    "each_short_spelling",
    "each_spelling",
    "each_spelling_of_your",
]

SPELLINGS: list[tuple[str, Callable[[str], str]]] = [
    ("upper case", str.upper),
    ("cyrillic look-alikes", lambda t: t.translate(str.maketrans("aeopcx", "аеорсх"))),
    ("zero-width joiner", lambda t: t.replace("e", "e\u200d")),
    ("markup inside words", lambda t: t.replace("o", "<b></b>o")),
    (
        "fullwidth letters",
        lambda t: "".join(chr(ord(c) + 0xFEE0) if c.isalpha() and c.isascii() else c for c in t),
    ),
]

#: ``@each_spelling`` runs a test once per spelling, its ``spell`` argument the respelling
each_spelling = pytest.mark.parametrize(
    "spell", [s[1] for s in SPELLINGS], ids=[s[0] for s in SPELLINGS]
)

#: the spellings the signs added after the third-party set are tried in: case, look-alike
#: letters, zero-width characters, and markup inside the word "your" that most of them use
_YOUR_SPELLINGS: list[tuple[str, Callable[[str], str]]] = [
    ("upper case", str.upper),
    ("cyrillic look-alikes", lambda t: t.translate(str.maketrans("aeopcx", "аеорсх"))),
    ("zero-width joiner", lambda t: t.replace("e", "e\u200d")),
    ("markup inside a word", lambda t: t.replace("your", "yo<b></b>ur")),
]

#: ``@each_spelling_of_your``: the same, once per spelling of ``_YOUR_SPELLINGS``
each_spelling_of_your = pytest.mark.parametrize(
    "spell", [s[1] for s in _YOUR_SPELLINGS], ids=[s[0] for s in _YOUR_SPELLINGS]
)

#: ``@each_short_spelling``: three spellings (upper case, Cyrillic look-alikes, zero-width
#: joiners), which a tightened sign's attack and its control are both tried in
each_short_spelling = pytest.mark.parametrize(
    "spell",
    [
        str.upper,
        lambda t: t.translate(str.maketrans("aeopcx", "аеорсх")),  # Cyrillic look-alikes
        lambda t: t.replace("e", "e\u200d"),  # zero-width joiners
    ],
    ids=["upper", "cyrillic", "zero-width"],
)
