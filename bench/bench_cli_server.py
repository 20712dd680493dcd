"""What a ``doxa`` command costs through a running server, beside the same command on a store.

Run ``python bench/bench_cli_server.py [--commands N]``. One run starts a real ``doxa serve``
on a fresh store directory and sets up a second fresh store, then runs the same ``doxa``
commands (in-process, as ``doxa`` itself runs them: each command opens its store or its
connection and closes it) against both: ``remember``, ``facts --topic``, ``history``. It
prints each command's median latency, the ratio server / store, and a write's median over the
second and the last quarter of the run on the server, which stays flat as the store grows (a
write through the server is one request, plus one read per fact it names). With matplotlib
installed it draws ``bench/cli_server.png``; without, it says so and skips the plot.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
import httpx
from click.testing import CliRunner

from doxa.interfaces.cli import main as doxa_main

KEY = "bench-owner-key-0123456789"
ENV = {name: None for name in os.environ if name.startswith("DOXA_")}


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _timed(args: list[str], key: str | None) -> tuple[float, str]:
    """One ``doxa ARGS``: milliseconds and stdout (a failure stops the benchmark)."""
    start = time.perf_counter()
    result = CliRunner().invoke(doxa_main, args, env={**ENV, "DOXA_KEY": key})
    took = (time.perf_counter() - start) * 1000
    if result.exit_code != 0:
        raise click.ClickException(f"doxa {' '.join(args)} failed: {result.output}")
    return took, result.stdout


def _series(way: list[str], key: str | None, count: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"remember": [], "facts --topic": [], "history": []}
    first = ""
    for i in range(count):
        took, out = _timed(
            [*way, "--json", "remember", f"Person {i} likes tea number {i}", "--topic", "t"], key
        )
        times["remember"].append(took)
        first = first or str(json.loads(out)["fact"])
    for _ in range(max(5, count // 5)):
        times["facts --topic"].append(_timed([*way, "facts", "--topic", "t"], key)[0])
        times["history"].append(_timed([*way, "history", first], key)[0])
    return times


def _wait(url: str) -> None:
    for _ in range(600):
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise click.ClickException("doxa serve did not start")


def _plot(rows: list[tuple[str, float, float]], path: Path) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot"
    figure, axes = plt.subplots(figsize=(6, 3))
    names = [name for name, _, _ in rows]
    places = range(len(rows))
    axes.bar([p - 0.2 for p in places], [r[1] for r in rows], 0.4, label="through the server")
    axes.bar([p + 0.2 for p in places], [r[2] for r in rows], 0.4, label="on the store")
    axes.set_xticks(list(places), names)
    axes.set_ylabel("median ms per command")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return f"plot: {path}"


@click.command()
@click.option("--commands", default=100, show_default=True, help="Writes per side.")
def main(commands: int) -> None:
    """Print median command latencies through the server and on the store, and the ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        config = root / "server.toml"
        config.write_text(f'[scopes.default]\nowner_key = "{KEY}"\n', encoding="utf-8")
        port = _port()
        command = [str(Path(sys.executable).with_name("doxa")), "serve", "--path"]
        command += [str(root / "served"), "--port", str(port), "--config", str(config)]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait(url)
            remote = _series(["--server", url], KEY, commands)
            local = _series(["--store", str(root / "local")], None, commands)
        finally:
            server.terminate()
            server.wait()
    rows = [
        (name, statistics.median(remote[name]), statistics.median(local[name])) for name in remote
    ]
    click.echo(f"{'command':<15} {'server p50 ms':>14} {'store p50 ms':>13} {'ratio':>7}")
    for name, through, direct in rows:
        click.echo(f"{name:<15} {through:>14.2f} {direct:>13.2f} {through / direct:>7.2f}")
    quarter = max(1, commands // 4)
    # the second quarter, not the first: the first commands also warm the server up
    early = statistics.median(remote["remember"][quarter : 2 * quarter])
    late = statistics.median(remote["remember"][-quarter:])
    click.echo(
        f"remember through the server: writes {quarter + 1}-{2 * quarter} p50 {early:.2f} ms, "
        f"last {quarter} p50 {late:.2f} ms (ratio {late / early:.2f})"
    )
    click.echo(_plot(rows, Path(__file__).with_name("cli_server.png")))


if __name__ == "__main__":
    main()
