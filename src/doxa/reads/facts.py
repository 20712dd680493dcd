"""``facts`` and ``recall``: claims by valid time and belief time, structured or by words."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime

from rdflib import Literal, URIRef

from doxa.model import Fact
from doxa.reads.claims import load_facts
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant
from doxa.text import words

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
    topic_graphs: list[URIRef],
    text: str,
    *,
    valid_at: datetime,
    as_of: datetime,
    include_ended: bool = False,
    limit: int = 10,
) -> list[Fact]:
    """Facts ranked by the query words they carry: most words first, rarer words weigh more.

    Candidates are gathered through the word index by the query's rarer words (each word's
    count is probed, bounded), so the cost follows how selective the query is, not the size
    of the store. Returns at most ``limit`` facts, each with its ``score``: the share of the
    query's words it carries.
    """
    wanted = words(text)
    if not wanted:
        return []
    search = Dataset(default=(scope.search,))
    counts = {w: _count(store, search, w) for w in wanted}
    rare = [w for w in wanted if counts[w] <= RARE]
    hits: dict[str, set[str]] = {}  # candidate claim IRI -> the query words it carries
    if rare:
        for word in rare:
            claims = store.column(
                query("term_postings"), "claim", dataset=search, bindings={"term": [Literal(word)]}
            )
            for claim in claims:
                hits.setdefault(claim, set()).add(word)
    else:  # every word is common: the newest claims that carry them all
        rarest, *others = sorted(wanted, key=lambda w: counts[w])
        claims = store.column(
            query("term_all"),
            "claim",
            dataset=search,
            bindings={"term": Literal(rarest), "other": [Literal(w) for w in others]},
        )
        hits = {claim: set(wanted) for claim in claims}
    weight = {w: math.log1p(RARE / max(counts[w], 1)) for w in wanted}
    score = {c: (len(found), sum(weight[w] for w in found)) for c, found in hits.items()}
    # ids grow with time, so a reverse sort puts the newest first; the stable sort by score
    # then keeps them first among equally good matches
    ranked = sorted(hits, reverse=True)
    ranked.sort(key=score.__getitem__, reverse=True)
    common = [w for w in wanted if w not in rare]
    times = {
        "asOf": dt_literal(as_of),
        "validAt": dt_literal(valid_at),
        "includeEnded": Literal(include_ended),
    }
    chosen: dict[str, float] = {}  # live candidates and when they were recorded
    topic_of: dict[str, str] = {}
    liveness = Dataset(default=(scope.search, scope.log))
    allowed = {scope.topic_of(g) for g in topic_graphs}
    batch = limit * 2 + 5
    for start in range(0, len(ranked), batch):
        window = [URIRef(c) for c in ranked[start : start + batch]]
        if common and rare:
            for row in store.select(
                query("terms_of"),
                dataset=search,
                bindings={"claim": window, "term": [Literal(w) for w in common]},
            ):
                hits[str(row["claim"])].add(str(row["term"]))
        for row in store.select(
            query("live_among"), dataset=liveness, bindings={**times, "claim": window}
        ):
            if str(row["topic"]) not in allowed:
                continue  # recall was asked about other topics
            chosen[str(row["claim"])] = instant(row["recorded"]).timestamp()
            topic_of[str(row["claim"])] = str(row["topic"])
        if len(chosen) >= limit:
            break  # candidates come best first: later windows cannot rank higher
    # more words, rarer words, then the newer record; only the best are read in full
    best = [
        URIRef(c)
        for c in sorted(
            chosen,
            key=lambda c: (-len(hits[c]), -sum(weight[w] for w in hits[c]), -chosen[c], c),
        )[:limit]
    ]
    found: dict[URIRef, Fact] = {}
    for topic in {topic_of[str(c)] for c in best}:  # each claim read from its own graph
        group = [c for c in best if topic_of[str(c)] == topic]
        dataset = Dataset(default=(scope.topic(topic), scope.rules, scope.log))
        found.update((f.iri, f) for f in load_facts(store, scope, dataset, group, as_of=as_of))
    return [
        replace(found[c], score=round(len(hits[str(c)]) / len(wanted), 4))
        for c in best
        if c in found
    ]


def _count(store: Store, search: Dataset, word: str) -> int:
    rows = store.select(query("term_frequency"), dataset=search, bindings={"term": Literal(word)})
    return int(str(rows[0]["count"])) if rows else 0
