"""How a ``doxa`` command finds the server that holds its store: one small file beside it.

``doxa serve`` on a store directory ``DIR`` writes ``DIR.server.json`` (beside the directory,
like its lock ``DIR.lock``, so nothing foreign ever sits among the database's files): the
server's URL, its pid, when it started, and for each scope it serves a fresh *local owner
token*, valid only while that server runs. The file is created ``0600`` (owner read and write
only) and replaced atomically, so a reader sees the old file or the new, never half of one;
the server removes it when it stops cleanly. A command that finds its store locked reads it
(:func:`discover`) and goes to the server instead (docs/decisions.md, "The CLI while the
server runs").

Every guard decides on parsed values: the file must be a regular file (not a link) owned by
the user running the command and readable by nobody else, hold one strict JSON object, name an
``http``/``https`` URL whose host parses as a loopback address (``127.0.0.0/8``, ``::1``, or
``localhost`` exactly), and a pid that is running and belongs to this user. Anything else is
ignored, with the reason, and the command reports the lock as before.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from doxa.errors import InvalidInput
from doxa.store.location import store_directory
from doxa.wire import parse_json

__all__ = [
    "SUFFIX",
    "Discovered",
    "Ignored",
    "announced",
    "discover",
    "discovery_file",
    "is_loopback",
    "server_url",
]

#: ``DIR`` + this names the discovery file of the store in ``DIR``
SUFFIX = ".server.json"
#: a discovery file is a few hundred bytes; a bigger one is not doxa's
_MAX_BYTES = 65_536


def discovery_file(store: Path) -> Path:
    """Where the discovery file of the store directory ``store`` lives (beside it)."""
    store = store_directory(store)
    return store.with_name(store.name + SUFFIX)


def server_url(text: str, *, loopback: bool = False) -> str:
    """``text`` as a doxa server's base URL (``http://127.0.0.1:8000``), or InvalidInput.

    Parsed, never matched: the scheme must be ``http`` or ``https``, a host must be named,
    the URL may not carry a user name or password (the key goes in ``$DOXA_KEY``), the port
    must be a number, and with ``loopback`` the host must be a loopback address.

    >>> server_url("HTTP://127.0.0.1:8000/")
    'http://127.0.0.1:8000'
    >>> server_url("http://example.org:8000", loopback=True)
    Traceback (most recent call last):
    ...
    doxa.errors.InvalidInput: The server URL 'http://example.org:8000' is not on this machine \
(a loopback address: 127.0.0.1, ::1 or localhost); pass --server to reach another host.
    """
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError as error:
        raise InvalidInput(
            f"The server URL {text!r} cannot be read ({error}); give http://HOST:PORT."
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidInput(
            f"The server URL {text!r} is not an http(s) URL with a host; give http://HOST:PORT "
            "(what `doxa serve` prints)."
        )
    if parts.username is not None or parts.password is not None:
        raise InvalidInput(
            f"The server URL {text!r} carries credentials; leave them out and put the API key "
            "in $DOXA_KEY."
        )
    if parts.query or parts.fragment:
        raise InvalidInput(
            f"The server URL {text!r} has a query or fragment; give only http://HOST:PORT."
        )
    if loopback and not is_loopback(parts.hostname):
        raise InvalidInput(
            f"The server URL {text!r} is not on this machine (a loopback address: 127.0.0.1, "
            "::1 or localhost); pass --server to reach another host."
        )
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = host if port is None else f"{host}:{port}"
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (as :func:`urllib.parse.urlsplit` gives it, lower case) is this
    machine: ``localhost`` exactly, or an IP address in a loopback range. A name that only
    looks like one (``127.0.0.1.example.org``, full-width digits) is not.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("127.0.0.1.nip.io")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Discovered:
    """A running server on this machine that holds the store, and the scope's local token."""

    url: str
    pid: int
    started: datetime
    token: str | None


@dataclass(frozen=True)
class Ignored:
    """A discovery file that was not trusted, and why (told to the user, never acted on)."""

    path: Path
    reason: str
    #: the file names a server that is no longer running (left by a ``kill -9``)
    stale: bool = False


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, readable by its owner only."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:  # mkstemp creates it 0600
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def announced(store: Path, url: str, tokens: Mapping[str, str]) -> Iterator[Path]:
    """While the block runs, ``store``'s discovery file names this process's server at
    ``url`` with ``tokens`` (scope -> local owner token); removed when the block ends, unless
    another server has replaced it since."""
    path = discovery_file(store)
    pid = os.getpid()
    document = {
        "url": server_url(url),
        "pid": pid,
        "started": datetime.now(UTC).isoformat(),
        "tokens": dict(tokens),
    }
    _write_private(path, json.dumps(document, indent=2) + "\n")
    try:
        yield path
    finally:
        with contextlib.suppress(OSError, InvalidInput):
            current = _read(path)
            if isinstance(current, dict) and current.get("pid") == pid:
                path.unlink()


def _read(path: Path) -> object:
    """The file's JSON, read through a descriptor that refuses links; OSError or
    InvalidInput when it is not a private regular file of this user."""
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(handle, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInput("it is not a regular file")
        if info.st_uid != os.getuid():
            raise InvalidInput("it belongs to another user")
        if info.st_mode & 0o077:
            raise InvalidInput("others may read or write it (it must be 0600)")
        data = file.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        raise InvalidInput("it is too large to be a discovery file")
    return parse_json(data)


def _not_running(path: Path, pid: int) -> Ignored | None:
    """None when ``pid`` runs as this user, else why it cannot be this user's server."""
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists and is ours
    except ProcessLookupError:
        return Ignored(path, f"its server (pid {pid}) is not running", stale=True)
    except PermissionError:
        return Ignored(path, f"its pid {pid} belongs to another user")
    return None


def discover(store: Path, scope: str) -> Discovered | Ignored | None:
    """The server named by ``store``'s discovery file, with ``scope``'s local token; an
    :class:`Ignored` saying why the file is not trusted; None when there is no file."""
    path = discovery_file(store)
    try:
        document = _read(path)
    except FileNotFoundError:
        return None
    except OSError as error:  # ELOOP: a symbolic link; EACCES …
        reason = "it is a symbolic link" if path.is_symlink() else f"it cannot be read ({error})"
        return Ignored(path, reason)
    except InvalidInput as error:
        return Ignored(path, str(error))
    if not isinstance(document, dict):
        return Ignored(path, "it does not hold a JSON object")
    url, pid, started, tokens = (document.get(k) for k in ("url", "pid", "started", "tokens"))
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return Ignored(path, "it names no valid pid")
    if not isinstance(url, str) or not isinstance(started, str) or not isinstance(tokens, dict):
        return Ignored(path, "it lacks the url, started or tokens fields")
    try:
        url = server_url(url, loopback=True)
        when = datetime.fromisoformat(started)
    except (InvalidInput, ValueError) as error:
        return Ignored(path, str(error))
    dead = _not_running(path, pid)
    if dead is not None:
        return dead
    token = tokens.get(scope)
    return Discovered(url, pid, when, token if isinstance(token, str) else None)
