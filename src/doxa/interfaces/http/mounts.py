"""Other protocols mounted in the server (MCP at /mcp), behind the same API keys as REST.

The server knows nothing of what it mounts: a mount is built from the scopes' memories and
answers with one ASGI app per scope and role (:class:`KeyedApps`). This module checks the
key exactly as REST does (:func:`doxa.interfaces.http.auth.bearer_key`, the configuration's
callers) and hands the request to the app of that key's scope and role; a request without a
known key gets doxa's 401 error document and never reaches the mounted app.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from doxa.interfaces.http.auth import bearer_key
from doxa.interfaces.http.config import Caller, ServerConfig
from doxa.interfaces.http.errors import Problem, error_body
from doxa.interfaces.http.origins import origin_refusal
from doxa.memory import Memory

__all__ = ["KeyedApps", "KeyedMount", "MountFactory"]


class KeyedApps(Protocol):
    """What a mount offers: one app per scope and role, and the lifespan they run in."""

    def lifespan(self) -> AbstractAsyncContextManager[None]: ...

    def app_for(self, scope: str, owner: bool) -> ASGIApp: ...


#: builds a mount from the scopes' memories (scope -> Memory) and the body limit in bytes
MountFactory = Callable[[Mapping[str, Memory], int], KeyedApps]


class KeyedMount:
    """An ASGI app that authenticates a request by its bearer key, then serves it with the
    app of the key's scope and role.

    Refused with 403 first: a ``Host`` or ``Origin`` the server does not answer
    (:mod:`doxa.interfaces.http.origins`). Refused with 401 before anything is read: no
    key, an unknown key (compared as given: another case or inner spaces is another key),
    more than one Authorization header.
    Refused with 400: any query string, since a key there would end up in logs and
    histories (the key goes in the header only, and the mounted protocols take no
    parameters in the URL).
    """

    def __init__(self, config: ServerConfig, apps: KeyedApps) -> None:
        self._config = config
        self._apps = apps

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        try:
            request = Request(scope)
            self._check_origin(request)
            caller = self._caller(request)
        except Problem as problem:
            await _problem(send, problem)
            return
        await self._apps.app_for(caller.scope, caller.is_owner)(scope, receive, send)

    def _check_origin(self, request: Request) -> None:
        """403 for a Host or Origin this server does not answer (DNS rebinding: the MCP
        transport's MUST), before the key is even read."""
        refusal = origin_refusal(
            request.headers.get("host"),
            request.headers.get("origin"),
            scheme=request.url.scheme,
            allowed_hosts=self._config.allowed_hosts,
        )
        if refusal is not None:
            raise Problem(403, "Forbidden", refusal)

    def _caller(self, request: Request) -> Caller:
        if request.url.query:
            raise Problem(
                400,
                "InvalidInput",
                "This route takes no query parameters; send the API key only as "
                "'Authorization: Bearer KEY' and leave the query string out.",
            )
        key = bearer_key(request)  # refuses several Authorization headers, as REST does
        if key is None:
            raise _unauthorized(
                "This route needs an API key: send 'Authorization: Bearer KEY' with a key "
                "from the server's configuration."
            )
        caller = self._config.caller(key)
        if caller is None:
            raise _unauthorized("The API key is not known to this server; check the key.")
        return caller


def _unauthorized(message: str) -> Problem:
    return Problem(401, "Unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


async def _problem(send: Send, problem: Problem) -> None:
    payload = json.dumps(error_body(problem.type_name, problem.message, problem.status)).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        *((k.lower().encode(), v.encode()) for k, v in problem.headers.items()),
    ]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
