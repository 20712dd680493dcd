"""The Oxigraph server (``oxigraph serve``): the standard, with no cap on results."""

from __future__ import annotations

from doxa.store.remote.sparql11 import Sparql11

__all__ = ["OxigraphServer"]


class OxigraphServer(Sparql11):
    """The Oxigraph server follows the standard doxa uses: no block limit, no row cap, and it
    honours the Protocol's dataset parameters (``restriction="protocol"`` is safe on it)."""

    name = "oxigraph"
