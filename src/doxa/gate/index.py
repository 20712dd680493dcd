"""Index entries in a scope's search graph: the keys the gate and ``recall`` look up.

Five kinds of ``doxa:term`` literal hang off claims in ``<scope>/search``:

- ``"@…"`` — a key of its subject and predicate (structured claims; live claims only);
- ``"=…"`` — a key of its normalised text (text-only claims; live claims only),
  ``"=v…"``, a key of the subject it states a value of, where its text states one
  (:func:`doxa.judges.sentences.frame_key`), and ``"=h2…"``/``"=h3…"``, keys of its first
  two and three words, shared by the texts it may be the same sentence of with another value
  (:func:`doxa.judges.patterns.head_keys`);
- plain words of its text, for ``recall`` (kept after the claim ends, for ``include_ended``);
- ``"%…"`` — a stem of a word of its text or of the labels of its subject, predicate and
  object (:func:`doxa.text.stems`, in the scope's language): what ``recall``'s BM25 matches
  (kept after the claim ends, like the words);
- ``"~@…"`` — a past statement key: what a ``"@…"`` key becomes when its claim is
  superseded. A superseded fact is still believed for the valid time before its end, so a
  value written into that time must meet it (see :mod:`doxa.gate.believed`); a retraction
  removes it;
- ``"^@…"`` — a front key, beside the past key, on the superseded claims of a statement
  whose supersession came latest in valid time: no superseded claim of the statement is
  believed past their end, so a write starting there need not read the history. It moves
  on to each later superseded claim and stays through a retraction (its end still bounds
  the others).

Beside them, a copy of the claim's topic and both clocks' fields (``doxa:topic``,
``doxa:recordedAt``, ``doxa:validFrom``, ``doxa:validUntil``): ``recall`` checks liveness
and finds each candidate's graph within this one graph and the log, instead of probing every
topic graph of the scope for every candidate.

The two live keys are removed when a claim ends, so a live lookup returns only live claims
however long a statement's history grows.
"""

from __future__ import annotations

from functools import lru_cache

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.judges.patterns import head_keys
from doxa.judges.sentences import frame_key
from doxa.model import Authority
from doxa.ontology import PropertyTable, statement_key
from doxa.reads.word_index import STEM
from doxa.text import DEFAULT_LANGUAGE, index_words, label_words, text_key, unconfused
from doxa.vocabulary import DOXA, RDF

__all__ = [
    "COPIED",
    "FRONT",
    "PAST",
    "STEM",
    "TERM",
    "claim_stems",
    "front_key",
    "index_entries",
    "index_terms",
    "live_keys",
    "past_key",
    "statement_key",
    "word_terms",
]

TERM = DOXA["term"]
PAST = "~"  # marks a superseded claim's statement key
FRONT = "^"  # marks the statement key of the superseded claims that ended latest


def past_key(key: Literal) -> Literal:
    """The key a superseded claim keeps in place of a live statement key.

    >>> str(past_key(Literal("@0a1b")))
    '~@0a1b'
    """
    return Literal(PAST + str(key))


def front_key(key: Literal) -> Literal:
    """The key the latest-ending superseded claims of a statement carry as well."""
    return Literal(FRONT + str(key))


def live_keys(pairs: list[tuple[URIRef, Node]], table: PropertyTable) -> list[Literal]:
    """The keys a live claim carries: one statement key per property its canonical form
    states (see :class:`~doxa.ontology.PropertyTable`), or the text key of a text-only claim.

    Outside text with look-alike letters also carries the key of its text with them read as
    the ASCII they imitate (:func:`doxa.text.unconfused`): an agent that copies a page's
    spoofed sentence in plain letters as its own note meets the quotation (issue 33). Only
    outside text: a text in another script folds to other letters, and the owner's and the
    agent's own words need no second key."""
    values = dict(pairs)
    if (RDF.type, DOXA.Rule) in pairs:
        return []
    subject, predicate, obj = (values.get(k) for k in (RDF.subject, RDF.predicate, RDF.object))
    if subject is not None and isinstance(predicate, URIRef) and obj is not None:
        return table.keys(subject, predicate, obj)
    text = str(values[DOXA.text])
    value = frame_key(text)  # the same sentence with another value finds it (docs/judge.md)
    heads = head_keys(text)  # so do the texts that may align with it (doxa.judges.patterns)
    key = text_key(text)
    found = [key, *([value] if value is not None else []), *heads]
    if values.get(DOXA.authority) == Authority.EXTERNAL.iri:
        folded = text_key(unconfused(text))
        if folded != key:
            found.append(folded)
    return [Literal(k) for k in found]


def claim_stems(pairs: list[tuple[URIRef, Node]], language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The stems recall matches a claim on: its text's, then its subject's, predicate's and
    object's labels' (the IRI's last segment, camel case split; a literal's own form)."""
    return _words_and_stems(pairs, language)[1]


def _words_and_stems(
    pairs: list[tuple[URIRef, Node]], language: str
) -> tuple[list[str], list[str]]:
    values = dict(pairs)
    labels = [
        label_words(str(term)) if isinstance(term, URIRef) else str(term)
        for key in (RDF.subject, RDF.predicate, RDF.object)
        if (term := values.get(key)) is not None
    ]
    return index_words(str(values[DOXA.text]), " ".join(labels), language)


def index_terms(
    pairs: list[tuple[URIRef, Node]], table: PropertyTable, language: str = DEFAULT_LANGUAGE
) -> list[Literal]:
    """Every index literal of a newly admitted claim: its keys, words and stems (the text
    normalised once for both)."""
    return [*live_keys(pairs, table), *word_terms(pairs, language)]


def word_terms(pairs: list[tuple[URIRef, Node]], language: str = DEFAULT_LANGUAGE) -> list[Literal]:
    """A claim's word and stem index literals (no keys: those depend on whether it is live),
    from its text and its subject's, predicate's and object's labels."""
    text_words, text_stems = _words_and_stems(pairs, language)
    return [
        *map(_index_literal, text_words),
        *map(_index_literal, [STEM + s for s in text_stems]),
    ]


@lru_cache(maxsize=65536)
def _index_literal(term: str) -> Literal:
    """A word's or a stem's index literal, shared between writes: words recur, and building
    an rdflib ``Literal`` costs more than looking one up (literals are immutable)."""
    return Literal(term)


#: the claim fields the search graph repeats beside its index words, as they stand on the
#: claim (verify holds the copies to the claim, both ways)
COPIED = frozenset((DOXA.topic, DOXA.recordedAt, DOXA.validFrom, DOXA.validUntil))


def index_entries(
    pairs: list[tuple[URIRef, Node]], table: PropertyTable, language: str = DEFAULT_LANGUAGE
) -> list[tuple[URIRef, Node]]:
    """The (predicate, object) pairs a newly admitted claim gets in the search graph."""
    copied = [(p, o) for p, o in pairs if p in COPIED]
    return [*((TERM, term) for term in index_terms(pairs, table, language)), *copied]
