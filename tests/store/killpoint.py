"""A child process that runs one doxa operation and SIGKILLs itself at a chosen point.

``python killpoint.py OPERATION STORE ARG POINT N``: ``POINT`` names a function (below) that
is wrapped so that its ``N``-th call kills the process, just before (``-before``) or just
after (``-after``) it runs; ``none`` kills nowhere (the control). Deterministic kill points
find the windows a random sleep hits one time in five.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import doxa
import doxa.memory.opening
from doxa.audit import exports
from doxa.gate.erasing import Erasing
from doxa.store import EmbeddedStore
from doxa.store.journal import Journal


def _die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def _wrap(owner: Any, name: str, count: int, after: bool) -> None:
    original: Callable[..., Any] = getattr(owner, name)
    calls = 0

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == count and not after:
            _die()
        result = original(*args, **kwargs)
        if calls == count and after:
            _die()
        return result

    setattr(owner, name, wrapper)


def _copying(count: int) -> None:
    """Kill after ``count`` files of a copytree (the backup staged beside the store)."""
    original = shutil.copytree
    copied = 0

    def copy(source: str, target: str) -> object:
        nonlocal copied
        result = shutil.copy2(source, target)
        copied += 1
        if copied == count:
            _die()
        return result

    def copytree(source: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
        if args:  # copytree's own call for a subfolder passes copy_function on
            return original(source, target, *args, **kwargs)
        return original(source, target, copy_function=copy, **kwargs)

    shutil.copytree = copytree  # type: ignore[assignment]


_OWNERS: dict[str, tuple[Any, str]] = {
    "rename": (Path, "rename"),
    "rewrite": (Journal, "rewrite"),
    "journal": (Journal, "append_all"),
    "reapply": (Erasing, "reapply_erasure"),
    "compact": (EmbeddedStore, "compact"),
    "apply": (EmbeddedStore, "apply"),
}
try:  # absent before restores and imports recorded their intent (to run these tests there)
    from doxa.store import intents

    _OWNERS |= {
        "intent": (intents, "write"),
        "done": (intents, "remove"),
        "restored": (doxa.memory.opening, "remove_intent"),
    }
except ImportError:
    pass


def arm(point: str, count: int) -> None:
    if point == "none":
        return
    if point == "copy":
        _copying(count)
        return
    name, _, when = point.rpartition("-")
    owner, attribute = _OWNERS[name]
    _wrap(owner, attribute, count, after=when == "after")


def main() -> None:
    operation, store, argument, point, count = sys.argv[1:6]
    if operation == "restore":
        arm(point, int(count))
        print("restored", doxa.restore_backup(store, argument), flush=True)
    elif operation == "import":
        exports._BATCH = 40  # several batches from a small export
        with doxa.Memory.open(store, scope="alice") as mem:
            arm(point, int(count))
            print("imported", mem.admin.load_export(argument), flush=True)
    else:
        raise SystemExit(f"unknown operation {operation!r}")


if __name__ == "__main__":
    main()
