"""Where quads live: one interface, the capabilities a backend may add, and the backends.

:class:`Store` is all a backend must implement; :mod:`doxa.store.capabilities` declares what
it may offer beyond it (``docs/stores.md``); :func:`open_store` opens any store location.
"""

from doxa.store.base import Change, Dataset, Quad, QueryResult, Row, Store
from doxa.store.cache import CacheKey, Derived, StoreCache
from doxa.store.capabilities import (
    Cloneable,
    Compactable,
    Journaled,
    OnDisk,
    PlainValues,
    Purgeable,
    SoleWriter,
    cache_of,
)
from doxa.store.embedded import DiskStore, EmbeddedStore, JournaledStore
from doxa.store.location import Location, open_store, parse_location
from doxa.store.remote import RemoteStore

__all__ = [
    "CacheKey",
    "Change",
    "Cloneable",
    "Compactable",
    "Dataset",
    "Derived",
    "DiskStore",
    "EmbeddedStore",
    "Journaled",
    "JournaledStore",
    "Location",
    "OnDisk",
    "PlainValues",
    "Purgeable",
    "Quad",
    "QueryResult",
    "RemoteStore",
    "Row",
    "SoleWriter",
    "Store",
    "StoreCache",
    "cache_of",
    "open_store",
    "parse_location",
]
