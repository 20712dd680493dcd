"""The OpenAPI document: the bearer scheme, doxa's error shape and every status a route sends.

FastAPI's generated document described an API doxa does not serve: no security scheme (so
Swagger UI's "Try it out" had no Authorize button and every call was 401), a 422 body of
FastAPI's own ``{"detail": [...]}`` (doxa answers every error in its one shape,
:func:`doxa.interfaces.http.errors.error_body`), and no 401, 403, 404 or 503 at all. Here the
generated document is completed once, from the routes themselves:

- ``components.securitySchemes.apiKey``: HTTP bearer (``Authorization: Bearer KEY``), required
  by every route but the public ones (:data:`PUBLIC`). The scheme is a description for
  clients; the key is still checked by :mod:`doxa.interfaces.http.auth`, never by it;
- ``components.schemas.Error``: the error document, and every error status of every route
  refers to it;
- statuses: 401 (no or unknown key) and 403 (not the owner, a graph outside the scope) on
  keyed routes, 404 where the path names something, 400 and 422 where the route reads input,
  413 where it takes a body, 409 where a chain is verified, 503 where the store or the judge
  answers (every keyed route).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from doxa.interfaces.presentation import Match, result_schema, written
from doxa.model import Receipt

__all__ = ["ERROR_SCHEMA", "PUBLIC", "install_openapi"]

#: routes that need no key
PUBLIC = frozenset({"/health", "/"})

#: the one error document (errors.error_body), as JSON Schema
ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "message", "status"],
            "properties": {
                "type": {
                    "type": "string",
                    "description": "doxa's error class or the refusal's name "
                    "(NotFound, InvalidInput, ShapeViolation, Unauthorized, Forbidden, Busy …)",
                },
                "message": {"type": "string", "description": "what went wrong and what to do"},
                "status": {"type": "integer", "description": "the HTTP status, again"},
                "failures": {
                    "type": "array",
                    "description": "bad input: one object per failed constraint",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": ["string", "null"]},
                            "message": {"type": "string"},
                            "constraint": {"type": "string"},
                            "focus_node": {"type": ["string", "null"]},
                        },
                    },
                },
                "receipt": {"type": "object", "description": "a rejected write's receipt"},
            },
        }
    },
}

_WHY = {
    400: "The input cannot be read as given (InvalidInput).",
    401: "No API key, or not a key of this server: send 'Authorization: Bearer KEY'.",
    403: "The key may not do this (an agent key on an owner route, a graph outside the "
    "scope, a SPARQL update).",
    404: "Nothing with that id in the key's scope (NotFound).",
    409: "The receipt chain does not verify (ChainBroken).",
    413: "The body is over the server's limit.",
    422: "The body breaks the write's shapes or schema (ShapeViolation).",
    503: "The store, the judge or a query worker cannot answer now; try again.",
}
_BODY_METHODS = frozenset({"post", "put", "patch"})


def install_openapi(
    app: FastAPI, results: Mapping[tuple[str, str], Callable[..., Any]] | None = None
) -> None:
    """Make ``app.openapi()`` return the completed document (built once, then cached);
    ``results`` name what each route answers (:data:`doxa.interfaces.http.rest.RESULTS`)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                summary=app.summary,
                description=app.description,
                routes=app.routes,
            )
            app.openapi_schema = complete(document, results or {})
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def complete(
    document: dict[str, Any], results: Mapping[tuple[str, str], Callable[..., Any]]
) -> dict[str, Any]:
    """``document`` with the bearer scheme, the Error schema, every route's statuses and
    the schema of what each route of ``results`` answers."""
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for fastapi_own in ("HTTPValidationError", "ValidationError"):
        schemas.pop(fastapi_own, None)
    schemas["Error"] = ERROR_SCHEMA
    paths = document.get("paths", {})
    for (method, path), source in results.items():
        operation = paths.get(path, {}).get(method)
        if operation is not None:
            _answer(operation, source, schemas)
    components["securitySchemes"] = {
        "apiKey": {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key of this server (owner or agent); `doxa serve` prints "
            "fresh ones, or they come from its --config file.",
        }
    }
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            _statuses(path, method, operation)
    return document


def _answer(operation: dict[str, Any], source: Callable[..., Any], schemas: dict[str, Any]) -> None:
    """Set the 200 answer's schema from what ``source`` returns (the JSON form of its result;
    ``written``: a receipt with its matches)."""
    if source is written:
        schema: dict[str, Any] = {
            "allOf": [
                result_schema(Receipt, schemas),
                {
                    "type": "object",
                    "required": ["matched"],
                    "properties": {"matched": result_schema(list[Match], schemas)},
                },
            ]
        }
    else:
        schema = result_schema(typing.get_type_hints(source)["return"], schemas)
    ok = operation.setdefault("responses", {}).setdefault("200", {"description": "OK"})
    ok["content"] = {"application/json": {"schema": schema}}


def _statuses(path: str, method: str, operation: dict[str, Any]) -> None:
    keyed = path not in PUBLIC
    reads_input = bool(operation.get("parameters")) or "requestBody" in operation
    wanted: set[int] = set()
    if keyed:
        operation["security"] = [{"apiKey": []}]
        wanted |= {401, 403, 503}
    if "{" in path:
        wanted.add(404)
    if reads_input:
        wanted |= {400, 422}
    if method in _BODY_METHODS:
        wanted.add(413)
    if path.endswith("/verify") or path == "/verify":
        wanted.add(409)
    responses = operation.setdefault("responses", {})
    for status in sorted(wanted | {int(s) for s in responses if s.isdigit() and int(s) >= 400}):
        responses[str(status)] = {
            "description": _WHY.get(status, "An error, in doxa's error shape."),
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
