"""``facts`` and ``recall``: claims by valid time and belief time, structured or by words."""

from __future__ import annotations

import functools
import heapq
import itertools
import math
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from enum import Enum
from typing import NamedTuple, Protocol

from rdflib import Literal, URIRef

from doxa.model import Fact, FactStatus
from doxa.reads.claims import claim_endings, load_facts
from doxa.reads.vectors import Meaning, VectorIndex
from doxa.reads.word_index import CLOCKS, STEM, Ending, SearchEntry, WordIndex
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal
from doxa.text import stemmed, words
from doxa.vocabulary import DOXA

__all__ = ["RRF_K", "Matching", "bm25", "facts", "flagged", "fuse", "recall"]


def facts(
    store: Store,
    scope: Scope,
    topic_graphs: list[URIRef],
    *,
    valid_at: datetime,
    as_of: datetime,
    subject: URIRef | None = None,
    predicate: URIRef | None = None,
    include_ended: bool = False,
    topic: str | None = None,
) -> list[Fact]:
    """Claims true at ``valid_at`` as believed at ``as_of``, oldest record first.

    ``topic`` keeps that topic's claims only: the owner's rules live in one graph for every
    topic (the judge of any topic reads them all), so a topic's graph alone does not say which
    rules are its own.
    """
    dataset = Dataset(default=(*topic_graphs, scope.rules, scope.log))
    bindings = {
        "asOf": dt_literal(as_of),
        "validAt": dt_literal(valid_at),
        "includeEnded": Literal(include_ended),
        "predicate": predicate,
    }
    if subject is not None:
        rows = store.select(
            query("facts_about"), dataset=dataset, bindings={**bindings, "subject": subject}
        )
    else:
        rows = store.select(query("facts"), dataset=dataset, bindings={**bindings, "subject": None})
    iris = [URIRef(str(r["claim"])) for r in rows]
    found = load_facts(store, scope, dataset, iris, as_of=as_of)
    if topic is not None:
        found = [f for f in found if f.topic == topic]
    return sorted(found, key=lambda f: (f.recorded_at, f.id))


RARE = 2000  # a word carried by more claims than this is too common to gather by
ALL_WORDS = 500  # when every word is common: how many of the newest claims carrying them all
#: BM25's parameters: term-frequency saturation (moot here: a claim carries a stem once),
#: length normalisation, and the average claim length in stems it is measured against (fixed,
#: so a score never needs the whole store read and both backends agree)
K1, B, AVERAGE_LENGTH = 1.2, 0.75, 8.0
#: reciprocal-rank fusion's constant (Cormack et al. 2009): a list's r-th fact adds 1/(K+r)
RRF_K = 60
#: how deep both lists go before they are fused (at least ``limit``): with the words' list
#: only ``limit`` deep, a fact first by meaning but eleventh by words got one share while the
#: same person's other facts got two, and a real model's recall@5 was 0.933 against 0.98 at
#: this depth, for 1.01x the recall time at 100k facts (1.8x, 2.4 ms, at 10k; docs/decisions.md)
FUSED_DEPTH = 20


class Matching(Enum):
    """How ``recall`` matches a query's words."""

    #: BM25 over Snowball stems of the text and the labels of subject, predicate and object
    STEMS = "stems"
    #: the words as written, most words first: recall before stemming (kept to compare)
    EXACT = "exact"


