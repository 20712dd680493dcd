"""bench/bench_layout.py sorts every quad into one part, and the parts add up.

A short run through the command (as a developer runs it) and the counting on a memory
built here, where each part's expected count is known from what was written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import EX

import doxa

BENCH = Path(__file__).parents[2] / "bench"


@pytest.fixture
def layout() -> object:
    sys.path.insert(0, str(BENCH))
    try:
        import bench_layout

        yield bench_layout
    finally:
        sys.path.remove(str(BENCH))


def test_the_parts_of_two_facts_add_up(layout: object, clock: doxa.FixedClock) -> None:
    mem = doxa.Memory.open(None, scope="alice", clock=clock)
    mem.remember(
        "Alice lives in Lyon",
        topic="home",
        subject=EX + "alice",
        predicate=EX + "livesIn",
        object=EX + "Lyon",
        authority="owner",
    )
    mem.remember("The weekly supplier call is on Wednesday", topic="work", authority="owner")
    found = layout.count(mem)  # type: ignore[attr-defined]
    assert found["facts"] == 2
    assert found["receipts"] == len(mem.receipts())
    assert sum(found["parts"].values()) == found["quads"]
    assert found["parts"]["claim:text"] == 2  # one text a claim
    assert found["parts"]["claim:statement"] == 3  # the structured one only
    assert found["parts"]["current"] == 1
    assert found["receipt_fields"]["type"] == found["receipts"]
    assert "pending" not in found["parts"]  # control: nothing waits


def test_a_short_run_prints_the_table_and_its_report(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(BENCH)])),
    }
    done = subprocess.run(
        [sys.executable, str(BENCH / "bench_layout.py"), "--writes", "60", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "log:receipt" in done.stdout
    [report] = tmp_path.glob("bench_layout-*.json")
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["writes"] == 60
    assert sum(found["parts"].values()) == found["quads"] > 0
    assert found["disk_bytes"] > 0
