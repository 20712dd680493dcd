"""The word index in memory: what ``recall`` reads of the search graph and the log, kept hot.

When this process is the store's only writer (a :class:`~doxa.store.SoleWriter`), a scope's
search graph (words, topic and clocks of every admitted claim) and the endings in its log are
read once into memory. The store's cache then tells the index of every change the store applies
(a :class:`~doxa.store.cache.Derived`): the change names the claims it touched, and those are
read again from the store at the next recall, so the store stays the only truth and a recall
costs no store read until its best facts are loaded. The triples of the facts recalled lately
are kept too, until a change touches them. A write the store cannot describe as a
change (a load, a cleared graph, the compaction after an erasure) drops the index at once, so
no erased word stays in the process; it is read again at the next recall.

A shared backend (other processes write too: no cache) keeps reading the store.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from rdflib import URIRef
from rdflib.term import Node

from doxa.reads.claims import read_endings
from doxa.scope import Scope
from doxa.store import Change, Store
from doxa.store.cache import CacheKey, Derived
from doxa.store.capabilities import PlainValues, cache_of
from doxa.terms import instant
from doxa.vocabulary import DOXA

__all__ = ["STEM", "SearchEntry", "WordIndex"]

Ending = dict[str, Node]
Pair = tuple[Node, Node]


class _V:
    """The IRIs read here, built once (an rdflib namespace builds a term on every access)."""

    ends = DOXA.ends
    term = DOXA["term"]
    topic = DOXA.topic
    recorded_at = DOXA.recordedAt
    valid_from = DOXA.validFrom
    valid_until = DOXA.validUntil
    supersession = DOXA.Supersession
    retraction = DOXA.Retraction


#: the search graph's copy of each claim's topic and clocks
CLOCKS = (_V.topic, _V.recorded_at, _V.valid_from, _V.valid_until)
#: the fields of a search entry, by predicate (as an RDF term and as a plain string)
_FIELDS: dict[object, str] = {
    key: field
    for predicate, field in (
        (_V.term, "term"),
        (_V.topic, "topic"),
        (_V.recorded_at, "recorded"),
        (_V.valid_from, "from"),
        (_V.valid_until, "until"),
    )
    for key in (predicate, str(predicate))
}
#: index literals that are keys, not words (see :mod:`doxa.gate.index`)
_KEY_MARKS = frozenset("@=~^")
#: marks a stem among the index literals (no word starts with it: a word starts with a
#: letter or digit)
STEM = "%"
#: how many recalled facts' triples are kept
_KEPT = 4096
#: claims named by changes since the last recall beyond which the index is read again whole
_MAX_PENDING = 200_000


class SearchEntry:
    """What the search graph says of one claim: its topic, clocks and (in the index) the keys
    recall matches it on (:attr:`words`: its stems, or its words when it has no stems)."""

    __slots__ = ("recorded", "topic", "valid_from", "valid_until", "words")

    def __init__(self, pairs: Iterable[tuple[Node | str, Node | str]]) -> None:
        """From the claim's (predicate, object) pairs: RDF terms or their plain strings."""
        self.topic: str | None = None
        self.recorded: datetime | None = None
        valid_from: list[datetime] = []
        valid_until: list[datetime] = []
        words: list[str] = []
        stems: list[str] = []
        for p, o in pairs:
            field = _FIELDS.get(p)
            if field is None:
                continue
            if field == "term":
                word = str(o)
                if not word:
                    continue
                if word[0] == STEM:
                    stems.append(sys.intern(word))  # one copy of a stem for every claim
                elif word[0] not in _KEY_MARKS:
                    words.append(sys.intern(word))
            elif field == "topic":
                self.topic = sys.intern(str(o))
            elif field == "recorded":
                self.recorded = instant(o)
            elif field == "from":
                valid_from.append(instant(o))
            else:
                valid_until.append(instant(o))
        # tuples: a few hundred thousand of these are held at once
        self.valid_from = tuple(valid_from)
        self.valid_until = tuple(valid_until)
        # what recall matches: the stems ("%…"), or the plain words of a claim indexed before
        # stems were (a query asks for both its stems and its own words)
        self.words = tuple(stems or words)

    def live(self, endings: Iterable[Ending], valid_at: datetime) -> bool:
        """True at ``valid_at`` and not ended by then (``endings`` are those recorded by the
        time asked about): what ``facts.rq`` reads in SPARQL, over one claim."""
        if any(start > valid_at for start in self.valid_from):
            return False
        if any(until <= valid_at for until in self.valid_until):
            return False
        for ending in endings:
            if ending["type"] == _V.retraction:
                return False
            until = ending.get("until")
            superseded = ending["type"] == _V.supersession and until is not None
            if superseded and instant(until) <= valid_at:
                return False
        return True


