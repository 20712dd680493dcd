"""Hand-written SPARQL, held inside its scope: read-only, no network, no other scope."""

from __future__ import annotations

import re

from doxa.errors import ScopeViolation
from doxa.store import Dataset, QueryResult, Store

__all__ = ["run_sparql"]

_NOISE = re.compile(
    r"""'''.*?'''|\"\"\".*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|<[^<>\s]*>|\#[^\n]*"""
    r"|[?$]\w+|[\w.-]*:[\w.-]*",  # variables and prefixed names are never keywords
    re.DOTALL,
)
_UPDATE = re.compile(
    r"\b(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b", re.IGNORECASE
)
_SERVICE = re.compile(r"\bSERVICE\b", re.IGNORECASE)


def run_sparql(store: Store, sparql: str, dataset: Dataset) -> QueryResult:
    """Run a read-only query over ``dataset`` only; FROM and FROM NAMED cannot widen it."""
    bare = _NOISE.sub(" ", sparql)
    if _SERVICE.search(bare):
        raise ScopeViolation(
            "SERVICE is not allowed: a query may not make network calls from the store; "
            "query the other endpoint yourself."
        )
    if _UPDATE.search(bare):
        raise ScopeViolation(
            "This is a SPARQL update, and reads are read-only; write through the gate with "
            "Memory.remember (or `doxa remember`)."
        )
    return store.run(sparql, dataset=dataset)
