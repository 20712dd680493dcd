"""What MCP over HTTP costs: the same reads through REST and through /mcp, in one server.

Run ``python bench/bench_mcp_http.py [--facts N] [--calls N]``. One in-process app (the one
``doxa serve`` builds, MCP mounted at /mcp) over a fresh in-memory store with N facts; the
same ``recall`` and ``facts`` reads go through REST and through MCP's ``tools/call``
(stateless, JSON responses) with one client, and the script prints each median latency and
the ratio MCP / REST. It also times building one scope's two MCP servers (agent and owner)
against one MCP request: the cost a server built per request would add (docs/decisions.md).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

import click
from starlette.testclient import TestClient

import doxa
from doxa.interfaces.cli.serving import mcp_mounts
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.interfaces.mcp.server import build_server
from doxa.store import open_store

KEY = "bench-agent-key-0123456789"
OWNER = "bench-owner-key-0123456789"
HEADERS = {
    "Authorization": f"Bearer {KEY}",
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
}


def _median_ms(action: Callable[[], object], count: int) -> float:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _tool_call(name: str, arguments: dict[str, object]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return json.dumps(message).encode()


@click.command()
@click.option("--facts", "count", default=200, show_default=True, help="Facts in the store.")
@click.option("--calls", default=50, show_default=True, help="Calls timed per operation.")
def main(count: int, calls: int) -> None:
    store = open_store(":memory:")
    config = ServerConfig(scopes=(ScopeKeys("bench", OWNER, (KEY,)),))
    memory = doxa.Memory(store, scope="bench")
    for i in range(count):
        memory.remember(f"Meeting {i} is in room {i % 17}", topic=f"topic{i % 5}")
    app = create_app(store, config, mounts=mcp_mounts(), rejudge_every=None)
    with TestClient(app, headers={"Authorization": f"Bearer {KEY}"}) as client:

        def rest_recall() -> None:
            assert client.get("/recall", params={"q": "meeting room"}).is_success

        def mcp_recall() -> None:
            body = _tool_call("recall", {"text": "meeting room"})
            assert client.post("/mcp", content=body, headers=HEADERS).is_success

        def rest_facts() -> None:
            assert client.get("/facts", params={"topic": "topic1"}).is_success

        def mcp_facts() -> None:
            body = _tool_call("facts", {"topic": "topic1", "limit": 1000})
            assert client.post("/mcp", content=body, headers=HEADERS).is_success

        def mcp_list() -> None:
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
            assert client.post("/mcp", content=body, headers=HEADERS).is_success

        rows = []
        for name, rest, mcp in (
            ("recall", rest_recall, mcp_recall),
            ("facts", rest_facts, mcp_facts),
        ):
            rest()
            mcp()  # warm both
            rest_ms, mcp_ms = _median_ms(rest, calls), _median_ms(mcp, calls)
            rows.append((name, rest_ms, mcp_ms))
        list_ms = _median_ms(mcp_list, calls)

    def build_both() -> None:
        build_server(memory, quiet=True)
        build_server(memory, owner=True, quiet=True)

    build_ms = _median_ms(build_both, calls)
    print(f"{count} facts, median of {calls} calls each (one in-process app, one client)")
    print(f"{'read':<8}{'REST ms':>10}{'MCP ms':>10}{'MCP/REST':>10}")
    for name, rest_ms, mcp_ms in rows:
        print(f"{name:<8}{rest_ms:>10.2f}{mcp_ms:>10.2f}{mcp_ms / rest_ms:>10.2f}")
    print(f"MCP tools/list: {list_ms:.2f} ms")
    print(
        f"building one scope's two MCP servers: {build_ms:.2f} ms = "
        f"{build_ms / list_ms:.2f} x one tools/list request (paid once at start, not per request)"
    )
    store.close()


if __name__ == "__main__":
    main()