def recall(
    store: Store,
    scope: Scope,
    topics: set[str] | None,
    text: str,
    *,
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool = False,
    limit: int = 10,
    matching: Matching = Matching.STEMS,
    meaning: Meaning | None = None,
) -> list[Fact]:
    """Facts ranked by BM25 over the stems of the query's words (in the scope's language).

    A claim is matched on the stems of its text and of its subject's, predicate's and
    object's labels ("where does alice live" finds "Alice lives in Lyon"), and a claim
    indexed before stems were, on its words. Candidates are gathered by the query's rarer
    stems (a stem carried by more than ``RARE`` claims only ranks them), so the cost follows
    how selective the query is, not the size of the store. The stems, clocks and endings come
    from the scope's :class:`WordIndex` in memory when this process is the store's only
    writer, else from the store by index lookups; both give the same answer. ``topics``
    limits the answer to those topics (None: every topic). Returns at most ``limit`` facts,
    best first, each with its ``score``: its BM25 score over the best a claim could get for
    the query, in (0, 1]. ``matching=Matching.EXACT`` ranks as recall did before stemming.

    With ``meaning`` (the query's vector) and the scope's vectors of its model in memory
    (:class:`VectorIndex`: this process is the store's only writer), the BM25 list and the
    nearest vectors' list (each ``max(limit, FUSED_DEPTH)`` live facts deep) are fused by reciprocal
    rank (:func:`fuse`); a vector's claim counts only when the search graph still holds it,
    live by the same clock and status rules, so an ended, erased or quarantined fact never
    comes back through its vector. Without either, recall is by words alone.
    """
    if matching is Matching.EXACT:
        return _recall_exact(store, scope, topics, text, valid_at, as_of, include_ended, limit)
    terms = [(STEM + stem, *plain) for stem, plain in stemmed(text, scope.language).items()]
    index = WordIndex.of(store, scope)
    vectors = None if meaning is None else VectorIndex.of(store, scope, meaning.model)
    if index is not None and meaning is not None and vectors is not None:
        with index.reading(store) as current:
            indexed = _IndexedStems(current)
            depth = max(limit, FUSED_DEPTH)
            by_words = _Picked([], {}, {}, {})
            if terms:
                by_words = _rank(indexed, terms, topics, valid_at, as_of, include_ended, depth)
            with vectors.reading(store) as held:
                by_meaning = _near(
                    held, meaning.vector, indexed, topics, valid_at, as_of, include_ended, depth
                )
            picked = fuse(by_words, by_meaning, limit)
            found = _load(store, scope, picked, as_of, include_ended, current)
        return [replace(found[c], score=picked.scores[str(c)]) for c in picked.best if c in found]
    if not terms:
        return []
    if index is None:
        source: _Source = _StoredStems(store, scope)
        picked = _rank(source, terms, topics, valid_at, as_of, include_ended, limit)
        found = _load(store, scope, picked, as_of, include_ended, None)
    else:
        with index.reading(store) as current:
            source = _IndexedStems(current)
            picked = _rank(source, terms, topics, valid_at, as_of, include_ended, limit)
            found = _load(store, scope, picked, as_of, include_ended, current)
    return [replace(found[c], score=picked.scores[str(c)]) for c in picked.best if c in found]


def fuse(by_words: _Picked, by_meaning: _Picked, limit: int) -> _Picked:
    """Reciprocal-rank fusion of two ranked lists of live claims: each claim scores
    ``1/(RRF_K + r)`` for its rank ``r`` in each list it is in; best ``limit`` first (ties:
    the words' order, then the meaning's), each score over the best possible (first in both),
    so in (0, 1]. Nothing outside the two lists can come back.
    """
    fused: dict[str, float] = {}
    for ranked in (by_words.best, by_meaning.best):
        for rank, claim in enumerate(ranked, start=1):
            fused[str(claim)] = fused.get(str(claim), 0.0) + 1.0 / (RRF_K + rank)
    order = {str(c): n for n, c in enumerate((*by_words.best, *by_meaning.best))}
    best = sorted(fused, key=lambda c: (-fused[c], order[c]))[:limit]
    top = 2.0 / (RRF_K + 1)
    return _Picked(
        [URIRef(c) for c in best],
        {c: round(fused[c] / top, 4) for c in best},
        {**by_meaning.topic_of, **by_words.topic_of},
        {**by_meaning.ended, **by_words.ended},
    )


def _near(
    vectors: VectorIndex,
    vector: Sequence[float],
    source: _IndexedStems,
    topics: set[str] | None,
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool,
    limit: int,
) -> _Picked:
    """The ``limit`` live claims nearest ``vector``, by the same rules as :func:`_rank`: a
    claim the search graph does not hold (erased, never admitted, quarantined) is skipped,
    as is one recorded after ``as_of``, of another topic, or ended at ``valid_at``."""
    best: list[str] = []
    topic_of: dict[str, str] = {}
    ended: dict[str, list[Ending]] = {}
    asked = limit * 2
    while True:
        near = vectors.nearest(vector, asked)
        best, topic_of, ended = [], {}, {}
        entries = source.entries([claim for claim, _ in near])
        candidates: list[str] = []
        for claim, _ in near:
            entry = entries.get(claim)
            if entry is None or entry.topic is None or entry.recorded is None:
                continue
            if entry.recorded > as_of or (topics is not None and entry.topic not in topics):
                continue
            candidates.append(claim)
            topic_of[claim] = entry.topic
        endings = {} if include_ended else source.endings(candidates, as_of)
        for claim in candidates:
            ended[claim] = endings.get(claim, [])
            if include_ended or entries[claim].live(ended[claim], valid_at):
                best.append(claim)
                if len(best) == limit:
                    break
        if len(best) == limit or len(near) < asked:
            break
        asked *= 4  # many near ones were ended or elsewhere: look deeper
    scores = dict.fromkeys(best, 0.0)
    return _Picked([URIRef(c) for c in best], scores, topic_of, ended)


