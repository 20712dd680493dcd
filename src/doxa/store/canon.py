"""Canonical serialisation of a set of quads: RDFC-1.0 N-Quads, and TriG in the same order.

The canonical N-Quads document of RDF Dataset Canonicalization (RDFC-1.0,
https://www.w3.org/TR/rdf-canon/) relabels blank nodes ``_:c14n0``, ``_:c14n1`` … by the
algorithm, writes every quad in canonical N-Quads form and sorts the lines by code point: the
same dataset always gives the same bytes, whatever store or order it came from. TriG has no
canonical form of its own; doxa writes the canonicalised quads sorted by graph, subject,
predicate and object, so a TriG export is byte-stable too. Turtle is a projection for tools that
read no named graphs (Protégé): the triples of every graph, once each, in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Literal

import pyoxigraph as ox
from rdflib.term import Node

from doxa.store.convert import to_ox, to_ox_graph

__all__ = ["ExportFormat", "serialize"]

ExportFormat = Literal["nquads", "trig", "turtle"]

_CHUNK = 5000


def serialize(
    quads: Iterable[tuple[Node, Node, Node, Node]],
    *,
    format: ExportFormat,
    prefixes: Mapping[str, str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> bytes:
    """The quads as canonical N-Quads (RDFC-1.0), or as TriG (or Turtle) in canonical order.

    ``progress`` is called with the number of quads taken in, every few thousand quads.

    >>> from rdflib import URIRef, BNode
    >>> p, g = URIRef("http://example.org/p"), URIRef("http://example.org/g")
    >>> serialize([(BNode("x"), p, BNode("y"), g)], format="nquads").decode()
    '_:c14n1 <http://example.org/p> _:c14n0 <http://example.org/g> .\\n'
    """
    dataset = ox.Dataset()
    taken = 0
    for s, p, o, g in quads:
        dataset.add(ox.Quad(to_ox(s), to_ox(p), to_ox(o), to_ox_graph(g)))  # type: ignore[arg-type]
        taken += 1
        if progress is not None and taken % _CHUNK == 0:
            progress(_CHUNK)
    if progress is not None and taken % _CHUNK:
        progress(taken % _CHUNK)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    if format == "nquads":
        lines = sorted(f"{quad} .\n" for quad in dataset)
        return "".join(lines).encode("utf-8")
    if format == "turtle":
        triples = {(str(q.subject), str(q.predicate), str(q.object)): q.triple for q in dataset}
        ordered: list[ox.Quad] | list[ox.Triple] = [triples[key] for key in sorted(triples)]
        rdf_format = ox.RdfFormat.TURTLE
    else:
        ordered = sorted(
            dataset,
            key=lambda q: (str(q.graph_name), str(q.subject), str(q.predicate), str(q.object)),
        )
        rdf_format = ox.RdfFormat.TRIG
    data = ox.serialize(ordered, format=rdf_format, prefixes=dict(prefixes or {}))
    assert data is not None  # no output file given: the bytes come back
    return data
