"""Erasure as a lifecycle (issue 14, findings 1 and 5): the logical erasure returns at once,
the purge rebuilds the files beside live readers and writers, no second process can touch a
rebuild, and a kill -9 at any point leaves a store that reopens, verifies and finishes the
purge by itself (or on a retry of the same erase)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from tests.gate.test_erasure import ERASED, KEPT, hits, people
from tests.helpers import scaled

import doxa
from doxa.store import EmbeddedStore
from doxa.store.generations import database

SECRET = "Zebulon Quaxford"


def _fill(mem: doxa.Memory, count: int) -> None:
    for i in range(count):
        mem.remember(f"Filler fact number {i} about the garden", topic="garden", authority="owner")


def _erase_under_load(path: Path, fill: int) -> dict[str, int]:
    """One trial: 3 reader threads and a writer beside an erase and its purge. Returns how
    many reads and writes ran; asserts that none failed, that the store reopens and verifies,
    keeps every write, and holds no byte of the erased person."""
    errors: list[BaseException] = []
    counts = {"reads": 0, "writes": 0}
    with doxa.Memory.open(path, scope="alice") as mem:
        people(mem)
        _fill(mem, fill)
        other = doxa.Memory(mem.store, scope="bob")
        other.remember("Bob keeps bees", topic="hobbies", authority="owner")
        stop = threading.Event()

        def read() -> None:
            while not stop.is_set():
                try:
                    assert other.facts(topic="hobbies")[0].text == "Bob keeps bees"
                    mem.rdf.sparql("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
                    counts["reads"] += 1
                except BaseException as error:  # collected for the assertion
                    errors.append(error)
                    return

        def write() -> None:
            while not stop.is_set():
                try:
                    number = counts["writes"]
                    other.remember(f"Bob saw bee number {number}", topic="bees", authority="owner")
                    counts["writes"] += 1
                except BaseException as error:
                    errors.append(error)
                    return

        threads = [threading.Thread(target=read) for _ in range(3)]
        threads.append(threading.Thread(target=write))
        for thread in threads:
            thread.start()
        try:
            time.sleep(0.1)
            receipt = mem.owner.erase("http://example.org/zebulon-quaxford", reason="asked")
            assert receipt.outcome is doxa.Outcome.ERASED
            assert mem.admin.purge().owed == 0
            time.sleep(0.1)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        assert errors == []
        assert counts["reads"] > 0
        assert counts["writes"] > 0  # the control: they really ran beside the purge
        assert mem.verify() == len(mem.receipts())
    with doxa.Memory.open(path, scope="bob") as again:
        assert len(again.facts(topic="bees")) == counts["writes"]  # no write was lost
        assert again.verify() == len(again.receipts())
    assert database(path) != path  # the store lives in a rebuilt generation now
    for needle in ERASED:
        assert hits(path, needle) == [], needle
    assert hits(path, KEPT[0])  # control: the person kept is found the same way
    return counts


def test_erasing_while_threads_read_and_write_keeps_every_scope(tmp_path: Path) -> None:
    """Readers and writers in threads during an erasure: none fails, the store reopens,
    verifies, keeps the rest and holds no byte of the erased person."""
    _erase_under_load(tmp_path / "memory", fill=150)


@pytest.mark.slow
def test_erasing_under_load_many_times(tmp_path: Path) -> None:
    """The long variant: 25 trials of erasing beside readers and a writer (scaled by
    ``DOXA_SLOW_SCALE``)."""
    trials = scaled(25)
    totals = {"reads": 0, "writes": 0}
    for trial in range(trials):
        counts = _erase_under_load(tmp_path / f"memory-{trial}", fill=20)
        totals = {k: totals[k] + counts[k] for k in totals}
    assert totals["reads"] > trials
    assert totals["writes"] > trials


def test_a_second_process_cannot_touch_a_store_in_use(tmp_path: Path) -> None:
    """Another process opening the store is refused (exit StoreLocked) and removes nothing,
    not even what an interrupted rebuild of the old layout left; the owner's process can."""
    path = tmp_path / "memory"
    leftover = tmp_path / "memory.compacting"
    with doxa.Memory.open(path, scope="alice") as mem:
        mem.remember("kept", topic="t", authority="owner")
        leftover.mkdir()
        probe = (
            "import sys; from doxa.store import EmbeddedStore; from doxa.errors import StoreLocked\n"
            "try:\n    EmbeddedStore(sys.argv[1])\nexcept StoreLocked:\n    sys.exit(4)\n"
        )
        done = subprocess.run([sys.executable, "-c", probe, str(path)], timeout=60)
        assert done.returncode == 4
        assert leftover.is_dir()  # the other process did not clean up under our feet
        assert [f.text for f in mem.facts()] == ["kept"]
    # control: once the store is free, opening it (under its lock) tidies the leftover
    EmbeddedStore(path).close()
    assert not leftover.exists()