def bm25(weights: Iterable[float], length: int) -> float:
    """A claim's BM25 over the query terms it carries (each once), given their inverse
    document frequencies and its length in stems.

    >>> round(bm25([1.0], 8), 4), round(bm25([1.0], 16), 4)
    (1.0, 0.7097)
    """
    return _saturation(length) * math.fsum(weights)


@functools.lru_cache(maxsize=512)
def _saturation(length: int) -> float:
    """BM25's factor for a term carried once by a claim of ``length`` stems."""
    return (K1 + 1) / (1 + K1 * (1 - B + B * length / AVERAGE_LENGTH))


def _rank(
    source: _Source,
    terms: list[tuple[str, ...]],
    topics: set[str] | None,
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool,
    limit: int,
) -> _Picked:
    """The best ``limit`` live claims for the query terms (each a stem and the query's words
    that stem to it), by BM25, newest first among equal scores.

    Only a rare term's claims are gathered (each rare term's posting is read whole on both
    backends); a common term is looked for in the candidates' own entries. Candidates are
    grouped by the rare terms they carry and scored group by group, best bound first: a
    claim is taken once no later group could beat it, so most recalls never score the
    claims that carry only a common-ish word (MaxScore).
    """
    postings: list[Collection[str]] = []
    for keys in terms:
        carrying = [carriers for key in keys if (carriers := source.postings(key))]
        # one key carried (the usual case): its posting as it is, not a copy
        postings.append(carrying[0] if len(carrying) == 1 else set().union(*carrying))
    counts = [min(len(found), RARE + 1) for found in postings]
    weight = [math.log1p(RARE / max(n, 1)) for n in counts]
    rare = [i for i, n in enumerate(counts) if n <= RARE]
    common = [i for i, n in enumerate(counts) if n > RARE]
    groups: dict[int, list[str]] = {}  # the rare terms carried, as bits -> the claims
    if rare:
        mask: dict[str, int] = {}
        for i in rare:
            bit = 1 << i
            for claim in postings[i]:
                mask[claim] = mask.get(claim, 0) | bit
        for claim, bits in mask.items():
            groups.setdefault(bits, []).append(claim)
    else:  # every term is common: the newest claims that carry them all
        groups[0] = source.carrying_all(terms)
    extra = math.fsum(weight[i] for i in common)
    # the most a group's claim could score: the shortest claim, every common term carried
    bound = {
        # (a hair above: the sums round differently from a claim's own)
        bits: _saturation(1)
        * (math.fsum(weight[i] for i in rare if bits >> i & 1) + extra)
        * (1 + 1e-9)
        for bits in groups
    }
    order = sorted(groups, key=lambda bits: -bound[bits])
    best_possible = bm25(weight, len(terms))  # a claim of exactly the query's terms
    heap: list[tuple[float, float, str]] = []
    topic_of: dict[str, str] = {}
    entries: dict[str, SearchEntry] = {}
    best: list[str] = []
    scores: dict[str, float] = {}
    ended: dict[str, list[Ending]] = {}
    batch = limit * 2 + 5
    for n, bits in enumerate(order):
        group = source.entries(groups[bits])
        entries.update(group)
        carried = [weight[i] for i in rare if bits >> i & 1]
        for claim, entry in group.items():
            topic, recorded = entry.topic, entry.recorded
            if topic is None or recorded is None or recorded > as_of:
                continue
            if topics is not None and topic not in topics:
                continue  # recall was asked about other topics
            found = carried
            if common:
                own = entry.words
                found = [*carried, *(weight[i] for i in common if _carries(own, terms[i]))]
            if found:
                score = _saturation(len(entry.words)) * math.fsum(found)
                heapq.heappush(heap, (-score, -recorded.timestamp(), claim))
                topic_of[claim] = topic
        # a claim no later group can beat or tie is final: taken best first, liveness checked
        later = bound[order[n + 1]] if n + 1 < len(order) else None
        while len(best) < limit:
            window: list[tuple[float, float, str]] = []
            while heap and len(window) < batch and (later is None or -heap[0][0] > later):
                window.append(heapq.heappop(heap))
            if not window:
                break
            _take(window, source, entries, valid_at, as_of, include_ended, limit,
                  best, scores, ended, best_possible)  # fmt: skip
        if len(best) == limit:
            break
    return _Picked([URIRef(c) for c in best], scores, topic_of, ended)


