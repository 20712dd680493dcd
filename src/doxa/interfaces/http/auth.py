"""API keys: ``Authorization: Bearer KEY`` names the caller's scope and role.

The server keeps one :class:`~doxa.Memory` per configured scope, all over one store; a request
only ever reaches the memory of its key's scope.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Depends, Request

from doxa.interfaces.http.config import Caller, ServerConfig
from doxa.interfaces.http.errors import Problem
from doxa.memory import Memory

__all__ = ["Bound", "Memories", "bound", "owner"]


class Memories:
    """One Memory per scope, over one shared store (and so one shared write lock)."""

    def __init__(self, memories: dict[str, Memory]) -> None:
        self._memories = memories

    def __getitem__(self, scope: str) -> Memory:
        return self._memories[scope]

    def values(self) -> list[Memory]:
        return list(self._memories.values())


@dataclass(frozen=True)
class Bound:
    """A request's caller and the memory of their scope."""

    caller: Caller
    memory: Memory


def _unauthorized(message: str) -> Problem:
    return Problem(401, "Unauthorized", message, headers={"WWW-Authenticate": "Bearer"})


def bearer_key(request: Request) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, key = header.partition(" ")
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
