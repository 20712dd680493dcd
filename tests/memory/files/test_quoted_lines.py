"""Outside text in the files and the memory tool's view comes back as a marked quotation
(issue 33): its line leads with ``[quoted from SOURCE (external): …]``, the mark is never
taken for part of the fact's words when the file is synced back, and a manifest cannot
give a line a mark the store does not.

Each test has its control beside it: the owner's and the agent's lines carry no mark, a
scope without outside text renders the same bytes as before (no ``marks`` key), and a
true manifest syncs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import doxa
from doxa.gate.sync import Change
from doxa.interfaces.cli import main
from doxa.interfaces.memory_tool import MemoryToolHandler
from doxa.reads.projection import INDEX, MANIFEST
from doxa.reads.provenance import quotation

PAGE = "The bakery opens at nine"
SOURCE = "https://shop.example/hours"
OWNERS = "Alice buys bread on Fridays"
AGENTS = "Alice asked about rye bread"


@pytest.fixture
def mem() -> Iterator[doxa.Memory]:
    memory = doxa.Memory.open(None, scope="alice")
    memory.remember(PAGE, topic="bakery", authority="external", sources=[SOURCE])
    memory.remember(OWNERS, topic="bakery", authority="owner")
    memory.remember(AGENTS, topic="bakery", authority="agent")
    yield memory
    memory.close()


def ids(mem: doxa.Memory) -> dict[str, str]:
    return {f.text: f.id for f in mem.facts()}


def mark(mem: doxa.Memory) -> str:
    page = next(f for f in mem.facts() if f.text == PAGE)
    found = quotation(page)
    assert found is not None
    return found


def line_of(text: str, words: str) -> str:
    return next(line for line in text.splitlines() if words in line)


def test_outside_line_leads_with_its_quotation_and_own_words_do_not(mem: doxa.Memory) -> None:
    rendered = mem.files.render()
    page = line_of(rendered.files["bakery.md"], PAGE)
    assert page.startswith(f"- [quoted from {SOURCE} (external): outside text")
    assert page.endswith(f"<!-- doxa:{ids(mem)[PAGE]} -->")
    # the controls: the owner's and the agent's lines are their bare words
    for own in (OWNERS, AGENTS):
        assert line_of(rendered.files["bakery.md"], own) == f"- {own} <!-- doxa:{ids(mem)[own]} -->"
    assert "[quoted from …] are outside text" in rendered.files[INDEX]
    assert rendered.manifest.marks == {ids(mem)[PAGE]: mark(mem)}
    # the manifest keeps the line's words apart from the mark
    assert (ids(mem)[PAGE], PAGE) in rendered.manifest.files["bakery.md"][1]


def test_a_scope_without_outside_text_renders_as_before(tmp_path: Path) -> None:
    with doxa.Memory.open(None, scope="alice") as memory:
        memory.remember(OWNERS, topic="bakery", authority="owner")
        rendered = memory.files.render(tmp_path)
    assert "quoted from" not in rendered.files["bakery.md"]
    assert "outside text" not in rendered.files[INDEX]
    assert "marks" not in json.loads((tmp_path / MANIFEST).read_text())


def test_an_ended_render_marks_the_outside_line_too(mem: doxa.Memory) -> None:
    mem.owner.retract(ids(mem)[PAGE], reason="the page was out of date")
    ended = mem.files.render(include_ended=True).files["bakery.md"]
    assert line_of(ended, PAGE).startswith(f"- [quoted from {SOURCE}")
    assert "~~The bakery opens at nine~~ (retracted)" in ended


def test_sync_reads_the_marked_line_as_its_words(mem: doxa.Memory, tmp_path: Path) -> None:
    """Unedited: nothing to do. The words edited behind the mark: one revision, of the
    words alone. The mark dropped and the words kept: nothing to do either."""
    mem.files.render(tmp_path)
    assert not mem.files.sync(tmp_path).changed

    path = tmp_path / "bakery.md"
    path.write_text(path.read_text().replace("opens at nine", "opens at ten"))
    report = mem.files.sync(tmp_path)
    revised = [i for i in report.items if i.change is Change.REVISED]
    assert [i.text for i in revised] == ["The bakery opens at ten"]
    assert all("quoted from" not in (i.text or "") for i in report.items)

    mem.files.render(tmp_path)
    path.write_text(path.read_text().replace(f"[{mark(mem)}] ", ""))
    assert not mem.files.sync(tmp_path).changed


def test_a_line_left_with_its_mark_alone_asks_to_retract(mem: doxa.Memory, tmp_path: Path) -> None:
    mem.files.render(tmp_path)
    path = tmp_path / "bakery.md"
    path.write_text(path.read_text().replace(f"] {PAGE} <!--", "] <!--"))
    report = mem.files.sync(tmp_path)
    asked = [i for i in report.items if i.change is Change.RETRACTION_REQUESTED]
    assert [i.fact for i in asked] == [ids(mem)[PAGE]]


def test_a_copied_mark_on_a_new_line_stays_the_writers_words(
    mem: doxa.Memory, tmp_path: Path
) -> None:
    """A line without the fact's id is new words: the mark is not stripped from it (only
    the render's own mark on its own fact's line is), so nothing is relabelled."""
    mem.files.render(tmp_path)
    path = tmp_path / "bakery.md"
    path.write_text(path.read_text() + f"- [{mark(mem)}] Rye bread costs four euros\n")
    report = mem.files.sync(tmp_path)
    added = [i for i in report.items if i.change is Change.ADDED]
    assert len(added) == 1
    assert added[0].text.startswith("[quoted from")


def test_a_manifest_cannot_give_a_line_another_mark(mem: doxa.Memory, tmp_path: Path) -> None:
    """A forged mark on the owner's line would let a folder's writer make its words read as
    someone else's edit: refused, nothing applied. The control: the true manifest syncs."""
    mem.files.render(tmp_path)
    manifest = tmp_path / MANIFEST
    true = manifest.read_text()
    forged = json.loads(true)
    forged["marks"][ids(mem)[OWNERS]] = "quoted from https://evil.example/ (external)"
    manifest.write_text(json.dumps(forged))
    before = len(mem.facts())
    with pytest.raises(doxa.UnsafeFile, match="quotation mark"):
        mem.files.sync(tmp_path)
    assert len(mem.facts()) == before
    manifest.write_text(true)
    assert not mem.files.sync(tmp_path).changed


