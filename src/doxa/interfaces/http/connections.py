"""How long a connection may take to say what it wants, and how many may wait at once.

uvicorn times out an idle keep-alive connection, but not one that is sending its request:
a client that opens a socket and sends half a request line (or a header a minute) is kept
for ever, and a few thousand of them use up the process's file descriptors, so the next
real request waits behind them (the integrity review: 300 of 300 still open after 30 s;
with 4,000 the next request took 10.4 s). :func:`guarded_protocol` is uvicorn's own h11
protocol with three limits added:

- **header deadline**: a request's line and headers must arrive within ``header_timeout``
  seconds of its first byte (of the connection, for the first request), however slowly
  they trickle; a connection that misses it is closed;
- **body stall**: while a request body is being read, ``body_timeout`` seconds without a
  byte closes the connection;
- **connection cap**: past ``max_connections`` open connections, the one that has waited
  longest without a whole request in hand (its headers still coming, or idle between
  requests) is closed to make room, those that never sent a whole request first. A client
  that sends its request promptly is served; a waiting one is dropped first, as a
  keep-alive connection may be at any time.

``doxa serve`` passes the class as uvicorn's ``http`` protocol (:data:`LIMITS` are its
defaults, docs/http.md) and raises the process's open-file limit to what the cap needs.
"""

from __future__ import annotations

import asyncio
import resource
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["LIMITS", "Limits", "guarded_protocol", "raise_open_file_limit"]


@dataclass(frozen=True)
class Limits:
    """The limits of :func:`guarded_protocol`, in seconds and connections."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 1000


#: the limits ``doxa serve`` runs with
LIMITS = Limits()


def guarded_protocol(limits: Limits = LIMITS) -> type[H11Protocol]:
    """uvicorn's h11 protocol class with ``limits`` (see the module docs)."""

    class GuardedProtocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.deadline: asyncio.TimerHandle | None = None
            self.waiting_since = 0.0  # loop time the current request's first byte came

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.waiting_since = self.loop.time()
            self._arm(limits.header_timeout)
            if len(self.connections) > limits.max_connections:
                self._make_room()

        def data_received(self, data: bytes) -> None:
            idle = self.conn.their_state is h11.IDLE and not self._in_request()
            if idle and self.deadline is None:  # the first byte of a next request
                self.waiting_since = self.loop.time()
                self._arm(limits.header_timeout)
            super().data_received(data)
            if self.conn.their_state is h11.SEND_BODY:
                self._arm(limits.body_timeout)  # each piece of a body restarts the stall
            elif self.conn.their_state is not h11.IDLE:
                self._disarm()  # the whole request is in: the app's time is its own

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def waiting(self) -> bool:
            """Whether this connection has no whole request in hand: its headers are still
            coming, or it idles between requests."""
            return self.conn.their_state is h11.IDLE and not self._in_request()

        def _in_request(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self.deadline = self.loop.call_later(seconds, self._expire)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def _expire(self) -> None:
            self.deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def _make_room(self) -> None:
            waiting = [
                c
                for c in self.connections
                if isinstance(c, GuardedProtocol)
                and c is not self
                and c.waiting()
                and not c.transport.is_closing()  # made room already: gone once the loop runs
            ]
            if waiting:
                # one that never sent a whole request goes before a client's kept-alive
                # connection between two requests: under a flood that churns thousands of
                # half-open connections a second, the oldest of them is younger than a
                # real client's pause, which was closed under it (a reset mid-session)
                oldest = min(waiting, key=lambda c: (c.cycle is not None, c.waiting_since))
                oldest._disarm()
                oldest.transport.close()

    return GuardedProtocol


def raise_open_file_limit(wanted: int) -> int:
    """Raise this process's soft open-file limit towards ``wanted`` (never past the hard
    limit, never lower); returns the limit now in force. The connection cap is only a cap
    if the process can open that many sockets and still its store's files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft
