"""``/sparql/editor``: a query page for the read-only endpoint, served from the package.

The page, its script and its style are files of this package (``static/``), so it works on a
machine with no network; nothing loads from a CDN. The key is typed into the page, kept in
that tab's sessionStorage, and sent only to this server's ``/sparql`` as a bearer header, so
the page needs no session of its own and is refused what the key is refused (an update gets
the endpoint's 403 ``ReadOnly``). Its Content-Security-Policy allows scripts and requests to
this server only and no inline script, and the script writes every answer with
``textContent``: a literal in the store cannot run as code on the page.
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import APIRouter
from fastapi.responses import Response

__all__ = ["FILES", "router"]

router = APIRouter(include_in_schema=False)

#: the page's files, by the name in their URL, with their media types
FILES = {
    "editor.js": "text/javascript; charset=utf-8",
    "editor.css": "text/css; charset=utf-8",
}

_HEADERS = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def _read(name: str) -> bytes:
    return (files("doxa.interfaces.http") / "static" / name).read_bytes()


@router.get("/sparql/editor")
def editor() -> Response:
    """The query page (no key needed to load it; every query sends one)."""
    return Response(_read("editor.html"), media_type="text/html; charset=utf-8", headers=_HEADERS)


@router.get("/sparql/editor/{name}")
def editor_file(name: str) -> Response:
    """The page's script or style, by exact name; any other name is 404."""
    media = FILES.get(name)
    if media is None:
        return Response(status_code=404)
    return Response(_read(name), media_type=media, headers=_HEADERS)
