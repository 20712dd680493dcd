"""The memory tool answers at once and as the model sees it: bounded sizes, linear parsing,
one read of the store per command, line numbers that match, an empty create. Each attack
or fault beside its control."""

from __future__ import annotations

import pytest
from tests.timing import side_by_side

from doxa import Memory
from doxa.interfaces.memory_tool import (
    MAX_CHANGES,
    MAX_FILE_LINES,
    MAX_LINE_CHARS,
    MAX_TEXT_BYTES,
    MemoryToolHandler,
)
from doxa.memory import Files
from doxa.reads.projection import parse_lines

DRINKS = "/memories/drinks.md"


@pytest.fixture
def tool() -> MemoryToolHandler:
    memory = Memory.open(None, scope="alice")
    memory.remember("Alice prefers tea", topic="drinks", authority="owner")
    memory.remember("Alice dislikes coffee", topic="drinks", authority="owner")
    return MemoryToolHandler(memory)


@pytest.mark.parametrize(
    ("head", "piece", "tail"),
    [
        ("- x", " ", "y"),
        ("- x <!--", " ", "doxa:"),
        ("- ", "1", "x"),
        ("- x <!-- doxa:", "a", " -->"),
        ("- x", " <!--", " -->"),
    ],
)
def test_line_parsing_is_linear(head: str, piece: str, tail: str) -> None:
    """Runs of spaces, digits and id characters (what made the old marker regex quadratic:
    32k spaces took 3.5 s) cost in proportion: 16 times the text within 64 times the time
    (a quadratic parse takes 256 times)."""
    small, large = (head + piece * n + tail for n in (8_000, 128_000))
    small_time, large_time = side_by_side(
        lambda: parse_lines("a.md", small), lambda: parse_lines("a.md", large), runs=3
    )
    ratio = large_time / small_time
    assert ratio < 64, ratio


def test_the_parse_reads_what_it_rendered() -> None:
    """The control: markers, bullets and numbering are read as before."""
    [a, b, c, d] = parse_lines(
        "a.md", "- tea <!-- doxa:AB1 -->\n2) jam\n* x <!--doxa:c.d-e_f-->\n- y <!-- doxa: no -->\n"
    )
    assert (a.text, a.fact) == ("tea", "AB1")
    assert (b.text, b.fact) == ("jam", None)
    assert (c.text, c.fact) == ("x", "c.d-e_f")
    assert (d.text, d.fact) == ("y <!-- doxa: no -->", None)


def test_a_huge_view_range_answers_at_once(tool: MemoryToolHandler) -> None:
    """[1, 10**15] shows the file (the end is its last line); a start past the file and a
    reversed range are clear errors; the control shows one line."""
    shown = tool.execute({"command": "view", "path": DRINKS, "view_range": [1, 10**15]})
    assert shown.count("\n") == 1
    assert "Alice dislikes coffee" in shown
    for bad in ([10**15, 10**15], [2, 1], [0, 1], [1]):
        said = tool.execute({"command": "view", "path": DRINKS, "view_range": bad})
        assert said.startswith("Error: view_range"), said
    assert "Alice prefers tea" in tool.execute(
        {"command": "view", "path": DRINKS, "view_range": [1, 1]}
    )


def test_every_size_is_bounded(tool: MemoryToolHandler) -> None:
    """Text over the byte bound, a line over the length bound, a file over the line bound,
    more changes than the bound: each an error, nothing written; the control at each bound
    passes."""
    before = len(tool.memory.receipts())
    insert = {"command": "insert", "path": DRINKS, "insert_line": 0}
    big = {**insert, "insert_text": "- " + "x" * MAX_TEXT_BYTES}
    assert "longer than" in tool.execute(big)
    long_line = {**insert, "insert_text": "- Alice " + "a" * MAX_LINE_CHARS}
    assert f"more than {MAX_LINE_CHARS}" in tool.execute(long_line)
    many = "".join(f"- Alice note {n}\n" for n in range(MAX_FILE_LINES))
    assert f"more than {MAX_FILE_LINES}" in tool.execute({**insert, "insert_text": many})
    changes = "".join(f"- Alice likes fruit number {n}\n" for n in range(MAX_CHANGES + 1))
    assert f"more than {MAX_CHANGES}" in tool.execute({**insert, "insert_text": changes})
    assert len(tool.memory.receipts()) == before
    fits = "".join(f"- Alice likes fruit number {n}\n" for n in range(MAX_CHANGES - 2))
    said = tool.execute({**insert, "insert_text": fits})
    assert said.count("added drinks.md") == MAX_CHANGES - 2, said
    ok = tool.execute({**insert, "insert_text": "- Alice " + "a" * (MAX_LINE_CHARS - 10)})
    assert not ok.startswith("Error"), ok


