"""The MCP server: the agent's (and, over HTTP, the owner's) tools over the Model Context
Protocol. The only package that imports the ``mcp`` SDK, and only when a command serves MCP.

:mod:`~doxa.interfaces.mcp.server` builds the tools, :mod:`~doxa.interfaces.mcp.outputs`
holds what they answer, :mod:`~doxa.interfaces.mcp.transport` checks every request first.
"""
