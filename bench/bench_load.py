"""A bounded load test of ``doxa serve`` on loopback: N clients × M mixed requests.

    python bench/bench_load.py --clients 8 --requests 1000
    python bench/bench_load.py --abuse --requests 300 --flood 4000 --exports 8

Starts a real ``doxa serve`` on an on-disk store (its fsynced journal on), then every client
(a thread with its own HTTP connection) sends a mix of gated writes (40%), recalls (30%),
fact listings (20%) and SPARQL SELECTs (10%). Prints errors, throughput, p50/p99 per kind and
the server's resident memory at the start, the middle and the end (flat means no leak).
``--check`` exits non-zero on any error: the test suite runs a short variant with it.

``--abuse`` measures something else: a second scope's gated write p99 while the server is
idle, while ``--flood`` half-sent requests are held open against it (reopened as the server
closes them), and while ``--exports`` clients of the first scope take audit exports back to
back; each printed as a ratio to idle (the target: within 2x).
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import click
import httpx

OWNER = "load-owner-key-0123456789"
KINDS = ("remember", "recall", "facts", "sparql")
WEIGHTS = (0.4, 0.3, 0.2, 0.1)
WORDS = [
    "tea",
    "coffee",
    "bakery",
    "museum",
    "train",
    "station",
    "garden",
    "river",
    "bridge",
    "concert",
    "library",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


OTHER = "load-other-owner-key-0123456789"  # a second scope's owner (the abuse phases)


def start(root: Path, clients: int) -> tuple[subprocess.Popen[bytes], str]:
    config = root / "server.toml"
    # as many SPARQL workers as clients, all for the one scope they use: past that the
    # server answers 503 Busy by design
    workers = max(4, clients)
    config.write_text(
        f"[sparql]\nmax_running = {workers}\nmax_running_per_scope = {workers}\n"
        f'[scopes.load]\nowner_key = "{OWNER}"\n'
        f'[scopes.other]\nowner_key = "{OTHER}"\n',
        encoding="utf-8",
    )
    port = free_port()
    doxa = Path(sys.executable).with_name("doxa")
    process = subprocess.Popen(
        [
            str(doxa),
            "serve",
            "--store",
            str(root / "memory"),
            "--port",
            str(port),
            "--config",
            str(config),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if not k.startswith("DOXA_")},
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("doxa serve did not start")


def client_run(
    url: str,
    index: int,
    count: int,
    timings: dict[str, list[float]],
    errors: list[str],
    lock: threading.Lock,
    reads_only: bool = False,
) -> None:
    rng = random.Random(index + (1000 if reads_only else 0))
    headers = {"Authorization": f"Bearer {OWNER}"}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
        for i in range(count):
            kind = rng.choices(KINDS, (0.0, 0.5, 0.3, 0.2) if reads_only else WEIGHTS)[0]
            word = rng.choice(WORDS)
            started = time.perf_counter()
            if kind == "remember":
                body = {
                    "text": f"client {index} note {i} about the {word}",
                    "topic": "load",
                    "authority": "agent",
                }
                response = client.post("/remember", json=body)
            elif kind == "recall":
                response = client.get("/recall", params={"q": word})
            elif kind == "facts":
                # a topic is a handful of facts (here: one client's last hundred requests)
                response = client.get("/facts", params={"topic": f"load-{index}-{i // 100}"})
            else:
                response = client.get(
                    "/sparql",
                    params={"query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"},
                    headers={"Accept": "application/sparql-results+json"},
                )
            elapsed = time.perf_counter() - started
            with lock:
                timings[kind].append(elapsed)
                if response.status_code != 200:
                    errors.append(f"{kind} {response.status_code}: {response.text[:200]}")


def writes(url: str, key: str, count: int, label: str) -> list[float]:
    """``count`` gated writes of one client of ``key``'s scope, each timed (seconds)."""
    took = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as c:
        for i in range(count):
            started = time.perf_counter()
            answer = c.post("/remember", json={"text": f"{label} note {i}", "topic": "abuse"})
            took.append(time.perf_counter() - started)
            if answer.status_code != 200:
                raise SystemExit(f"{label}: write {i} got {answer.status_code}: {answer.text}")
    return took


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000


