"""The remote backend: any SPARQL 1.1 server, spoken to in its own dialect.

:mod:`~doxa.store.remote.client` is the store (:class:`RemoteStore`),
:mod:`~doxa.store.remote.rewrite` writes a scope's dataset into query text, and each server's
quirks are one :class:`~doxa.store.remote.dialect.Dialect` in its own module
(:mod:`~doxa.store.remote.sparql11`, :mod:`~doxa.store.remote.virtuoso`,
:mod:`~doxa.store.remote.oxigraph`). A store that is not told its server uses
:data:`ANY_SERVER`: Virtuoso's workarounds (blocks of 2,000 quads, paged reads past 10,000
rows, ``ASK`` as a row), each harmless on a server that does not need it, so every server
works unconfigured. Adding a server is one module with its dialect.
"""

from doxa.store.remote.client import ANY_SERVER, LEASE, RemoteStore, endpoint_url
from doxa.store.remote.dialect import Dialect
from doxa.store.remote.oxigraph import OxigraphServer
from doxa.store.remote.sparql11 import Sparql11
from doxa.store.remote.virtuoso import Virtuoso

__all__ = [
    "ANY_SERVER",
    "LEASE",
    "Dialect",
    "OxigraphServer",
    "RemoteStore",
    "Sparql11",
    "Virtuoso",
    "endpoint_url",
]
