"""Interfaces: thin skins over :class:`doxa.Memory` (the CLI; later HTTP and MCP)."""
