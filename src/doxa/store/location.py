"""Where a store lives, written as one string: a directory, ``:memory:``, or a SPARQL server.

Every way of naming a store (the CLI's ``--store``, ``doxa serve``, :meth:`doxa.Memory.open_at`)
goes through :func:`parse_location` and :func:`open_store`, so they all accept and refuse the
same strings. A location is decided on its parsed parts (:func:`urllib.parse.urlsplit`), never
on a string prefix: ``HTTP://host/sparql`` is a server, ``ftp://host`` and ``file:///tmp/x`` are
refused rather than taken for directories, and a directory whose name starts like a URL is
written ``./name``.

A server is a SPARQL 1.1 query endpoint, with updates going to ``update_url`` when given (the
Oxigraph server: ``/query`` and ``/update``), else to the same URL (Virtuoso: ``/sparql``).
HTTP basic credentials come from ``$DOXA_STORE_USER`` and ``$DOXA_STORE_PASSWORD`` (or an
explicit ``auth``), never from the location, which command lines show to every user.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from doxa.errors import InvalidInput, StoreError
from doxa.store.base import Store
from doxa.store.embedded import EmbeddedStore
from doxa.store.intents import read_restore
from doxa.store.remote import RemoteStore, endpoint_url

__all__ = [
    "MEMORY",
    "Location",
    "is_server_url",
    "open_store",
    "parse_location",
    "store_directory",
]

#: the location of a store kept in memory (also what ``None`` means)
MEMORY = ":memory:"

_SERVER_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class Location:
    """A parsed store location: a server's endpoints, a directory, or neither (in memory)."""

    directory: Path | None = None
    query_url: str | None = None
    update_url: str | None = None

    @property
    def in_memory(self) -> bool:
        return self.directory is None and self.query_url is None


def is_server_url(location: str) -> bool:
    """Whether ``location`` is written as an HTTP(S) URL (valid or not).

    >>> is_server_url("HTTP://localhost:7878/query"), is_server_url("./http:/x")
    (True, False)
    """
    return urlsplit(location.strip()).scheme.lower() in _SERVER_SCHEMES


def parse_location(location: str | Path | None, *, update_url: str | None = None) -> Location:
    """Parse a store location; raises :class:`~doxa.InvalidInput` saying what to write instead.

    A :class:`~pathlib.Path` is always a directory; ``None`` and ``":memory:"`` keep the store
    in memory; a string is an ``http``/``https`` endpoint when its scheme says so, refused when
    it names another scheme (``ftp://``, ``file://``, ``s3:``), and a directory otherwise.
    ``update_url`` is only for a server.

    >>> parse_location("http://localhost:7878/query").query_url
    'http://localhost:7878/query'
    >>> str(parse_location("./memory").directory), parse_location(":memory:").in_memory
    ('memory', True)
    """
    found = _parse(location)
    if update_url is not None:
        if found.query_url is None:
            raise InvalidInput(
                f"An update URL ({update_url!r}) is only for a store on a SPARQL server; "
                "give the server's query URL as the store, or drop the update URL."
            )
        found = Location(query_url=found.query_url, update_url=endpoint_url(update_url))
    return found


def _parse(location: str | Path | None) -> Location:
    if location is None:
        return Location()
    if isinstance(location, Path):
        return Location(directory=store_directory(location))
    if not isinstance(location, str):
        raise InvalidInput(
            f"A store location is a string or a path, not {type(location).__name__}; "
            "give a directory, ':memory:' or an http(s) SPARQL endpoint."
        )
    if not location.strip():
        raise InvalidInput(
            "The store location is empty; give a directory, ':memory:' or an http(s) SPARQL "
            "endpoint (for example --store ./memory)."
        )
    if location != location.strip():
        raise InvalidInput(
            f"The store location {location!r} starts or ends with spaces; write it without "
            "them (quote the argument if a shell split it)."
        )
    if location == MEMORY:
        return Location()
    if location.startswith(("/", "./", "../")):  # written as a path: a directory, whatever follows
        return Location(directory=store_directory(Path(location)))
    try:
        scheme = urlsplit(location).scheme.lower()
    except ValueError:  # "http://[::1": a URL, and not a valid one; endpoint_url says why
        scheme = "http"
    if scheme in _SERVER_SCHEMES:
        return Location(query_url=endpoint_url(location))
    if len(scheme) > 1:  # one letter is a Windows drive (C:\store), not a scheme
        raise InvalidInput(
            f"The store location {location!r} is a {scheme}: URL, and doxa reaches stores only "
            "over http(s); give an http(s) SPARQL endpoint, or write a directory whose name "
            f"has a colon as ./{location}."
        )
    if "://" in unicodedata.normalize("NFKC", location):
        # a scheme spelled with look-alike or fullwidth letters ("ｈttp://", Cyrillic "р"):
        # meant for a server, it must not quietly become a directory on this machine
        raise InvalidInput(
            f"The store location {location!r} reads as a URL, but its scheme is not plain "
            "http(s) (look-alike or fullwidth characters?); write the URL in plain ASCII, or a "
            f"directory as ./{location}."
        )
    return Location(directory=store_directory(Path(location)))


def store_directory(path: Path) -> Path:
    """``path`` with ``.`` and ``..`` spelled out (``--store .`` is the current directory by
    its name): a store's side files are named after its directory (``NAME.restore``), and
    ``.`` or ``..`` has no name of its own. Links are not followed.

    >>> store_directory(Path("memory")), store_directory(Path(".")) == Path.cwd()
    (PosixPath('memory'), True)
    """
    if path.name in ("", ".", "..") or ".." in path.parts:
        return Path(os.path.abspath(path))
    return path


def open_store(
    location: str | Path | Location | None,
    *,
    update_url: str | None = None,
    auth: tuple[str, str] | httpx.Auth | None = None,
    environ: Mapping[str, str] = os.environ,
    durable: bool = True,
) -> Store:
    """Open the store ``location`` names (see :func:`parse_location`); the caller closes it.

    A directory opens (creating it if needed) an embedded store with its decision journal,
    fsynced when ``durable``; a server opens a :class:`~doxa.store.RemoteStore` with ``auth``,
    or else HTTP basic credentials from ``$DOXA_STORE_USER`` / ``$DOXA_STORE_PASSWORD`` in
    ``environ``. Raises :class:`~doxa.InvalidInput` for a location that names no store,
    :class:`~doxa.StoreLocked` when another process has the directory open.
    """
    where = (
        location
        if isinstance(location, Location)
        else parse_location(location, update_url=update_url)
    )
    if where.query_url is not None:
        if auth is None:
            user, password = environ.get("DOXA_STORE_USER"), environ.get("DOXA_STORE_PASSWORD")
            auth = (user, password or "") if user else None
        return RemoteStore(where.query_url, where.update_url, auth=auth)
    pending = read_restore(where.directory) if where.directory is not None else None
    if pending is not None:  # Memory.open_at finishes it first; a bare open must not serve it
        raise StoreError(
            f"A restore of {pending.backup} into {where.directory} was interrupted, so the "
            "store may still hold content erased since that backup; finish it with "
            f"`doxa --store {where.directory} restore {pending.backup}` (any doxa command "
            "on the store finishes it too)."
        )
    return EmbeddedStore(where.directory, durable=durable)
