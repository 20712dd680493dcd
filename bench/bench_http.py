"""What HTTP costs: the same writes and reads through ``doxa serve`` and through ``Memory``.

Run ``python bench/bench_http.py [--writes N]``. One run starts a real ``doxa serve`` on a
fresh on-disk store (loopback, one keep-alive client) and opens a second fresh on-disk store
in-process, then makes the same gated writes, recalls and SPARQL queries against both and
prints each operation's median latency and the ratio HTTP / in-process, measured side by side.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import click
import httpx

import doxa

EX = "http://example.org/"
KEY = "bench-owner-key-0123456789"
SPARQL = "SELECT ?t WHERE { ?c <https://w3id.org/doxa#text> ?t } LIMIT 20"


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _median_ms(action: Callable[[int], object], count: int) -> float:
    times = []
    for i in range(count):
        start = time.perf_counter()
        action(i)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _write(i: int) -> dict[str, object]:
    return {
        "text": f"Person {i} prefers drink {i % 17}",
        "topic": "drinks",
        "subject": f"{EX}person{i}",
        "predicate": f"{EX}prefers",
        "object": f"{EX}drink{i % 17}",
        "authority": "owner",
    }


@click.command()
@click.option("--writes", default=300, show_default=True, help="Gated writes per side.")
@click.option("--reads", default=200, show_default=True, help="Recalls and queries per side.")
def main(writes: int, reads: int) -> None:
    """Print median latencies over HTTP and in-process, and their ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = root / "server.toml"
        config.write_text(f'[scopes.bench]\nowner_key = "{KEY}"\n', encoding="utf-8")
        port = _port()
        command = [str(Path(sys.executable).with_name("doxa")), "serve"]
        command += ["--path", str(root / "served"), "--port", str(port), "--config", str(config)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {KEY}"}
        )
        memory = doxa.Memory.open(root / "local", scope="bench")
        try:
            for _ in range(300):
                try:
                    if client.get("/health").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            rows = [
                (
                    "gated write",
                    _median_ms(lambda i: client.post("/remember", json=_write(i)), writes),
                    _median_ms(lambda i: memory.remember(**_write(i)), writes),  # type: ignore[arg-type]
                ),
                (
                    "recall",
                    _median_ms(
                        lambda i: client.get("/recall", params={"q": f"drink {i % 17}"}), reads
                    ),
                    _median_ms(lambda i: memory.recall(f"drink {i % 17}"), reads),
                ),
                (
                    "SPARQL SELECT",
                    _median_ms(lambda i: client.get("/sparql", params={"query": SPARQL}), reads),
                    _median_ms(lambda i: memory.rdf.sparql(SPARQL), reads),
                ),
            ]
        finally:
            client.close()
            memory.close()
            server.terminate()
            server.wait()
    click.echo(f"{'operation':<15} {'HTTP p50 ms':>12} {'in-process p50 ms':>18} {'ratio':>7}")
    for name, over_http, local in rows:
        click.echo(f"{name:<15} {over_http:>12.2f} {local:>18.2f} {over_http / local:>7.2f}")


if __name__ == "__main__":
    main()
