"""Virtuoso Open Source 7: what it does its own way (docs/remote.md, "Virtuoso")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doxa.store.remote.sparql11 import Sparql11

__all__ = ["Virtuoso"]


class Virtuoso(Sparql11):
    """Virtuoso 7: long DATA blocks, capped results and ``ASK`` answered as a row.

    - Its update parser gives up on DATA blocks near 10,000 triples ("memory exhausted"), so
      changes go in blocks of 2,000 quads.
    - ``[SPARQL] ResultSetMaxRows`` (10,000 by default) cuts results silently, so a result that
      long is read again in pages; it refuses to sort a slice that ends past row 10,000
      (``MaxSortedTopRows``) but not a whole sorted subquery, so each page slices a sorted
      subquery.
    - ``ASK`` in JSON comes back as one row of ``?__ASK_RETVAL`` (none when false).
    """

    name = "virtuoso"
    block: int | None = 2000
    row_cap: int | None = 10_000

    def page(self, prologue: str, body: str, order: str, limit: int, offset: int) -> str:
        inner = f"SELECT * WHERE {{ {body} }} ORDER BY {order}"
        return f"{prologue} SELECT * WHERE {{ {{ {inner} }} }} LIMIT {limit} OFFSET {offset}"

    def boolean(self, data: Mapping[str, Any]) -> bool:
        if "boolean" in data:
            return bool(data["boolean"])
        rows = data.get("results", {}).get("bindings", [])
        return bool(rows) and str(next(iter(rows[0].values()))["value"]) not in ("0", "false")
