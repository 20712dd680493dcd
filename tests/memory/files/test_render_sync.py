"""Memory as files: render, edit, sync, render again; no fact is ever lost silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doxa import InvalidInput, Memory
from doxa.gate.sync import Change
from doxa.reads.projection import MANIFEST


@pytest.fixture
def mem() -> Memory:
    memory = Memory.open(None, scope="alice")
    for text, topic in [
        ("Alice prefers tea", "drinks"),
        ("Alice dislikes coffee", "drinks"),
        ("Alice drinks water at lunch", "drinks"),
        ("The supplier call is on Wednesday", "meetings"),
    ]:
        memory.remember(text, topic=topic, authority="owner")
    return memory


def ids(mem: Memory) -> dict[str, str]:
    return {f.text: f.id for f in mem.facts()}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_render_is_deterministic_with_ids_and_pointers(mem: Memory, tmp_path: Path) -> None:
    """Two renders give the same bytes; each line ends in its id; the index points only."""
    first = mem.files.render(tmp_path / "a")
    second = mem.files.render(tmp_path / "b")
    assert first.files == second.files
    for name in ["drinks.md", "meetings.md", "MEMORY.md", MANIFEST]:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    tea = ids(mem)["Alice prefers tea"]
    assert f"- Alice prefers tea <!-- doxa:{tea} -->\n" in first.files["drinks.md"]
    index = first.files["MEMORY.md"]
    assert "- [drinks](drinks.md): 3 facts" in index
    assert "tea" not in index
    manifest = json.loads((tmp_path / "a" / MANIFEST).read_text())
    assert [tea, "Alice prefers tea"] in manifest["files"]["drinks.md"]["lines"]


def test_render_of_the_past_and_ended_facts(mem: Memory, tmp_path: Path) -> None:
    """--include-ended strikes an ended fact through; a render of the past is read only."""
    tea = ids(mem)["Alice prefers tea"]
    mem.owner.retract(tea, reason="she never did")
    plain = mem.files.render().files["drinks.md"]
    assert "tea" not in plain
    ended = mem.files.render(tmp_path, include_ended=True).files["drinks.md"]
    assert f"- ~~Alice prefers tea~~ (retracted) <!-- doxa:{tea} -->" in ended
    with pytest.raises(InvalidInput, match="read only"):
        mem.files.sync(tmp_path)


def test_unchanged_files_sync_to_nothing(mem: Memory, tmp_path: Path) -> None:
    """The control: a sync of an untouched render changes nothing."""
    mem.files.render(tmp_path)
    before = len(mem.receipts())
    report = mem.files.sync(tmp_path)
    assert not report.changed
    assert len(mem.receipts()) == before


def test_edit_revises_and_sync_is_idempotent(mem: Memory, tmp_path: Path) -> None:
    """An edited line revises its fact by id; the files then carry the new id; a second
    sync does nothing."""
    mem.files.render(tmp_path)
    tea = ids(mem)["Alice prefers tea"]
    edit(tmp_path / "drinks.md", "Alice prefers tea", "Alice prefers green tea")
    report = mem.files.sync(tmp_path, authority="owner")
    [item] = report.items
    assert item.change is Change.REVISED
    assert item.fact == tea
    assert item.outcome == "admitted"
    assert "Alice prefers green tea" in ids(mem)
    assert f"<!-- doxa:{item.new_fact} -->" in (tmp_path / "drinks.md").read_text()
    receipts = len(mem.receipts())
    assert not mem.files.sync(tmp_path).changed
    assert len(mem.receipts()) == receipts


def test_new_line_and_new_file_are_new_writes(mem: Memory, tmp_path: Path) -> None:
    """A line without an id is a write in its file's topic; a new file is a new topic."""
    mem.files.render(tmp_path)
    with (tmp_path / "drinks.md").open("a") as out:
        out.write("- Alice likes mint tea\n")
    (tmp_path / "pets.md").write_text("# pets\n\n- Alice has a cat named Tom\n")
    report = mem.files.sync(tmp_path, authority="owner")
    assert sorted((i.change, i.file) for i in report.items) == [
        (Change.ADDED, "drinks.md"),
        (Change.ADDED, "pets.md"),
    ]
    topics = {f.text: f.topic for f in mem.facts()}
    assert topics["Alice likes mint tea"] == "drinks"
    assert topics["Alice has a cat named Tom"] == "pets"
    assert "- [pets](pets.md): 1 fact" in (tmp_path / "MEMORY.md").read_text()


