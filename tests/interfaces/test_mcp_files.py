"""The file-shaped MCP tools (`doxa mcp --files`): the memory tool over MCP, off by default."""

from __future__ import annotations

import anyio
import pytest

from doxa import Memory

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from doxa.interfaces.mcp.server import AGENT_TOOLS, FILE_TOOLS, build_server  # noqa: E402


def test_file_tools_are_opt_in_and_reach_the_gate() -> None:
    """Without files: the agent's table only (the control); with files: view, create and a
    refused path, each answered as the handler answers."""
    memory = Memory.open(None, scope="alice")

    async def body() -> None:
        async with Client(build_server(memory)) as plain:
            names = {t.name for t in (await plain.list_tools()).tools}
            assert names == set(AGENT_TOOLS)
        async with Client(build_server(memory, files=True)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == set(AGENT_TOOLS) | set(FILE_TOOLS)
            made = await client.call_tool(
                "memory_create", {"path": "/memories/drinks.md", "file_text": "- Alice likes tea\n"}
            )
            assert not made.is_error
            assert made.content[0].text == "added drinks.md: 'Alice likes tea': admitted"  # type: ignore[union-attr]
            shown = await client.call_tool("memory_view", {"path": "/memories/drinks.md"})
            assert "Alice likes tea" in shown.content[0].text  # type: ignore[union-attr]
            bad = await client.call_tool(
                "memory_create", {"path": "/memories/../etc/x.md", "file_text": "- x\n"}
            )
            assert bad.is_error
            assert "outside /memories" in bad.content[0].text  # type: ignore[union-attr]

    anyio.run(body)
    assert [f.text for f in memory.facts()] == ["Alice likes tea"]
