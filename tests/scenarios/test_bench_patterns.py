"""A short run of bench/bench_patterns.py through doxa's own judge: the targets of issue 36
on text streams of many shapes, and the figures written as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "bench_patterns.py"


def test_a_quick_patterns_run_meets_the_targets(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [os.environ.get("PYTHONPATH"), str(BENCH.parent)])
        ),
    }
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (written,) = tmp_path.glob("bench_patterns-*.json")
    report = json.loads(written.read_text(encoding="utf-8"))
    assert all(report["targets"].values()), report["targets"]
    rows = report["rows"]
    assert rows["one"]["slots_changed"] > 50  # the stream does change values (control)
    assert rows["many"]["control_facts"] > 50
    assert rows["all"]["questions"] > 0  # the owner is asked, once per pattern
    assert rows["all"]["questions_per_pattern_max"] == 1
