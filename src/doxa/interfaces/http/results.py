"""SPARQL results on the wire: content negotiation and the serialisations the Protocol names.

Solutions and booleans: SPARQL 1.1 Query Results JSON, XML, CSV and TSV
(https://www.w3.org/TR/sparql11-results-json/, https://www.w3.org/TR/rdf-sparql-XMLres/,
https://www.w3.org/TR/sparql11-results-csv-tsv/). Graphs (CONSTRUCT, DESCRIBE): Turtle,
N-Triples, RDF/XML and JSON-LD, written by rdflib.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from doxa.interfaces.presentation import sparql_json
from doxa.store import QueryResult
from doxa.store.convert import ntriples

__all__ = ["Format", "choose", "serialise"]


@dataclass(frozen=True)
class Format:
    """One result serialisation: its media type and which result forms it can carry."""

    name: str
    media_type: str
    forms: frozenset[str]
    aliases: tuple[str, ...] = ()


_TABLE = frozenset({"select"})
_BOOLEAN = frozenset({"select", "ask"})
_GRAPH = frozenset({"construct"})

FORMATS = (
    Format("json", "application/sparql-results+json", _BOOLEAN, ("application/json",)),
    Format("xml", "application/sparql-results+xml", _BOOLEAN, ("application/xml", "text/xml")),
    Format("csv", "text/csv", _TABLE),
    Format("tsv", "text/tab-separated-values", _TABLE),
    Format("turtle", "text/turtle", _GRAPH, ("application/x-turtle",)),
    Format("nt", "application/n-triples", _GRAPH, ("text/plain",)),
    Format("xml-rdf", "application/rdf+xml", _GRAPH),
    Format("json-ld", "application/ld+json", _GRAPH),
)

#: ``format=`` / ``output=`` / ``results=`` short names some clients send instead of an
#: Accept header (SPARQLWrapper sends its own constants: ``rdf``, ``n3``, ``json-ld`` ...)
_SHORT = {
    "json": "json",
    "xml": "xml",
    "csv": "csv",
    "tsv": "tsv",
    "turtle": "turtle",
    "ttl": "turtle",
    "n3": "turtle",  # Turtle is N3's RDF subset: an N3 reader reads it
    "nt": "nt",
    "ntriples": "nt",
    "n-triples": "nt",
    "rdf": "xml-rdf",
    "rdfxml": "xml-rdf",
    "rdf+xml": "xml-rdf",
    "xml-rdf": "xml-rdf",
    "json-ld": "json-ld",
    "jsonld": "json-ld",
}


def _accepted(header: str) -> list[tuple[float, int, str]]:
    ranges = []
    for index, part in enumerate(header.split(",")):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if not media:
            continue
        quality = 1.0
        for param in fields[1:]:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        ranges.append((quality, -index, media))
    return sorted(ranges, reverse=True)


def _matches(media_range: str, media_type: str) -> bool:
    if media_range == "*/*":
        return True
    if media_range.endswith("/*"):
        return media_type.startswith(media_range[:-1])
    return media_range == media_type


def _named(form: str, value: str) -> Format | None:
    """The format a ``format=`` value names for a ``form`` result: a short name or a media type."""
    usable = [f for f in FORMATS if form in f.forms]
    wanted = value.strip().lower()
    # a media type with parameters (``text/turtle; charset=utf-8``) names its type
    media = wanted.split(";", 1)[0].strip()
    name = _SHORT.get(wanted)
    if form == "construct" and name == "xml":
        name = "xml-rdf"
    for fmt in usable:
        if fmt.name == name or media == fmt.media_type:
            return fmt
    for fmt in usable:
        if media in fmt.aliases:
            return fmt
    return None


def choose(form: str, accept: str | None, shorts: Sequence[str] = ()) -> Format | None:
    """The format to answer a ``form`` result in, or None when the client accepts none.

    ``shorts`` are the ``format=``/``output=``/``results=`` values, in the order sent, each a
    short name (``tsv``) or a media type (``text/tab-separated-values``). The first that names
    a format this result can be had in wins over the Accept header; when none does (``csv``
    sent for a graph, or a name it does not know), the Accept header decides, so a parameter
    never spoils a request its Accept header could satisfy. Without either, solutions come
    as JSON and graphs as Turtle.

    >>> choose("select", "text/csv;q=0.5, application/sparql-results+xml").name
    'xml'
    >>> choose("construct", None).name
    'turtle'
    >>> choose("ask", "text/csv") is None
    True
    >>> choose("select", None, ["tsv", "text/tab-separated-values"]).name
    'tsv'
    >>> choose("construct", "text/turtle", ["csv"]).name
    'turtle'
    """
    for value in shorts:
        named = _named(form, value)
        if named is not None:
            return named
    usable = [f for f in FORMATS if form in f.forms]
    if not accept or not accept.strip():
        return usable[0]
    for quality, _, media in _accepted(accept):
        if quality <= 0:
            continue
        # a format's own media type before its aliases: text/* means CSV before text/xml
        for fmt in usable:
            if _matches(media, fmt.media_type):
                return fmt
        for fmt in usable:
            if any(_matches(media, alias) for alias in fmt.aliases):
                return fmt
    return None


def _json(result: QueryResult) -> str:
    return json.dumps(sparql_json(result), ensure_ascii=False)


def _text(value: str) -> str:
    # a raw carriage return would reach the reader as a line feed (XML end-of-line handling)
    return escape(value, {"\r": "&#13;"})


def _xml_term(term: Node) -> str:
    if isinstance(term, URIRef):
        return f"<uri>{_text(str(term))}</uri>"
    if isinstance(term, BNode):
        return f"<bnode>{_text(str(term))}</bnode>"
    assert isinstance(term, Literal)
    if term.language:
        return f"<literal xml:lang={quoteattr(term.language)}>{_text(str(term))}</literal>"
    if term.datatype is not None:
        return f"<literal datatype={quoteattr(str(term.datatype))}>{_text(str(term))}</literal>"
    return f"<literal>{_text(str(term))}</literal>"


def _xml(result: QueryResult) -> str:
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<sparql xmlns="http://www.w3.org/2005/sparql-results#">',
        "<head>",
    ]
    lines += [f"<variable name={quoteattr(name)}/>" for name in result.variables]
    lines.append("</head>")
    if result.form == "ask":
        lines.append(f"<boolean>{'true' if result.boolean else 'false'}</boolean>")
    else:
        lines.append("<results>")
        for row in result.rows:
            lines.append("<result>")
            for name, term in zip(result.variables, row, strict=True):
                if term is not None:
                    lines.append(f"<binding name={quoteattr(name)}>{_xml_term(term)}</binding>")
            lines.append("</result>")
        lines.append("</results>")
    lines.append("</sparql>")
    return "\n".join(lines) + "\n"


def _csv_value(term: Node | None) -> str:
    if term is None:
        return ""
    if isinstance(term, BNode):
        return f"_:{term}"
    return str(term)


def _csv(result: QueryResult) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(result.variables)
    for row in result.rows:
        writer.writerow([_csv_value(term) for term in row])
    return out.getvalue()


def _tsv(result: QueryResult) -> str:
    lines = ["\t".join(f"?{name}" for name in result.variables)]
    for row in result.rows:
        lines.append("\t".join("" if term is None else ntriples(term) for term in row))
    return "\n".join(lines) + "\n"


def _graph(result: QueryResult, rdflib_format: str) -> str:
    graph = Graph()
    for triple in result.triples:
        graph.add(triple)
    return graph.serialize(format=rdflib_format)


_WRITERS: dict[str, Callable[[QueryResult], str]] = {
    "json": _json,
    "xml": _xml,
    "csv": _csv,
    "tsv": _tsv,
    "turtle": lambda r: _graph(r, "turtle"),
    "nt": lambda r: _graph(r, "nt"),
    "xml-rdf": lambda r: _graph(r, "xml"),
    "json-ld": lambda r: _graph(r, "json-ld"),
}


def serialise(result: QueryResult, fmt: Format) -> bytes:
    """The result in ``fmt``, as UTF-8."""
    return _WRITERS[fmt.name](result).encode("utf-8")


def media_types(form: str) -> Sequence[str]:
    """The media types a ``form`` result can be had in (for a 406 message)."""
    return [f.media_type for f in FORMATS if form in f.forms]
