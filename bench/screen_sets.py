"""What the screen-set converters share: reading a file of a pinned commit, and writing a set.

The converters (``make_screen_heldout*.py``, ``make_screen_thirdparty.py``) build the
third-party sets the instruction screen is measured on. Each reads its source with ``git
show`` (or from a wheel), never running the source's code, and writes JSON lines that are
never committed (``.git/info/exclude``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

__all__ = ["git_show", "write_set"]


def git_show(repo: Path, commit: str, path: str) -> str:
    """The text of ``path`` at ``commit`` in the git directory ``repo``."""
    return subprocess.run(
        ["git", f"--git-dir={repo}", "show", f"{commit}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def write_set(out: Path, rows: list[dict[str, Any]]) -> str:
    """Write ``rows`` to ``out`` as JSON lines; the line to print about them."""
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    attacks = sum(r["label"] == "attack" for r in rows)
    benign = len(rows) - attacks
    return f"{out}: {attacks} attacks" + (f", {benign} benign controls" if benign else "")