def test_deleted_line_is_a_held_retraction_request(mem: Memory, tmp_path: Path) -> None:
    """A deleted line stays live, a retraction request waits for the owner; approving it
    retracts the fact; a second sync does not ask twice."""
    mem.files.render(tmp_path)
    coffee = ids(mem)["Alice dislikes coffee"]
    edit(tmp_path / "drinks.md", f"- Alice dislikes coffee <!-- doxa:{coffee} -->\n", "")
    [item] = mem.files.sync(tmp_path).items
    assert item.change is Change.RETRACTION_REQUESTED
    assert "held for the owner" in item.outcome
    assert coffee in {f.id for f in mem.facts()}  # never a silent delete
    [held] = mem.held()
    assert held.targets == (coffee,)
    assert held.kind == "retraction"
    edit(tmp_path / "drinks.md", f"- Alice dislikes coffee <!-- doxa:{coffee} -->\n", "")
    [again] = mem.files.sync(tmp_path).items
    assert again.change is Change.ALREADY_REQUESTED
    assert len(mem.held()) == 1
    mem.owner.approve(held)
    assert coffee not in {f.id for f in mem.facts()}
    assert (
        "coffee" not in mem.files.render().files["drinks.md"]
    )  # the request's record is not shown


def test_moved_line_is_a_topic_change(mem: Memory, tmp_path: Path) -> None:
    """The owner's move lands in the new topic; an agent's waits for the owner; neither is
    a loss."""
    mem.files.render(tmp_path)
    water = ids(mem)["Alice drinks water at lunch"]
    line = f"- Alice drinks water at lunch <!-- doxa:{water} -->\n"
    edit(tmp_path / "drinks.md", line, "")
    (tmp_path / "meetings.md").write_text((tmp_path / "meetings.md").read_text() + line)
    [agent] = mem.files.sync(tmp_path, authority="agent").items
    assert agent.change is Change.MOVED
    assert "held for the owner" in agent.outcome
    assert {f.text: f.topic for f in mem.facts()}["Alice drinks water at lunch"] == "drinks"
    mem.owner.reject(mem.held()[0], reason="not now")
    edit(tmp_path / "drinks.md", line, "")
    (tmp_path / "meetings.md").write_text((tmp_path / "meetings.md").read_text() + line)
    [owner] = mem.files.sync(tmp_path, authority="owner").items
    assert owner.change is Change.MOVED
    assert owner.outcome.startswith("admitted")
    assert {f.text: f.topic for f in mem.facts()}["Alice drinks water at lunch"] == "meetings"
    assert "water" in (tmp_path / "meetings.md").read_text()
    assert "water" not in (tmp_path / "drinks.md").read_text()


def test_split_keeps_every_fact(mem: Memory, tmp_path: Path) -> None:
    """A topic file split into two: no fact is dropped, no rewrite is held."""
    mem.files.render(tmp_path)
    lines = (tmp_path / "drinks.md").read_text().splitlines()
    facts = [line for line in lines if line.startswith("- ")]
    (tmp_path / "drinks.md").write_text("# drinks\n\n" + facts[0] + "\n")
    (tmp_path / "hot-drinks.md").write_text("# hot drinks\n\n" + "\n".join(facts[1:]) + "\n")
    report = mem.files.sync(tmp_path, authority="owner")
    assert not report.dropped
    assert {i.change for i in report.items} == {Change.MOVED}
    assert len(mem.facts()) == 4
    assert not mem.held()


def test_whole_file_rewrite_dropping_facts_is_held(mem: Memory, tmp_path: Path) -> None:
    """A "more concise" rewrite that drops facts is held: the new line waits, the dropped
    facts are listed and still live."""
    mem.files.render(tmp_path)
    (tmp_path / "drinks.md").write_text("# drinks\n\n- Alice drinks tea and water\n")
    report = mem.files.sync(tmp_path)
    assert [i.change for i in report.items] == [Change.HELD_REWRITE]
    assert len(report.dropped["drinks.md"]) == 3
    assert len(mem.facts()) == 4
    assert len(mem.held()) == 1
    assert any("was rewritten and drops 3 fact(s)" in line for line in report.lines())


def test_whole_file_rewrite_that_accounts_for_every_fact_passes(
    mem: Memory, tmp_path: Path
) -> None:
    """The control: the same rewrite with every dropped fact explicitly retracted goes
    through (retraction requests held, the new line written)."""
    mem.files.render(tmp_path)
    dropped = [i for t, i in ids(mem).items() if t.startswith("Alice")]
    (tmp_path / "drinks.md").write_text("# drinks\n\n- Alice drinks tea and water\n")
    report = mem.files.sync(tmp_path, authority="owner", retract=dropped)
    assert not report.dropped
    changes = sorted(i.change.value for i in report.items)
    assert changes == ["added"] + ["retraction_requested"] * 3


