"""What a store may offer beyond :class:`~doxa.store.base.Store`, each declared by type.

A backend implements the base protocol and inherits the capabilities it has; doxa tests for
them with ``isinstance`` and does without those a store lacks (``docs/stores.md`` says what it
does instead). Each is a small abstract class, so a capability is claimed on purpose, never
inferred from an attribute that happens to exist.

- :class:`SoleWriter`: this process is the only writer of the store's data (the embedded store
  holds its directory's lock). Decisions are serialised by the store's lock alone, and what
  doxa reads again and again is kept in the store's :class:`~doxa.store.cache.StoreCache`.
  Without it the store is shared: another process may write at any time, so nothing is
  cached and every publish claims its slot (:attr:`~doxa.store.base.Change.slot`).
- :class:`Journaled`: decisions are also appended to an fsynced journal beside the data, so a
  store that lost acknowledged decisions in a crash is noticed when it opens.
- :class:`Compactable`: the store can rebuild its files from its live quads, so erased content
  leaves the files, not only the graphs.
- :class:`OnDisk`: the store lives in a directory doxa manages, which it can back up.
- :class:`Cloneable`: the store can make an independent in-memory copy of itself.
- :class:`PlainValues`: the store can list a graph's triples as plain strings, cheaper than
  RDF terms for a cache that reads a whole graph.
- :class:`Purgeable`: all that a background purge of erased content needs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from pathlib import Path

from rdflib import URIRef

from doxa.store.base import Store
from doxa.store.cache import StoreCache
from doxa.store.journal import Journal

__all__ = [
    "Cloneable",
    "Compactable",
    "Journaled",
    "OnDisk",
    "PlainValues",
    "Purgeable",
    "SoleWriter",
    "cache_of",
]


class SoleWriter(ABC):
    """A store whose data only this process writes, with a cache of what is read from it."""

    #: values derived from the store's content, told of every write (see doxa.store.cache)
    cache: StoreCache


class Journaled(ABC):
    """A store whose decisions are also appended to a journal, fsynced beside it."""

    @property
    @abstractmethod
    def journal(self) -> Journal:
        """The journal of this store's decisions."""


class Compactable(ABC):
    """A store that can rebuild its files from its live quads."""

    @abstractmethod
    def compact(self, *, progress: Callable[[str], None] | None = None) -> None:
        """Rebuild the files, so they forget removed content; ``progress`` hears each step."""


class OnDisk(ABC):
    """A store in a directory doxa manages: backups go to the sibling ``<path>.backups``."""

    @property
    @abstractmethod
    def path(self) -> Path:
        """The store's directory."""

    @abstractmethod
    def backup(self, target: Path) -> None:
        """Copy the store, consistently, into the new directory ``target``."""


class Cloneable(ABC):
    """A store that can copy itself."""

    @abstractmethod
    def clone(self) -> Store:
        """An independent in-memory copy (scratch work that must not touch this store)."""


class PlainValues(ABC):
    """A store that lists a graph's triples as plain strings."""

    @abstractmethod
    def values(self, graph: URIRef) -> Iterator[tuple[str, str, str]]:
        """Every triple of ``graph`` as its terms' strings (IRIs, literals' lexical forms)."""


class Purgeable(Compactable, OnDisk, Journaled):
    """A store a background purge can make erasures real in: it journals each erasure (the
    purge's intent), rebuilds its files, has backups to purge, and lets the purge finish
    before it closes."""

    @abstractmethod
    def before_close(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` first when the store closes."""


def cache_of(store: Store) -> StoreCache | None:
    """The store's cache; None when other processes may write the store (nothing is kept)."""
    return store.cache if isinstance(store, SoleWriter) else None
