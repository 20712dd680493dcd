"""The server under stress: concurrent HTTP clients on one topic, and SIGKILL mid-write."""

from __future__ import annotations

import os
import random
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from tests.helpers import EX
from tests.interfaces.conftest import OWNER, Server, config_text, start_server, stop_server

import doxa

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def move(day: str, month: int, minute: int) -> dict[str, Any]:
    return {
        "text": f"the call moves to {day}",
        "topic": "meetings",
        "kind": "schedule",
        "subject": EX + "call",
        "predicate": EX + "dayOfWeek",
        "object": EX + day,
        "authority": "owner",
        "valid_from": f"2026-{month:02d}-01T00:{minute:02d}:00Z",
    }


def test_concurrent_clients_never_leave_two_live_values(
    serve: Callable[[str], Server],
) -> None:
    server = serve(config_text())
    with server.client(OWNER) as owner:
        assert owner.post("/kinds/schedule/grant", json={}).status_code == 200
    outcomes: list[str] = []
    errors: list[str] = []

    def writer(index: int) -> None:
        with server.client(OWNER) as client:
            for round_ in range(8):
                body = move(DAYS[(index + round_) % 7], 1 + round_, index)
                response = client.post("/remember", json=body)
                if response.status_code != 200:
                    errors.append(response.text)
                else:
                    outcomes.append(response.json()["outcome"])

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(outcomes) == 48
    with server.client(OWNER) as owner:
        live = owner.get("/facts", params={"valid_at": "2027-01-01"}).json()
        assert len(live) == 1  # one functional value, whatever the interleaving
        receipts = owner.get("/receipts").json()
        assert len(receipts) == 48 + 1  # every write and the grant, none lost
        assert owner.get("/verify").status_code == 200


WRITES = 400


def test_sigkill_mid_writes_loses_nothing_acknowledged(tmp_path: Path) -> None:
    """The server is killed at random moments while a client writes; after each kill the store
    reopens with every acknowledged receipt, a verifying chain and no partial decision."""
    rng = random.Random(7)
    store = tmp_path / "memory"
    acknowledged: list[str] = []
    for round_ in range(4):
        root = tmp_path / f"round-{round_}"
        root.mkdir()
        server = start_server(root, config_text(), store=store if round_ else None)
        if not round_:
            store = Path(server.store)
        stop = threading.Event()
        # the kill comes after a drawn number of acknowledged writes, not after a drawn time:
        # on a loaded machine a time could pass before any write is answered
        enough = threading.Event()
        kill_after = len(acknowledged) + rng.randint(3, 12)

        def write(
            server: Server = server,
            round_: int = round_,
            stop: threading.Event = stop,
            enough: threading.Event = enough,
            kill_after: int = kill_after,
        ) -> None:
            with server.client(OWNER) as client:
                for i in range(WRITES):
                    if stop.is_set():
                        return
                    body = {"text": f"note {round_}-{i}", "topic": "notes", "authority": "owner"}
                    try:
                        response = client.post("/remember", json=body)
                    except httpx.TransportError:
                        return  # the server died mid-request: not acknowledged
                    if response.status_code == 200:
                        acknowledged.append(response.json()["id"])
                        if len(acknowledged) >= kill_after:
                            enough.set()  # the writes go on; the kill lands among them
            enough.set()

        thread = threading.Thread(target=write)
        thread.start()
        assert enough.wait(timeout=300), "no write was acknowledged"
        threading.Event().wait(rng.uniform(0.0, 0.05))  # then at a drawn moment mid-writes
        os.kill(server.process.pid, signal.SIGKILL)
        stop.set()
        thread.join()
        stop_server(server)
        # after every kill: no StoreBehindJournal, every acknowledged receipt, chain verifies
        with doxa.Memory.open(store, scope="alice") as memory:
            receipts = memory.receipts()
            assert {r.id for r in receipts} >= set(acknowledged)
            assert memory.verify() == len(receipts)
            admitted = {r.fact for r in receipts if r.outcome is doxa.Outcome.ADMITTED}
            assert {f.id for f in memory.facts()} == admitted
    assert len(acknowledged) > 10, "too few writes were acknowledged before the kills"
