"""Which Host and Origin a mounted protocol (MCP at /mcp) answers: DNS rebinding defence.

The MCP transport says a server MUST validate ``Origin`` and answer 403 to a bad one: a web
page on ``evil.example`` whose name an attacker re-points at 127.0.0.1 would otherwise reach
a local server from the user's browser. Both headers are parsed (``urllib``'s reading of
``host[:port]`` and ``scheme://host[:port]``), and the parsed, lower-cased host names are
compared, never the raw strings: a trailing dot, a look-alike letter, a user part or a port
glued to another name is another host.

- A server with ``allowed_hosts`` (``doxa serve`` on a loopback address gets the loopback
  names; a configuration's ``[server] allowed_hosts`` adds public names) answers only a
  ``Host`` among them, and only an ``Origin`` whose host is among them.
- A server with none (listening on every address, nothing configured) answers any ``Host``,
  and an ``Origin`` only when it is the request's own origin (same host and port).
- A request without ``Origin`` (every non-browser client) is judged by its ``Host`` alone.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from ipaddress import ip_address
from urllib.parse import urlsplit

__all__ = ["LOOPBACK_NAMES", "is_loopback", "origin_refusal"]

#: the names a loopback-bound server answers to
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class _Place:
    host: str
    port: int | None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as ``--host`` names it) is a loopback address or ``localhost``.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host.lower() == "localhost":
        return True
    try:
        return ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _parse(value: str, *, origin: bool) -> _Place | None:
    """The host (lower case, no brackets) and port of ``host[:port]``, or of an origin
    ``scheme://host[:port]`` (``origin``); None when it is not one."""
    if not value or any(c.isspace() for c in value):
        return None
    if not origin and any(c in value for c in "/?#@\\"):
        return None
    try:
        parts = urlsplit(value if origin else f"//{value}")
        port = parts.port
    except ValueError:
        return None
    if parts.username is not None or not parts.hostname:
        return None
    if parts.path or parts.query or parts.fragment:
        return None
    if origin and parts.scheme not in _DEFAULT_PORTS:
        return None
    return _Place(parts.hostname, port if port is not None else _DEFAULT_PORTS.get(parts.scheme))


def origin_refusal(
    host: str | None, origin: str | None, *, scheme: str, allowed_hosts: Collection[str]
) -> str | None:
    """Why a request sent to ``host`` from ``origin`` is refused, or None to answer it.

    >>> origin_refusal("127.0.0.1:8765", None, scheme="http", allowed_hosts=LOOPBACK_NAMES)
    >>> origin_refusal("evil.example:8765", None, scheme="http", allowed_hosts=LOOPBACK_NAMES)[:40]
    "Host 'evil.example' is not a name this s"
    """
    allowed = {name.lower().strip("[]") for name in allowed_hosts}
    place = _parse(host or "", origin=False)
    if place is None:
        return "The request has no readable Host header; send the server's own host:port."
    if place.port is None:
        place = _Place(place.host, _DEFAULT_PORTS.get(scheme))
    if allowed and place.host not in allowed:
        return (
            f"Host {place.host!r} is not a name this server answers to; use one of "
            f"{', '.join(sorted(allowed))}, or add it to [server] allowed_hosts."
        )
    if origin is None:
        return None
    source = _parse(origin, origin=True)
    if source is None:
        return (
            f"Origin {origin[:80]!r} is not an origin this server answers; call it from a "
            "page of the server's own origin, or from a client that sends no Origin."
        )
    if (source.host in allowed) if allowed else (source == place):
        return None
    return (
        f"Origin {origin[:80]!r} is not allowed: a page of another site may not call this "
        "server; add its host to [server] allowed_hosts if it should."
    )
