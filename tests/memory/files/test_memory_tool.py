"""The memory tool's six commands over a scope: every edit meets the gate; bad paths fail."""

from __future__ import annotations

import pytest

from doxa import Memory
from doxa.interfaces.memory_tool import MemoryToolHandler


@pytest.fixture
def tool() -> MemoryToolHandler:
    memory = Memory.open(None, scope="alice")
    memory.remember("Alice prefers tea", topic="drinks", authority="owner")
    memory.remember("Alice dislikes coffee", topic="drinks", authority="owner")
    return MemoryToolHandler(memory)


def test_view_lists_and_shows_numbered_lines(tool: MemoryToolHandler) -> None:
    """view of /memories lists the files; view of a file numbers its lines from the first
    fact (no heading: line 1 is what the model wrote first)."""
    listing = tool.execute({"command": "view", "path": "/memories"})
    assert "/memories/drinks.md" in listing
    assert "/memories/MEMORY.md" in listing
    shown = tool.execute({"command": "view", "path": "/memories/drinks.md", "view_range": [1, 1]})
    assert shown.startswith("     1\t- Alice prefers tea <!-- doxa:")
    assert "\n" not in shown


def test_str_replace_of_a_line_revises_it(tool: MemoryToolHandler) -> None:
    """str_replace keeps the id, so it is a revision the judge decides: with the owner's
    authority it replaces the line at once (the old one is history); an agent's edit of the
    owner's line waits for the owner, the line unchanged meanwhile (the control)."""
    edit = {
        "command": "str_replace",
        "path": "/memories/drinks.md",
        "old_str": "Alice prefers tea",
        "new_str": "Alice prefers green tea",
    }
    said = tool.execute(edit)
    assert said.startswith("revised drinks.md: 'Alice prefers green tea'")
    assert "held for the owner" in said
    assert {f.text for f in tool.memory.facts()} == {"Alice prefers tea", "Alice dislikes coffee"}
    owners = MemoryToolHandler(tool.memory, authority="owner")
    tool.memory.owner.reject(tool.memory.held()[0], reason="the owner edits it themselves")
    said = owners.execute(edit)
    assert said.startswith("revised drinks.md: 'Alice prefers green tea'")
    assert {f.text for f in tool.memory.facts()} == {
        "Alice prefers green tea",
        "Alice dislikes coffee",
    }
    twice = tool.execute(
        {
            "command": "str_replace",
            "path": "/memories/drinks.md",
            "old_str": "Alice",
            "new_str": "A",
        }
    )
    assert twice.startswith("Error: old_str occurs 2 times")  # the edited line replaced its line


def test_insert_and_create_add_facts(tool: MemoryToolHandler) -> None:
    """insert adds a line to a topic; create of a new file starts a topic."""
    said = tool.execute(
        {
            "command": "insert",
            "path": "/memories/drinks.md",
            "insert_line": 2,
            "insert_text": "- Alice likes mint tea",
        }
    )
    assert said == "added drinks.md: 'Alice likes mint tea': admitted"
    made = tool.execute(
        {"command": "create", "path": "/memories/pets.md", "file_text": "- Alice has a cat\n"}
    )
    assert made == "added pets.md: 'Alice has a cat': admitted"
    assert {f.topic for f in tool.memory.facts()} == {"drinks", "pets"}


def test_create_over_a_file_follows_the_whole_file_rule(tool: MemoryToolHandler) -> None:
    """A rewrite that drops the facts is held and the dropped facts are named."""
    said = tool.execute(
        {"command": "create", "path": "/memories/drinks.md", "file_text": "- Alice drinks tea\n"}
    )
    assert "held_rewrite" in said
    assert "drops 2 fact(s) still in memory" in said
    assert len(tool.memory.facts()) == 2
    assert len(tool.memory.held()) == 1


def test_delete_asks_the_owner_and_rename_changes_the_topic(tool: MemoryToolHandler) -> None:
    """delete holds a retraction request per fact; rename moves them (held for an agent,
    at once for the owner)."""
    said = tool.execute({"command": "delete", "path": "/memories/drinks.md"})
    assert said.count("retraction requested: held for the owner") == 2
    assert len(tool.memory.facts()) == 2
    owner = MemoryToolHandler(tool.memory, authority="owner")
    for held in tool.memory.held():
        tool.memory.owner.reject(held, reason="keep them")
    moved = owner.execute(
        {"command": "rename", "old_path": "/memories/drinks.md", "new_path": "/memories/tea.md"}
    )
    assert moved.count("moved tea.md") == 2
    assert {f.topic for f in tool.memory.facts()} == {"tea"}


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/memories/../etc/passwd",
        "/memories/..",
        "/memories/a/b.md",
        "//memories/drinks.md",
        "memories/drinks.md",
        "/memories/drinks.md\x00",
        "/memories/%2e%2e/x.md",
        "/memories%2fdrinks.md",
        "/memories\\drinks.md",
        "/memories∕drinks.md",
        "/memories／drinks.md",
        "/memories/Drinks.md",
        "/memories/drinks.txt",
        "/Memories/drinks.md",
        "",
    ],
)
def test_paths_outside_memories_are_refused(tool: MemoryToolHandler, path: str) -> None:
    """Each escape is refused before anything is read or written."""
    before = len(tool.memory.receipts())
    said = tool.execute({"command": "create", "path": path, "file_text": "- Alice is evil\n"})
    assert said.startswith("Error: ")
    assert len(tool.memory.receipts()) == before


@pytest.mark.parametrize(
    "path", ["/memories/drinks.md", "/memories/./drinks.md", "/memories//drinks.md"]
)
def test_paths_inside_memories_pass(tool: MemoryToolHandler, path: str) -> None:
    """The control: the same file, spelled as PurePosixPath normalises it, is viewed."""
    assert "Alice prefers tea" in tool.execute({"command": "view", "path": path})


def test_bad_commands_and_the_index_are_refused(tool: MemoryToolHandler) -> None:
    """An unknown command, a non-text argument, and writing the index: clear errors."""
    assert tool.execute({"command": "erase"}).startswith("Error: Unknown memory command")
    assert tool.execute({"command": "create", "path": "/memories/x.md", "file_text": 3}).startswith(
        "Error: file_text 3 is not text"
    )
    said = tool.execute({"command": "create", "path": "/memories/MEMORY.md", "file_text": "x"})
    assert "is written by the memory itself" in said
