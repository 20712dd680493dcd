"""``reindex`` gives claims written before stems existed the word and stem entries they lack,
on a real on-disk store, with no embedder needed."""

from __future__ import annotations

from pathlib import Path

from tests.fake_embeddings import ConceptEmbedder

import doxa
from doxa import Memory
from doxa.gate.index import STEM, TERM
from doxa.gate.restemming import fill_words, unstemmed
from doxa.store import Change, Quad

OLD = "Alice lives in Lyon"
NEW = "Bob lives in Paris"


def texts(found: list[doxa.Fact]) -> list[str]:
    return [f.text for f in found]


def stem_quads(mem: Memory, fact: str) -> list[Quad]:
    claim = mem.scope.fact(fact)
    pairs = mem.store.describe([claim], [mem.scope.search], (TERM,)).get(str(claim), [])
    return [(claim, p, o, mem.scope.search) for p, o in pairs if str(o).startswith(STEM)]


def old_store(path: Path, clock: doxa.FixedClock) -> tuple[str, str]:
    """A store on disk where OLD's claim has lost its stems (as one written before stems
    existed) and NEW's, the control, has them; returns both facts' ids."""
    with Memory.open(path, scope="alice", clock=clock) as mem:
        old = mem.remember(OLD, topic="home", authority="owner").fact
        new = mem.remember(NEW, topic="home", authority="owner").fact
        assert old is not None
        assert new is not None
        stems = stem_quads(mem, old)
        assert stems  # written with stems today
        mem.store.apply(Change(delete=stems))
        assert stem_quads(mem, old) == []
    return old, new


def test_reindex_fills_the_stems_an_old_claim_lacks(tmp_path: Path, clock: doxa.FixedClock) -> None:
    """Before: "live" finds only the control (the old claim has only the word "lives");
    after reindex, without an embedder, both; the report says no vectors were looked at."""
    old, new = old_store(tmp_path / "store", clock)
    with Memory.open(tmp_path / "store", scope="alice", clock=clock) as mem:
        assert texts(mem.recall("live")) == [NEW]
        assert texts(mem.recall("lives")) != []  # the old claim still matches its own words
        seen: list[tuple[int, int]] = []
        report = mem.admin.reindex(words_progress=lambda done, total: seen.append((done, total)))
        assert report == doxa.Reindexed(0, 0, 0, stemmed=1, vectors=False)
        assert seen == [(0, 1), (1, 1)]
        assert sorted(texts(mem.recall("live"))) == sorted([OLD, NEW])  # the index followed
        assert stem_quads(mem, old) != []
        assert len(stem_quads(mem, new)) == len(stem_quads(mem, old))  # the same entries
    with Memory.open(tmp_path / "store", scope="alice", clock=clock) as mem:
        assert sorted(texts(mem.recall("live"))) == sorted([OLD, NEW])  # kept on disk
        assert mem.admin.reindex().stemmed == 0  # idempotent: a second run finds nothing to do


def test_reindex_with_an_embedder_fills_words_then_vectors(
    tmp_path: Path, clock: doxa.FixedClock
) -> None:
    old_store(tmp_path / "store", clock)
    embedder = ConceptEmbedder()
    with Memory.open(tmp_path / "store", scope="alice", clock=clock, embedder=embedder) as mem:
        report = mem.admin.reindex()
        assert report == doxa.Reindexed(lacking=2, filled=2, missing=0, stemmed=1)
        assert mem.admin.reindex() == doxa.Reindexed(lacking=0, filled=0, missing=0)


def test_an_erased_claim_gets_no_words_back(tmp_path: Path, clock: doxa.FixedClock) -> None:
    old, _ = old_store(tmp_path / "store", clock)
    with Memory.open(tmp_path / "store", scope="alice", clock=clock) as mem:
        mem.owner.erase(old, reason="asked to forget")
        assert unstemmed(mem.store, mem.scope) == []
        assert fill_words(mem.store, mem.scope) == 0
        assert texts(mem.recall("lyon", include_ended=True)) == []
        assert texts(mem.recall("live")) == [NEW]  # control


def test_an_ended_old_claim_gets_its_stems_too(tmp_path: Path, clock: doxa.FixedClock) -> None:
    """Words and stems stay after a claim ends (for ``include_ended``): so do filled ones."""
    old, _ = old_store(tmp_path / "store", clock)
    with Memory.open(tmp_path / "store", scope="alice", clock=clock) as mem:
        mem.owner.retract(old, reason="never true")
        assert mem.admin.reindex().stemmed == 1
        assert texts(mem.recall("live")) == [NEW]  # ended: not by default
        assert sorted(texts(mem.recall("live", include_ended=True))) == sorted([OLD, NEW])


def test_a_claim_already_stemmed_is_not_read(tmp_path: Path, clock: doxa.FixedClock) -> None:
    with Memory.open(tmp_path / "store", scope="alice", clock=clock) as mem:
        mem.remember(NEW, topic="home", authority="owner")
        assert unstemmed(mem.store, mem.scope) == []
        assert mem.admin.reindex() == doxa.Reindexed(0, 0, 0, stemmed=0, vectors=False)
