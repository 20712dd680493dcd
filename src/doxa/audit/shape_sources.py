"""The owner's domain shapes: one named graph per shapes file, read by whole-scope audits.

Like the ontology's sources (:mod:`doxa.ontology.sources`), each ``doxa shapes add FILE`` is
kept in its own graph, ``urn:doxa:shapes:source:NAME``, so the shapes can be listed, shown and
removed by name; adding a name again replaces it. A file is parsed and its shapes gathered by
pySHACL before anything is stored, so a file that is not RDF, or not a shapes graph pySHACL
can read, is refused with :class:`~doxa.InvalidInput` and the store is left as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyshacl import Validator
from pyshacl.graph_abstraction import DataGraph
from rdflib import Graph, URIRef

from doxa.errors import InvalidInput, NotFound
from doxa.ontology.sources import source_name
from doxa.store import Store

__all__ = [
    "ShapesSource",
    "add_shapes",
    "domain_shapes",
    "list_shapes",
    "remove_shapes",
    "shapes_graph",
]

_PREFIX = "urn:doxa:shapes:source:"


@dataclass(frozen=True)
class ShapesSource:
    """One shapes file the owner added: its name and how many triples it holds."""

    name: str
    triples: int


def shapes_graph(name: str) -> URIRef:
    """The graph shapes source ``name`` is kept in (the name normalised as ontology sources'
    are: ``Domain.TTL`` and ``domain.ttl`` are one source)."""
    return URIRef(_PREFIX + source_name(name))


def _names(store: Store) -> list[str]:
    return sorted(str(g)[len(_PREFIX) :] for g in store.graphs() if str(g).startswith(_PREFIX))


def add_shapes(store: Store, name: str, data: bytes, fmt: str) -> int:
    """Keep ``data`` (a SHACL shapes graph) as source ``name``, replacing one of that name;
    returns its number of triples. The caller holds the store's lock."""
    graph = shapes_graph(name)
    parsed = Graph()
    try:
        parsed.parse(data=data, format=fmt)
    except Exception as error:  # rdflib's parsers raise many types; all mean "not this format"
        raise InvalidInput(
            f"The shapes file {name!r} is not valid {fmt}: {error}; fix the file or name its "
            "format with --format."
        ) from None
    if not len(parsed):
        raise InvalidInput(f"The shapes file {name!r} holds no triples; give a SHACL file.")
    try:
        validator = Validator(DataGraph.from_rdflib_graph(Graph()), shacl_graph=parsed)
        validator.shacl_graph.shapes  # noqa: B018 (the property gathers the shapes)
    except Exception as error:  # pySHACL's own errors: a shapes graph it cannot read
        raise InvalidInput(
            f"The shapes file {name!r} is not a shapes graph pySHACL can read "
            f"({type(error).__name__}: {error}); fix the shape it names."
        ) from None
    store.clear_graph(graph)
    store.load(parsed.serialize(format="nt").encode(), format="nt", graph=graph)
    return len(parsed)


def remove_shapes(store: Store, name: str) -> int:
    """Remove shapes source ``name``; returns how many triples it held."""
    graph = shapes_graph(name)
    if str(graph)[len(_PREFIX) :] not in _names(store):
        raise NotFound(f"No shapes source is named {name!r}; list them with `doxa shapes list`.")
    count = sum(1 for _ in store.quads(graph))
    store.clear_graph(graph)
    return count


def list_shapes(store: Store) -> list[ShapesSource]:
    """Every shapes source by name, with its triple count."""
    return [
        ShapesSource(name, sum(1 for _ in store.quads(URIRef(_PREFIX + name))))
        for name in _names(store)
    ]


def domain_shapes(store: Store) -> Graph:
    """Every shapes source, as one graph (empty when the owner added none)."""
    graph = Graph()
    for name in _names(store):
        for s, p, o, _ in store.quads(URIRef(_PREFIX + name)):
            graph.add((s, p, o))
    return graph
