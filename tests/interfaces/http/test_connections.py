"""Half-sent requests cannot hold the server (doxa.interfaces.http.connections).

A real uvicorn server on loopback, run with the guarded protocol and short limits, and raw
sockets that send half a request (slowloris), a body that stalls, or nothing at all. Each
attack sits beside its control: the same server, the same moment, a whole request that is
answered; and uvicorn's own protocol, which keeps the half-sent request open.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import uvicorn
from tests.interfaces.conftest import Server, config_text
from uvicorn.protocols.http.h11_impl import H11Protocol

from doxa.interfaces.http.connections import (
    LIMITS,
    Limits,
    guarded_protocol,
    raise_open_file_limit,
)

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


async def app(scope: dict[str, Any], receive: Receive, send: Send) -> None:
    """Echoes the body's length: enough to tell a whole request from a half one."""
    if scope["type"] != "http":
        return
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    await answer(send, str(size).encode())


async def answer(send: Send, body: bytes) -> None:
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@contextmanager
def serving(protocol: type[H11Protocol], application: Any = app) -> Iterator[int]:
    """A uvicorn server on a free loopback port with ``protocol``, stopped afterwards."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = uvicorn.Config(
        application, host="127.0.0.1", port=port, http=protocol, log_level="error"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


OPENED: list[socket.socket] = []


@pytest.fixture(autouse=True)
def close_sockets() -> Iterator[None]:
    """Every socket a test opened is closed when it ends, whether it passed or not."""
    yield
    while OPENED:
        OPENED.pop().close()


def half_open(port: int, data: bytes = b"GET / HTTP/1.1\r\nHost: x\r\n") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    OPENED.append(sock)
    if data:
        sock.sendall(data)
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (reads EOF or a reset)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(1024):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def whole_request(port: int, body: bytes = b"") -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        head = f"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n"
        sock.sendall(head.encode() + b"Connection: close\r\n\r\n" + body)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    return answer


def read_answer(sock: socket.socket) -> bytes:
    """One response read whole by its Content-Length (the connection stays open)."""
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(4096)
    head, _, body = answer.partition(b"\r\n\r\n")
    length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    while len(body) < length:
        body += sock.recv(4096)
    return head + b"\r\n\r\n" + body


SHORT = Limits(header_timeout=0.5, body_timeout=0.5, max_connections=20)


def test_a_half_sent_request_is_closed_at_the_header_deadline() -> None:
    """Half a request is closed after the header deadline; a whole one beside it is
    answered. Control: uvicorn's own protocol still holds the half request open."""
    with serving(guarded_protocol(SHORT)) as port:
        sock = half_open(port)
        assert whole_request(port, b"abc").endswith(b"3")
        assert closed_within(sock, 3)
        sock.close()
    with serving(H11Protocol) as port:
        sock = half_open(port)
        assert not closed_within(sock, 1.0)
        sock.close()


