"""Hand-written SPARQL, held inside its scope: read-only, no network, no other scope.

The guard decides on the parsed query, never on its text. :func:`check_query` expands the
query's code-point escapes (``\\u0053`` is ``S``, as the SPARQL grammar says, section 19.2),
parses the result with rdflib's SPARQL 1.1 parser and walks the whole syntax tree: a
``SERVICE`` anywhere (a subquery, ``EXISTS``, ``OPTIONAL``, ``UNION``, ``MINUS``, ``GRAPH``) is
refused, and so is anything that parses as an update rather than a query. Text that does not
parse as one query is refused too, so a trick that fools one tokenizer (``1SERVICE``,
``trueSERVICE``) never reaches the store. The store then runs exactly the text that was
checked, escapes already expanded, so the two parsers cannot read different queries.

Where the two parsers would read the same text differently, the text is refused before either
reads it. A ``#`` comment ends at a line feed for rdflib but at a carriage return *or* a line
feed for Oxigraph (and for the SPARQL grammar), so a lone carriage return (one not followed by a
line feed, typed or spelled ``\\u000D``) is refused: after ``# \\r`` the checker would see a
comment where the store sees a query, ``SERVICE`` included. A carriage return before a line
feed (a Windows line end) ends a comment for both alike and is kept. Other characters that end a
line elsewhere (form feed, vertical tab, NEL, U+2028, U+2029) end a comment for neither parser.
A lone surrogate (``\\uD800``) is no character, and no store can take it, so it is refused too.
The dataset is set by the store, not by the query: ``FROM`` and ``FROM NAMED`` cannot widen it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pyparsing import ParseBaseException, ParseResults
from rdflib import URIRef
from rdflib.plugins.sparql.parser import expandUnicodeEscapes, parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue

from doxa.errors import InvalidInput, ScopeViolation
from doxa.store import Dataset, QueryResult, Store
from doxa.store.convert import valid_iri

__all__ = [
    "RDFLIB_DEFAULT_GRAPH",
    "SERVICE_REFUSED",
    "UPDATE_REFUSED",
    "CheckedQuery",
    "check_query",
    "narrow",
    "run_sparql",
]

SERVICE_REFUSED = (
    "SERVICE is not allowed: a query may not make network calls from the store; "
    "query the other endpoint yourself."
)
UPDATE_REFUSED = (
    "This is a SPARQL update, and reads are read-only; write through the gate with "
    "Memory.remember (or `doxa remember`)."
)
_TOO_DEEP = (
    "The SPARQL query is nested too deeply to be checked (groups, brackets or parentheses "
    "dozens of levels deep, or some 80 triple patterns joined by '.' in one group); split it "
    "into smaller groups { … } { … } or shorten it."
)
_LONE_CR = re.compile(r"\r(?!\n)")
_LONE_CR_REFUSED = (
    "The SPARQL query is not valid: it holds a carriage return that is not followed by a line "
    "feed (typed, or spelled \\u000D), which parsers read differently (one ends a comment "
    "there, another does not); end lines with \\n (or \\r\\n), and in a string write the "
    "escape \\r instead."
)
_SURROGATE_REFUSED = (
    "The SPARQL query is not valid: it holds a lone surrogate ({code}, half of a UTF-16 pair, "
    "not a character); write the character itself, or spell it with one \\U escape such as "
    "\\U0001F600."
)
_FORMS = {
    "SelectQuery": "select",
    "AskQuery": "ask",
    "ConstructQuery": "construct",
    "DescribeQuery": "construct",
}


#: the IRI rdflib's ``Dataset(store=SPARQLStore(url))`` sends as ``default-graph-uri`` for the
#: store's own default graph (``rdflib.graph.DATASET_DEFAULT_GRAPH_ID``): a placeholder, never
#: a graph of the scope, so it reads as the default graph the caller would get by naming none
RDFLIB_DEFAULT_GRAPH = URIRef("urn:x-rdflib:default")


def narrow(
    dataset: Dataset,
    default: Sequence[str] | None,
    named: Sequence[str] | None,
    *,
    allowed: Callable[[URIRef], bool],
) -> Dataset:
    """The dataset a caller named (SPARQL Protocol ``default-graph-uri``/``named-graph-uri``).

    Naming either list replaces the whole dataset, as the Protocol says (an unnamed list is
    empty); rdflib's placeholder for the default graph (:data:`RDFLIB_DEFAULT_GRAPH`) in the
    default list stands for ``dataset``'s default graphs; each other graph must be an
    absolute IRI (else :class:`~doxa.InvalidInput`) that ``allowed`` accepts (else
    :class:`~doxa.ScopeViolation`), so a caller can only narrow ``dataset``. Naming neither
    keeps ``dataset``.

    >>> whole = Dataset(default=(URIRef("urn:a"), URIRef("urn:b")))
    >>> narrow(whole, ["urn:a"], None, allowed=lambda g: g in whole.default)
    Dataset(default=(rdflib.term.URIRef('urn:a'),), named=())
    """
    if default is None and named is None:
        return dataset
    graphs = []
    lists = (("default-graph-uri", default or []), ("named-graph-uri", named or []))
    for parameter, given in lists:
        chosen: list[URIRef] = []
        for iri in given:
            if parameter == "default-graph-uri" and URIRef(iri) == RDFLIB_DEFAULT_GRAPH:
                chosen.extend(dataset.default)  # rdflib's name for "the default graph"
                continue
            if not valid_iri(iri):
                raise InvalidInput(
                    f"The {parameter} {iri!r} is not an absolute IRI; name one of the scope's "
                    "graphs, such as urn:doxa:scope:NAME/topic/TOPIC."
                )
            graph = URIRef(iri)
            if not allowed(graph):
                raise ScopeViolation(
                    f"The graph <{iri}> is not in this scope's dataset; name only graphs the "
                    "scope's readers see (its topic graphs, rules, log, current and search), "
                    "or leave the dataset out to query all of them."
                )
            chosen.append(graph)
        graphs.append(tuple(dict.fromkeys(chosen)))
    return Dataset(default=graphs[0], named=graphs[1])


#: rdflib's grammar (pyparsing) keeps parse state in shared objects: two threads parsing at
#: once fail with TypeErrors from its parse actions, so parses take turns
_PARSING = threading.Lock()


@dataclass(frozen=True)
class CheckedQuery:
    """A query that :func:`check_query` passed: its form and the text the store runs."""

    form: str  # "select", "ask" or "construct" (DESCRIBE answers with triples too)
    text: str  # the query with its code-point escapes expanded


def check_query(sparql: str) -> CheckedQuery:
    """``sparql`` checked: parsed as one read-only query without ``SERVICE``, its code-point
    escapes expanded in the text the store will run.

    Raises :class:`~doxa.ScopeViolation` for an update or a ``SERVICE`` anywhere, and
    :class:`~doxa.InvalidInput` for text that is not one SPARQL 1.1 query, or that holds a
    lone carriage return or a lone surrogate (see the module's docstring).

    >>> check_query("ASK { ?s <urn:service> 'SERVICE' }")
    CheckedQuery(form='ask', text="ASK { ?s <urn:service> 'SERVICE' }")
    >>> check_query("SELECT * { ?s ?p ?o \\\\u0053ERVICE <urn:x> { } }")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    doxa.errors.ScopeViolation: SERVICE is not allowed: ...
    """
    try:
        text = expandUnicodeEscapes(sparql)
    except ValueError as error:
        raise InvalidInput(f"The SPARQL query is not valid: {error}.") from None
    if expandUnicodeEscapes(text) != text:
        # one expansion spelled another escape: the store must not read a second meaning
        raise InvalidInput(
            "The SPARQL query is not valid: a \\u escape spells another \\u escape; write the "
            "character itself."
        )
    _refuse_ambiguous(text)
    try:
        with _PARSING:
            tree = parseQuery(text)
    except RecursionError:
        raise InvalidInput(_TOO_DEEP) from None
    except ParseBaseException as error:
        if _is_update(text):
            raise ScopeViolation(UPDATE_REFUSED) from None
        raise InvalidInput(f"The SPARQL query is not valid: {error}.") from None
    if _has_service(tree):
        raise ScopeViolation(SERVICE_REFUSED)
    query = tree[-1]
    assert isinstance(query, CompValue)
    return CheckedQuery(_FORMS[query.name], text)


def _refuse_ambiguous(text: str) -> None:
    """Refuse text the checker and the store would read differently, or the store cannot take.

    Raises :class:`~doxa.InvalidInput` for a lone carriage return (rdflib's comment runs on past
    it, Oxigraph's ends there) and for a lone surrogate (not a character; UTF-8 has no bytes for
    it). Both are decided on the text after escape expansion, the text both parsers read.

    >>> _refuse_ambiguous("SELECT * {\\r\\n}  # Windows line ends are read alike\\r\\n")
    >>> _refuse_ambiguous("SELECT * { # \\r SERVICE <http://h/> { } \\n }")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    doxa.errors.InvalidInput: The SPARQL query is not valid: it holds a carriage return ...
    """
    if _LONE_CR.search(text):
        raise InvalidInput(_LONE_CR_REFUSED)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = f"U+{ord(text[error.start]):04X}"
        raise InvalidInput(_SURROGATE_REFUSED.format(code=code)) from None


def _is_update(text: str) -> bool:
    try:
        with _PARSING:
            parseUpdate(text)
    except (ParseBaseException, RecursionError, ValueError):
        return False
    return True


def _has_service(tree: ParseResults) -> bool:
    """Whether a ``SERVICE`` pattern occurs anywhere in a parsed query (walked without
    recursion, so a deep tree cannot exhaust the stack)."""
    pending: list[object] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, CompValue):
            if node.name == "ServiceGraphPattern":
                return True
            pending.extend(node.values())
        elif isinstance(node, ParseResults | list | tuple):
            pending.extend(node)
        elif isinstance(node, dict):
            pending.extend(node.values())
    return False


def run_sparql(
    store: Store,
    sparql: str | CheckedQuery,
    dataset: Dataset,
    *,
    max_rows: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> QueryResult:
    """Run a read-only query over ``dataset`` only; FROM and FROM NAMED cannot widen it.

    A string is checked first (:func:`check_query`; a :class:`CheckedQuery` was checked
    already, for example in a worker process); a ``stop()`` already true by then means the
    store is not asked at all (an empty result marked ``truncated``).
    """
    checked = sparql if isinstance(sparql, CheckedQuery) else check_query(sparql)
    if stop is not None and stop():
        return QueryResult(form=checked.form, truncated=True)
    return store.run(checked.text, dataset=dataset, max_rows=max_rows, stop=stop)
