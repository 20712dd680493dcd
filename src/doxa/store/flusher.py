"""Keep RocksDB's in-memory table small by flushing it in a thread of its own.

Oxigraph writes into a memtable that RocksDB flushes to disk only once it is large. Every
insert, and the existence check Oxigraph makes before it, costs more as that table grows: a
40-quad write took 0.47 ms after 1k writes and 0.97 ms after 10k with no flush, and
0.29–0.37 ms throughout when the table was flushed every 100–250 writes, which also cost less
CPU in all (``docs/decisions.md``, "The memtable is flushed in the background"). The flush runs
beside the writes, so none waits for it; RocksDB makes a flush atomic, so a crash during one
loses nothing the journal has not got.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["FLUSH_EVERY", "Flusher"]

FLUSH_EVERY = 10_000  # quads written between two flushes: about 250 gated writes

_log = logging.getLogger("doxa.store")


class Flusher:
    """Calls ``flush`` in a background thread after every ``every`` quads written."""

    def __init__(self, flush: Callable[[], None], every: int = FLUSH_EVERY) -> None:
        self._flush = flush
        self.every = every
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
                except OSError as error:
                    # a full disk or a file limit: the next write or the close reports it to
                    # the caller, and the journal holds every acknowledged decision meanwhile
                    _log.warning("The store's background flush failed: %s", error)
