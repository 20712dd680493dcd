"""``doxa render --git``: each render committed to a git repository in the folder, its
message naming the receipts of the decisions it shows, for people who review memory as a
repository (docs/files.md)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from doxa.audit.render_repos import GIT_OPTIONS, check_repository
from doxa.errors import InvalidInput
from doxa.memory import Memory
from doxa.reads.projection import Manifest, Rendered

__all__ = ["MAX_LISTED", "commit_message", "commit_render"]

#: receipts named one by one in a commit message; the rest are counted
MAX_LISTED = 50
#: who commits when git's configuration names nobody (git refuses a commit without a name)
_IDENTITY = ("-c", "user.name=doxa", "-c", "user.email=doxa@localhost")


def commit_message(memory: Memory, rendered: Rendered, previous: Manifest | None) -> str:
    """The commit's message: what changed since the previous render, and the receipt of
    each fact it shows for the first time."""
    before = set(previous.lines()) if previous is not None else set()
    now = set(rendered.manifest.lines())
    shown, gone = sorted(now - before), sorted(before - now)
    lines = [
        f"doxa render of scope {rendered.manifest.scope}: {len(shown)} fact(s) shown, "
        f"{len(gone)} no longer shown",
        "",
    ]
    for fact in shown[:MAX_LISTED]:
        receipt = memory.why(fact).receipt
        said = f"{receipt.outcome.value} by receipt {receipt.id}" if receipt else "no receipt"
        lines.append(f"+ {fact}: {said}")
    if len(shown) > MAX_LISTED:
        lines.append(f"+ … and {len(shown) - MAX_LISTED} more")
    lines += [f"- {fact}" for fact in gone[:MAX_LISTED]]
    if len(gone) > MAX_LISTED:
        lines.append(f"- … and {len(gone) - MAX_LISTED} more")
    return "\n".join(lines) + "\n"


def commit_render(folder: Path, message: str) -> bool:
    """Commit everything in ``folder`` (a repository is made there if there is none);
    False when the render changed nothing. Raises :class:`~doxa.InvalidInput` without git,
    and :class:`~doxa.UnsafeFile` for a ``.git`` that is not this user's folder or whose
    config could make git run a program (git runs without hooks or a monitor anyway)."""
    git = shutil.which("git")
    if git is None:
        raise InvalidInput("--git needs the git program on PATH; install git or leave --git out.")

    def run(*args: str, given: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [git, *GIT_OPTIONS, "-C", str(folder), *args],
            input=given,
            capture_output=True,
            text=True,
            check=False,
        )

    if not check_repository(folder, git):  # an agent's .git could make git run a program
        made = run("init", "-q")
        if made.returncode != 0:
            raise InvalidInput(
                f"git init failed in {folder} ({made.stderr.strip()}); render into a folder "
                "you can write, or leave --git out."
            )
    run("add", "-A")
    if run("diff", "--cached", "--quiet").returncode == 0:
        return False
    named = run("config", "user.email").returncode == 0
    who = () if named else _IDENTITY
    done = run(*who, "commit", "-q", "--no-verify", "-F", "-", given=message)
    if done.returncode != 0:
        raise InvalidInput(
            f"git commit failed in {folder} ({done.stderr.strip()}); fix the repository there "
            "(a hook, a lock), or leave --git out."
        )
    return True