def _carries(own: tuple[str, ...], keys: tuple[str, ...]) -> bool:
    return any(k in own for k in keys)


def _take(
    window: list[tuple[float, float, str]],
    source: _Source,
    entries: dict[str, SearchEntry],
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool,
    limit: int,
    best: list[str],
    scores: dict[str, float],
    ended: dict[str, list[Ending]],
    best_possible: float,
) -> None:
    """Take the window's live claims, best first, into ``best`` (up to ``limit``)."""
    endings = {} if include_ended else source.endings([c for *_, c in window], as_of)
    for score, _, claim in window:
        ended[claim] = endings.get(claim, [])
        if not include_ended and not entries[claim].live(ended[claim], valid_at):
            continue
        best.append(claim)
        scores[claim] = round(-score / best_possible, 4)
        if len(best) == limit:
            return


class _Source(Protocol):
    """Where BM25 recall reads the search graph and the endings: the store or the index."""

    def postings(self, key: str) -> Collection[str]:
        """The claims carrying ``key``; past ``RARE`` of them, only their count matters."""
        ...

    def entries(self, claims: Collection[str]) -> dict[str, SearchEntry]:
        """Each claim's search entry (stems, topic, clocks)."""
        ...

    def endings(self, claims: list[str], as_of: datetime) -> dict[str, list[Ending]]:
        """Each claim's endings recorded by ``as_of``."""
        ...

    def carrying_all(self, terms: list[tuple[str, ...]]) -> list[str]:
        """The newest ``ALL_WORDS`` claims carrying every term, newest first."""
        ...


class _StoredStems:
    """The search graph and endings read from the store, by index lookups."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope
        self.search = Dataset(default=(scope.search,))

    def postings(self, key: str) -> list[str]:
        return _StoredWords(self.store, self.scope).postings(key)

    def entries(self, claims: Collection[str]) -> dict[str, SearchEntry]:
        if not claims:
            return {}
        described = self.store.describe(
            [URIRef(c) for c in sorted(claims)], [self.scope.search], (_TERM, *CLOCKS)
        )
        return {claim: SearchEntry(pairs) for claim, pairs in described.items()}

    def endings(self, claims: list[str], as_of: datetime) -> dict[str, list[Ending]]:
        return claim_endings(self.store, self.scope, claims, as_of)

    def carrying_all(self, terms: list[tuple[str, ...]]) -> list[str]:
        # by the stems alone: a claim indexed before stems were is found by a rarer word
        rarest, *others = (keys[0] for keys in terms)
        return _StoredWords(self.store, self.scope).carrying_all(rarest, others)


class _IndexedStems:
    """The same, from the scope's word index in memory (held still while it is read)."""

    def __init__(self, index: WordIndex) -> None:
        self.index = index

    def postings(self, key: str) -> Collection[str]:
        return self.index.postings.get(key, ())

    def entries(self, claims: Collection[str]) -> dict[str, SearchEntry]:
        entries = self.index.entries
        return {claim: entry for claim in claims if (entry := entries.get(claim)) is not None}

    def endings(self, claims: list[str], as_of: datetime) -> dict[str, list[Ending]]:
        return {claim: self.index.endings_by(claim, as_of) for claim in claims}

    def carrying_all(self, terms: list[tuple[str, ...]]) -> list[str]:
        # by the stems alone, as the store does
        postings = self.index.postings
        rarest, *others = (keys[0] for keys in terms)
        every = [postings.get(w, set()) for w in others]
        found = [c for c in postings.get(rarest, ()) if all(c in carriers for carriers in every)]
        return heapq.nlargest(ALL_WORDS, found)


