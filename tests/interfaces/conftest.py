"""A real ``doxa serve`` process on a free loopback port, for the HTTP tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from tests.helpers import DAY_OF_WEEK

import doxa

OWNER = "alice-owner-key-0123456789"
AGENT = "alice-agent-key-0123456789"
BOB = "bob-owner-key-0123456789"


def config_text(**sparql: object) -> str:
    """A configuration with scope alice (owner and agent keys) and scope bob (owner key)."""
    settings = "".join(f"{name} = {value!r}\n" for name, value in sparql.items())
    return (
        "[server]\nmax_body_bytes = 65536\n"
        f"[sparql]\n{settings}"
        f'[scopes.alice]\nowner_key = "{OWNER}"\nagent_keys = ["{AGENT}"]\n'
        f'[scopes.bob]\nowner_key = "{BOB}"\n'
    )


@dataclass
class Server:
    """A running server: its base URL and a client per key."""

    url: str
    store: Path | str
    process: subprocess.Popen[bytes]

    def client(self, key: str | None) -> httpx.Client:
        headers = {} if key is None else {"Authorization": f"Bearer {key}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    root: Path,
    config: str,
    env: dict[str, str] | None = None,
    remote: tuple[str, str] | None = None,
    store: Path | None = None,
) -> Server:
    """Prepare a store (the example ontology loaded) and start ``doxa serve`` on it; with
    ``remote`` (query and update URLs), serve that SPARQL server instead; with ``store``,
    serve that existing store directory as it is."""
    global_options: list[str] = []
    target: Path | str
    if store is not None:
        target = store  # an existing store, served as it is
    elif remote is None:
        target = root / "memory"
        with doxa.Memory.open(target, scope="alice") as memory:
            memory.schema.add_ontology(DAY_OF_WEEK)
    else:
        target, update_url = remote
        global_options = ["--update-url", update_url]
    (root / "server.toml").write_text(config, encoding="utf-8")
    port = _free_port()
    command = [
        str(Path(sys.executable).with_name("doxa")),
        *global_options,
        "serve",
        "--path",
        str(target),
        "--port",
        str(port),
        "--config",
        str(root / "server.toml"),
    ]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DOXA_")}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**environ, **(env or {})}
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.stdout.read().decode() if process.stdout else ""
            raise AssertionError(f"doxa serve exited early:\n{output}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return Server(url, target, process)
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("doxa serve did not answer /health within 60 s")


def stop_server(server: Server) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    if server.process.stdout is not None:
        server.process.stdout.close()


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Server]]:
    """Start servers for this module (``serve(config_text(...), env={...})``); all stop at
    its end. The server's environment has no DOXA_* variables but those in ``env``."""
    started: list[Server] = []

    def start(
        config: str, env: dict[str, str] | None = None, remote: tuple[str, str] | None = None
    ) -> Server:
        server = start_server(tmp_path_factory.mktemp("server"), config, env, remote)
        started.append(server)
        return server

    yield start
    for server in started:
        stop_server(server)