def test_rewrite_that_keeps_ids_passes(mem: Memory, tmp_path: Path) -> None:
    """The control: a rewrite that rewords every line but keeps the ids is three revisions."""
    mem.files.render(tmp_path)
    text = (tmp_path / "drinks.md").read_text().replace("Alice ", "She ")
    (tmp_path / "drinks.md").write_text(text)
    report = mem.files.sync(tmp_path, authority="owner")
    assert not report.dropped
    assert {i.change for i in report.items} == {Change.REVISED}


def test_concurrent_change_is_a_conflict(mem: Memory, tmp_path: Path) -> None:
    """The store changed under an edited line: a conflict, reported and kept, not applied."""
    mem.files.render(tmp_path)
    tea = ids(mem)["Alice prefers tea"]
    mem.owner.retract(tea, reason="changed elsewhere")
    edit(tmp_path / "drinks.md", "Alice prefers tea", "Alice prefers black tea")
    receipts = len(mem.receipts())
    [item] = mem.files.sync(tmp_path).items
    assert item.change is Change.CONFLICT
    assert item.fact == tea
    assert len(mem.receipts()) == receipts
    assert "Alice prefers black tea" in (tmp_path / "CONFLICTS.md").read_text()
    assert not mem.files.sync(tmp_path).changed  # nothing applied twice


def test_sync_refuses_what_it_cannot_read(mem: Memory, tmp_path: Path) -> None:
    """No manifest, another scope, another authority: clear errors; the control syncs."""
    with pytest.raises(InvalidInput, match="run `doxa render"):
        mem.files.sync(tmp_path)
    mem.files.render(tmp_path)
    other = Memory(mem.store, scope="bob")
    with pytest.raises(InvalidInput, match="rendered from scope 'alice'"):
        other.files.sync(tmp_path)
    for bad in ["Owner", "tool", "оwner"]:
        with pytest.raises(InvalidInput):
            mem.files.sync(tmp_path, authority=bad)
    (tmp_path / "Notes.md").write_text("- something\n")
    assert mem.files.sync(tmp_path, authority="owner").skipped == ("Notes.md",)


def test_a_copied_id_is_no_second_fact(mem: Memory, tmp_path: Path) -> None:
    """A line copied with its id into another file: the same words are nothing new; other
    words beside the kept original are a new write, never a second revision."""
    mem.files.render(tmp_path)
    tea = ids(mem)["Alice prefers tea"]
    line = f"- Alice prefers tea <!-- doxa:{tea} -->\n"
    (tmp_path / "meetings.md").write_text((tmp_path / "meetings.md").read_text() + line)
    assert not mem.files.sync(tmp_path).changed
    other = f"- Alice prefers tea at five <!-- doxa:{tea} -->\n"
    (tmp_path / "meetings.md").write_text((tmp_path / "meetings.md").read_text() + other)
    [item] = mem.files.sync(tmp_path, authority="owner").items
    assert item.change is Change.ADDED
    assert tea in {f.id for f in mem.facts()}


def test_an_id_from_nowhere_is_a_new_line(mem: Memory, tmp_path: Path) -> None:
    """A made-up or foreign id targets nothing: the line is a new write, no fact is revised."""
    mem.files.render(tmp_path)
    before = {f.id for f in mem.facts()}
    with (tmp_path / "drinks.md").open("a") as out:
        out.write("- Alice likes cocoa <!-- doxa:0000000000000000dead -->\n")
    [item] = mem.files.sync(tmp_path, authority="owner").items
    assert item.change is Change.ADDED
    assert item.fact is None
    assert before < {f.id for f in mem.facts()}


def test_two_threads_syncing_the_same_edit_apply_it_once(tmp_path: Path) -> None:
    """Two syncs of the same edited files at once: one revision, the other refused or a
    conflict; the control (one sync) is the edit test above."""
    import threading

    memory = Memory.open(tmp_path / "store", scope="alice")
    fact = memory.remember("Alice prefers tea", topic="drinks", authority="owner").fact
    folders = [tmp_path / "a", tmp_path / "b"]
    for folder in folders:
        memory.files.render(folder)
        edit(folder / "drinks.md", "Alice prefers tea", "Alice prefers green tea")
    reports = []

    def run(folder: Path) -> None:
        reports.append(memory.files.sync(folder, authority="owner"))

    threads = [threading.Thread(target=run, args=(f,)) for f in folders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    changes = sorted(i.change.value for r in reports for i in r.items)
    assert changes.count("revised") <= 2
    texts = [f.text for f in memory.facts()]
    assert texts.count("Alice prefers green tea") == 1
    assert fact is not None
    memory.close()