_CHILD = """
import sys, doxa
path, count = sys.argv[1], int(sys.argv[2])
mem = doxa.Memory.open(path, scope="alice", durable=True)
for i in range(count):
    mem.remember(f"Filler fact number {i} about the garden", topic="garden", authority="owner")
mem.remember("Zebulon Quaxford lives at Brindlewick Road 3", topic="people", authority="owner",
             subject="http://example.org/zebulon-quaxford",
             predicate="http://example.org/address", object="Brindlewick Road 3")
mem.admin.backup()
print("erasing", flush=True)
mem.owner.erase("http://example.org/zebulon-quaxford", reason="asked")
print("erased", flush=True)
mem.admin.purge()
print("purged", flush=True)
"""


def _kill_during_purge(tmp_path: Path, trial: int, rng: random.Random) -> str:
    path = tmp_path / f"memory-{trial}"
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path), "40"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.strip() == "erasing"
    time.sleep(rng.uniform(0.0, 0.4))  # somewhere in the erasure, the rebuild or the backups
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    rest = child.stdout.read()
    child.stdout.close()
    stage = "purged" if "purged" in rest else "erased" if "erased" in rest else "erasing"
    with doxa.Memory.open(path, scope="alice") as mem:
        erased = not any("Quaxford" in f.text for f in mem.facts(include_ended=True))
        if not erased:  # killed before the logical erasure committed: the owner erases again
            mem.owner.erase("http://example.org/zebulon-quaxford", reason="asked")
        else:  # a retry of the same erase finishes the purge, never NotFound
            again = mem.owner.erase("http://example.org/zebulon-quaxford", reason="asked")
            assert again.outcome is doxa.Outcome.ERASED
        mem.admin.purge()
        assert mem.verify() == len(mem.receipts())
        assert [r.outcome for r in mem.receipts()][-1] is doxa.Outcome.PURGED
        assert len(mem.facts(topic="garden")) == 40
    for needle in (SECRET, "Brindlewick Road 3"):
        assert hits(path, needle) == [], (stage, needle)
        assert hits(tmp_path / f"memory-{trial}.backups", needle) == [], (stage, needle)
    return stage


