"""``--store .`` and ``--store ..`` name the current and parent directory, as a shell user
writes them (issue 34: both crashed with a traceback, since a store's side files are named
after its directory and ``.`` has no name)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def doxa(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "doxa", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_dot_and_dot_dot_are_the_directories_they_name(tmp_path: Path) -> None:
    store = tmp_path / "notes"
    store.mkdir()
    wrote = doxa(store, "--store", ".", "remember", "Bob likes tea", "--topic", "t")
    assert wrote.returncode == 0, wrote.stderr
    assert "Traceback" not in wrote.stderr
    inner = store / "inner"
    inner.mkdir()
    read = doxa(inner, "--store", "..", "facts")  # the same store, from below it
    assert read.returncode == 0, read.stderr
    assert "Bob likes tea" in read.stdout
    by_name = doxa(tmp_path, "--store", "notes", "facts")  # the control: its plain name
    assert "Bob likes tea" in by_name.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["notes", *(p.name for p in tmp_path.iterdir() if p.name.startswith("notes."))]
    )