def half_open_flood(url: str, count: int, stop: threading.Event) -> None:
    """Keep ``count`` half-sent requests open (reopening those the server closes)."""
    host, port = url.removeprefix("http://").split(":")
    socks: list[socket.socket] = []
    while not stop.is_set():
        socks = [s for s in socks if s.fileno() != -1 and not _closed(s)]
        while len(socks) < count and not stop.is_set():
            try:
                sock = socket.create_connection((host, int(port)), timeout=5)
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                sock.setblocking(False)
                socks.append(sock)
            except OSError:
                break
        stop.wait(0.5)
    for sock in socks:
        sock.close()


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def heavy_exports(url: str, count: int, stop: threading.Event) -> None:
    """``count`` clients of the load scope taking audit exports back to back."""

    def one() -> None:
        headers = {"Authorization": f"Bearer {OWNER}"}
        with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
            while not stop.is_set():
                client.get("/export", params={"audit": "true"})

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run_abuse(url: str, writes_per_phase: int, flood: int, exports: int) -> dict[str, float]:
    """Another scope's write p99 when idle, under a half-open flood, and under heavy
    exports of the load scope: measured one after another in one run."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, flood + 512)), hard))
    writes(url, OWNER, 200, "fill")  # something to export
    idle = p99(writes(url, OTHER, writes_per_phase, "idle"))
    results = {"idle_p99_ms": idle}
    for name, attack, size in (
        ("half_open", half_open_flood, flood),
        ("exports", heavy_exports, exports),
    ):
        stop = threading.Event()
        thread = threading.Thread(target=attack, args=(url, size, stop))
        thread.start()
        time.sleep(3)  # the attack in full swing
        under = p99(writes(url, OTHER, writes_per_phase, name))
        stop.set()
        thread.join()
        results[f"{name}_p99_ms"] = under
        results[f"{name}_ratio"] = under / idle
    return results


@click.command()
@click.option("--clients", default=8, show_default=True)
@click.option("--requests", "per_client", default=1000, show_default=True)
@click.option("--check", is_flag=True, help="Exit 1 on any error (for the test suite).")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Write JSON here.")
@click.option(
    "--abuse",
    is_flag=True,
    help="Instead of the mix: another scope's write p99 idle, under half-open connections "
    "(--flood) and under heavy exports (--exports), with the ratios to idle.",
)
@click.option("--flood", default=4000, show_default=True, help="Half-open connections.")
@click.option("--exports", default=8, show_default=True, help="Concurrent audit exports.")
def main(
    clients: int,
    per_client: int,
    check: bool,
    out: Path | None,
    abuse: bool,
    flood: int,
    exports: int,
) -> None:
    """Load a real doxa server and report throughput, latency and memory."""
    root = Path(tempfile.mkdtemp(prefix="doxa-load-"))
    process, url = start(root, clients)
    if abuse:
        try:
            found = run_abuse(url, per_client, flood, exports)
        finally:
            process.terminate()
            process.wait(timeout=30)
        print(f"another scope's gated write p99, {per_client} writes a phase:")
        print(f"  idle                          {found['idle_p99_ms']:8.1f} ms")
        print(
            f"  {flood} half-open connections  {found['half_open_p99_ms']:8.1f} ms  "
            f"({found['half_open_ratio']:.2f}x idle)"
        )
        print(
            f"  {exports} audit exports of a scope {found['exports_p99_ms']:8.1f} ms  "
            f"({found['exports_ratio']:.2f}x idle)"
        )
        if out is not None:
            out.write_text(json.dumps(found, indent=2))
        return
    timings: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    lock = threading.Lock()
    memory = {"start": rss_kib(process.pid)}
    threads = [
        threading.Thread(target=client_run, args=(url, i, per_client, timings, errors, lock))
        for i in range(clients)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        time.sleep(0.5)
        done = sum(len(v) for v in timings.values())
        if "middle" not in memory and done >= clients * per_client // 2:
            memory["middle"] = rss_kib(process.pid)
    wall = time.perf_counter() - started
    memory["end"] = rss_kib(process.pid)
    # steady state: the same clients read for a while; the server's memory should not grow
    readers = [
        threading.Thread(
            target=client_run,
            args=(url, i, per_client // 2, defaultdict(list), errors, lock, True),
        )
        for i in range(clients)
    ]
    for thread in readers:
        thread.start()
    for thread in readers:
        thread.join()
    memory["after_reads"] = rss_kib(process.pid)
    process.terminate()
    process.wait(timeout=30)
    total = sum(len(v) for v in timings.values())
    print(
        f"{clients} clients x {per_client} requests: {total} requests in {wall:.1f} s, "
        f"{total / wall:.0f} requests/s, {len(errors)} errors"
    )
    print(f"{'kind':<9} {'count':>6} {'p50 ms':>8} {'p99 ms':>8}")
    report: dict[str, object] = {
        "clients": clients,
        "requests": total,
        "seconds": wall,
        "errors": errors[:20],
        "memory_kib": memory,
    }
    for kind in KINDS:
        values = sorted(timings[kind])
        if not values:
            continue
        p50 = statistics.median(values) * 1000
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))] * 1000
        report[kind] = {"count": len(values), "p50_ms": p50, "p99_ms": p99}
        print(f"{kind:<9} {len(values):>6} {p50:>8.1f} {p99:>8.1f}")
    middle = memory.get("middle", memory["end"])
    print(
        f"server memory (RSS): start {memory['start'] / 1024:.0f} MiB, middle "
        f"{middle / 1024:.0f} MiB, end of the mix {memory['end'] / 1024:.0f} MiB; after "
        f"{clients * (per_client // 2)} more reads {memory['after_reads'] / 1024:.0f} MiB "
        f"(after reads / end of mix {memory['after_reads'] / max(memory['end'], 1):.2f}; "
        "flat is about 1.0)"
    )
    for line in errors[:5]:
        print("error:", line)
    if out is not None:
        out.write_text(json.dumps(report, indent=2))
    if check and errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
