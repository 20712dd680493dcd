"""How two values of one subject stand to each other: shared by the rule judge and the
owner's approvals, which must close exactly the facts the judge would call contradicted.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.judges.base import Evidence
from doxa.ontology import PropertyTable

__all__ = ["compare", "contradicts", "overlaps", "same_term"]


def compare(
    table: PropertyTable,
    evidence: Evidence,
    new: tuple[URIRef, Node | None],
    old: tuple[URIRef, Node | None],
) -> str:
    """How a new (predicate, object) stands to a stored one about the same subject.

    ``same``: the same statement; ``detail``: the new one is more specific (a sub-property,
    or a narrower object); ``implied``: the stored one is more specific; ``conflict``: both
    fill one functional slot with values that do not agree; ``other``: unrelated.
    """
    new_p, new_o = new
    old_p, old_o = old
    same_value = same_term(new_o, old_o)
    narrower = old_o in evidence.broader.get(new_o, frozenset()) if new_o is not None else False
    wider = new_o in evidence.broader.get(old_o, frozenset()) if old_o is not None else False
    if new_p == old_p:
        if same_value:
            return "same"
        if narrower:
            return "detail"
        if wider:
            return "implied"
    elif old_p in table.family(new_p) and (same_value or narrower):
        return "detail"  # stated with a sub-property of the stored one
    elif new_p in table.family(old_p) and (same_value or wider):
        return "implied"  # stated with a super-property of the stored one
    if table.shared_functional(new_p, old_p) and not (same_value or narrower or wider):
        return "conflict"
    return "other"


def contradicts(
    table: PropertyTable,
    broader: Mapping[Node, frozenset[Node]],
    new: tuple[URIRef, Node | None],
    old: tuple[URIRef, Node | None],
) -> bool:
    """Whether two values of one subject compete for a functional slot and disagree."""
    evidence = Evidence(same_topic=(), rules=(), observations=(), broader=broader, properties=table)
    return compare(table, evidence, new, old) == "conflict"


def same_term(a: object, b: object) -> bool:
    """Equal as RDF values: literals compare by value (``"0.0"`` and ``"0"`` decimals agree).

    >>> from rdflib import Literal
    >>> from decimal import Decimal
    >>> same_term(Literal(Decimal("0.000")), Literal(Decimal("0")))
    True
    """
    if isinstance(a, Literal) and isinstance(b, Literal):
        try:
            return bool(a.eq(b)) and a.datatype == b.datatype
        except TypeError:
            return a == b
    return a == b


def overlaps(
    a_from: datetime | None,
    a_until: datetime | None,
    b_from: datetime | None,
    b_until: datetime | None,
) -> bool:
    """Whether two valid-time intervals share a moment (None: unbounded on that side).

    >>> from datetime import datetime
    >>> overlaps(datetime(2025, 1, 1), datetime(2025, 6, 1), datetime(2025, 6, 1), None)
    False
    """
    if a_until is not None and b_from is not None and a_until <= b_from:
        return False
    return not (b_until is not None and a_from is not None and b_until <= a_from)
