"""Dataset clauses in SPARQL text: drop the query's own FROM / FROM NAMED and add the scope's.

A remote server is told which graphs a query may see by ``FROM`` and ``FROM NAMED`` clauses in
the query itself, because not every server honours the Protocol's ``default-graph-uri`` and
``named-graph-uri`` parameters (Virtuoso 7 adds a query's own ``FROM`` graphs to them instead
of letting the parameters win). The rewrite reads the text token by token, so IRIs, strings and
comments that merely contain the word ``FROM`` are left alone. A comment (and a short string)
ends at a carriage return as at a line feed, as the SPARQL grammar says and servers read it, so
the FROM in ``# \\r FROM <g>`` is a clause to drop, not a comment to keep.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rdflib import URIRef

__all__ = ["EMPTY_GRAPH", "query_form", "restrict", "split_prologue"]

#: A graph no one writes: a dataset with no default (or no named) graph points here, because an
#: absent FROM clause would let the server fall back to its whole store.
EMPTY_GRAPH = URIRef("urn:doxa:empty")

# Linear in the text's length, whatever it holds: an unterminated string or long string runs
# to the end of its line (or of the text) instead of failing after its scan, and an IRI that
# never closes fails at the next '<' at the latest, so no character is scanned twice.
_TOKEN = re.compile(
    r"""(?P<skip>'''.*?(?:'''|\Z)|\"\"\".*?(?:\"\"\"|\Z)|'(?:[^'\\\n\r]|\\.)*'?|"(?:[^"\\\n\r]|\\.)*"?"""
    r"|\#[^\r\n]*)"
    r"|(?P<iri><[^<>\"{}|^`\\\s]*>)"
    r"|(?P<word>[A-Za-z_][\w-]*(?::[\w.-]*)?|:[\w.-]*|[?$]\w+)"
    r"|(?P<open>\{)|(?P<close>\})|(?P<other>\S)",
    re.DOTALL,
)
_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")


def _tokens(sparql: str) -> list[tuple[str, str, int, int]]:
    return [
        (m.lastgroup or "other", m.group(), m.start(), m.end()) for m in _TOKEN.finditer(sparql)
    ]


def query_form(sparql: str) -> str:
    """The query's form in lower case: ``select``, ``ask``, ``construct`` or ``describe``.

    >>> query_form("PREFIX ex: <http://ex/select#> # ASK?\\nCONSTRUCT WHERE { ?s ?p ?o }")
    'construct'
    """
    for kind, text, _, _ in _tokens(sparql):
        if kind == "word" and text.upper() in _FORMS:
            return text.lower()
    raise ValueError("not a SPARQL query: no SELECT, ASK, CONSTRUCT or DESCRIBE")


def restrict(sparql: str, default: Iterable[URIRef], named: Iterable[URIRef]) -> str:
    """The query with its dataset clauses replaced by ``FROM`` ``default`` and ``FROM NAMED``
    ``named``; an empty list becomes one graph that holds nothing.

    >>> restrict("SELECT * FROM <urn:x> WHERE { ?s ?p ?o }", [URIRef("urn:g")], [])
    'SELECT *   FROM <urn:g> FROM NAMED <urn:doxa:empty> WHERE { ?s ?p ?o }'
    """
    tokens = _tokens(sparql)
    cuts: list[tuple[int, int]] = []  # the query's own dataset clauses
    where = None  # where the clauses go: before WHERE, or before the group it opens
    form = None
    depth = 0
    index = 0
    while index < len(tokens):
        kind, text, start, end = tokens[index]
        upper = text.upper() if kind == "word" else ""
        if kind == "open":
            # CONSTRUCT { template } WHERE { ... }: the first group is the template
            template = form == "CONSTRUCT" and _template_follows(tokens, index)
            if depth == 0 and where is None and form is not None and not template:
                where = start
            depth += 1
        elif kind == "close":
            depth -= 1
        elif depth == 0 and form is None and upper in _FORMS:
            form = upper
        elif depth == 0 and upper == "WHERE" and where is None:
            where = start
        elif depth == 0 and upper == "FROM" and index + 1 < len(tokens):
            last = index + 1
            if tokens[last][1].upper() == "NAMED" and last + 1 < len(tokens):
                last += 1
            cuts.append((start, tokens[last][3]))
            index = last
        index += 1
    if form is None:
        raise ValueError("not a SPARQL query: no SELECT, ASK, CONSTRUCT or DESCRIBE")
    clauses = "".join(f"FROM <{g}> " for g in (list(default) or [EMPTY_GRAPH]))
    clauses += "".join(f"FROM NAMED <{g}> " for g in (list(named) or [EMPTY_GRAPH]))
    if where is None:  # DESCRIBE <x> with no WHERE: the clauses go at the end
        where = len(sparql)
    edits = sorted([*((start, end, "") for start, end in cuts), (where, where, " " + clauses)])
    pieces, position = [], 0
    for start, end, replacement in edits:
        pieces += [sparql[position:start], replacement]
        position = end
    pieces.append(sparql[position:])
    return "".join(pieces)


def _template_follows(tokens: list[tuple[str, str, int, int]], index: int) -> bool:
    """Whether the group opening at ``index`` is a CONSTRUCT template (a WHERE group follows)."""
    depth = 0
    for position in range(index, len(tokens)):
        kind = tokens[position][0]
        depth += {"open": 1, "close": -1}.get(kind, 0)
        if depth == 0:
            following = tokens[position + 1 :][:1]
            return bool(following) and (
                following[0][0] == "open" or following[0][1].upper() in ("WHERE", "FROM")
            )
    return False


def split_prologue(sparql: str) -> tuple[str, str]:
    """The BASE / PREFIX declarations of a query, and the rest from its form keyword on.

    >>> split_prologue("PREFIX s: <urn:select> SELECT ?s { ?s s:p 1 }")
    ('PREFIX s: <urn:select> ', 'SELECT ?s { ?s s:p 1 }')
    """
    for kind, text, start, _ in _tokens(sparql):
        if kind == "word" and text.upper() in _FORMS:
            return sparql[:start], sparql[start:]
    raise ValueError("not a SPARQL query: no SELECT, ASK, CONSTRUCT or DESCRIBE")