def _recall_exact(
    store: Store,
    scope: Scope,
    topics: set[str] | None,
    text: str,
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool,
    limit: int,
) -> list[Fact]:
    """Recall as before stems: the query's words as written, read from the store's index
    (the index in memory holds stems), each fact scored by the share of words it carries."""
    wanted = words(text)
    if not wanted:
        return []
    picked = _pick(
        _StoredWords(store, scope), wanted, topics, valid_at, as_of, include_ended, limit
    )
    found = _load(store, scope, picked, as_of, include_ended, None)
    return [replace(found[c], score=picked.scores[str(c)]) for c in picked.best if c in found]


def _load(
    store: Store,
    scope: Scope,
    picked: _Picked,
    as_of: datetime,
    include_ended: bool,
    index: WordIndex | None,
) -> dict[URIRef, Fact]:
    """The picked claims read in full, each from its own topic's graph."""
    found: dict[URIRef, Fact] = {}
    for topic in {picked.topic_of[str(c)] for c in picked.best}:
        group = [c for c in picked.best if picked.topic_of[str(c)] == topic]
        # a claim's own triples are all in its topic's graph, or the rules graph for a rule
        # (the log holds events about it, read as its endings)
        dataset = Dataset(default=(scope.topic(topic), scope.rules))
        # the candidates' endings were read already (all of them, when not ended)
        known = None if include_ended else {str(c): picked.ended.get(str(c), []) for c in group}
        described = None if index is None else index.describe(store, group, dataset.default)
        loaded = load_facts(
            store, scope, dataset, group, as_of=as_of, endings=known, described=described
        )
        found.update((f.iri, f) for f in loaded)
    return found


class _Picked(NamedTuple):
    best: list[URIRef]  # best first
    scores: dict[str, float]  # each best claim's score
    topic_of: dict[str, str]
    ended: dict[str, list[Ending]]  # the endings read of each candidate looked at


class _Words(Protocol):
    """Where exact-word recall reads the search graph and the endings."""

    def postings(self, word: str) -> Collection[str]:
        """The claims carrying ``word``; past ``RARE`` of them, only their count matters."""
        ...

    def carrying(self, claims: Collection[str], common: list[str]) -> Iterable[tuple[str, str]]:
        """Which of the ``common`` words each of ``claims`` carries, as (claim, word) pairs."""
        ...

    def carrying_all(self, rarest: str, others: list[str]) -> list[str]:
        """The newest ``ALL_WORDS`` claims carrying every word, newest first."""
        ...

    def window(
        self, claims: list[str], as_of: datetime, endings: bool
    ) -> dict[str, tuple[SearchEntry, list[Ending]]]:
        """Each claim's search entry and (with ``endings``) its endings recorded by ``as_of``."""
        ...


def _pick(
    source: _Words,
    wanted: list[str],
    topics: set[str] | None,
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool,
    limit: int,
) -> _Picked:
    """The best ``limit`` live claims for the words, and what was read to choose them."""
    postings = {w: source.postings(w) for w in wanted}
    counts = {w: min(len(found), RARE + 1) for w, found in postings.items()}
    rare = [w for w in wanted if counts[w] <= RARE]
    common = [w for w in wanted if w not in rare]
    bit = {w: 1 << i for i, w in enumerate(wanted)}
    carried: dict[str, int] = {}  # candidate claim -> the query words it carries, as bits
    if rare:
        for word in rare:
            for claim in postings[word]:
                carried[claim] = carried.get(claim, 0) | bit[word]
        if common:  # which candidates also carry a common word: it ranks them higher
            for claim, word in source.carrying(carried, common):
                carried[claim] |= bit[word]
    else:  # every word is common: the newest claims that carry them all
        rarest, *others = sorted(wanted, key=lambda w: counts[w])
        every = (1 << len(wanted)) - 1
        carried = dict.fromkeys(source.carrying_all(rarest, others), every)
    weight = {w: math.log1p(RARE / max(counts[w], 1)) for w in wanted}
    hits = {mask: {w for w in wanted if mask & bit[w]} for mask in set(carried.values())}
    score = {m: (len(found), math.fsum(weight[w] for w in found)) for m, found in hits.items()}
    chosen: dict[str, float] = {}  # live candidates and when they were recorded
    topic_of: dict[str, str] = {}
    ended: dict[str, list[Ending]] = {}
    ranked = _best_first(carried, score)
    batch = limit * 2 + 5
    while window := list(itertools.islice(ranked, batch)):
        for claim, (entry, endings) in source.window(window, as_of, not include_ended).items():
            if entry.topic is None or entry.recorded is None or entry.recorded > as_of:
                continue
            if topics is not None and entry.topic not in topics:
                continue  # recall was asked about other topics
            ended[claim] = endings
            if not include_ended and not entry.live(endings, valid_at):
                continue
            chosen[claim] = entry.recorded.timestamp()
            topic_of[claim] = entry.topic
        if len(chosen) >= limit:
            break  # candidates come best first (every word counted): later ones rank lower
    # more words, rarer words, then the newer record; only the best are read in full
    best = sorted(chosen, key=lambda c: (*(-x for x in score[carried[c]]), -chosen[c], c))[:limit]
    shares = {c: round(len(hits[carried[c]]) / len(wanted), 4) for c in best}
    return _Picked([URIRef(c) for c in best], shares, topic_of, ended)