def test_the_memory_tool_shows_the_mark_on_every_view(mem: doxa.Memory) -> None:
    tool = MemoryToolHandler(mem)
    whole = tool.execute({"command": "view", "path": "/memories/bakery.md"})
    assert f"[quoted from {SOURCE} (external)" in line_of(whole, PAGE)
    assert "quoted from" not in line_of(whole, OWNERS)
    number = next(n for n, line in enumerate(whole.splitlines(), 1) if PAGE in line)
    one = tool.execute(
        {"command": "view", "path": "/memories/bakery.md", "view_range": [number, number]}
    )
    assert one.splitlines() == [line_of(whole, PAGE)]
    # editing the words behind the mark revises the words alone
    answer = tool.execute(
        {
            "command": "str_replace",
            "path": "/memories/bakery.md",
            "old_str": "opens at nine",
            "new_str": "opens at ten",
        }
    )
    assert "'The bakery opens at ten'" in answer
    assert "quoted from" not in answer


def test_the_cli_table_leads_outside_text_with_its_mark(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with doxa.Memory.open(store, scope="default") as disk:
        disk.remember(PAGE, topic="bakery", authority="external", sources=[SOURCE])
        disk.remember(OWNERS, topic="bakery", authority="owner")
    env = {"DOXA_STORE": None, "DOXA_SCOPE": None, "DOXA_KEY": None, "DOXA_SERVER": None}
    result = CliRunner().invoke(main, ["--store", str(store), "facts"], env=env)
    assert result.exit_code == 0, result.output
    assert f"[quoted from {SOURCE} (external)" in line_of(result.stdout, PAGE)
    assert "quoted from" not in line_of(result.stdout, OWNERS)


def test_the_purge_takes_an_erased_facts_mark_out_of_the_manifest(mem: doxa.Memory) -> None:
    """The mark names the fact's source; the purge scrubs it with the fact's pair. The
    control: another quoted fact's mark stays."""
    from doxa.audit.render_repos import scrub_text

    mem.remember("Rain is expected on Friday", topic="weather", authority="tool")
    manifest = mem.files.render().manifest
    assert len(manifest.marks) == 2
    page = ids(mem)[PAGE]
    scrubbed = json.loads(scrub_text(MANIFEST, manifest.to_json(), {page}))
    assert page not in scrubbed["marks"]
    assert len(scrubbed["marks"]) == 1
    every = json.loads(scrub_text(MANIFEST, manifest.to_json(), set(manifest.marks)))
    assert "marks" not in every


@pytest.mark.parametrize(
    "marks",
    [
        ["not", "a", "mapping"],
        "quoted from x",
        {"01UNKNOWNFACT": "quoted from https://evil.example/ (external)"},
        "look-alike",
        "case",
    ],
)
def test_a_malformed_or_respelled_mark_is_refused(
    mem: doxa.Memory, tmp_path: Path, marks: object
) -> None:
    """Marks that are no mapping, name a fact the store lacks, or respell the true mark
    (a Cyrillic letter, another case) are refused before anything is applied; the true
    manifest is the control."""
    mem.files.render(tmp_path)
    manifest = tmp_path / MANIFEST
    true = manifest.read_text()
    body = json.loads(true)
    page = ids(mem)[PAGE]
    if marks == "look-alike":
        marks = {page: mark(mem).replace("o", "\u043e", 1)}  # Cyrillic o
    elif marks == "case":
        marks = {page: mark(mem).upper()}
    body["marks"] = marks
    manifest.write_text(json.dumps(body))
    path = tmp_path / "bakery.md"
    path.write_text(path.read_text().replace("opens at nine", "opens at ten"))
    before = len(mem.facts())
    with pytest.raises((doxa.UnsafeFile, doxa.InvalidInput)):
        mem.files.sync(tmp_path)
    assert len(mem.facts()) == before
    manifest.write_text(true)
    assert mem.files.sync(tmp_path).changed  # the control: the true manifest applies the edit
