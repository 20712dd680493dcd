"""The cache of a store only this process writes: typed entries, invalidated in one place.

Where this process is the store's only writer (:class:`~doxa.store.capabilities.SoleWriter`),
what doxa reads of the store again and again (a scope's chain head and topics, its salt, its
live rules, its word index, the ontology's property table) is read once and kept here, on the
store object, so every :class:`~doxa.Memory` bound to it shares it. A store other processes
write has no cache: another process may change anything at any time.

Every entry has a :class:`CacheKey` naming what it holds and its type. The store tells its
cache of every write through the three entry points, and nowhere else is anything dropped:
:meth:`StoreCache.changed` (a :class:`~doxa.store.base.Change` applied),
:meth:`StoreCache.reset` (a graph written in a way no change describes: a load, a cleared
graph) and :meth:`StoreCache.reset_all` (the content changed behind every entry's back: an
import). Entries that follow the store's content are :class:`Derived`: they hear of each
change and each reset; the others are kept up to date by their owner (the gate's chain head)
and only :meth:`~StoreCache.reset_all` drops them.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from rdflib import URIRef

from doxa.store.base import Change

__all__ = ["CacheKey", "Derived", "StoreCache"]

T = TypeVar("T")


@dataclass(frozen=True)
class CacheKey(Generic[T]):
    """The name of one kind of cached value (of type ``T``), and of one part of it.

    Declare one key per use, as a module constant (``RULES: CacheKey[KeptRules] =
    CacheKey("doxa.rules")``), and name a scope's entry with :meth:`of`.
    """

    name: str
    part: str = ""

    def of(self, part: str) -> CacheKey[T]:
        """The key of this kind of value for ``part`` (a scope's name)."""
        return dataclasses.replace(self, part=part)


class Derived:
    """A cached value that follows the store's content: the cache tells it of every write.

    :meth:`changed` hears of each :class:`~doxa.store.base.Change` the store applied,
    :meth:`reset` of each write the store cannot describe as one (a load, a cleared graph), so
    it never answers from content the store no longer holds. A rebuild of the store's files
    changes no content and tells it nothing.
    """

    def changed(self, change: Change) -> None:
        """``change`` was applied."""

    def reset(self, graph: URIRef | None) -> None:
        """``graph`` (None: any graph) changed in a way no :class:`Change` describes."""


class StoreCache:
    """Typed values kept for one store, and the single place they are invalidated."""

    def __init__(self) -> None:
        self._values: dict[CacheKey[object], object] = {}
        self._making = threading.Lock()  # one value made per key, whatever the threads

    def __contains__(self, key: CacheKey[object]) -> bool:
        return key in self._values

    def get(self, key: CacheKey[T]) -> T | None:
        """The value kept under ``key``, or None."""
        return cast("T | None", self._values.get(cast("CacheKey[object]", key)))

    def get_or_make(self, key: CacheKey[T], make: Callable[[], T]) -> T:
        """The value kept under ``key``, made by ``make()`` and kept if there is none yet."""
        untyped = cast("CacheKey[object]", key)
        found = self._values.get(untyped)
        if found is None:
            with self._making:
                found = self._values.get(untyped)
                if found is None:
                    found = self._values[untyped] = make()
        return cast("T", found)

    def put(self, key: CacheKey[T], value: T) -> None:
        """Keep ``value`` under ``key`` (the owner of a value that no write changes by itself)."""
        self._values[cast("CacheKey[object]", key)] = value

    # -- the invalidation entry points ---------------------------------------------------

    def changed(self, change: Change) -> None:
        """The store applied ``change``: every derived value hears of it."""
        for value in list(self._values.values()):
            if isinstance(value, Derived):
                value.changed(change)

    def reset(self, graph: URIRef) -> None:
        """``graph`` was written in a way no change describes: derived values hear of it."""
        for value in list(self._values.values()):
            if isinstance(value, Derived):
                value.reset(graph)

    def reset_all(self) -> None:
        """The content changed behind every entry's back (an import): drop them all."""
        values, self._values = self._values, {}
        for value in values.values():
            if isinstance(value, Derived):
                value.reset(None)  # a reader holding it reads the store again