def _best_first(carried: dict[str, int], score: dict[int, tuple[int, float]]) -> Iterator[str]:
    """Candidates by score, newest first among equal scores (ids grow with time); each group
    of equal score is sorted only when reached, since most recalls stop in the first."""
    groups: dict[tuple[int, float], list[str]] = {}
    for claim, mask in carried.items():
        groups.setdefault(score[mask], []).append(claim)
    for key in sorted(groups, reverse=True):
        yield from sorted(groups[key], reverse=True)


class _StoredWords:
    """The search graph and endings read from the store, by index lookups."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope
        self.search = Dataset(default=(scope.search,))

    def postings(self, word: str) -> list[str]:
        # a query decodes only the claims, where a pattern would decode all four terms
        return self.store.column(
            query("subjects_with") + f"LIMIT {RARE + 1}\n",
            "subject",
            dataset=self.search,
            bindings={"predicate": _TERM, "object": Literal(word)},
        )

    def carrying(self, claims: Collection[str], common: list[str]) -> Iterable[tuple[str, str]]:
        rows = self.store.select(
            query("terms_of"),
            dataset=self.search,
            bindings={"claim": [URIRef(c) for c in claims], "term": [Literal(w) for w in common]},
        )
        return [(str(row["claim"]), str(row["term"])) for row in rows]

    def carrying_all(self, rarest: str, others: list[str]) -> list[str]:
        return self.store.column(
            query("term_all") + f"LIMIT {ALL_WORDS}\n",
            "claim",
            dataset=self.search,
            # one word alone binds no other (an empty VALUES would match nothing)
            bindings={"term": Literal(rarest), "other": [Literal(w) for w in others] or None},
        )

    def window(
        self, claims: list[str], as_of: datetime, endings: bool
    ) -> dict[str, tuple[SearchEntry, list[Ending]]]:
        # the search graph copies each claim's topic and clocks beside its words
        described = self.store.describe([URIRef(c) for c in claims], [self.scope.search], CLOCKS)
        ends = claim_endings(self.store, self.scope, claims, as_of) if endings else {}
        return {
            claim: (SearchEntry(described[claim]), ends.get(claim, []))
            for claim in claims
            if claim in described
        }


_TERM = DOXA["term"]


def flagged(
    store: Store, scope: Scope, topic_graphs: list[URIRef], *, as_of: datetime
) -> list[Fact]:
    """Live facts with a basis-ended flag standing as of ``as_of``, most recently flagged
    first: what the owner should re-check (confirm, revise or retract)."""
    rows = store.select(
        query("flagged"),
        dataset=Dataset(default=(scope.log,)),
        bindings={"asOf": dt_literal(as_of)},
    )
    iris = [URIRef(str(r["claim"])) for r in rows]
    dataset = Dataset(default=(*topic_graphs, scope.log))
    return [
        f
        for f in load_facts(store, scope, dataset, iris, as_of=as_of)
        if f.status is FactStatus.LIVE and f.basis_ended
    ]
