"""``scripts/start``, run twice in a fresh copy: the story's answers stay the same.

The script is copied with ``examples/`` into an empty folder, and its ``.venv`` is a pair of
wrappers around the interpreter running these tests (with this checkout's ``src`` on the
path), so the script's own "set up .venv if needed" step finds it ready and makes no network
call. ``DOXA_NO_SERVE=1`` stops it before serving.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _fresh_copy(tmp_path: Path) -> Path:
    """A folder with the script, the examples and a ``.venv`` that runs this checkout."""
    clone = tmp_path / "clone"
    (clone / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "start", clone / "scripts" / "start")
    shutil.copytree(ROOT / "examples", clone / "examples")
    bin_dir = clone / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    src = ROOT / "src"
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{src}" exec "{sys.executable}" "$@"\n')
    doxa = bin_dir / "doxa"
    doxa.write_text(f'#!/bin/sh\nPYTHONPATH="{src}" exec "{sys.executable}" -m doxa "$@"\n')
    for wrapper in (python, doxa):
        wrapper.chmod(0o755)
    return clone


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOXA_")}
    env["DOXA_NO_SERVE"] = "1"
    return env


def _start(clone: Path) -> str:
    done = subprocess.run(
        ["bash", str(clone / "scripts" / "start")],
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _doxa(clone: Path, *args: str) -> Any:
    env = {**_environment(), "DOXA_STORE": str(clone / "memory"), "DOXA_SCOPE": "demo"}
    done = subprocess.run(
        [str(clone / ".venv" / "bin" / "doxa"), "--json", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


def _answers(clone: Path) -> dict[str, Any]:
    """What the story asks: the day on 5 March and now, and what still waits for the owner."""

    def days(*args: str) -> list[tuple[str, str]]:
        return [(f["id"], f["object"]) for f in _doxa(clone, "facts", "--topic", "meetings", *args)]

    return {
        "5 March": days("--valid-at", "2026-03-05"),
        "now": days(),
        "held": [h["id"] for h in _doxa(clone, "held")],
    }


def test_start_twice_leaves_the_answers_unchanged(tmp_path: Path) -> None:
    """The first run tells the story (control); the second changes none of its answers."""
    clone = _fresh_copy(tmp_path)
    first_output = _start(clone)
    first = _answers(clone)
    wednesday, thursday = "http://example.org/Wednesday", "http://example.org/Thursday"
    assert [day for _, day in first["5 March"]] == [wednesday]
    assert [day for _, day in first["now"]] == [thursday]
    assert first["held"] == []
    assert "the owner approves it" in first_output

    second_output = _start(clone)
    assert _answers(clone) == first
    assert "already in" in second_output
    assert "approves" not in second_output


def test_start_leaves_nothing_untracked(tmp_path: Path) -> None:
    """After ``scripts/start`` the checkout shows no new file to git: the store and the
    files beside it (journal, lock) are ignored by the repository's .gitignore. Without the
    ignore file the same run does leave them (control)."""
    clone = _fresh_copy(tmp_path)
    shutil.copy(ROOT / ".gitignore", clone / ".gitignore")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(clone)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "clone"], check=True)
    _start(clone)

    def untracked() -> list[str]:
        done = subprocess.run(
            [*git, "status", "--porcelain", "--untracked-files=all"],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.splitlines()

    assert untracked() == []
    (clone / ".gitignore").write_text(".venv/\n", encoding="utf-8")  # the control
    assert any("memory" in line for line in untracked())
