"""doxa's fsynced journal against Oxigraph's unsynced write-ahead log, and backup/restore.

A child process writes and dies without closing (as on a power loss, the store's write-ahead
log holds the last commits); the test then truncates or corrupts that log's tail. The store
reopens shorter, and doxa refuses it with a clear error; the untouched log is the control.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from tests.helpers import EX

import doxa
from doxa.store.journal import Journal, JournalEntry

CHILD = textwrap.dedent(
    """
    import os, sys
    import doxa
    mem = doxa.Memory.open(sys.argv[1], scope="alice")
    for i in range(int(sys.argv[2])):
        mem.remember(f"note number {i}", topic="notes", authority="owner")
    sys.stdout.write("written\\n")
    sys.stdout.flush()
    os._exit(0)  # no close, no flush: what the OS has of the write-ahead log is all there is
    """
)


def crash_after_writes(path: Path, count: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(count)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout == "written\n"


def wal(path: Path) -> Path:
    logs = sorted(path.glob("*.log"), key=lambda p: p.stat().st_size)
    assert logs, "the store has no write-ahead log"
    return logs[-1]


def test_an_intact_log_reopens_with_every_acknowledged_write(tmp_path: Path) -> None:
    path = tmp_path / "memory"
    crash_after_writes(path, 12)
    with doxa.Memory.open(path, scope="alice") as mem:
        assert len(mem.facts()) == 12
        assert mem.verify() == 12


@pytest.mark.parametrize("damage", ["truncate", "corrupt"])
def test_a_store_behind_its_journal_is_refused(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "memory"
    crash_after_writes(path, 12)
    log = wal(path)
    data = log.read_bytes()
    if damage == "truncate":
        log.write_bytes(data[: len(data) * 2 // 3])
    else:
        cut = len(data) * 2 // 3
        log.write_bytes(
            data[:cut] + bytes(b ^ 0x5A for b in data[cut : cut + 64]) + data[cut + 64 :]
        )
    with pytest.raises(doxa.StoreBehindJournal, match="acknowledged") as error:
        doxa.Memory.open(path, scope="alice")
    assert "doxa restore" in str(error.value)
    # the refusal released the directory: it can be opened (and refused) again
    with pytest.raises(doxa.StoreBehindJournal):
        doxa.Memory.open(path, scope="alice")


def test_a_journal_behind_the_store_is_repaired(tmp_path: Path) -> None:
    """Control: a crash after the store applied a decision but before its journal line."""
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice") as mem:
        for i in range(3):
            mem.remember(f"note {i}", topic="notes", authority="owner")
    journal = tmp_path / "memory.journal"
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:-1]) + lines[-1][:10], encoding="utf-8")  # torn line
    with doxa.Memory.open(path, scope="alice") as mem:
        assert len(mem.facts()) == 3
    assert len(journal.read_text(encoding="utf-8").splitlines()) == 3


def test_restore_brings_a_backup_back_and_keeps_erasures(tmp_path: Path) -> None:
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice") as mem:
        secret = mem.remember(
            "Zebulon Quaxford's phone is +1 555 0142",
            topic="c",
            subject=EX + "zebulon",
            predicate=EX + "phone",
            object="+1 555 0142",
            authority="owner",
        )
        kept = mem.remember(
            "Maribel's phone is +1 555 0177",
            topic="c",
            subject=EX + "maribel",
            predicate=EX + "phone",
            object="+1 555 0177",
            authority="owner",
        )
        backup = mem.admin.backup()
        mem.remember("written after the backup", topic="c", authority="owner")
        mem.owner.erase(secret.fact or "", reason="asked to be forgotten")
    counts = doxa.restore_backup(path, backup)
    assert counts == {"alice": 1}
    with doxa.Memory.open(path, scope="alice") as mem:
        texts = {f.text for f in mem.facts()}
        assert texts == {"Maribel's phone is +1 555 0177"}  # the later write is gone by choice
        assert mem.get(kept.fact or "").status is doxa.FactStatus.LIVE
        with pytest.raises(doxa.ErasedContent):
            mem.remember("Zebulon Quaxford's phone is +1 555 0142", topic="c", authority="agent")
        assert mem.verify() == len(mem.receipts())
        assert [r.outcome for r in mem.receipts()][-2:] == [
            doxa.Outcome.ERASED,
            doxa.Outcome.PURGED,
        ]
    # the replaced store was kept as a backup, and it too no longer holds the erased phone
    replaced = [p for p in (tmp_path / "memory.backups").iterdir() if p.name.endswith("-replaced")]
    assert len(replaced) == 1
    with doxa.Memory.open(replaced[0], scope="alice") as old:
        assert "written after the backup" in {f.text for f in old.facts()}
        assert not any("0142" in f.text for f in old.facts())


def test_restore_refuses_what_is_not_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice") as mem:
        mem.remember("stays", topic="t", authority="owner")
    with pytest.raises(doxa.StoreError, match="not a store backup"):
        doxa.restore_backup(path, tmp_path)
    with doxa.Memory.open(path, scope="alice") as mem:  # control: untouched
        assert [f.text for f in mem.facts()] == ["stays"]


def _counting_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count real fsyncs (each still reaches the disk)."""
    calls: list[int] = []
    real = os.fsync

    def counted(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    return calls


def test_grouped_writers_share_one_fsync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads whose lines are written before either fsyncs are acknowledged by one fsync,
    whichever syncs first; both lines are on disk when each block ends."""
    journal = Journal(tmp_path / "store.journal")
    calls = _counting_fsyncs(monkeypatch)
    first_written, second_written = threading.Event(), threading.Event()
    synced: dict[str, bool] = {}

    def first() -> None:
        with journal.grouped():
            journal.append(JournalEntry("alice", 1, "r1", "h1"))
            first_written.set()
            second_written.wait(5)
        synced["first"] = journal._synced >= 1

    def second() -> None:
        first_written.wait(5)
        with journal.grouped():
            journal.append(JournalEntry("alice", 2, "r2", "h2"))
            second_written.set()
        synced["second"] = journal._synced >= 2

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert synced == {"first": True, "second": True}
    assert len(calls) == 1
    journal.close()
    assert [e.sequence for e in _entries(tmp_path / "store.journal")] == [1, 2]


def test_ungrouped_appends_fsync_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: outside a group, every append is fsynced before it returns."""
    journal = Journal(tmp_path / "store.journal")
    calls = _counting_fsyncs(monkeypatch)
    journal.append(JournalEntry("alice", 1, "r1", "h1"))
    assert (len(calls), journal._synced) == (1, 1)
    journal.append(JournalEntry("alice", 2, "r2", "h2"))
    assert (len(calls), journal._synced) == (2, 2)
    journal.close()


def test_concurrent_remembers_are_each_acknowledged_on_disk(tmp_path: Path) -> None:
    """Eight threads writing through one on-disk Memory: every receipt they got back is in
    the journal file when the threads are done, and the chain verifies."""
    mem = doxa.Memory.open(tmp_path / "store", scope="alice")
    receipts: list[str] = []
    lock = threading.Lock()

    def write(n: int) -> None:
        for i in range(10):
            receipt = mem.remember(f"thread {n} note {i}", topic="notes")
            with lock:
                receipts.append(receipt.id)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    on_disk = {e.receipt for e in _entries(tmp_path / "store.journal")}
    assert len(receipts) == 80
    assert set(receipts) <= on_disk
    assert mem.verify() >= 80
    mem.close()


def _entries(path: Path) -> list[JournalEntry]:
    """The journal's entries as a fresh open reads them from disk."""
    journal = Journal(path)
    journal.close()
    return journal.entries
