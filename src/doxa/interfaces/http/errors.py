"""One JSON error shape for every route, and doxa's errors mapped to HTTP status codes.

The statuses of doxa's errors come from the one table :mod:`doxa.interfaces.failures`
(the CLI's exit codes are in the same rows).

Every error response has this body (the CLI's ``--json`` error shape, with the HTTP status in
place of the exit code)::

    {"error": {"type": "NotFound", "message": "There is no fact ...", "status": 404}}

Bad input adds ``failures``: one object per failed constraint (``path``, ``message``,
``constraint``, ``focus_node``); a shape violation also names the rejection ``receipt``.

==========================================  ======
error                                       status
==========================================  ======
a missing or unknown API key                401
not the owner; a graph outside the scope;    403
a SPARQL update or SERVICE
:class:`~doxa.NotFound`                     404
:class:`~doxa.ShapeViolation`, a body that   422
does not fit the schema
:class:`~doxa.InvalidInput` (any other)     400
a body over the configured limit            413
:class:`~doxa.ChainBroken`                  409
:class:`~doxa.StoreError`,                  503
:class:`~doxa.JudgeUnavailable`, a query
that timed out or found no free worker
any other doxa error, or a bug             500
==========================================  ======
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from doxa.errors import DoxaError, ShapeViolation
from doxa.interfaces.failures import http_status, message_for

__all__ = ["Problem", "error_body", "install_handlers"]

_log = logging.getLogger("doxa.http")


class Problem(Exception):
    """An HTTP-level refusal (bad key, not the owner, wrong media type …) with its status.

    Interface plumbing like the CLI's ``SystemExit``: it never leaves the HTTP layer.
    """

    def __init__(
        self,
        status: int,
        type_name: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.type_name = type_name
        self.message = message
        self.headers = headers or {}


def error_body(
    type_name: str, message: str, status: int, *, failures: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """The one error document every route returns."""
    error: dict[str, Any] = {"type": type_name, "message": message, "status": status}
    if failures:
        error["failures"] = list(failures)
    return {"error": error}


def _json(body: dict[str, Any], status: int, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers)


def doxa_error_response(error: DoxaError) -> JSONResponse:
    status = http_status(error)
    body = error_body(type(error).__name__, message_for(error, "http"), status)
    if isinstance(error, ShapeViolation):
        body["error"]["failures"] = [
            {
                "focus_node": f.focus_node,
                "path": f.path,
                "message": f.message,
                "constraint": f.constraint,
            }
            for f in error.failures
        ]
        body["error"]["receipt"] = error.receipt_id
    return _json(body, status)


_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    413: "PayloadTooLarge",
    415: "UnsupportedMediaType",
}


def install_handlers(app: FastAPI) -> None:
    """Route every error through the one shape."""

    async def on_doxa(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, DoxaError)
        return doxa_error_response(error)

    async def on_problem(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, Problem)
        return _json(
            error_body(error.type_name, error.message, error.status),
            error.status,
            error.headers,
        )

    async def on_validation(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        failures = [
            {
                "focus_node": None,
                "path": ".".join(str(part) for part in item.get("loc", ())),
                "message": str(item.get("msg", "")),
                "constraint": str(item.get("type", "")),
            }
            for item in error.errors()
        ]
        listed = "; ".join(f"{f['path']}: {f['message']}" for f in failures)
        message = f"The request does not fit the schema: {listed}. Fix these and send it again."
        return _json(error_body("InvalidRequest", message, 422, failures=failures), 422)

    async def on_http(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, HTTPException)
        status = error.status_code
        name = _REASONS.get(status, "HTTPError")
        detail = error.detail if isinstance(error.detail, str) else str(error.detail)
        if status == 404:
            detail = f"There is no route {request.url.path}; see /docs for the API."
        elif status == 405:
            detail = f"{request.method} is not allowed on {request.url.path}; see /docs."
        return _json(error_body(name, detail, status), status, dict(error.headers or {}))

    async def on_anything(request: Request, error: Exception) -> JSONResponse:
        _log.error("%s %s failed", request.method, request.url.path, exc_info=error)
        message = (
            f"The server failed on this request ({type(error).__name__}); it is logged. "
            "Try again, and report it if it persists."
        )
        return _json(error_body("InternalError", message, 500), 500)

    app.add_exception_handler(Exception, on_anything)
    app.add_exception_handler(DoxaError, on_doxa)
    app.add_exception_handler(Problem, on_problem)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(HTTPException, on_http)
