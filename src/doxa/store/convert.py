"""The one place where rdflib terms and pyoxigraph terms are converted into each other."""

from __future__ import annotations

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

__all__ = ["from_ox", "ntriples", "to_ox", "to_ox_graph"]

RdfTerm = URIRef | Literal | BNode


def to_ox(term: Node) -> ox.NamedNode | ox.Literal | ox.BlankNode:
    """Convert an rdflib term to its pyoxigraph twin.

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
        return URIRef(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        datatype = term.datatype.value
        if datatype == "http://www.w3.org/2001/XMLSchema#string":
            return Literal(term.value)
        return Literal(term.value, datatype=URIRef(datatype))
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    raise TypeError(f"cannot convert {term!r} to an rdflib term")


def ntriples(term: Node) -> str:
    """The N-Triples form of a term, escaped by Oxigraph, for SPARQL text.

    >>> ntriples(Literal('say "hi"'))
    '"say \\\\"hi\\\\""'
    """
    return str(to_ox(term))
