"""What differs from one SPARQL server to the next, as one small declared interface.

The remote store speaks SPARQL 1.1 Protocol and Update to every server; a :class:`Dialect`
says the few things a server does its own way: how many quads one ``INSERT DATA`` may carry,
how many rows a result may have before the server cuts it, how a long result is read page by
page, and how an ``ASK`` answer reads. :mod:`~doxa.store.remote.sparql11` is the standard,
each server's quirks are in its own module (:mod:`~doxa.store.remote.virtuoso`,
:mod:`~doxa.store.remote.oxigraph`), and :data:`~doxa.store.remote.ANY_SERVER` is what a
store uses when it is not told which server it talks to.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

__all__ = ["Dialect"]


class Dialect(ABC):
    """How one kind of SPARQL server is spoken to, where servers differ."""

    #: a short name for messages and ``repr``
    name: str
    #: the most quads one DATA operation may hold (None: any number)
    block: int | None
    #: the most rows the server returns for one query, cutting the rest silently (None: no cap);
    #: a result that long is read again with :meth:`page`
    row_cap: int | None

    @abstractmethod
    def page(self, prologue: str, body: str, order: str, limit: int, offset: int) -> str:
        """One page of a capped query: the query (``prologue`` then ``body``, from its form
        keyword on) sorted by the variables ``order``, ``limit`` rows from ``offset`` on."""

    @abstractmethod
    def boolean(self, data: Mapping[str, Any]) -> bool:
        """The answer of an ``ASK``, from the server's SPARQL JSON results."""

    def __repr__(self) -> str:
        return f"<SPARQL dialect {self.name}>"
