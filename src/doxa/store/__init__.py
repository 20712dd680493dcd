"""Where quads live: one interface, an embedded Oxigraph backend (and later remote servers)."""

from doxa.store.base import Change, Dataset, Quad, QueryResult, Row, Store
from doxa.store.embedded import EmbeddedStore

__all__ = ["Change", "Dataset", "EmbeddedStore", "Quad", "QueryResult", "Row", "Store"]