def _trials(tmp_path: Path, count: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    stages: dict[str, int] = {}
    for trial in range(count):
        stage = _kill_during_purge(tmp_path, trial, rng)
        stages[stage] = stages.get(stage, 0) + 1
    return stages


def test_kill_9_during_an_erasure_then_reopen_finishes_the_purge(tmp_path: Path) -> None:
    """A few SIGKILLs at random points of an erase: every store reopens, verifies, and its
    purge completes; the bytes are gone from the store and its backup."""
    stages = _trials(tmp_path, 4, seed=14)
    assert sum(stages.values()) == 4


@pytest.mark.slow
def test_kill_9_during_an_erasure_many_times(tmp_path: Path) -> None:
    """The long variant: 25 SIGKILLs at random points of an erase (scaled by
    ``DOXA_SLOW_SCALE``)."""
    stages = _trials(tmp_path, scaled(25), seed=1414)
    assert sum(stages.values()) == scaled(25)


def _half_removed_first_database(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A store whose purge switched to a generation and was killed while deleting the first
    database's files: CURRENT already gone, a write-ahead log holding erased text left."""
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice") as mem:
        people(mem)
    first = [p for p in path.iterdir() if p.is_file() and p.suffix in (".log", ".sst")]
    assert first, "the first database lives in the store directory itself"
    store = EmbeddedStore(path, journal=False)
    try:
        store.compact()  # rebuilt into gen-000001, the first database's files deleted
    finally:
        store.close()
    assert database(path) != path
    stray = path / "000008.log"
    stray.write_bytes(b"Zebulon Quaxford, left by a kill mid-delete")
    return path, [stray]


def test_a_kill_while_the_first_database_was_deleted_leaves_none_of_its_files(
    tmp_path: Path,
) -> None:
    """Reopening removes every file of the replaced first database, even when the kill took
    CURRENT first (found by the long kill variant, at fifty kills: a WAL with the erased name survived)."""
    path, strays = _half_removed_first_database(tmp_path)
    assert not (path / "CURRENT").exists()
    with doxa.Memory.open(path, scope="alice") as mem:
        assert mem.facts()  # control: the live generation is untouched
    assert [s for s in strays if s.exists()] == []


def test_the_live_first_database_keeps_its_log(tmp_path: Path) -> None:
    """Control: while the directory itself is the live database, its files are its own."""
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice") as mem:
        people(mem)
    with doxa.Memory.open(path, scope="alice") as mem:
        assert mem.facts()
    assert database(path) == path
    assert (path / "CURRENT").exists()
    assert list(path.glob("*.sst")) or list(path.glob("*.log"))


def test_an_erase_returns_before_its_purge_and_reads_never_see_the_content(
    tmp_path: Path,
) -> None:
    """The logical erasure is immediate: the content is out of every read when erase
    returns, the purge is owed or running, and purge() makes it real."""
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice") as mem:
        phone, _ = people(mem)
        mem.owner.erase(phone.fact or "", reason="asked")
        assert "555 0142" not in {str(f.object) for f in mem.facts(include_ended=True)}
        status = mem.admin.purge()
        assert (status.owed, status.running, status.error) == (0, False, None)
        assert status.purged == 1
        assert mem.admin.purge_status().owed == 0
    assert hits(path, "+1 555 0142") == []


def test_the_store_directory_is_never_missing_during_a_rebuild(tmp_path: Path) -> None:
    """While compactions run, a watcher always finds the store directory and the database
    its pointer names."""
    path = tmp_path / "memory"
    store = EmbeddedStore(path)
    missing: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            if not path.is_dir():
                missing.append("directory")
            elif (
                not (database(path) / "CURRENT").exists()
                and not (
                    database(path) / "CURRENT"  # the pointer may have moved on: look once more
                ).exists()
            ):
                missing.append(str(database(path)))

    store.apply(
        doxa.store.Change(
            insert=[(URIRef("urn:s"), URIRef("urn:p"), Literal("o"), URIRef("urn:g"))]
        )
    )
    store.load(b"<urn:a> <urn:b> <urn:c> .", format="nt", graph=URIRef("urn:h"))  # recorded
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        store.compact()
        # the first database (the directory itself) is closed and gone once compact returns
        assert not (path / "CURRENT").exists()
        assert not list(path.glob("*.sst"))
        for _ in range(4):
            store.compact()
    finally:
        stop.set()
        watcher.join()
        store.close()
    assert missing == []
    assert sorted(p.name for p in path.iterdir() if p.name.startswith("gen-")) == ["gen-000005"]
    assert os.listdir(path)  # control: the watcher looked at a real directory


def test_a_source_only_the_erased_fact_used_leaves_backups_and_restores(tmp_path: Path) -> None:
    """A ``mailto:`` source used only by an erased fact leaves the store's files and the
    backup's, and a restore of that backup verifies without it; a source another fact still
    uses stays everywhere (control)."""
    path = tmp_path / "memory"
    private, shared = "mailto:zebulon.quaxford@example.org", "https://example.org/shared-page"
    with doxa.Memory.open(path, scope="alice") as mem:
        erased = mem.remember(
            "Zebulon's phone is +1 555 0142",
            topic="contacts",
            authority="owner",
            sources=[private, shared],
        )
        mem.remember(
            "Maribel lives at Quillfeather Lane 7",
            topic="people",
            authority="owner",
            sources=[shared],
        )
        backup = mem.admin.backup()
        mem.owner.erase(erased.fact or "", reason="asked", wait=True)
        assert mem.verify() == len(mem.receipts())
    for folder in (path, backup):
        assert hits(folder, private) == [], folder
        assert hits(folder, shared), folder  # the control: still used, so kept

    assert doxa.restore_backup(path, backup) == {"alice": 1}
    with doxa.Memory.open(path, scope="alice") as mem:
        assert mem.verify() == len(mem.receipts())
        assert [f.text for f in mem.facts()] == ["Maribel lives at Quillfeather Lane 7"]
    assert hits(path, private) == []


_CUT_JOURNAL = """
import os, sys, doxa
from doxa.audit.purge import Purge
Purge.start = lambda self: None  # the process dies before its purge starts
path = sys.argv[1]
mem = doxa.Memory.open(path, scope="alice")
mem.remember("Zebulon Quaxford lives at Brindlewick Road 3", topic="people", authority="owner",
             subject="http://example.org/zebulon-quaxford",
             predicate="http://example.org/address", object="Brindlewick Road 3")
mem.remember("Maribel Ostrander lives at Quillfeather Lane 7", topic="people", authority="owner")
mem.admin.backup()
mem.owner.erase("http://example.org/zebulon-quaxford", reason="asked")
os._exit(0)  # like a kill: nothing closed, nothing purged
"""


@pytest.mark.parametrize(
    ("cut", "bob_first"),
    [(True, False), (True, True), (False, False)],
    ids=["journal-line-lost", "lost-another-scope-opened-first", "journal-line-kept"],
)
def test_an_erasure_whose_journal_line_a_crash_cut_is_still_purged(
    tmp_path: Path, cut: bool, bob_first: bool
) -> None:
    """A crash between the store's commit of an erasure and its journal line: on reopen the
    journal is repaired with the erasure's record read back from its tombstones, so the purge
    is owed and runs, also when a server opened another scope first (the control keeps the
    line)."""
    path = tmp_path / "memory"
    done = subprocess.run([sys.executable, "-c", _CUT_JOURNAL, str(path)], timeout=120)
    assert done.returncode == 0
    journal = tmp_path / "memory.journal"
    lines = journal.read_bytes().splitlines(keepends=True)
    assert b'"erasure"' in lines[-1]
    if cut:
        journal.write_bytes(b"".join(lines[:-1]))
    with doxa.Memory.open(path, scope="bob" if bob_first else "alice") as first:
        mem = doxa.Memory(first.store, scope="alice") if bob_first else first
        assert mem.admin.purge_status().owed == 1  # found again, from the journal or its repair
        mem.admin.purge()
        assert mem.verify() == len(mem.receipts())
    for needle in (SECRET, "Brindlewick Road 3"):
        assert hits(path, needle) == [], needle
        assert hits(tmp_path / "memory.backups", needle) == [], needle
    assert hits(path, "Quillfeather Lane 7")  # control: the kept fact is still in the files


def test_two_threads_erasing_one_fact_both_get_its_receipt(tmp_path: Path) -> None:
    """Two threads erase the same fact at once: one erases it, the other gets the same
    receipt back instead of NotFound (control: a fact never written is still NotFound)."""
    with doxa.Memory.open(tmp_path / "memory", scope="alice") as mem:
        phone, _ = people(mem)
        results: list[object] = []
        barrier = threading.Barrier(2)

        def erase() -> None:
            barrier.wait()
            try:
                results.append(mem.owner.erase(phone.fact or "", reason="asked").id)
            except doxa.DoxaError as error:
                results.append(error)

        threads = [threading.Thread(target=erase) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(results) == 2
        assert results[0] == results[1], results
        with pytest.raises(doxa.NotFound):
            mem.owner.erase("019ac4f2b0e3a1b2c3d4", reason="asked")
