"""Erasure reaches the folders a store was rendered into and the history `doxa render --git`
made: no commit, object or file keeps the erased words, and the rest stays."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.interfaces.test_files_interfaces import doxa

from doxa import Memory, UnsafeFile
from doxa.audit.render_repos import check_repository, scrub_text

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")

SECRET = "Alice was treated for pneumonia"


def every_object(folder: Path) -> str:
    """Every object the repository holds, reachable or not, as text."""
    found = subprocess.run(
        ["git", "-C", str(folder), "cat-file", "--batch-all-objects", "--batch"],
        capture_output=True,
        check=True,
    )
    return found.stdout.decode(errors="replace")


def history(folder: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), "log", "-p", "--all"], capture_output=True, text=True, check=True
    ).stdout


def remember(store: Path, text: str) -> str:
    said = doxa(store, "--json", "remember", text, "--topic", "health", "--authority", "owner")
    return str(json.loads(said)["fact"])


def test_erasure_rewrites_the_render_history(tmp_path: Path) -> None:
    """Two renders committed, then an erasure: the erased line leaves every commit, every
    object and the working files; the kept fact stays in each (the control), and the
    commit count and messages stay."""
    store, folder = tmp_path / "memory", tmp_path / "files"
    doxa(store, "init")
    secret = remember(store, SECRET)
    doxa(store, "render", "--git", str(folder))
    kept = remember(store, "Alice walks every morning")
    doxa(store, "render", "--git", str(folder))
    assert SECRET in history(folder)  # the attack's premise: the history holds it
    doxa(store, "erase", secret, "--reason", "medical data")
    assert SECRET not in history(folder)
    assert SECRET not in every_object(folder)
    assert secret not in (folder / "health.md").read_text()
    assert secret not in (folder / ".doxa-render.json").read_text()
    assert "Alice walks every morning" in history(folder)
    assert f"<!-- doxa:{kept} -->" in (folder / "health.md").read_text()
    count = subprocess.run(
        ["git", "-C", str(folder), "rev-list", "--count", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert count.strip() == "2"
    status = subprocess.run(
        ["git", "-C", str(folder), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status == ""  # the files match the rewritten HEAD
    doxa(store, "render", "--git", str(folder))  # the index's count changed: one more commit
    assert SECRET not in history(folder)


def test_erasure_of_another_fact_leaves_the_history_alone(tmp_path: Path) -> None:
    """The control: erasing a fact never rendered into the folder rewrites nothing."""
    store, folder = tmp_path / "memory", tmp_path / "files"
    doxa(store, "init")
    remember(store, SECRET)
    doxa(store, "render", "--git", str(folder))
    head = (folder / ".git" / "HEAD").read_text()
    before = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
    other = remember(store, "Alice likes plums")
    doxa(store, "erase", other, "--reason", "not needed")
    after = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
    assert before == after
    assert (folder / ".git" / "HEAD").read_text() == head
    assert SECRET in history(folder)


def test_scrub_text_drops_named_lines_only() -> None:
    """A topic line, a conflict line and a manifest pair naming the fact go; others stay."""
    text = "# t\n\n- tea <!-- doxa:AAA1 -->\n- jam <!-- doxa:BBB2 -->\n"
    assert scrub_text("t.md", text, {"AAA1"}) == "# t\n\n- jam <!-- doxa:BBB2 -->\n"
    conflicts = "- t.md: tea again [AAA1] (conflict)\n- t.md: jam [BBB2] (conflict)\n"
    assert scrub_text("CONFLICTS.md", conflicts, {"AAA1"}) == "- t.md: jam [BBB2] (conflict)\n"
    manifest = json.dumps(
        {"files": {"t.md": {"topic": "t", "lines": [["AAA1", "tea"], ["BBB2", "jam"]]}}}
    )
    scrubbed = json.loads(scrub_text(".doxa-render.json", manifest, {"AAA1"}))
    assert scrubbed["files"]["t.md"]["lines"] == [["BBB2", "jam"]]
    assert scrub_text("t.md", text, set()) == text


def test_a_planted_git_config_never_runs_a_program(tmp_path: Path) -> None:
    """An agent that can write the folder writes .git/config with a clean filter for every
    file: `doxa render --git` refuses the repository (exit 2) and the program never runs. The
    control: the same repository with its config as git init wrote it commits."""
    store, folder = tmp_path / "memory", tmp_path / "files"
    doxa(store, "init")
    remember(store, "Alice walks every morning")
    doxa(store, "render", "--git", str(folder))
    config = folder / ".git" / "config"
    clean = config.read_text()
    ran = tmp_path / "ran"
    config.write_text(clean + f'[filter "x"]\n\tclean = touch {ran}\n')
    (folder / ".gitattributes").write_text("* filter=x\n")
    remember(store, "Alice swims on Sundays")
    doxa(store, "render", "--git", str(folder), code=2)
    with pytest.raises(UnsafeFile, match=r"filter\.x\.clean"):
        check_repository(folder, "git")
    assert not ran.exists()
    config.write_text(clean)
    assert "committed" in doxa(store, "render", "--git", str(folder))
    assert not ran.exists()


def test_a_git_file_pointing_elsewhere_is_refused(tmp_path: Path) -> None:
    """.git as a `gitdir:` file naming another repository (the owner's own project): refused,
    that repository untouched; the control, no .git at all, makes one in the folder."""
    store, folder, other = tmp_path / "memory", tmp_path / "files", tmp_path / "project"
    doxa(store, "init")
    remember(store, "Alice walks every morning")
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    folder.mkdir()
    (folder / ".git").write_text(f"gitdir: {other / '.git'}\n")
    doxa(store, "render", "--git", str(folder), code=2)
    log = subprocess.run(["git", "-C", str(other), "log"], capture_output=True, text=True)
    assert log.returncode != 0  # still no commit there
    (folder / ".git").unlink()
    assert "committed" in doxa(store, "render", "--git", str(folder))
    assert (folder / ".git").is_dir()


def test_erasure_reaches_a_plain_rendered_folder(tmp_path: Path) -> None:
    """No git: a folder `Memory.render` wrote loses the erased line from its topic file and
    manifest once the purge ran; the other fact's line stays (the control)."""
    memory = Memory.open(tmp_path / "store", scope="alice")
    secret = memory.remember(SECRET, topic="health", authority="owner").fact
    kept = memory.remember("Alice walks every morning", topic="health", authority="owner").fact
    assert secret is not None
    assert kept is not None
    folder = tmp_path / "files"
    memory.files.render(folder)
    assert SECRET in (folder / "health.md").read_text()
    memory.owner.erase(secret, reason="medical data", wait=True)
    memory.close()
    assert SECRET not in (folder / "health.md").read_text()
    assert secret not in (folder / ".doxa-render.json").read_text()
    assert kept in (folder / "health.md").read_text()
    assert kept in (folder / ".doxa-render.json").read_text()


def test_a_remote_is_a_safe_setting(tmp_path: Path) -> None:
    """Where the owner pushes the render repository (a remote, a tracked branch) is read by
    fetch and push only: the repository is accepted; a setting that runs a program next to
    it is not (the attack above)."""
    folder = tmp_path / "files"
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    for key, value in [
        ("remote.origin.url", "https://example.org/memory.git"),
        ("remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"),
        ("branch.main.remote", "origin"),
        ("branch.main.merge", "refs/heads/main"),
    ]:
        subprocess.run(["git", "-C", str(folder), "config", key, value], check=True)
    assert check_repository(folder, "git")
    subprocess.run(["git", "-C", str(folder), "config", "core.pager", "evil"], check=True)
    with pytest.raises(UnsafeFile, match=r"core\.pager"):
        check_repository(folder, "git")
