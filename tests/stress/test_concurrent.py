"""Many threads of one process write the same topics and one functional predicate at once;
a second process opening the same store directory is refused with a clear error."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from tests.stress.writer import EX, ONTOLOGY

import doxa

CITIES = ("Lyon", "Paris", "Rome", "Oslo")


def _write_together(mem: doxa.Memory, threads: int, writes: int) -> list[doxa.Receipt]:
    receipts: list[doxa.Receipt] = []
    errors: list[BaseException] = []
    start = threading.Barrier(threads)
    lock = threading.Lock()

    def worker(number: int) -> None:
        start.wait()
        try:
            for i in range(writes):
                who = f"p{i % 3}"
                city = CITIES[(number + i) % len(CITIES)]
                if i % 4 == 3:
                    receipt = mem.remember(f"note {number}-{i} about {who}", topic="people")
                else:
                    receipt = mem.remember(
                        f"{who} lives in {city}",
                        topic="people",
                        subject=EX + who,
                        predicate=EX + "livesIn",
                        object=EX + city,
                        authority="owner",
                        valid_from=f"2026-01-{1 + (number * writes + i) % 28:02d}",
                    )
                with lock:
                    receipts.append(receipt)
        except BaseException as error:  # reported below, with the thread's number
            errors.append(error)

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert not errors, errors
    return receipts


def _check(mem: doxa.Memory, receipts: list[doxa.Receipt], expected: int) -> None:
    assert len(receipts) == expected  # no write lost
    stored = mem.receipts()
    # every returned receipt is in the chain, once: no lost update, nothing decided twice; a
    # write identical to one already waiting gets the waiting write's receipt back (one wait)
    returned = Counter(r.id for r in receipts)
    again = {r.id for r in receipts if returned[r.id] > 1}
    assert all(r.outcome is doxa.Outcome.HELD for r in receipts if r.id in again)
    assert Counter(r.id for r in stored if r.judge != "owner") == Counter(set(returned))
    assert [r.sequence for r in stored] == list(range(1, len(stored) + 1))
    admitted = {r.fact for r in stored if r.outcome is doxa.Outcome.ADMITTED}
    assert {f.id for f in mem.facts(include_ended=True)} == admitted  # counts match receipts
    for who in ("p0", "p1", "p2"):
        for day in range(1, 29):  # one live value of the functional predicate at any time
            live = mem.facts(
                subject=EX + who, predicate=EX + "livesIn", valid_at=f"2026-01-{day:02d}"
            )
            assert len({f.object for f in live}) <= 1, [(f.object, f.valid_from) for f in live]
        assert mem.facts(subject=EX + who, predicate=EX + "livesIn"), who  # control: one exists
    assert mem.verify() == len(stored)


@pytest.mark.parametrize(("threads", "writes"), [(4, 25)])
def test_threads_writing_one_predicate_never_leave_two_values(
    tmp_path: Path, threads: int, writes: int
) -> None:
    with doxa.Memory.open(tmp_path / "store", scope="s") as mem:
        mem.schema.add_ontology(ONTOLOGY)
        mem.owner.grant("general")
        receipts = _write_together(mem, threads, writes)
        _check(mem, receipts, threads * writes)


@pytest.mark.slow
def test_many_threads_many_writes(tmp_path: Path) -> None:
    with doxa.Memory.open(tmp_path / "store", scope="s") as mem:
        mem.schema.add_ontology(ONTOLOGY)
        mem.owner.grant("general")
        receipts = _write_together(mem, 8, 150)
        _check(mem, receipts, 8 * 150)


OPEN = """
import sys, doxa
try:
    doxa.Memory.open(sys.argv[1], scope="s").close()
except doxa.StoreLocked as error:
    print("locked:", error)
else:
    print("opened")
"""


def _open_elsewhere(store: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", OPEN, str(store)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_second_process_gets_store_locked(tmp_path: Path) -> None:
    """While one process has the directory open, another gets StoreLocked with what to do."""
    store = tmp_path / "store"
    with doxa.Memory.open(store, scope="s") as mem:
        mem.remember("held open", topic="t")
        answer = _open_elsewhere(store)
        assert answer.startswith("locked:")
        assert "already open for writing in another process" in answer
    assert _open_elsewhere(store) == "opened\n"  # control: closed, the other process may open it
