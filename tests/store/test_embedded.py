"""The embedded store on disk: it survives reopening, and one process writes a directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import doxa
from doxa.store import EmbeddedStore


def test_facts_survive_reopening(tmp_path: Path, clock: doxa.FixedClock) -> None:
    """A fact written to a directory is there after closing and reopening it."""
    with doxa.Memory.open(tmp_path / "mem", scope="alice", clock=clock) as mem:
        fact = mem.remember("Alice prefers tea", topic="drinks", authority="owner").fact
    with doxa.Memory.open(tmp_path / "mem", scope="alice", clock=clock) as mem:
        assert [f.id for f in mem.facts()] == [fact]
        assert mem.verify() == 1


def test_second_process_gets_a_clear_error(tmp_path: Path) -> None:
    """A second process opening the same directory gets StoreLocked, not a traceback."""
    path = tmp_path / "mem"
    store = EmbeddedStore(path)
    code = (
        "import doxa\n"
        "try:\n"
        f"    doxa.Memory.open({str(path)!r}, scope='alice')\n"
        "except doxa.StoreLocked as e:\n"
        "    print('LOCKED', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("LOCKED The store at ")
    assert "already open for writing in another process" in out.stdout
    store.close()
    del store
    # control: once the first process lets go, the directory opens
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import doxa; doxa.Memory.open({str(path)!r}, scope='a'); print('OK')",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "OK"
