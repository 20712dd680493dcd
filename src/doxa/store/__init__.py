"""Where quads live: one interface, an embedded Oxigraph backend and any SPARQL 1.1 server."""

from doxa.store.base import Change, Dataset, Quad, QueryResult, Row, Store
from doxa.store.embedded import EmbeddedStore
from doxa.store.remote import RemoteStore

__all__ = [
    "Change",
    "Dataset",
    "EmbeddedStore",
    "Quad",
    "QueryResult",
    "RemoteStore",
    "Row",
    "Store",
]
