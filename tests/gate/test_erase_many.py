"""Erasing several targets in one call: one receipt each, one rebuild of the files for all,
and nothing of any target left in the store's or the backup's files when the call returns."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import EX
from tests.gate.test_erasure import ERASED, KEPT, everything, hits, people

import doxa
from doxa.store import EmbeddedStore

OTHER = ("Ottoline Vesperine", "Marrowgate Mews 12")


def more_people(mem: doxa.Memory) -> doxa.Receipt:
    return mem.remember(
        "Ottoline Vesperine lives at Marrowgate Mews 12",
        topic="people",
        authority="owner",
        subject=EX + "ottoline-vesperine",
        predicate=EX + "address",
        object="Marrowgate Mews 12",
    )


def counted_compactions(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record each rebuild of an on-disk store (the real one runs), by directory."""
    done: list[Path] = []
    real = EmbeddedStore.compact

    def compact(store: EmbeddedStore, **options: object) -> None:
        real(store, **options)  # type: ignore[arg-type]
        assert store.path is not None
        done.append(store.path)

    monkeypatch.setattr(EmbeddedStore, "compact", compact)
    return done


def test_erase_many_rebuilds_once_and_leaves_no_byte(
    tmp_path: Path, clock: doxa.FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice", clock=clock) as mem:
        phone, kept = people(mem)
        other = more_people(mem)
        mem.admin.backup()
        rebuilt = counted_compactions(monkeypatch)
        receipts = mem.owner.erase_many(
            [EX + "zebulon-quaxford", other.fact or ""], reason="right to be forgotten", wait=True
        )
        assert [r.outcome for r in receipts] == [doxa.Outcome.ERASED] * 2
        assert phone.fact in receipts[0].targets
        assert receipts[1].targets == (other.fact,)
        # one rebuild of the store, one of the backup, for both targets
        assert sorted(p.parent.name for p in rebuilt) == ["memory.backups", tmp_path.name]
        assert [f.id for f in mem.facts()] == [kept.fact]
        assert mem.verify() == len(mem.receipts())
    backups = tmp_path / "memory.backups"
    for needle in (*ERASED, *OTHER):
        assert hits(path, needle) == [], needle
        assert hits(backups, needle) == [], needle
    for needle in KEPT[:2]:  # control: the person kept is in the store and the backup
        assert hits(path, needle)
        assert hits(backups, needle)


def test_erase_one_at_a_time_rebuilds_each_time(
    tmp_path: Path, clock: doxa.FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Control for the test above: the same two erasures one by one rebuild twice."""
    with doxa.Memory.open(tmp_path / "memory", scope="alice", clock=clock) as mem:
        people(mem)
        other = more_people(mem)
        rebuilt = counted_compactions(monkeypatch)
        mem.owner.erase(EX + "zebulon-quaxford", reason="right to be forgotten", wait=True)
        mem.owner.erase(other.fact or "", reason="right to be forgotten", wait=True)
        assert len(rebuilt) == 2


def test_a_missing_target_stops_after_making_the_earlier_ones_real(
    tmp_path: Path, clock: doxa.FixedClock
) -> None:
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice", clock=clock) as mem:
        people(mem)
        other = more_people(mem)
        before = len(mem.receipts())
        with pytest.raises(doxa.NotFound, match="nobody"):
            mem.owner.erase_many(
                [EX + "zebulon-quaxford", EX + "nobody", other.fact or ""], reason="asked"
            )
        mem.admin.purge()
        outcomes = [r.outcome for r in mem.receipts()[before:]]
        assert outcomes == [doxa.Outcome.ERASED, doxa.Outcome.PURGED]
        assert "Quaxford" not in everything(mem)
        # the target after the missing one was not erased
        assert mem.get(other.fact or "").text.startswith("Ottoline")
    for needle in ERASED:
        assert hits(path, needle) == [], needle
    assert hits(path, OTHER[0])


def test_a_fact_an_earlier_target_took_is_skipped(memory: doxa.Memory) -> None:
    phone, kept = people(memory)
    receipts = memory.owner.erase_many([EX + "zebulon-quaxford", phone.fact or ""], reason="asked")
    assert len(receipts) == 1
    assert phone.fact in receipts[0].targets
    # a fact id alone, not taken before, is erased: the control
    assert memory.owner.erase_many([kept.fact or ""], reason="asked")[0].targets == (kept.fact,)


def test_erase_many_refuses_bad_calls(memory: doxa.Memory) -> None:
    _, kept = people(memory)
    before = len(memory.receipts())
    with pytest.raises(doxa.InvalidInput, match="list of targets"):
        memory.owner.erase_many(kept.fact or "", reason="asked")
    with pytest.raises(doxa.InvalidInput, match="needs a reason"):
        memory.owner.erase_many([kept.fact or ""], reason="")
    assert memory.owner.erase_many([], reason="asked") == []
    assert len(memory.receipts()) == before
    assert memory.get(kept.fact or "").status is doxa.FactStatus.LIVE


def test_restore_reapplies_every_erasure_then_rebuilds_once(
    tmp_path: Path, clock: doxa.FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:

    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice", clock=clock) as mem:
        people(mem)
        other = more_people(mem)
        backup = mem.admin.backup()
        mem.owner.erase(EX + "zebulon-quaxford", reason="asked")
        mem.owner.erase(other.fact or "", reason="asked")
    rebuilt = counted_compactions(monkeypatch)  # closing purged them; now the restore
    assert doxa.restore_backup(path, backup) == {"alice": 2}
    assert [p for p in rebuilt if p == path] == [path]  # once for both erasures
    for needle in (*ERASED, *OTHER):
        assert hits(path, needle) == [], needle
    assert hits(backup, OTHER[0]) == []  # purged by the second erasure, like every backup
    assert hits(path, KEPT[0])  # control: the person kept is back, found the same way
    with doxa.Memory.open(path, scope="alice", clock=clock) as mem:
        assert [f.text for f in mem.facts()] == ["Maribel Ostrander lives at Quillfeather Lane 7"]
        assert mem.verify() == len(mem.receipts())
