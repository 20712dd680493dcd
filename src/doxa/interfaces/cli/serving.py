"""``doxa mcp``: serve the agent's tools over MCP (``doxa serve`` lives with the HTTP server)."""

from __future__ import annotations

import dataclasses

import click

from doxa.interfaces.cli.running import Settings, run

__all__ = ["mcp"]


@click.command()
@click.option("--path", metavar="DIR", help="Store directory (default: the global --store).")
@click.option("--scope", "scope_name", metavar="NAME", help="Scope (default: the global --scope).")
@click.option(
    "--files", is_flag=True, help="Also the file-shaped tools (memory_view …, docs/files.md)."
)
@click.pass_obj
def mcp(settings: Settings, path: str | None, scope_name: str | None, files: bool) -> None:
    """Serve the agent's tools over MCP (stdio), bound to one scope."""
    try:
        from doxa.interfaces.mcp_server import serve_memory  # the SDK loads for this command only
    except ImportError as error:
        raise click.ClickException(
            f"doxa mcp needs the MCP SDK ({error}); install it with: pip install 'doxa[mcp]'."
        ) from None
    bound = dataclasses.replace(
        settings,
        store=path or settings.store,
        scope=scope_name or settings.scope,
        scope_named=settings.scope_named or scope_name is not None,
    )
    run(bound, lambda memory: serve_memory(memory, files=files), local=True)
