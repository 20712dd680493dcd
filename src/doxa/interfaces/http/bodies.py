"""JSON request bodies read by doxa's strict parse (:func:`doxa.wire.parse_json`).

FastAPI reads a JSON body with ``json.loads``, which keeps the last of two equal keys and
passes ``NaN``; the routes of a router built with ``route_class=StrictJSONRoute`` read it with
doxa's parse instead, so a repeated key, a bare ``NaN`` or an over-deep document is a 400 in
doxa's error shape before any handler or permission check runs.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from doxa.wire import parse_json

__all__ = ["StrictJSONRoute"]


class _StrictJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = parse_json(await self.body())
        return self._json


def _json_typed(request: Request) -> bool:
    """Whether FastAPI would read this body as JSON (no type, or application/json, +json)."""
    kind = request.headers.get("content-type")
    if kind is None:
        return True
    media = kind.partition(";")[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


class StrictJSONRoute(APIRoute):
    """An API route whose JSON body is read by doxa's strict parse."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            strict_request = _StrictJSONRequest(request.scope, request.receive)
            if await strict_request.body() and _json_typed(strict_request):
                # read here, not inside FastAPI's handler (which would turn the refusal into
                # its own generic 400): InvalidInput reaches doxa's error handler
                await strict_request.json()
            return await handler(strict_request)

        return strict
