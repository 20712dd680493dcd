"""``doxa serve``: run the HTTP server (uvicorn) on a store, with keys from a config file."""

from __future__ import annotations

import signal
import types
from pathlib import Path
from typing import Protocol

import click

from doxa.errors import DoxaError
from doxa.interfaces.failures import EXIT_USAGE, exit_code

__all__ = ["serve"]


class _Settings(Protocol):
    store: str
    scope: str
    update_url: str | None
    judge: str | None
    server: str | None


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
    """Serve the store over HTTP: REST API, SPARQL endpoint, review page (see docs/http.md)."""
    import uvicorn

    from doxa.interfaces.discovery import announced
    from doxa.interfaces.http.app import create_app
    from doxa.interfaces.http.config import demo_config, load_config
    from doxa.judges import configured_judge
    from doxa.reads.embeddings import EmbedConfig, OpenAIEmbedder
    from doxa.store import open_store
    from doxa.store.location import MEMORY, is_server_url

    where = path if path is not None else settings.store
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
        directory = None if where == MEMORY or is_server_url(where) else Path(where)
        config, tokens = config.with_local_owners() if directory else (config, {})
        # the judge --judge names; by default the rule judge, with an LLM fallback if
        # DOXA_LLM_* is set (as for every doxa command); chosen before the store opens, so
        # a wrong name leaves no store to close
        judge = configured_judge(name=settings.judge)
        embedding = EmbedConfig.from_env()  # recall by meaning when DOXA_EMBED_* is set
        embedder = None if embedding is None else OpenAIEmbedder(embedding)
        # a directory, :memory: or a SPARQL 1.1 server, as for every doxa command
        store = open_store(where, update_url=settings.update_url)
        app = create_app(store, config, judge=judge, owns_store=True, embedder=embedder)
    except DoxaError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(exit_code(error)) from None
    url = f"http://{host}:{port}"
    click.echo(f"doxa serves {where} at {url}")
    click.echo(f"  API docs {url}/docs   SPARQL {url}/sparql   review {url}/review")
    click.echo(f"  query page {url}/sparql/editor")
    if config_file is None:
        keys = config.scopes[0]
        click.echo(f"  scope {keys.scope!r} with fresh keys (valid until the server stops):")
        click.echo(f"    owner key  {keys.owner_key}")
        click.echo(f"    agent key  {keys.agent_keys[0]}")
    else:
        scopes = ", ".join(k.scope for k in config.scopes)
        click.echo(f"  scopes {scopes} with the keys in {config_file}")
    if directory is None:
        uvicorn.run(app, host=host, port=port, log_level="warning")
        return
    # a server listening on every address is reached locally on the loopback one
    local = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, f"[{host}]" if ":" in host else host)
    # uvicorn re-raises the SIGTERM it shut down on; as an exception, not the default action
    # (an instant death), it lets the discovery file go
    signal.signal(signal.SIGTERM, _terminated)
    with announced(directory, f"http://{local}:{port}", tokens) as found:
        click.echo(f"  `doxa --store {where} …` in another terminal goes through this server")
        click.echo(f"  (found by {found}, readable by you only)")
        uvicorn.run(app, host=host, port=port, log_level="warning")
