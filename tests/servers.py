"""Real SPARQL servers for the remote-store tests: the Oxigraph server and Virtuoso 7.

Each is started once per test session on a free loopback port, in a temporary directory, and
stopped at the end. ``clear`` empties what the tests wrote, so every test starts from nothing.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from doxa.store import RemoteStore

#: graph IRIs the tests write; everything else on a server (Virtuoso's own graphs) is left alone
TEST_GRAPHS = ("urn:doxa:", "urn:test:", "http://example.org/")


@dataclass(frozen=True)
class Server:
    """A running SPARQL server: where to query and where to update."""

    name: str
    query_url: str
    update_url: str

    def store(self) -> RemoteStore:
        return RemoteStore(self.query_url, self.update_url)

    def clear(self) -> None:
        """Drop every graph the tests may have written.

        Listing the graphs scans every quad on Virtuoso, and a test that failed may have left
        many: the listing gets two minutes, not a store's usual 30 s."""
        store = RemoteStore(self.query_url, self.update_url, timeout=120)
        try:
            graphs = [g for g in store.graphs() if str(g).startswith(TEST_GRAPHS)]
            for start in range(0, len(graphs), 200):
                batch = graphs[start : start + 200]
                update = " ;\n".join(f"DROP SILENT GRAPH <{g}>" for g in batch)
                response = store.client.post(store.update_url, data={"update": update})
                response.raise_for_status()
        finally:
            store.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait(url: str, process: subprocess.Popen[bytes], log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped at start:\n{log.read_text(errors='replace')}")
        try:
            response = httpx.post(
                url,
                data={"query": "ASK { ?s ?p ?o }"},
                headers={"Accept": "application/sparql-results+json"},
                timeout=2,
            )
            if response.status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.2)  # not listening yet
            continue
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer within {seconds} s:\n{log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def _missing(program: str, package: str) -> None:
    message = f"{program} is not installed; install {package} (scripts/check does)"
    if os.environ.get("CI"):
        pytest.fail(message)  # CI installs it: a missing server is a broken set-up there
    pytest.skip(message)


def oxigraph_program() -> str | None:
    beside = Path(sys.executable).with_name("oxigraph")
    return str(beside) if beside.exists() else shutil.which("oxigraph")


@contextmanager
def oxigraph_server(directory: Path) -> Iterator[Server]:
    """``oxigraph serve`` (the PyPI package ``oxigraph``) on a free loopback port."""
    program = oxigraph_program()
    if program is None:
        _missing("oxigraph", "the PyPI package oxigraph (the test extra)")
    assert program is not None
    port = free_port()
    log = directory / "oxigraph.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [program, "serve", "--location", str(directory / "db"), "--bind", f"127.0.0.1:{port}"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(f"{base}/query", process, log, 30)
        yield Server("oxigraph", f"{base}/query", f"{base}/update")
    finally:
        _stop(process)


VIRTUOSO_INI = """\
[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
LockFile = {dir}/virtuoso.lck
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
MaxClientConnections = 10
CheckpointInterval = 60
NumberOfBuffers = 20000
MaxDirtyBuffers = 15000
DirsAllowed = {dir}

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {dir}
MaxClientConnections = 8
ServerThreads = 8

[SPARQL]
; Virtuoso's own default: the remote store pages results this long
ResultSetMaxRows = 10000
MaxQueryExecutionTime = 120
MaxQueryCostEstimationTime = 0
"""


@contextmanager
def virtuoso_server(directory: Path) -> Iterator[Server]:
    """Virtuoso Open Source 7 (Debian's virtuoso-opensource-7-bin) bound to loopback."""
    program, isql = shutil.which("virtuoso-t"), shutil.which("isql-vt")
    if program is None or isql is None:
        _missing("virtuoso-t", "the Debian package virtuoso-opensource-7-bin")
    assert program is not None
    assert isql is not None
    sql_port = free_port()
    http_port = free_port()
    while http_port == sql_port:
        http_port = free_port()
    ini = directory / "virtuoso.ini"
    ini.write_text(VIRTUOSO_INI.format(dir=directory, sql_port=sql_port, http_port=http_port))
    log = directory / "virtuoso.out"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [program, "-f", "+configfile", str(ini)],
            cwd=directory,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{http_port}/sparql"
    try:
        _wait(url, process, log, 90)
        # the anonymous SPARQL user may read only: let it update, as a deployment would
        subprocess.run(
            [isql, f"127.0.0.1:{sql_port}", "dba", "dba", 'exec=GRANT SPARQL_UPDATE TO "SPARQL";'],
            check=True,
            capture_output=True,
            timeout=60,
        )
        yield Server("virtuoso", url, url)
    finally:
        _stop(process)
