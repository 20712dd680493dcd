"""``/docs``: the API's Swagger UI, served from the installed package, never from a CDN.

FastAPI's own ``/docs`` loads Swagger UI's script and style from jsDelivr and its favicon from
fastapi.tiangolo.com, so on a machine with no network the page stays blank. doxa serves the
same page with its three assets read from ``swagger-ui-bundle-v2`` (a maintained repackaging
of Swagger UI 5, which renders the OpenAPI 3.1 document FastAPI writes). Only the files named
in :data:`ASSETS` are served: the route never turns a request path into a file path.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response

__all__ = ["ASSETS", "router"]

router = APIRouter(include_in_schema=False)

#: the files the page loads, by the name in its URL, with their media types
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
}

_PREFIX = "/docs/assets/"

_MISSING = (
    "<!doctype html><title>doxa API docs</title><p>The API docs page needs the "
    "<code>swagger-ui-bundle-v2</code> package, which is not installed here: "
    "<code>pip install swagger-ui-bundle-v2</code>. The OpenAPI description itself is at "
    '<a href="/openapi.json">/openapi.json</a>.</p>'
)


@cache
def _vendor() -> Traversable | None:
    """The installed Swagger UI folder, or None when the bundle is not installed."""
    try:
        vendor = files("swagger_ui_bundle") / "vendor"
    except ModuleNotFoundError:
        return None
    found = sorted(
        (d for d in vendor.iterdir() if d.is_dir() and d.name.startswith("swagger-ui-")),
        key=lambda d: d.name,
    )
    return found[-1] if found else None


@router.get("/docs", response_class=HTMLResponse)
def docs() -> Response:
    """Swagger UI over ``/openapi.json``, every asset from this server."""
    if _vendor() is None:
        return HTMLResponse(_MISSING, status_code=503)
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="doxa API",
        swagger_js_url=_PREFIX + "swagger-ui-bundle.js",
        swagger_css_url=_PREFIX + "swagger-ui.css",
        swagger_favicon_url=_PREFIX + "favicon-32x32.png",
    )


@router.get("/docs/assets/{name}")
def asset(name: str) -> Response:
    """One of :data:`ASSETS`, by exact name; any other name is 404."""
    vendor = _vendor()
    media = ASSETS.get(name)
    if vendor is None or media is None:
        return Response(status_code=404)
    body = (vendor / name).read_bytes()
    return Response(body, media_type=media, headers={"Cache-Control": "public, max-age=86400"})