def test_a_trickle_of_headers_does_not_extend_the_deadline() -> None:
    """The deadline runs from the first byte: a header line every 0.2 s (each within the
    deadline) is still closed once the whole took longer than 0.5 s."""
    with serving(guarded_protocol(SHORT)) as port:
        sock = half_open(port, b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        closed = False
        for n in range(20):
            time.sleep(0.2)
            try:
                sock.sendall(f"X-Slow-{n}: 1\r\n".encode())
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
        assert closed or closed_within(sock, 1)
        assert time.monotonic() - started < 3
        sock.close()


def test_a_stalled_body_is_closed_and_a_slow_steady_one_is_read() -> None:
    """A body that stops arriving is closed after the stall; one whose pieces come within
    the stall limit is read whole (the control)."""
    with serving(guarded_protocol(SHORT)) as port:
        stalled = half_open(port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
        assert closed_within(stalled, 3)
        stalled.close()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as steady:
            steady.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n")
            for piece in (b"ab", b"cd", b"ef"):
                time.sleep(0.2)
                steady.sendall(piece)
            assert read_answer(steady).endswith(b"6")


def test_a_slow_app_is_not_cut_off() -> None:
    """Once the request is in, the app's time is its own: the deadline is disarmed (a
    response after 1 s, twice the header deadline, arrives)."""

    async def slow(scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        await receive()
        await asyncio.sleep(1.0)
        await answer(send, b"late")

    with serving(guarded_protocol(SHORT), slow) as port:
        assert whole_request(port).endswith(b"late")


def test_past_the_cap_the_longest_waiting_connection_makes_room() -> None:
    """With the cap's worth of silent connections open, a new client's whole request is
    still answered, and the oldest silent connection is the one closed."""
    limits = Limits(header_timeout=30, body_timeout=30, max_connections=20)
    with serving(guarded_protocol(limits)) as port:
        silent = [half_open(port, b"") for _ in range(20)]
        time.sleep(0.2)
        assert whole_request(port, b"hello").endswith(b"5")
        assert closed_within(silent[0], 2)
        assert not closed_within(silent[-1], 0.3)
        for sock in silent:
            sock.close()


@pytest.mark.parametrize("count", [200])
def test_many_half_open_connections_leave_the_server_answering(count: int) -> None:
    """Hundreds of half-sent requests (more than the cap): a whole request is answered at
    once, and every half-sent one is closed by its deadline."""
    raise_open_file_limit(4 * count)
    limits = Limits(header_timeout=1.0, body_timeout=1.0, max_connections=count // 2)
    with serving(guarded_protocol(limits)) as port:
        socks = [half_open(port) for _ in range(count)]
        started = time.monotonic()
        assert whole_request(port, b"x").endswith(b"1")
        assert time.monotonic() - started < 2
        assert all(closed_within(sock, 3) for sock in socks)
        for sock in socks:
            sock.close()


def test_the_open_file_limit_is_raised_never_lowered() -> None:
    """The limit is raised toward what is asked, and asking for less changes nothing."""
    now = raise_open_file_limit(1)
    assert raise_open_file_limit(now) == now
    assert raise_open_file_limit(now + 1) >= now


@pytest.mark.slow
def test_doxa_serve_closes_half_sent_requests_and_keeps_answering(
    serve: Callable[..., Server],
) -> None:
    """The real ``doxa serve`` runs with the limits: 50 half-sent requests do not slow
    /health, and each is closed by the 10-second header deadline."""
    server = serve(config_text())
    port = int(server.url.rsplit(":", 1)[1])
    socks = [half_open(port) for _ in range(50)]
    started = time.monotonic()
    assert httpx.get(f"{server.url}/health", timeout=5).status_code == 200
    assert time.monotonic() - started < 2
    assert all(closed_within(sock, LIMITS.header_timeout + 5) for sock in socks)
    assert httpx.get(f"{server.url}/health", timeout=5).status_code == 200


def test_a_served_keep_alive_connection_outlives_younger_half_open_ones() -> None:
    """A client's kept-alive connection, idle between two requests, is not the one closed to
    make room while connections that never sent a whole request are open, even younger
    ones (a churning flood); it answers its next request. Once only served connections
    wait, the oldest of them makes room (control)."""
    limits = Limits(header_timeout=30, body_timeout=30, max_connections=10)
    with serving(guarded_protocol(limits)) as port:
        client = socket.create_connection(("127.0.0.1", port), timeout=5)
        OPENED.append(client)
        request = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
        client.sendall(request)
        assert read_answer(client).endswith(b"2")
        time.sleep(0.2)  # now the oldest waiting connection of all
        flood = [half_open(port, b"") for _ in range(15)]  # past the cap: room is made
        time.sleep(0.2)
        client.sendall(request)
        assert read_answer(client).endswith(b"2")  # still open: the flood made room
        closed = [closed_within(sock, 0.3) for sock in flood]
        assert sum(closed) >= 5, closed
        others = []
        for _ in range(10):  # the control: served connections only, past the cap
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            OPENED.append(sock)
            sock.sendall(request)
            assert read_answer(sock).endswith(b"2")
            others.append(sock)
        assert closed_within(client, 2) or any(closed_within(s, 0.3) for s in others)
