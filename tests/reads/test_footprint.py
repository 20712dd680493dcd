"""The memory's footprint in ``stats`` (issue 35): the scope's claims on record, the store's
bytes on disk and the resident memory of the process that holds it."""

from __future__ import annotations

from pathlib import Path

import doxa
from doxa.reads.stats import resident_bytes


def test_claims_count_what_is_on_record(clock: doxa.FixedClock) -> None:
    """Ended claims are still on record; an erased one is gone; another scope's are not
    counted (the control)."""
    memory = doxa.Memory.open(None, scope="alice", clock=clock)
    first = memory.remember("Alice prefers tea", topic="drinks", authority="owner")
    memory.remember("Alice likes jazz", topic="music", authority="owner")
    other = doxa.Memory.open(None, scope="bob", clock=clock)
    other.remember("Bob prefers coffee", topic="drinks", authority="owner")
    found = memory.stats().footprint
    assert found is not None
    assert (found.claims, found.disk_bytes) == (2, None)  # in memory: no files
    memory.owner.retract(first.fact or "", reason="a guess")
    retracted = memory.stats().footprint
    assert retracted is not None
    assert retracted.claims == 2
    memory.owner.erase(first.fact or "", reason="asked to forget", wait=True)
    after = memory.stats().footprint
    assert after is not None
    assert after.claims == 1


def test_disk_bytes_are_the_store_directorys_files(tmp_path: Path, clock: doxa.FixedClock) -> None:
    """The directory's files and the sidecars beside it (``store.journal`` …), as a walk of
    them finds at the same moment; more writes take more bytes (the control)."""
    path = tmp_path / "store"

    def walked() -> int:
        beside = [f for f in tmp_path.glob("store.*") if f.is_file()]
        return sum(f.stat().st_size for f in [*path.rglob("*"), *beside] if f.is_file())

    with doxa.Memory.open(path, scope="alice", clock=clock) as memory:
        memory.remember("Alice prefers tea", topic="drinks", authority="owner")
        found = memory.stats().footprint
        files = walked()
        assert found is not None
        assert found.disk_bytes is not None
        assert files // 2 <= found.disk_bytes <= files * 2
        for i in range(200):
            memory.remember(f"Alice read book number {i}", topic="books", authority="owner")
        more = memory.stats().footprint
        assert more is not None
        assert more.disk_bytes is not None
        assert more.disk_bytes > found.disk_bytes


def test_resident_memory_is_this_processs() -> None:
    """Linux says (``/proc``): a plausible figure, between 1 MiB and 64 GiB."""
    found = resident_bytes()
    assert found is not None
    assert 2**20 < found < 2**36