class WordIndex(Derived):
    """One scope's search graph and endings in memory; see the module's docstring.

    Read it inside :meth:`reading`, which brings it up to date first and keeps writers'
    notices from changing it while it is read.
    """

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self._lock = threading.RLock()
        self._pending: list[tuple[set[str], set[str], set[str]]] = []
        self._waiting = 0  # claims named by the pending notices
        self._notices = itertools.count(1)  # numbers each notice (next() is atomic)
        self._last_notice = 0
        self._stale = True
        self.entries: dict[str, SearchEntry] = {}
        #: match key (a stem, or an unstemmed claim's word) -> the claims carrying it
        self.postings: dict[str, set[str]] = {}
        #: claim -> (when recorded, ending) for each of its supersessions and retractions
        self.endings: dict[str, list[tuple[datetime, Ending]]] = {}
        #: the triples of the facts recalled lately, as ``Store.describe`` gives them
        self._kept: OrderedDict[str, tuple[tuple[URIRef, ...], list[Pair]]] = OrderedDict()

    @classmethod
    def of(cls, store: Store, scope: Scope) -> WordIndex | None:
        """The scope's index on ``store``; None when other processes may write the store."""
        cache = cache_of(store)
        if cache is None:
            return None
        return cache.get_or_make(WORD_INDEX.of(scope.name), lambda: cls(scope))

    # -- told by the store ---------------------------------------------------------------

    def changed(self, change: Change) -> None:
        # no lock: a writer must not wait for a recall reading the index; appending to a list
        # is atomic, and a notice that arrives while the index is read is caught up next time
        self._last_notice = next(self._notices)
        if self._stale:
            return  # read in full at the next recall anyway
        search, log = self.scope.search, self.scope.log
        touched: set[str] = set()  # claims whose words or clocks changed
        ended: set[str] = set()  # claims whose endings changed
        kept: set[str] = set()  # recalled facts whose triples were kept and changed
        for quads in (change.delete, change.insert):
            for s, p, o, g in quads:
                if g == search:
                    touched.add(str(s))
                else:
                    if str(s) in self._kept:
                        kept.add(str(s))
                    if g == log and p == _V.ends:
                        ended.add(str(o))
        if touched or ended or kept:
            self._pending.append((touched, ended, kept))
            self._waiting += len(touched) + len(ended) + len(kept)
        if self._waiting > _MAX_PENDING:  # a long import with no recall between
            self.reset(None)

    def reset(self, graph: URIRef | None) -> None:
        with self._lock:
            if graph is None or graph in (self.scope.search, self.scope.log):
                self._drop()
            else:  # not what the words come from, but maybe what a kept fact was read from
                self._last_notice = next(self._notices)
                self._kept = OrderedDict()

    def _drop(self) -> None:
        # new containers, not cleared ones: nothing of the old content is kept here
        self._stale = True
        self._pending, self._waiting = [], 0
        self.entries, self.postings, self.endings = {}, {}, {}
        self._kept = OrderedDict()

    # -- reading -----------------------------------------------------------------------

    @contextmanager
    def reading(self, store: Store) -> Iterator[WordIndex]:
        """The index brought up to date with ``store``, held still while it is read."""
        with self._lock:
            if self._stale:
                self._build(store)
            elif self._pending:
                self._catch_up(store)
            yield self

    def describe(
        self, store: Store, claims: Sequence[URIRef], graphs: tuple[URIRef, ...]
    ) -> dict[str, list[Pair]]:
        """``store.describe(claims, graphs)``, keeping the answers of the facts recalled lately
        (forgotten when a change touches them); call it inside :meth:`reading`."""
        found: dict[str, list[Pair]] = {}
        missing: list[URIRef] = []
        for claim in claims:
            kept = self._kept.get(str(claim))
            if kept is None or kept[0] != graphs:
                missing.append(claim)
            else:
                self._kept.move_to_end(str(claim))
                found[str(claim)] = kept[1]
        if missing:
            before = self._last_notice
            described = store.describe(missing, graphs)
            found.update(described)
            if self._last_notice == before:  # else a write may have changed them meanwhile
                for subject, pairs in described.items():
                    self._kept[subject] = (graphs, pairs)
            while len(self._kept) > _KEPT:
                self._kept.popitem(last=False)
        return found

    def endings_by(self, claim: str, as_of: datetime) -> list[Ending]:
        """The claim's endings recorded by ``as_of``."""
        return [ending for recorded, ending in self.endings.get(claim, ()) if recorded <= as_of]

    def _build(self, store: Store) -> None:
        self._drop()
        self._stale = False  # changes from now on are caught up, even those made during this
        grouped: dict[str, list[tuple[Node | str, Node | str]]] = {}
        if isinstance(store, PlainValues):  # plain strings: no RDF term built for each
            for subject, predicate, value in store.values(self.scope.search):
                grouped.setdefault(subject, []).append((predicate, value))
        else:
            for s, p, o, _ in store.quads(self.scope.search):
                grouped.setdefault(str(s), []).append((p, o))
        for claim, pairs in grouped.items():
            self._enter(claim, SearchEntry(pairs))
        self._read_endings(store, list(grouped))

    def _catch_up(self, store: Store) -> None:
        notices, self._pending, self._waiting = self._pending, [], 0
        touched: set[str] = set()
        ended: set[str] = set()
        for claims, endings, subjects in notices:  # a list: a writer may append meanwhile
            touched |= claims
            ended |= endings
            for subject in subjects:
                self._kept.pop(subject, None)
        search = self.scope.search
        if touched:
            described = store.describe([URIRef(c) for c in touched], [search])
            for claim in touched:
                self._leave(claim)
                if claim in described:
                    self._enter(claim, SearchEntry(described[claim]))
        if ended:
            for claim in ended:
                self.endings.pop(claim, None)
            self._read_endings(store, sorted(ended))

    def _read_endings(self, store: Store, claims: list[str]) -> None:
        for claim, endings in read_endings(store, self.scope, claims).items():
            self.endings[claim] = [(instant(e["recorded"]), e) for e in endings]

    def _enter(self, claim: str, entry: SearchEntry) -> None:
        self.entries[claim] = entry
        for word in entry.words:
            self.postings.setdefault(word, set()).add(claim)

    def _leave(self, claim: str) -> None:
        entry = self.entries.pop(claim, None)
        if entry is None:
            return
        for word in entry.words:
            carriers = self.postings.get(word)
            if carriers is not None:
                carriers.discard(claim)
                if not carriers:
                    del self.postings[word]


#: the store cache's key of a scope's word index
WORD_INDEX: CacheKey[WordIndex] = CacheKey("doxa.recall")
