"""doxa's stand-in for LangGraph's stores, copied as ``conftest.py`` into the ``tests/`` of
the langgraph-checkpoint and langgraph-checkpoint-sqlite sdists: their own store tests then
run against :class:`doxa.interfaces.langgraph_store.DoxaStore` where they build
``InMemoryStore``, ``SqliteStore`` or ``AsyncSqliteStore``.

Each store is a fresh doxa memory (in memory for ``:memory:``, a real on-disk store beside a
file path), whose owner has granted closing for the kind the store writes, as an owner who
lets the app replace its own values does; everything else is doxa's behaviour as shipped.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import langgraph.store.memory

import doxa
from doxa.interfaces.langgraph_store import DoxaStore


def _memory(where: str) -> doxa.Memory:
    path = None if where == ":memory:" else f"{where}.doxa"
    memory = doxa.Memory.open(path, scope="suite")
    memory.owner.grant("general", reason="the app may replace the values it wrote")
    return memory


class DoxaInMemoryStore(DoxaStore):
    """``InMemoryStore(index=...)``: a DoxaStore over a fresh in-memory scope."""

    def __init__(self, **_: Any) -> None:
        super().__init__(_memory(":memory:"))


@contextmanager
def _opened(conn_string: str) -> Iterator[doxa.Memory]:
    memory = _memory(conn_string)
    try:
        yield memory
    finally:
        memory.close()
        if conn_string != ":memory:":
            shutil.rmtree(f"{conn_string}.doxa", ignore_errors=True)


class DoxaSqliteStore(DoxaStore):
    """``SqliteStore.from_conn_string(conn)``: a DoxaStore, on disk for a file."""

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, **_: Any) -> Iterator[DoxaSqliteStore]:
        with _opened(conn_string) as memory:
            yield cls(memory)

    def setup(self) -> None:
        """Nothing to set up: the store's layout is made when it opens."""


class DoxaAsyncSqliteStore(DoxaStore):
    """``AsyncSqliteStore.from_conn_string(conn)``, entered with ``async with``."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls, conn_string: str, **_: Any
    ) -> AsyncIterator[DoxaAsyncSqliteStore]:
        with _opened(conn_string) as memory:
            yield cls(memory)

    async def setup(self) -> None:
        """Nothing to set up."""


langgraph.store.memory.InMemoryStore = DoxaInMemoryStore  # type: ignore[misc]
try:  # the sqlite package's suite only: the checkpoint package's has no sqlite store
    import langgraph.store.sqlite
except ImportError:
    pass
else:
    langgraph.store.sqlite.SqliteStore = DoxaSqliteStore  # type: ignore[misc]
    langgraph.store.sqlite.AsyncSqliteStore = DoxaAsyncSqliteStore  # type: ignore[misc]
