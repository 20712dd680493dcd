"""The app factory: one FastAPI app over one store, one :class:`doxa.Memory` per scope.

The app holds no state of its own: the memories (and so the store) are its only state, built
here from the configuration and closed when the app shuts down if it opened the store.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import secrets
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from doxa import __version__
from doxa.clock import Clock
from doxa.errors import DoxaError
from doxa.interfaces.http import apidocs, editor, rest, review, sparql
from doxa.interfaces.http.auth import Memories, ReviewSessions
from doxa.interfaces.http.checker import QueryChecker
from doxa.interfaces.http.config import ServerConfig
from doxa.interfaces.http.errors import error_body, install_handlers
from doxa.interfaces.http.mounts import KeyedMount, MountFactory
from doxa.interfaces.http.openapi import install_openapi
from doxa.interfaces.http.runner import QueryRunner
from doxa.judges import Judge
from doxa.memory import Memory
from doxa.reads.embeddings import Embedder
from doxa.store import Dataset, Store

__all__ = ["create_app"]


class _BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, counted as they arrive."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        # read the whole body first (at most limit bytes), then hand it on
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        message = (
            f"The request body is larger than this server's limit of {self.limit} bytes; "
            "send less per request (the limit is max_body_bytes in the server configuration)."
        )
        payload = json.dumps(error_body("PayloadTooLarge", message, 413)).encode("utf-8")
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


logger = logging.getLogger("doxa.server")
#: how long an export, a verification or an audit may run before its request gets 503
HEAVY_SECONDS = 3600.0


def create_app(
    store: Store,
    config: ServerConfig,
    *,
    clock: Clock | None = None,
    judge: Judge | None = None,
    owns_store: bool = False,
    secret: bytes | None = None,
    rejudge_every: float | None = 30.0,
    embedder: Embedder | None = None,
    mounts: Mapping[str, MountFactory] | None = None,
) -> FastAPI:
    """A FastAPI app serving ``store`` to the keys in ``config``.

    ``judge`` judges every scope's writes (default: the rule judge); ``owns_store`` closes the
    store when the app shuts down; ``secret`` signs the review page's CSRF tokens (random per
    app by default); its sessions live in the app, so a restart signs everyone out. Every
    ``rejudge_every`` seconds the server judges again the writes a judge that was down left
    ``unchecked`` (recovery without the owner having to ask; None turns it off).
    ``embedder`` gives every scope recall by meaning (None: words only). ``mounts`` (path ->
    factory) serves other protocols behind the same keys (``doxa serve`` mounts MCP at
    ``/mcp``: :mod:`doxa.interfaces.http.mounts`).
    """
    memories = Memories(
        {
            keys.scope: Memory(store, scope=keys.scope, clock=clock, judge=judge, embedder=embedder)
            for keys in config.scopes
        }
    )

    async def rejudge_loop(every: float) -> None:
        while True:
            await asyncio.sleep(every)
            for memory in memories.values():
                if memory.owner.unchecked():
                    try:
                        await asyncio.to_thread(memory.owner.rejudge)
                    except DoxaError:
                        logger.exception("judging unchecked writes again failed; will retry")

    # a warm worker for every query that may run at once: none waits for one to start
    checker = QueryChecker(keep=config.sparql_max_running)
    by_scope = {keys.scope: memories[keys.scope] for keys in config.scopes}
    limit = config.max_body_bytes
    mounted = {path: build(by_scope, limit) for path, build in (mounts or {}).items()}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(rejudge_loop(rejudge_every)) if rejudge_every else None
        checker.start()
        try:
            async with AsyncExitStack() as stack:
                for keyed in mounted.values():
                    await stack.enter_async_context(keyed.lifespan())
                yield
        finally:
            checker.close()
            if task is not None:
                task.cancel()
            if owns_store:
                store.close()

    app = FastAPI(
        title="doxa",
        version=__version__,
        summary="An agent memory you can trust: gated writes, scoped reads, SPARQL, review.",
        lifespan=lifespan,
        # /docs is served offline by apidocs; ReDoc would load its script from a CDN
        docs_url=None,
        redoc_url=None,
    )
    app.state.config = config
    app.state.memories = memories
    app.state.runner = QueryRunner(
        timeout=config.sparql_timeout,
        max_running=config.sparql_max_running,
        max_running_per_scope=config.sparql_max_running_per_scope,
    )
    # exports, verifications and audits read a whole scope: one scope runs one at a time
    # and the server two, so one scope's heavy requests cannot starve the others' writes
    app.state.heavy = QueryRunner(
        timeout=HEAVY_SECONDS,
        max_running=2,
        max_running_per_scope=1,
        workers="heavy workers",
        advice="(exports, verifications, audits; each runs until it ends); try again shortly.",
    )
    app.state.checker = checker
    app.state.secret = secret or secrets.token_bytes(32)
    app.state.sessions = ReviewSessions(seconds=review.SESSION_SECONDS)
    install_handlers(app)

    @app.get("/", include_in_schema=False, response_model=None)
    def landing(request: Request) -> HTMLResponse | JSONResponse:
        """Where a person who opens the server's address lands: its pages, linked. A client
        that asks for JSON gets the same links as an index."""
        links = landing_links(mcp=bool(mounted))
        if _wants_json(request.headers.get("accept", "")):
            return JSONResponse({"name": "doxa", "version": __version__, "links": links})
        return HTMLResponse(landing_page(links))

    @app.get("/health", tags=["server"])
    def health() -> dict[str, Any]:
        """Whether the server is up and its store answers (no key needed)."""
        store.select("SELECT * WHERE { }", dataset=Dataset(default=()))
        return {"status": "ok", "version": __version__, "scopes": len(config.scopes)}

    app.include_router(rest.router)
    app.include_router(sparql.router)
    app.include_router(review.router)
    app.include_router(apidocs.router)
    app.include_router(editor.router)
    for path, keyed in mounted.items():
        # a route, not a Starlette mount: /mcp itself is the endpoint (no redirect to /mcp/)
        app.router.routes.append(Route(path, KeyedMount(config, keyed), include_in_schema=False))
    app.add_middleware(_BodyLimit, limit=config.max_body_bytes)
    install_openapi(app, rest.RESULTS)
    return app


def landing_links(*, mcp: bool) -> dict[str, str]:
    """The server's pages, by what a person would look for."""
    links = {
        "review": "/review",
        "sparql_editor": "/sparql/editor",
        "sparql": "/sparql",
        "api_docs": "/docs",
        "openapi": "/openapi.json",
        "health": "/health",
    }
    if mcp:
        links["mcp"] = "/mcp"
    return links


