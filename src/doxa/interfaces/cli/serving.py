"""``doxa mcp`` (the agent's tools over MCP stdio) and ``doxa serve`` (the HTTP server, with
the MCP tools at /mcp).

``serve`` lives here, above both servers, because it composes them: import-linter keeps the
HTTP server and the MCP server independent, so neither can mount the other.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import logging
import signal
import socket
import types
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import click

from doxa.errors import DoxaError
from doxa.interfaces.cli.running import Settings, run_store
from doxa.interfaces.failures import EXIT_USAGE, exit_code

if TYPE_CHECKING:
    import uvicorn
    from fastapi import FastAPI

    from doxa.interfaces.http.mounts import MountFactory

__all__ = ["mcp", "mcp_mounts", "serve"]

#: where ``doxa serve`` mounts the MCP tools (Streamable HTTP)
MCP_PATH = "/mcp"

_log = logging.getLogger("doxa.server")


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
        from doxa.interfaces.mcp.server import serve_memory  # the SDK loads for this command only
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
    _refuse_a_served_store(bound)
    run_store(bound, lambda memory: serve_memory(memory, files=files), serves=True)


def _refuse_a_served_store(settings: Settings) -> None:
    """``doxa mcp`` opens the store itself; when a ``doxa serve`` holds it, say where that
    server's MCP endpoint is instead of the lock's "already open"."""
    from doxa.errors import StoreLocked
    from doxa.interfaces.cli.running import print_error
    from doxa.interfaces.discovery import Discovered, discover
    from doxa.store.location import MEMORY, is_server_url

    if settings.store == MEMORY or is_server_url(settings.store):
        return
    found = discover(Path(settings.store), settings.scope)
    if not isinstance(found, Discovered):
        return
    message = (
        f"The store {settings.store} is served by doxa serve at {found.url} (pid {found.pid}), "
        f"which serves these tools to agents at {found.url}{MCP_PATH} (MCP Streamable HTTP, "
        "with an agent key as 'Authorization: Bearer KEY'): point the MCP client there, or "
        "stop that server to run doxa mcp over stdio."
    )
    error = StoreLocked(message)
    print_error(settings, type(error).__name__, message, exit_code(error))
    raise SystemExit(exit_code(error))


class _Settings(Protocol):
    store: str
    scope: str
    update_url: str | None
    judge: str | None
    server: str | None


def mcp_mounts() -> Mapping[str, MountFactory]:
    """The MCP tools at :data:`MCP_PATH`, or nothing where the MCP SDK is not installed
    (the rest of the server runs without it; the log says how to add it)."""
    try:
        from doxa.interfaces.mcp.server import HttpTools
    except ImportError as error:
        _log.warning("no MCP at %s (%s); pip install 'doxa[mcp]' to add it", MCP_PATH, error)
        return {}
    return {MCP_PATH: lambda memories, limit: HttpTools(memories, limit=limit)}


def _terminated(signum: int, frame: types.FrameType | None) -> None:
    raise SystemExit(128 + signum)


@click.command()
@click.option(
    "--path",
    "--store",
    "path",
    metavar="DIR|URL",
    help="Store directory or SPARQL server URL (default: the global --store); ':memory:' for "
    "an in-memory store. `doxa serve --store http://host/sparql` serves a SPARQL server.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TOML file mapping API keys to scopes (default: the global --scope, fresh keys).",
)
@click.pass_obj
def serve(
    settings: _Settings, path: str | None, host: str, port: int, config_file: Path | None
) -> None:
    """Serve the store over HTTP: REST API, SPARQL endpoint, review page, MCP at /mcp (see
    docs/http.md)."""
    try:  # the server extra loads for this command only (uvicorn itself runs in _run)
        import uvicorn  # noqa: F401

        from doxa.interfaces.http.app import create_app
        from doxa.interfaces.http.config import demo_config, load_config
        from doxa.interfaces.http.origins import LOOPBACK_NAMES, is_loopback
    except ImportError as error:
        raise click.ClickException(
            f"doxa serve needs the HTTP server's packages ({error}); install them with: "
            "pip install 'doxa[server]'."
        ) from None
    from doxa.interfaces.discovery import announced
    from doxa.judges import configured_judge
    from doxa.memory import open_location
    from doxa.reads.embeddings import EmbedConfig, OpenAIEmbedder
    from doxa.store.location import MEMORY, is_server_url, parse_location, store_directory

    where = path if path is not None else settings.store
    host = bound_address(host)  # the address listened on is the one the discovery file names
    if settings.server is not None:
        click.echo(
            f"error: doxa serve opens the store itself, not the server at {settings.server}; "
            "leave out --server (and unset $DOXA_SERVER).",
            err=True,
        )
        raise SystemExit(EXIT_USAGE)
    try:
        config = load_config(config_file) if config_file else demo_config(settings.scope)
        # an embedded store is locked while this server runs: a local `doxa` command finds
        # the server through the discovery file, with a fresh owner token per scope
        directory = (
            None if where == MEMORY or is_server_url(where) else store_directory(Path(where))
        )
        config, tokens = config.with_local_owners() if directory else (config, {})
        if is_loopback(host):  # a local server answers its loopback names only
            hosts = (*config.allowed_hosts, *LOOPBACK_NAMES, host.lower().strip("[]"))
            config = dataclasses.replace(config, allowed_hosts=tuple(dict.fromkeys(hosts)))
        # the judge --judge names; by default the rule judge, with an LLM fallback if
        # DOXA_LLM_* is set (as for every doxa command); chosen before the store opens, so
        # a wrong name leaves no store to close
        judge = configured_judge(name=settings.judge)
        embedding = EmbedConfig.from_env()  # recall by meaning when DOXA_EMBED_* is set
        embedder = None if embedding is None else OpenAIEmbedder(embedding)
        # a directory, :memory: or a SPARQL 1.1 server, as for every doxa command
        # opened as every entry point opens a store: a restore a kill cut off is finished
        store = open_location(parse_location(where, update_url=settings.update_url))
        mounts = mcp_mounts()
        app = create_app(
            store, config, judge=judge, owns_store=True, embedder=embedder, mounts=mounts
        )
    except DoxaError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(exit_code(error)) from None
    url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    click.echo(f"doxa serves {where} at {url}")
    click.echo(f"  API docs {url}/docs   SPARQL {url}/sparql   review {url}/review")
    click.echo(f"  query page {url}/sparql/editor")
    if MCP_PATH in mounts:
        click.echo(f"  MCP (Streamable HTTP) {url}{MCP_PATH}")
    else:  # said once here, as the log said it: no page is promised that is not served
        click.echo("  no MCP: pip install 'doxa[mcp]' to serve it at /mcp")
    if config_file is None:
        keys = config.scopes[0]
        click.echo(f"  scope {keys.scope!r} with fresh keys (valid until the server stops):")
        click.echo(f"    owner key  {keys.owner_key}")
        click.echo(f"    agent key  {keys.agent_keys[0]}")
    else:
        scopes = ", ".join(k.scope for k in config.scopes)
        click.echo(f"  scopes {scopes} with the keys in {config_file}")
    server, listening = _listening(app, host, port)
    if directory is None:
        _run(server, listening)
        return
    # a server listening on every address is reached locally on the loopback one
    local = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, f"[{host}]" if ":" in host else host)
    # uvicorn re-raises the SIGTERM it shut down on; as an exception, not the default action
    # (an instant death), it lets the discovery file go
    signal.signal(signal.SIGTERM, _terminated)
    # announced once the socket listens: a client that finds the file is never refused
    with announced(directory, f"http://{local}:{port}", tokens) as found:
        click.echo(f"  `doxa --store {where} …` in another terminal goes through this server")
        click.echo(f"  (found by {found}, readable by you only)")
        _run(server, listening)


def bound_address(host: str) -> str:
    """The address ``--host`` names, resolved once here: an IP address or a wildcard as
    given, a name (``localhost``) as its first address. The server listens on exactly this
    address and the discovery file names it, so a client never resolves ``localhost`` to
    another address (``::1``) where another local user may listen.

    >>> bound_address("127.0.0.1"), bound_address("::1"), bound_address("0.0.0.0")
    ('127.0.0.1', '::1', '0.0.0.0')
    >>> bound_address("localhost") in ("127.0.0.1", "::1")
    True
    """
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare)
        return bare
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(bare, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return host  # uvicorn says why it cannot listen there
    return str(found[0][4][0]) if found else host


def _listening(app: FastAPI, host: str, port: int) -> tuple[uvicorn.Server, socket.socket]:
    """uvicorn with doxa's connection limits (doxa.interfaces.http.connections): a request's
    headers within 10 s, a body never stalled 30 s, at most 1,000 connections (the longest
    waiting one makes room), and the open-file limit raised to hold them.

    The socket is bound and listening when this returns, before the discovery file names it:
    a connection made from then on waits in the backlog until the server accepts it, where
    one made between the announcement and uvicorn's own bind would be refused."""
    import uvicorn

    from doxa.interfaces.http.connections import LIMITS, guarded_protocol, raise_open_file_limit

    raise_open_file_limit(LIMITS.max_connections + 1024)  # the store's own files beside them
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", http=guarded_protocol(LIMITS)
    )
    listening = config.bind_socket()  # a port in use: uvicorn logs it and exits 3
    listening.listen(_BACKLOG)
    return uvicorn.Server(config), listening


_BACKLOG = 2048  # uvicorn's own default backlog


def _run(server: uvicorn.Server, listening: socket.socket) -> None:
    """Serve until stopped; exit 3 (uvicorn's start-up failure) if it never started."""
    with listening:  # closed when the server stops, whatever stopped it
        server.run(sockets=[listening])
    if not server.started:
        raise SystemExit(3)
