"""API keys: ``Authorization: Bearer KEY`` names the caller's scope and role.

The server keeps one :class:`~doxa.Memory` per configured scope, all over one store; a request
only ever reaches the memory of its key's scope.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Depends, Request

from doxa.interfaces.http.config import Caller, ServerConfig
from doxa.interfaces.http.errors import Problem
from doxa.memory import Memory

__all__ = ["Bound", "Memories", "ReviewSessions", "bound", "owner"]


class Memories:
    """One Memory per scope, over one shared store (and so one shared write lock)."""

    def __init__(self, memories: dict[str, Memory]) -> None:
        self._memories = memories

    def __getitem__(self, scope: str) -> Memory:
        return self._memories[scope]

    def values(self) -> list[Memory]:
        return list(self._memories.values())


class ReviewSessions:
    """The review page's signed-in sessions, kept by the server so signing out ends one.

    A session is an opaque random token (256 bits) in the owner's cookie; the server keeps
    only its SHA-256 digest, the scope and the expiry, so a copied cookie stops working the
    moment its session is revoked (sign-out) or expires, and a restart signs everyone out.
    At most ``limit`` sessions are kept; past that the oldest is dropped (signed out).

    >>> sessions = ReviewSessions(seconds=60)
    >>> token = sessions.open("alice")
    >>> sessions.scope_of(token)
    'alice'
    >>> sessions.revoke(token)
    >>> sessions.scope_of(token) is None
    True
    """

    def __init__(
        self, *, seconds: int, limit: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.seconds = seconds
        self.limit = limit
        self._clock = clock
        self._lock = threading.Lock()
        self._open: dict[str, tuple[str, float]] = {}  # digest -> (scope, expiry)

    @staticmethod
    def _digest(token: str) -> str:
        return hashlib.sha256(token.encode("utf-8", errors="replace")).hexdigest()

    def open(self, scope: str) -> str:
        """A new session for ``scope``; returns the token for the cookie."""
        token = secrets.token_urlsafe(32)
        now = self._clock()
        with self._lock:
            for digest, (_, expiry) in list(self._open.items()):
                if expiry <= now:
                    del self._open[digest]
            while len(self._open) >= self.limit:
                del self._open[next(iter(self._open))]  # insertion order: the oldest first
            self._open[self._digest(token)] = (scope, now + self.seconds)
        return token

    def scope_of(self, token: str | None) -> str | None:
        """The scope of a live session, or None (unknown, revoked or expired)."""
        if not token:
            return None
        with self._lock:
            found = self._open.get(self._digest(token))
        if found is None or found[1] <= self._clock():
            return None
        return found[0]

    def revoke(self, token: str | None) -> None:
        """End a session now (idempotent): its cookie no longer signs anyone in."""
        if token:
            with self._lock:
                self._open.pop(self._digest(token), None)


@dataclass(frozen=True)
class Bound:
    """A request's caller and the memory of their scope."""

    caller: Caller
    memory: Memory


def _unauthorized(message: str) -> Problem:
    return Problem(401, "Unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


def bearer_key(request: Request) -> str | None:
    """The key of the request's one ``Authorization: Bearer KEY`` header, or None for none.

    REST, SPARQL and the mounted MCP apps all read the key here, so they refuse alike (401):
    two or more Authorization headers (which one a proxy or framework keeps differs, so
    neither is trusted), and a header that is not the scheme (any case), spaces and a key.
    Several spaces before the key are one separator, as RFC 6750's ``"Bearer" 1*SP token``
    allows; a space inside the key makes it another key.
    """
    headers = request.headers.getlist("authorization")
    if not headers:
        return None
    if len(headers) > 1:
        raise _unauthorized("Send one Authorization header with one key, not several.")
    scheme, _, key = headers[0].partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise _unauthorized(
            "The Authorization header must be 'Bearer KEY'; use a key from the server's "
            "configuration."
        )
    return key.strip()


def bound(request: Request) -> Bound:
    """The caller named by the request's key, with their scope's memory; 401 otherwise."""
    config: ServerConfig = request.app.state.config
    key = bearer_key(request)
    if key is None:
        raise _unauthorized(
            "This route needs an API key: send 'Authorization: Bearer KEY' with a key from "
            "the server's configuration."
        )
    caller = config.caller(key)
    if caller is None:
        raise _unauthorized("The API key is not known to this server; check the key.")
    memories: Memories = request.app.state.memories
    return Bound(caller, memories[caller.scope])


def owner(found: Bound = Depends(bound)) -> Bound:  # noqa: B008 (FastAPI's dependency idiom)
    """Like :func:`bound`, but only the scope's owner key passes (403 otherwise)."""
    if not found.caller.is_owner:
        raise Problem(
            403,
            "Forbidden",
            f"Only the owner of scope {found.caller.scope!r} may do this; "
            "use the scope's owner key.",
        )
    return found