_LABELS = {
    "review": "Review page — the owner decides on held writes, alarms and quarantine",
    "sparql_editor": "SPARQL query page",
    "sparql": "SPARQL endpoint (read-only, SPARQL 1.1 Protocol)",
    "api_docs": "API docs (Swagger UI: Authorize with a key, then try any route)",
    "openapi": "OpenAPI description",
    "health": "Health",
    "mcp": "MCP (Streamable HTTP) for agents",
}


def landing_page(links: dict[str, str]) -> str:
    """A small page with no outside assets: it works offline, on a phone as on a desktop."""
    items = "".join(
        f'<li><a href="{href}">{html.escape(_LABELS[name])}</a> <code>{href}</code></li>'
        for name, href in links.items()
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>doxa {html.escape(__version__)}</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;"
        "padding:0 1rem}li{margin:.4rem 0}code{color:#555;font-size:.85em}</style></head>"
        f"<body><h1>doxa</h1><p>An agent memory you can trust. Version "
        f"{html.escape(__version__)}. Every page but this one and /health needs a key.</p>"
        f"<ul>{items}</ul></body></html>"
    )


def _wants_json(accept: str) -> bool:
    """Whether the Accept header prefers JSON to HTML (a browser sends text/html first)."""
    kinds = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    for kind in kinds:
        if kind in ("text/html", "application/xhtml+xml"):
            return False
        if kind == "application/json":
            return True
    return False
