"""A short run of bench/bench_corrections.py: the memories side by side, the target met."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "bench_corrections.py"


def test_a_quick_corrections_run_meets_the_target(tmp_path: Path) -> None:
    """The gate's repeated corrections stay at or under a fifth of the plain log's, and the
    plain log (the control) does make the owner repeat corrections."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            filter(None, [os.environ.get("PYTHONPATH"), str(BENCH.parent)])
        ),
    }
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--plot-to", str(tmp_path / "c.png")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "target: doxa's repeated corrections <= 1/5 of the plain store's: met" in done.stdout
    rows = {
        line[:36].strip(): line[36:].split()
        for line in done.stdout.splitlines()
        if line.startswith("corrections the owner repeats")
    }
    doxa, plain, similarity, text_only = map(int, rows["corrections the owner repeats"])
    assert plain > 0  # the baselines do fail (control)
    assert similarity > 0
    assert doxa * 5 <= plain
    assert text_only <= plain
