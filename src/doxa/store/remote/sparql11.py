"""The SPARQL 1.1 standard, for a server with no quirks doxa knows of."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doxa.store.remote.dialect import Dialect

__all__ = ["Sparql11"]


class Sparql11(Dialect):
    """A server that follows SPARQL 1.1 Protocol, Query and Update as written."""

    name = "sparql11"
    block: int | None = None
    row_cap: int | None = None

    def page(self, prologue: str, body: str, order: str, limit: int, offset: int) -> str:
        return (
            f"{prologue} SELECT * WHERE {{ {body} }} ORDER BY {order} LIMIT {limit} OFFSET {offset}"
        )

    def boolean(self, data: Mapping[str, Any]) -> bool:
        return bool(data.get("boolean"))
