"""SIGKILL a process in the middle of gated writes, again and again: nothing acknowledged is
lost, nothing half-decided appears, the chain verifies, and the journal never sees the store
behind it (a kill is no power loss: Oxigraph's log reached the OS before the write returned).
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest
from tests.stress.child import Child, check_intact, prepare


def _kill_repeatedly(store: Path, kills: int, seed: int) -> tuple[int, int]:
    prepare(store)
    rng = random.Random(seed)
    acknowledged: list[dict[str, object]] = []
    receipts = 0
    for round_ in range(kills):
        child = Child(store, seed * 1000 + round_)
        assert child.ready.wait(60), "the writer never got ready"
        time.sleep(rng.uniform(0.0, 0.5))  # a random moment: mid-write, mid-fsync, …
        child.process.send_signal(signal.SIGKILL)
        code, err = child.finish()
        assert code == -signal.SIGKILL, err
        acknowledged += child.acknowledged
        receipts = check_intact(store, acknowledged)
    return receipts, len(acknowledged)


def test_sigkill_during_writes_loses_nothing_acknowledged(tmp_path: Path) -> None:
    """~20 kills at random moments; after each, the store is whole and verifies."""
    receipts, acknowledged = _kill_repeatedly(tmp_path / "store", kills=20, seed=1)
    assert acknowledged > 20  # control: the children really wrote between kills
    assert receipts >= acknowledged


@pytest.mark.slow
def test_sigkill_two_hundred_times(tmp_path: Path) -> None:
    """The long variant: 200 kills."""
    receipts, acknowledged = _kill_repeatedly(tmp_path / "store", kills=200, seed=2)
    assert acknowledged > 200
    assert receipts >= acknowledged
