"""The child process of the stress tests: gated writes through ``Memory.open`` until it is
killed (crash tests) or the store fails (resource-fault tests).

Run as ``python writer.py STORE SEED [fsize|nofile LIMIT]``. It prints ``ready``, then one
JSON line per acknowledged decision (flushed after each): what the parent may demand back
after a crash. On a doxa error it prints ``error <Type>: <message>`` and exits 0; any other
exception escapes with a traceback (exit 1): that is a crash the tests catch.

``python writer.py serve FD`` is a fork server for the crash tests: it imports doxa once, then
for each request on the Unix socket FD forks a fresh writer process (the same ``main``, its
stdout and stderr the pipes sent along), so the 200 kills don't pay 200 interpreter starts.
"""

from __future__ import annotations

import json
import os
import random
import resource
import signal
import socket
import sys
import time
import traceback

EX = "http://example.org/"
ONTOLOGY = b"""
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:livesIn a owl:ObjectProperty, owl:FunctionalProperty .
"""


def prepare(path: str) -> None:
    """Create the store with the domain ontology and closing granted (so writes close facts)."""
    import doxa

    with doxa.Memory.open(path, scope="s") as mem:
        mem.schema.add_ontology(ONTOLOGY)
        mem.owner.grant("general")


def write(rng: random.Random, step: int) -> dict[str, object]:
    who = rng.randrange(12)
    if rng.random() < 0.6:
        city = rng.randrange(6)
        return {
            "text": f"person {who} lives in city {city}",
            "topic": rng.choice(["people", "moves"]),
            "subject": f"{EX}p{who}",
            "predicate": f"{EX}livesIn",
            "object": f"{EX}c{city}",
            "authority": rng.choice(["owner", "owner", "agent"]),
            "valid_from": f"2026-{1 + step % 12:02d}-{1 + rng.randrange(28):02d}",
        }
    return {"text": f"note {rng.randrange(10**6)} for person {who}", "topic": "notes"}


def say(line: str) -> None:
    """One whole line on stdout, flushed: the parent reads it as acknowledged."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def limit(kind: str, value: int) -> None:
    if kind == "fsize":
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (value, value))
    elif kind == "nofile":  # ``value`` more than are open now
        value += len(os.listdir("/proc/self/fd"))
        resource.setrlimit(resource.RLIMIT_NOFILE, (value, value))


def main(argv: list[str]) -> int:
    import doxa

    path, seed = argv[0], int(argv[1])
    rng = random.Random(seed)
    admitted: list[str] = []
    try:
        with doxa.Memory.open(path, scope="s") as mem:
            nofile = len(argv) > 2 and argv[2] == "nofile"
            if len(argv) > 2:
                limit(argv[2], int(argv[3]))
            say("ready")
            step = 0
            while True:
                step += 1
                action = rng.random()
                if nofile and step % 10 == 0:  # backups and exports open new files
                    mem.admin.backup()
                    mem.admin.export(f"{path}.export")
                    continue
                if action < 0.05 and admitted:
                    fact = admitted.pop(rng.randrange(len(admitted)))
                    try:
                        receipt = mem.owner.retract(fact, reason="never true")
                    except doxa.NotFound:
                        continue  # superseded meanwhile: nothing to retract
                elif action < 0.1 and (held := mem.held()):
                    receipt = mem.owner.approve(held[0])
                else:
                    receipt = mem.remember(**write(rng, step))  # type: ignore[arg-type]
                    if receipt.outcome is doxa.Outcome.ADMITTED and receipt.fact:
                        admitted.append(receipt.fact)
                line = {"id": receipt.id, "outcome": receipt.outcome.value, "fact": receipt.fact}
                say(json.dumps(line))
    except doxa.DoxaError as error:
        say(f"error {type(error).__name__}: {error}")
        return 0


def serve(fd: int) -> None:
    """Answer requests on socket ``fd`` until it closes: one request, one reply line.

    Requests are JSON lists. ``["run", STORE, SEED]`` (the child's stdout and stderr fds
    attached) forks a writer and answers ``pid N``; ``["kill"]`` sends it SIGKILL;
    ``["wait", SECONDS]`` answers ``exit CODE`` or ``running``. Only this process reaps the
    child, after a ``wait``, so its pid cannot be reused while the test may still kill it.
    """
    import doxa  # noqa: F401  imported once here, before any fork

    threads = len(os.listdir("/proc/self/task"))
    assert threads == 1, f"forking with {threads} threads is unsafe"
    channel = socket.socket(fileno=fd)
    child = 0  # the writer not reaped yet, if any
    while True:
        message, fds, _, _ = socket.recv_fds(channel, 4096, 2)
        if not message:  # the test is done (or died): leave no writer behind
            if child:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
            return
        request = json.loads(message)
        if request[0] == "run":
            sys.stdout.flush()
            sys.stderr.flush()
            child = os.fork()
            if child == 0:
                _forked(fds, request[1:], channel)
            for passed in fds:
                os.close(passed)
            reply = f"pid {child}"
        elif request[0] == "kill":
            if child:  # not reaped yet: the pid is still the writer's (never 0: the group)
                os.kill(child, signal.SIGKILL)
            reply = "killed"
        else:
            reply = _wait(child, float(request[1]))
            if reply.startswith("exit "):
                child = 0
        channel.sendall(reply.encode() + b"\n")


def _forked(fds: list[int], argv: list[str], channel: socket.socket) -> None:
    """In the forked child: become a writer on the pipes received, and never return."""
    code = 1
    try:
        channel.close()
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for passed in fds:
            os.close(passed)
        code = main(argv)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _wait(child: int, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while True:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            return f"exit {os.waitstatus_to_exitcode(status)}"
        if time.monotonic() > deadline:
            return "running"
        time.sleep(0.005)


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2])
    elif sys.argv[1] == "serve":
        serve(int(sys.argv[2]))
    else:
        sys.exit(main(sys.argv[1:]))
