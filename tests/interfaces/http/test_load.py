"""A short run of the load test (bench/bench_load.py): concurrent clients, no errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[3] / "bench" / "bench_load.py"


def test_a_short_load_run_has_no_errors() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--clients", "4", "--requests", "25", "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "100 requests in" in done.stdout
    assert "more reads" in done.stdout
    assert ", 0 errors" in done.stdout
    assert "server memory (RSS)" in done.stdout
