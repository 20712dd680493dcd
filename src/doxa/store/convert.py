"""The one place where rdflib terms and pyoxigraph terms are converted into each other."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput

__all__ = [
    "canonical",
    "forget_terms",
    "from_ox",
    "language_problem",
    "ntriples",
    "rdf_format",
    "read_quads",
    "stored_literal",
    "to_ox",
    "to_ox_graph",
    "unserialisable",
    "valid_iri",
]

RdfTerm = URIRef | Literal | BNode


@lru_cache(maxsize=65536)
def to_ox(term: Node) -> ox.NamedNode | ox.Literal | ox.BlankNode:
    """Convert an rdflib term to its pyoxigraph twin (terms are immutable: each is converted
    once while it is in use).

    >>> to_ox(URIRef("http://example.org/a"))
    <NamedNode value=http://example.org/a>
    """
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    raise TypeError(f"cannot convert {term!r} to an RDF term")


def to_ox_graph(graph: URIRef | None) -> ox.NamedNode | ox.DefaultGraph:
    return ox.DefaultGraph() if graph is None else ox.NamedNode(str(graph))


def from_ox(term: object) -> RdfTerm:
    """Convert a pyoxigraph term to its rdflib twin.

    >>> from_ox(ox.Literal("1971", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")))
    rdflib.term.Literal('1971', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#integer'))
    """
    if isinstance(term, ox.NamedNode):
        return _iri(term.value)
    if isinstance(term, ox.Literal):
        return _literal(term.value, term.language, term.datatype.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    raise TypeError(f"cannot convert {term!r} to an rdflib term")


# rdflib checks every IRI and parses every typed literal when it builds a term (17-40 µs
# each): reads hand back the same terms again and again, and terms are immutable
@lru_cache(maxsize=65536)
def _iri(value: str) -> URIRef:
    return URIRef(value)


@lru_cache(maxsize=65536)
def _literal(value: str, language: str | None, datatype: str) -> Literal:
    if language:
        return Literal(value, lang=language)
    if datatype == "http://www.w3.org/2001/XMLSchema#string":
        return Literal(value)
    return Literal(value, datatype=_iri(datatype))


def forget_terms() -> None:
    """Drop the converted terms this process remembers (called after an erasure, so no
    erased text lingers in the process's caches either)."""
    _iri.cache_clear()
    _literal.cache_clear()
    to_ox.cache_clear()
    ntriples.cache_clear()
    stored_literal.cache_clear()
    oxigraph_parses.cache_clear()
    unserialisable.cache_clear()
    _CANONICAL.clear()


@lru_cache(maxsize=65536)
def ntriples(term: Node) -> str:
    """The N-Triples form of a term, escaped by Oxigraph, for SPARQL text.

    >>> ntriples(Literal('say "hi"'))
    '"say \\\\"hi\\\\""'
    """
    return str(to_ox(term))


def read_quads(
    data: bytes, *, format: str = "nquads", source: str = "The data"
) -> Iterator[tuple[RdfTerm, RdfTerm, RdfTerm, URIRef | None]]:
    """Parse N-Quads (or TriG) with Oxigraph's parser; errors carry line and column.

    >>> [q[3] for q in read_quads(b'<urn:a> <urn:b> "c" <urn:g> .\\n')]
    [rdflib.term.URIRef('urn:g')]
    """
    fmt = {"nquads": ox.RdfFormat.N_QUADS, "trig": ox.RdfFormat.TRIG}[format]
    try:
        for quad in ox.parse(data, fmt):
            graph = (
                None
                if isinstance(quad.graph_name, ox.DefaultGraph)
                else URIRef(quad.graph_name.value)
            )
            yield from_ox(quad.subject), from_ox(quad.predicate), from_ox(quad.object), graph
    except SyntaxError as error:
        label = {"nquads": "N-Quads", "trig": "TriG"}[format]
        raise InvalidInput(f"{source} is not valid {label}: {error}; fix it and retry.") from None


def valid_iri(text: str) -> bool:
    """Whether Oxigraph accepts ``text`` as an absolute IRI.

    >>> valid_iri("http://example.org/a"), valid_iri("http://ex/a#b#c")
    (True, False)
    """
    try:
        ox.NamedNode(text)
    except ValueError:
        return False
    return True


def language_problem(tag: str) -> str | None:
    """Why ``tag`` is not a well-formed BCP 47 language tag (RFC 5646), or None if it is.

    Oxigraph parses the tag subtag by subtag (no regular expression), as it will when it
    stores and reads it back.

    >>> language_problem("de-CH") is None, language_problem("a" * 100)
    (True, 'A subtag may be eight characters in length at maximum')
    """
    try:
        ox.Literal("", language=tag)
    except ValueError as error:
        return str(error)
    return None


_FORMATS = (ox.RdfFormat.N_QUADS, ox.RdfFormat.TRIG, ox.RdfFormat.TURTLE)


@lru_cache(maxsize=4096)
def unserialisable(term: Literal) -> str | None:
    """The export format that cannot carry ``term`` intact, or None when all of them can.

    Writes the literal in N-Quads, TriG and Turtle with Oxigraph's serialisers and parses it
    back: what the gate admits must survive every export and import.

    >>> unserialisable(Literal("caf\u00e9", lang="fr")) is None
    True
    """
    s, p, g = ox.NamedNode("urn:doxa:s"), ox.NamedNode("urn:doxa:p"), ox.NamedNode("urn:doxa:g")
    try:
        node = to_ox(term)
    except ValueError:
        return "N-Quads"
    for fmt in _FORMATS:
        rows: list[ox.Quad] | list[ox.Triple] = (
            [ox.Triple(s, p, node)] if fmt is ox.RdfFormat.TURTLE else [ox.Quad(s, p, node, g)]
        )
        try:
            data = ox.serialize(rows, format=fmt)
            assert data is not None
            back = [q.object for q in ox.parse(data, fmt)]
        except (SyntaxError, ValueError):
            return fmt.name
        if back != [node]:
            return fmt.name
    return None


def canonical(terms: list[Node]) -> list[Node]:
    """The terms as the store will keep them: literals in Oxigraph's canonical form.

    Oxigraph stores ``"0.50"^^xsd:decimal`` as ``"0.5"`` and ``"5"^^xsd:byte`` as an
    integer; comparing and hashing what the store will hold keeps both honest.

    >>> [str(t) for t in canonical([Literal("0.50", datatype=URIRef("http://www.w3.org/2001/XMLSchema#decimal"))])]
    ['0.5']
    """
    literals = [t for t in terms if isinstance(t, Literal) and t.datatype is not None]
    if not literals:
        return list(terms)
    # the same typed literals come back write after write (dates, confidences): each is put
    # through a scratch store once, all of a call's new ones together
    given = {_key(t): t for t in literals}
    found = {k: v for k in given if (v := _CANONICAL.get(k)) is not None}
    missing = sorted(given.keys() - found.keys())
    if missing:
        scratch = ox.Store()
        subject = ox.NamedNode("urn:doxa:canonical")
        for index, key in enumerate(missing):
            term = to_ox(given[key])
            scratch.add(ox.Quad(subject, ox.NamedNode(f"urn:doxa:canonical:{index}"), term))
        for q in scratch.quads_for_pattern(subject, None, None, None):
            stored = from_ox(q.object)
            assert isinstance(stored, Literal)
            found[missing[int(q.predicate.value.rsplit(":", 1)[1])]] = stored
        if len(_CANONICAL) + len(missing) > CANONICAL_CACHED:
            _CANONICAL.clear()
        _CANONICAL.update((k, found[k]) for k in missing)
    return [
        found[_key(t)] if isinstance(t, Literal) and t.datatype is not None else t for t in terms
    ]


#: the XSD datatypes whose lexical form Oxigraph's cast parses as XSD defines it: the ones
#: rdflib does not check, and the dates and times rdflib reads leniently before normalising.
#: Its gYear, gYearMonth and gMonthDay casts are stricter than XSD (it refuses "--02-29"),
#: and its numbers are bounded (an xsd:integer is 64 bits there), so those keep XSD's
#: patterns in doxa.terms; its duration parser takes "P1Y2MT", so durations get XSD's
#: pattern as well.
OXIGRAPH_PARSED = frozenset(
    f"http://www.w3.org/2001/XMLSchema#{name}"
    for name in (
        "gMonth",
        "gDay",
        "duration",
        "yearMonthDuration",
        "dayTimeDuration",
        "dateTime",
        "date",
        "time",
    )
)


@lru_cache(maxsize=4096)
def oxigraph_parses(value: str, datatype: str) -> bool:
    """Whether Oxigraph's XSD cast reads ``value`` as a ``datatype`` (one of
    :data:`OXIGRAPH_PARSED`): the library's parser decides, not a pattern of doxa's.

    >>> oxigraph_parses("--12", "http://www.w3.org/2001/XMLSchema#gMonth")
    True
    >>> oxigraph_parses("13", "http://www.w3.org/2001/XMLSchema#gMonth")
    False
    """
    if datatype not in OXIGRAPH_PARSED:
        raise ValueError(f"{datatype} is not parsed by Oxigraph's casts here")
    answer = _CASTS.query(
        f"ASK {{ BIND(<{datatype}>({ox.Literal(value)}) AS ?v) FILTER(BOUND(?v)) }}"
    )
    assert isinstance(answer, ox.QueryBoolean)
    return bool(answer)


_CASTS = ox.Store()  # empty, in memory: only its SPARQL functions are used

CANONICAL_CACHED = 65536  # typed literals whose stored form is remembered, then it starts over
_CANONICAL: dict[tuple[str, str], Literal] = {}


def _key(term: Literal) -> tuple[str, str]:
    return (str(term), str(term.datatype))


@lru_cache(maxsize=65536)
def stored_literal(value: str, datatype: str) -> Literal:
    """A typed literal read from a server, in the form the embedded store would return it.

    Servers print some values in forms of their own (Virtuoso gives ``"1"`` for the boolean
    true and ``"1.5"`` for the double ``1.5E0``); receipts hash literals as Oxigraph keeps
    them, so every backend hands back that form.

    >>> stored_literal("1", "http://www.w3.org/2001/XMLSchema#boolean")
    rdflib.term.Literal('true', datatype=rdflib.term.URIRef('http://www.w3.org/2001/XMLSchema#boolean'))
    """
    (term,) = canonical([Literal(value, datatype=URIRef(datatype))])
    assert isinstance(term, Literal)
    return term


_RDF_FORMATS = {
    "turtle": ox.RdfFormat.TURTLE,
    "ttl": ox.RdfFormat.TURTLE,
    "ntriples": ox.RdfFormat.N_TRIPLES,
    "nt": ox.RdfFormat.N_TRIPLES,
    "nquads": ox.RdfFormat.N_QUADS,
    "nq": ox.RdfFormat.N_QUADS,
    "trig": ox.RdfFormat.TRIG,
    "rdfxml": ox.RdfFormat.RDF_XML,
    "xml": ox.RdfFormat.RDF_XML,
    "rdf": ox.RdfFormat.RDF_XML,
    "owl": ox.RdfFormat.RDF_XML,
}


def rdf_format(name: str) -> ox.RdfFormat:
    """Look up an RDF format by a short name or file extension."""
    try:
        return _RDF_FORMATS[name.lower().lstrip(".")]
    except KeyError:
        known = ", ".join(sorted(_RDF_FORMATS))
        raise InvalidInput(f"{name!r} is not a known RDF format; use one of: {known}.") from None
