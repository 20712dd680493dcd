"""Starve a writing process of file size or file handles: doxa reports a StoreError (never a
crash), and reopened without the limit, everything acknowledged is intact and verifies."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.stress.child import Child, check_intact, prepare

import doxa

LIMITS = [("fsize", 600_000), ("nofile", 8)]
SLOW_LIMITS = [
    *(("fsize", size) for size in (200_000, 400_000, 1_000_000)),
    *(("nofile", spare) for spare in (2, 4, 6)),
]


def _starve(store: Path, kind: str, value: int, seed: int) -> None:
    prepare(store)
    child = Child(store, seed, kind, str(value))
    code, err = child.finish(timeout=300)
    assert code == 0, err  # ended by a doxa error, not by a traceback
    last = child.lines[-1]
    assert last.startswith("error StoreError: "), last
    assert child.acknowledged  # control: it wrote before the limit hit
    receipts = len(check_intact(store, child.acknowledged))
    # distinct decisions: a write identical to one waiting gets that write's receipt again
    assert receipts >= len({str(a["id"]) for a in child.acknowledged})
    with doxa.Memory.open(store, scope="s") as mem:  # and the store takes writes again
        assert mem.remember("after the fault", topic="notes").outcome is doxa.Outcome.ADMITTED
        assert mem.verify() == receipts + 1


@pytest.mark.parametrize(("kind", "value"), LIMITS)
def test_a_starved_writer_reports_store_errors(tmp_path: Path, kind: str, value: int) -> None:
    _starve(tmp_path / "store", kind, value, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "value"), SLOW_LIMITS)
def test_starved_at_many_limits(tmp_path: Path, kind: str, value: int) -> None:
    _starve(tmp_path / "store", kind, value, seed=value)
