"""The backend as the Anthropic SDK's memory tool: its runner's call shape reaches the gate."""

from __future__ import annotations

import pytest

from doxa import Memory
from doxa.interfaces.anthropic_memory import anthropic_memory_tool

tools = pytest.importorskip("anthropic.lib.tools")


def test_sdk_tool_runs_the_commands_through_the_gate() -> None:
    """The SDK's own dispatch (``call`` with the tool input) writes through the gate; a bad
    path is the SDK's ToolError, and nothing is written."""
    memory = Memory.open(None, scope="alice")
    tool = anthropic_memory_tool(memory)
    assert isinstance(tool, tools.BetaAbstractMemoryTool)
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    said = tool.call(
        {"command": "create", "path": "/memories/drinks.md", "file_text": "- Alice likes tea\n"}
    )
    assert said == "added drinks.md: 'Alice likes tea': admitted"
    assert "Alice likes tea" in tool.call({"command": "view", "path": "/memories/drinks.md"})
    before = len(memory.receipts())
    with pytest.raises(tools.ToolError):
        tool.call({"command": "create", "path": "/memories/../x.md", "file_text": "- x\n"})
    assert len(memory.receipts()) == before
