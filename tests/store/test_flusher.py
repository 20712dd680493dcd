"""The background flush: it runs after enough writes, never while paused, and stops cleanly."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef

from doxa.store import Change, EmbeddedStore
from doxa.store.flusher import DISK_BYTES_PER_QUAD, STORE_SHARE, Flusher

GRAPH = URIRef("urn:test:graph")


def _wait_for(condition: object, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.005)
    return False


def _quads(start: int, count: int) -> list[tuple[URIRef, URIRef, Literal, URIRef]]:
    return [
        (URIRef(f"urn:test:s{i}"), URIRef("urn:test:p"), Literal(f"value {i}"), GRAPH)
        for i in range(start, start + count)
    ]


def test_flushes_once_enough_quads_are_written() -> None:
    """Below the threshold nothing flushes; the write that crosses it wakes one flush."""
    calls: list[float] = []
    flusher = Flusher(lambda: calls.append(time.monotonic()), every=100)
    flusher.wrote(60)
    flusher.wrote(39)
    time.sleep(0.05)
    assert calls == []
    assert flusher.flushes == 0
    flusher.wrote(1)
    assert _wait_for(lambda: flusher.flushes == 1)
    assert len(calls) == 1
    flusher.stop()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=250), max_size=40))
def test_flushes_at_most_once_per_threshold(chunks: list[int]) -> None:
    """However the writes are sized, flushes never outnumber the thresholds crossed, and the
    first crossing always brings one."""
    flusher = Flusher(lambda: None, every=100)
    crossings, pending = 0, 0
    for chunk in chunks:
        flusher.wrote(chunk)
        pending += chunk
        if pending >= 100:
            crossings, pending = crossings + 1, 0
    if crossings:
        assert _wait_for(lambda: flusher.flushes >= 1)
    flusher.stop()
    assert flusher.flushes <= crossings
    assert (flusher.flushes == 0) == (crossings == 0)


def test_flushes_are_spaced_by_the_store_size() -> None:
    """A small store flushes every ``least`` quads; a large one every STORE_SHARE-th of its
    size, read again after each flush, so compaction work per write stays bounded."""
    size = [1000]
    flusher = Flusher(lambda: None, every=100, size=lambda: size[0])
    assert flusher.every == 100  # small: the least spacing
    size[0] = 1000 * DISK_BYTES_PER_QUAD * STORE_SHARE  # a store of ~1,000 × 32 quads
    flusher.wrote(100)
    assert _wait_for(lambda: flusher.flushes == 1)
    assert _wait_for(lambda: flusher.every == 1000)
    flusher.wrote(999)
    time.sleep(0.05)
    assert flusher.flushes == 1  # 999 < 1,000: not yet
    flusher.wrote(1)
    assert _wait_for(lambda: flusher.flushes == 2)  # control: the 1,000th quad flushes
    flusher.stop()


def test_no_flush_runs_while_paused() -> None:
    """A flush asked for inside paused() waits for the block to end (the store is swapped
    or dropped in it)."""
    flusher = Flusher(lambda: None, every=10)
    with flusher.paused():
        flusher.wrote(10)
        time.sleep(0.1)
        assert flusher.flushes == 0
    assert _wait_for(lambda: flusher.flushes == 1)  # control: it runs once the block ends
    flusher.stop()


def test_stop_waits_for_the_flush_under_way() -> None:
    """stop() returns only after the flush it interrupted has finished."""
    started, release = threading.Event(), threading.Event()
    finished: list[bool] = []

    def slow_flush() -> None:
        started.set()
        release.wait(10)
        finished.append(True)

    flusher = Flusher(slow_flush, every=1)
    flusher.wrote(1)
    assert started.wait(10)
    stopper = threading.Thread(target=flusher.stop)
    stopper.start()
    stopper.join(0.1)
    assert stopper.is_alive()
    assert not finished
    release.set()
    stopper.join(10)
    assert not stopper.is_alive()
    assert finished == [True]
    flusher.wrote(5)  # after stop, writes start nothing
    time.sleep(0.05)
    assert flusher.flushes == 1


def test_a_failed_flush_is_logged_and_the_next_one_runs(caplog: pytest.LogCaptureFixture) -> None:
    """A full disk during a background flush is logged; the thread lives on for the next."""
    outcomes = [OSError("No space left on device"), None]

    def flaky() -> None:
        outcome = outcomes.pop(0)
        if outcome is not None:
            raise outcome

    flusher = Flusher(flaky, every=1)
    with caplog.at_level(logging.WARNING, logger="doxa.store"):
        flusher.wrote(1)
        assert _wait_for(lambda: bool(caplog.records))
        assert "background flush failed: No space left on device" in caplog.text
        assert flusher.flushes == 0
        flusher.wrote(1)
        assert _wait_for(lambda: flusher.flushes == 1)  # control: the next flush succeeds
    flusher.stop()


def test_store_flushes_in_the_background_and_keeps_every_quad(tmp_path: Path) -> None:
    """An on-disk store flushes its memtable as writes pile up; every quad is there after
    reopening, and an in-memory store has no flusher."""
    store = EmbeddedStore(tmp_path / "s", journal=False)
    assert store.flusher is not None
    store.flusher.least = store.flusher.every = 500
    for start in range(0, 3000, 100):
        store.apply(Change(insert=_quads(start, 100)))
    assert _wait_for(lambda: store.flusher is not None and store.flusher.flushes >= 1)
    store.close()
    reopened = EmbeddedStore(tmp_path / "s", journal=False)
    assert sum(1 for _ in reopened.quads(GRAPH)) == 3000
    reopened.close()
    assert EmbeddedStore(None).flusher is None


def test_close_and_compact_while_flushing(tmp_path: Path) -> None:
    """Closing or compacting a store while background flushes run loses nothing and leaves
    the directory openable."""
    store = EmbeddedStore(tmp_path / "s", journal=False)
    assert store.flusher is not None
    store.flusher.least = store.flusher.every = 50
    for start in range(0, 2000, 50):
        store.apply(Change(insert=_quads(start, 50)))
        if start == 1000:
            store.compact()
    store.close()
    reopened = EmbeddedStore(tmp_path / "s", journal=False)
    assert sum(1 for _ in reopened.quads(GRAPH)) == 2000
    reopened.apply(Change(insert=_quads(5000, 1)))  # control: it takes writes again
    assert sum(1 for _ in reopened.quads(GRAPH)) == 2001
    reopened.close()


def test_store_size_skips_table_files_compacted_away_while_read(tmp_path: Path) -> None:
    """RocksDB deletes table files as it compacts; one gone between listing and stat() is
    skipped, not an error, and the files still there are counted."""
    store = EmbeddedStore(tmp_path / "s", journal=False)
    assert store.flusher is not None
    assert store.flusher.size is not None
    store.apply(Change(insert=_quads(0, 500)))
    store.flush()
    before = store.flusher.size()
    assert before > 0  # control: the flushed table files are counted
    (tmp_path / "s" / "999999.sst").symlink_to(tmp_path / "gone.sst")  # stat() fails
    assert store.flusher.size() == before
    store.close()