def test_create_empty_then_insert(tool: MemoryToolHandler) -> None:
    """create with empty file_text makes an empty topic file that view lists and insert
    fills; the control: create with a line adds it at once."""
    made = tool.execute({"command": "create", "path": "/memories/pets.md", "file_text": ""})
    assert made.startswith("created /memories/pets.md: an empty topic file")
    assert "/memories/pets.md" in tool.execute({"command": "view", "path": "/memories"})
    assert "is empty" in tool.execute({"command": "view", "path": "/memories/pets.md"})
    again = tool.execute(
        {"command": "create", "path": "/memories/pets.md", "file_text": "# pets\n"}
    )
    assert again.startswith("created /memories/pets.md: an empty topic file")
    said = tool.execute(
        {
            "command": "insert",
            "path": "/memories/pets.md",
            "insert_line": 0,
            "insert_text": "- Alice has a cat",
        }
    )
    assert said == "added pets.md: 'Alice has a cat': admitted"
    made = tool.execute(
        {"command": "create", "path": "/memories/plants.md", "file_text": "- Alice grows basil\n"}
    )
    assert made == "added plants.md: 'Alice grows basil': admitted"


def test_line_numbers_and_inserts_land_where_asked(tool: MemoryToolHandler) -> None:
    """view numbers the lines the model sees from 1; a line inserted after line 1 is shown as
    line 2, and a revised line stays in its place, whether the revision waits for the owner
    (an agent's edit of the owner's line) or applies (the owner's own edit)."""
    shown = tool.execute({"command": "view", "path": DRINKS}).splitlines()
    assert shown[0].startswith("     1\t- Alice prefers tea")
    said = tool.execute(
        {"command": "insert", "path": DRINKS, "insert_line": 1, "insert_text": "- Alice likes mint"}
    )
    assert said.startswith("added")
    lines = tool.execute({"command": "view", "path": DRINKS}).splitlines()
    assert [line.split("\t")[1].split(" <!--")[0] for line in lines] == [
        "- Alice prefers tea",
        "- Alice likes mint",
        "- Alice dislikes coffee",
    ]
    edit = {
        "command": "str_replace",
        "path": DRINKS,
        "old_str": "Alice prefers tea",
        "new_str": "Alice prefers green tea",
    }
    assert "held for the owner" in tool.execute(edit)
    first = tool.execute({"command": "view", "path": DRINKS, "view_range": [1, 1]})
    assert "Alice prefers tea" in first  # waiting: the line as it was, where it was
    tool.memory.owner.reject(tool.memory.held()[0], reason="the owner edits it themselves")
    tool.authority = "owner"
    assert "admitted" in tool.execute(edit)
    first = tool.execute({"command": "view", "path": DRINKS, "view_range": [1, 1]})
    assert "Alice prefers green tea" in first


def test_one_read_per_command_a_concurrent_fact_is_no_deletion(
    tool: MemoryToolHandler, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An owner's fact written between the command's read and its write is not in the base
    the edit is compared with, so it is never taken for a deleted line (no retraction
    request); the control: a line the model really deletes is one."""
    memory = tool.memory
    render = Files.render

    def render_then_write(self: Files, *args: object, **kwargs: object) -> object:
        found = render(self, *args, **kwargs)  # type: ignore[arg-type]
        render_calls.append(1)
        memory.remember(f"Alice owns bike {len(render_calls)}", topic="drinks", authority="owner")
        return found

    render_calls: list[int] = []
    monkeypatch.setattr(Files, "render", render_then_write)
    said = tool.execute(
        {"command": "insert", "path": DRINKS, "insert_line": 2, "insert_text": "- Alice likes jam"}
    )
    monkeypatch.undo()
    assert said == "added drinks.md: 'Alice likes jam': admitted"
    assert render_calls == [1]
    assert not memory.held()
    coffee = next(f.id for f in memory.facts() if f.text == "Alice dislikes coffee")
    line = next(
        line
        for line in tool.execute({"command": "view", "path": DRINKS}).splitlines()
        if coffee in line
    ).split("\t", 1)[1]
    said = tool.execute(
        {"command": "str_replace", "path": DRINKS, "old_str": line + "\n", "new_str": ""}
    )
    assert "retraction requested" in said
    assert [h.targets for h in memory.held()] == [(coffee,)]
