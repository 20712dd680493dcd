"""SIGKILL a process in the middle of gated writes, again and again: nothing acknowledged is
lost, nothing half-decided appears, the chain verifies, and the journal never sees the store
behind it (a kill is no power loss: Oxigraph's log reached the OS before the write returned).

Each writer is a fresh process forked from a server that has doxa imported (``writer.py
serve``), so a round costs the kill and the check, not an interpreter start.
"""

from __future__ import annotations

import dataclasses
import random
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.helpers import scaled
from tests.stress.child import Child, check_intact, fork_server, prepare

import doxa


@dataclass
class Tally:
    kills: int = 0
    acknowledged: int = 0
    receipts: int = 0  # over every store, as the last check of each counted them
    full_checks: int = 0


def _kill_repeatedly(
    directory: Path, kills: int, seed: int, per_store: int, full_every: int
) -> Tally:
    """``kills`` rounds of: fork a writer, let it write a random while, SIGKILL it, check.

    Every ``per_store`` kills the writers move to a fresh store, so that a check (which reads
    the whole store) costs the same late in the run as early. Every round reopens the store
    and checks it; every ``full_every``-th round, and the last on each store, also verifies
    every receipt's hash (``check_intact``).
    """
    rng = random.Random(seed)
    tally = Tally()
    store = directory
    acknowledged: list[dict[str, object]] = []
    checked: list[doxa.Receipt] = []
    with fork_server() as server:
        for round_ in range(kills):
            if round_ % per_store == 0:
                store = directory / f"store-{round_ // per_store}"
                prepare(store)
                acknowledged, checked = [], []
            child = Child(store, seed * 1000 + round_, server=server)
            assert child.ready.wait(60), "the writer never got ready"
            time.sleep(rng.uniform(0.0, 0.5))  # a random moment: mid-write, mid-fsync, …
            child.process.send_signal(signal.SIGKILL)
            code, err = child.finish()
            assert code == -signal.SIGKILL, err
            # distinct decisions: a write identical to one already waiting (sent by this
            # child or an earlier one) is answered with the waiting write's receipt (one
            # wait): acknowledged again, recorded once
            before_ids = {str(a["id"]) for a in acknowledged}
            acknowledged += child.acknowledged
            tally.acknowledged += len({str(a["id"]) for a in child.acknowledged} - before_ids)
            last = (round_ + 1) % per_store == 0 or round_ + 1 == kills
            full = last or (round_ + 1) % full_every == 0
            before = len(checked)
            checked = check_intact(store, acknowledged, since=checked, full=full)
            tally.kills += 1
            tally.receipts += len(checked) - before
            tally.full_checks += full
    return tally


def test_sigkill_during_writes_loses_nothing_acknowledged(tmp_path: Path) -> None:
    """20 kills at random moments; after each, the store is whole and verifies."""
    tally = _kill_repeatedly(tmp_path, kills=20, seed=1, per_store=20, full_every=1)
    assert tally.acknowledged > 20  # control: the children really wrote between kills
    assert tally.receipts >= tally.acknowledged
    assert tally.full_checks == 20


@pytest.mark.slow
def test_sigkill_many_times(tmp_path: Path) -> None:
    """The long variant: 100 kills, on stores of 50 kills each (scaled by
    ``DOXA_SLOW_SCALE``: 200 on four stores at 2)."""
    kills = scaled(100)
    tally = _kill_repeatedly(tmp_path, kills=kills, seed=2, per_store=50, full_every=5)
    assert tally.kills == kills
    assert tally.acknowledged > kills
    assert tally.receipts >= tally.acknowledged
    assert tally.full_checks >= kills // 5


def test_the_check_catches_a_lost_or_changed_receipt(tmp_path: Path) -> None:
    """``check_intact`` fails on an acknowledged receipt that is gone, or on a receipt that
    changed since the last check, in its quick form and its full one."""
    store = tmp_path / "store"
    prepare(store)
    with doxa.Memory.open(store, scope="s") as mem:
        written = [mem.remember(f"note {i}", topic="notes") for i in range(3)]
    acknowledged: list[dict[str, object]] = [
        {"id": r.id, "outcome": r.outcome.value, "fact": r.fact} for r in written
    ]
    checked = check_intact(store, acknowledged)  # control: the store as written passes
    assert check_intact(store, acknowledged, since=checked, full=False) == checked
    gone = [*acknowledged, {"id": "urn:never-written", "outcome": "admitted", "fact": None}]
    changed = [*checked[:-1], dataclasses.replace(checked[-1], receipt_hash="0" * 64)]
    for full in (False, True):
        with pytest.raises(AssertionError, match="missing after reopening"):
            check_intact(store, gone, since=checked, full=full)
        with pytest.raises(AssertionError, match="changed"):
            check_intact(store, acknowledged, since=changed, full=full)
