"""``facts`` and ``recall``: claims by valid time and belief time, structured or by words."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.model import Fact
from doxa.reads.claims import claim_endings, load_facts
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant
from doxa.text import words
from doxa.vocabulary import DOXA

__all__ = ["facts", "recall"]


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
) -> list[Fact]:
    """Claims true at ``valid_at`` as believed at ``as_of``, oldest record first."""
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
    return sorted(found, key=lambda f: (f.recorded_at, f.id))


RARE = 2000  # a word carried by more claims than this is too common to gather by


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
) -> list[Fact]:
    """Facts ranked by the query words they carry: most words first, rarer words weigh more.

    Candidates are gathered through the word index by the query's rarer words (each word's
    postings are read up to a bound), so the cost follows how selective the query is, not
    the size of the store; clocks and endings are read by index lookups. ``topics``
    limits the answer to those topics (None: every topic). Returns at most ``limit`` facts,
    each with its ``score``: the share of the query's words it carries.
    """
    wanted = words(text)
    if not wanted:
        return []
    postings = {w: _postings(store, scope, w) for w in wanted}
    counts = {w: len(found) for w, found in postings.items()}
    rare = [w for w in wanted if counts[w] <= RARE]
    hits: dict[str, set[str]] = {}  # candidate claim IRI -> the query words it carries
    common = [w for w in wanted if w not in rare]
    if rare:
        for word in rare:
            for claim in postings[word]:
                hits.setdefault(claim, set()).add(word)
        if common:  # which candidates also carry a common word: it ranks them higher
            for row in store.select(
                query("terms_of"),
                dataset=Dataset(default=(scope.search,)),
                bindings={"claim": [URIRef(c) for c in hits], "term": [Literal(w) for w in common]},
            ):
                hits[str(row["claim"])].add(str(row["term"]))
    else:  # every word is common: the newest claims that carry them all
        rarest, *others = sorted(wanted, key=lambda w: counts[w])
        claims = store.column(
            query("term_all"),
            "claim",
            dataset=Dataset(default=(scope.search,)),
            # one word alone binds no other (an empty VALUES would match nothing)
            bindings={"term": Literal(rarest), "other": [Literal(w) for w in others] or None},
        )
        hits = {claim: set(wanted) for claim in claims}
    weight = {w: math.log1p(RARE / max(counts[w], 1)) for w in wanted}
    score = {c: (len(found), math.fsum(weight[w] for w in found)) for c, found in hits.items()}
    # ids grow with time, so a reverse sort puts the newest first; the stable sort by score
    # then keeps them first among equally good matches
    ranked = sorted(hits, reverse=True)
    ranked.sort(key=score.__getitem__, reverse=True)
    chosen: dict[str, float] = {}  # live candidates and when they were recorded
    topic_of: dict[str, str] = {}
    ended: dict[str, list[dict[str, Node]]] = {}  # the windows' endings, reused for the best
    batch = limit * 2 + 5
    for start in range(0, len(ranked), batch):
        window = ranked[start : start + batch]
        # the search graph copies each claim's topic and clocks beside its words
        described = store.describe([URIRef(c) for c in window], [scope.search], _CLOCKS)
        endings = {} if include_ended else claim_endings(store, scope, window, as_of)
        ended.update(endings)
        for claim in window:
            entry = _SearchEntry(described.get(claim, ()))
            if entry.topic is None or entry.recorded is None or entry.recorded > as_of:
                continue
            if topics is not None and entry.topic not in topics:
                continue  # recall was asked about other topics
            if not include_ended and not entry.live(endings.get(claim, ()), valid_at):
                continue
            chosen[claim] = entry.recorded.timestamp()
            topic_of[claim] = entry.topic
        if len(chosen) >= limit:
            break  # candidates come best first (every word counted): later ones rank lower
    # more words, rarer words, then the newer record; only the best are read in full
    best = [
        URIRef(c)
        for c in sorted(
            chosen,
            key=lambda c: (-len(hits[c]), -math.fsum(weight[w] for w in hits[c]), -chosen[c], c),
        )[:limit]
    ]
    found: dict[URIRef, Fact] = {}
    for topic in {topic_of[str(c)] for c in best}:  # each claim read from its own graph
        group = [c for c in best if topic_of[str(c)] == topic]
        dataset = Dataset(default=(scope.topic(topic), scope.rules, scope.log))
        # the windows read every best claim's endings already (all of them, when not ended)
        known = None if include_ended else {str(c): ended.get(str(c), []) for c in group}
        loaded = load_facts(store, scope, dataset, group, as_of=as_of, endings=known)
        found.update((f.iri, f) for f in loaded)
    return [
        replace(found[c], score=round(len(hits[str(c)]) / len(wanted), 4))
        for c in best
        if c in found
    ]


def _postings(store: Store, scope: Scope, word: str) -> list[str]:
    """The claims carrying ``word``, read up to one past the rare-word bound (a query
    decodes only the claims, where a pattern would decode all four terms of each quad)."""
    return store.column(
        query("subjects_with") + f"LIMIT {RARE + 1}\n",
        "subject",
        dataset=Dataset(default=(scope.search,)),
        bindings={"predicate": _V.term, "object": Literal(word)},
    )


class _V:
    """The IRIs read here, built once (an rdflib namespace builds a term on every access)."""

    term = DOXA["term"]
    topic = DOXA.topic
    recorded_at = DOXA.recordedAt
    valid_from = DOXA.validFrom
    valid_until = DOXA.validUntil
    supersession = DOXA.Supersession
    retraction = DOXA.Retraction


_CLOCKS = (_V.topic, _V.recorded_at, _V.valid_from, _V.valid_until)


class _SearchEntry:
    """What the search graph says of one claim: its topic and clocks."""

    __slots__ = ("recorded", "topic", "valid_from", "valid_until")

    def __init__(self, pairs: Iterable[tuple[Node, Node]]) -> None:
        self.topic: str | None = None
        self.recorded: datetime | None = None
        self.valid_from: list[datetime] = []
        self.valid_until: list[datetime] = []
        for p, o in pairs:
            if p == _V.topic:
                self.topic = str(o)
            elif p == _V.recorded_at:
                self.recorded = instant(o)
            elif p == _V.valid_from:
                self.valid_from.append(instant(o))
            elif p == _V.valid_until:
                self.valid_until.append(instant(o))

    def live(self, endings: Iterable[dict[str, Node]], valid_at: datetime) -> bool:
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
