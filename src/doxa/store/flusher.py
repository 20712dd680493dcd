"""Keep RocksDB's in-memory table small by flushing it in a thread of its own.

Oxigraph gives RocksDB 128 MB memtables, flushed only once full: every insert, and the
existence check Oxigraph makes before it, gets slower as they fill, and a process that had
written 100k facts held 2.3 GB. Flushing often keeps them small; but each flush makes RocksDB
compact the new file into the level below, so the flushes are spaced in proportion to the
store's size, which bounds that work per write (``docs/decisions.md``,
"The memtable is flushed in the background"). The flush runs beside the writes, so none waits
for it; RocksDB makes a flush atomic, so a crash during one loses nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["FLUSH_EVERY", "STORE_SHARE", "Flusher"]

FLUSH_EVERY = 10_000  # quads written between two flushes at least: about 250 gated writes
STORE_SHARE = 32  # and at least a 32nd of the store, so compaction per write stays bounded
DISK_BYTES_PER_QUAD = 265  # a doxa store on disk, measured at 100k facts (4.3M quads)

_log = logging.getLogger("doxa.store")


class Flusher:
    """Calls ``flush`` in a background thread after every ``every`` quads written: at least
    ``least``, and a ``STORE_SHARE``-th of the store as ``size`` (bytes on disk) tells it."""

    def __init__(
        self,
        flush: Callable[[], None],
        every: int = FLUSH_EVERY,
        size: Callable[[], int] | None = None,
    ) -> None:
        self._flush = flush
        self.size = size  # None: a fixed spacing
        self.least = every
        self.every = self._spacing()
        self.flushes = 0  # flushes made, for tests and benchmarks
        self._written = 0
        self._wake = threading.Event()
        self._busy = threading.Lock()  # held while flushing, and by paused()
        self._counting = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopping = False

    def wrote(self, quads: int) -> None:
        """``quads`` were written (inserted or deleted); wake the thread when enough were."""
        with self._counting:
            if self._stopping:
                return
            self._written += quads
            if self._written < self.every:
                return
            self._written = 0
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="doxa-flush", daemon=True)
                self._thread.start()
        self._wake.set()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No flush runs inside this block: the store may be swapped or dropped in it."""
        with self._busy:
            yield

    def stop(self) -> None:
        """End the thread, after the flush it is making (if any)."""
        with self._counting:
            self._stopping = True
            thread = self._thread
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _spacing(self) -> int:
        """Quads between two flushes for a store of the size it has now."""
        if self.size is None:
            return self.least
        try:
            quads = self.size() // DISK_BYTES_PER_QUAD
        except OSError:
            return self.least
        return max(self.least, quads // STORE_SHARE)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            with self._busy:
                if self._stopping:
                    return
                try:
                    self._flush()
                    self.flushes += 1
                    self.every = self._spacing()
                except OSError as error:
                    # a full disk or a file limit: close() flushes again and raises if it
                    # fails too, and the journal holds every acknowledged decision meanwhile
                    _log.warning("The store's background flush failed: %s", error)
