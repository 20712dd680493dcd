"""Schema administration: the domain ontologies the judge reads and the owner's shapes.

``memory.schema`` (a :class:`Schema`) adds, lists and removes ontology sources (closed with
owlrl at once) and SHACL shapes files (applied per write where one write decides them, and
by ``memory.admin.audit``). Both are kept per store, for every scope.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from rdflib.term import Node

from doxa.audit.shape_sources import (
    ShapesSource,
    add_shapes,
    domain_shapes,
    list_shapes,
    remove_shapes,
)
from doxa.errors import (
    NotFound,
)
from doxa.ontology.closure import close_ontology, next_digest, ontology_digest
from doxa.ontology.sources import (
    OntologySource,
    add_source,
    list_sources,
    remove_source,
    source_name,
    source_triples,
)
from doxa.store.convert import ntriples
from doxa.vocabulary import ONTOLOGY_GRAPH

if TYPE_CHECKING:
    from doxa.memory.memory import Memory

__all__ = ["Schema"]


class Schema:
    """The store's ontologies and shapes, as one memory sees them (``memory.schema``)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self.store = memory.store
        self.scope = memory.scope
        self.gate = memory.gate

    def add_ontology(
        self, source: str | Path | bytes, *, format: str | None = None, name: str | None = None
    ) -> int:
        """Load a domain ontology (e.g. functional properties) that the judge then uses.

        Returns the number of triples the source holds. It is recorded as a source named
        ``name`` (default: the file's name; bytes need a name or get one from their digest),
        so :meth:`ontology_sources` lists it and :meth:`remove_ontology` can take it out;
        adding a name again replaces that source. The ontology is closed with owlrl at once,
        so equivalent and inverse properties, sub-properties and part-of hierarchies take
        effect for the next write; facts written before keep the index keys they were
        written with.
        """
        if isinstance(source, bytes):
            data, fmt = source, format or "turtle"
            label = name or "bytes-" + hashlib.sha256(data).hexdigest()[:12]
        else:
            path = Path(source)
            if not path.is_file():
                raise NotFound(f"There is no ontology file at {path}; check the path.")
            data, fmt = path.read_bytes(), format or path.suffix or "turtle"
            label = name or path.name
        label = source_name(label)
        with self.store.lock:
            previous = ontology_digest(self.store)
            added = add_source(self.store, label, data, fmt)
            seed = label.encode() + b"\n" + fmt.encode() + b"\n" + data
            close_ontology(self.store, next_digest(previous, seed))
        return added

    def ontology_sources(self) -> list[OntologySource]:
        """The ontology sources loaded into this store, by name, with their triple counts;
        triples loaded before sources were recorded are counted under ``(unrecorded)``."""
        return list_sources(self.store)

    def ontology_source(self, name: str) -> list[tuple[Node, Node, Node]]:
        """The triples source ``name`` added (blank nodes as IRIs under the source)."""
        return list(source_triples(self.store, name))

    def remove_ontology(self, name: str) -> int:
        """Remove ontology source ``name`` and close the ontology again; returns how many
        triples left the ontology (a triple another source also states stays)."""
        with self.store.lock:
            gone = remove_source(self.store, name)
            lines = sorted(
                f"{ntriples(s)} {ntriples(p)} {ntriples(o)}"
                for s, p, o, _ in self.store.quads(ONTOLOGY_GRAPH)
            )
            close_ontology(self.store, next_digest(None, "\n".join(lines).encode()))
        return gone

    def add_shapes(
        self, source: str | Path | bytes, *, format: str | None = None, name: str | None = None
    ) -> int:
        """Keep a SHACL shapes file (the owner's domain shapes) that ``memory.admin.audit``
        applies.

        Returns the number of triples it holds. It is kept as a source named ``name``
        (default: the file's name; bytes need a name or get one from their digest) in its own
        graph, for every scope of the store, as ontology sources are; adding a name again
        replaces it. A file that is not RDF, or not shapes pySHACL can read, raises
        :class:`~doxa.InvalidInput` and leaves the store as it was. From the next write on,
        the gate also applies the constraints one write decides (``sh:datatype``,
        ``sh:pattern``, ``sh:in`` …) to the triple it states (:mod:`doxa.gate.domain_shapes`);
        the rest wait for ``memory.admin.audit``. A memory opened later on the store reads them
        too.
        """
        if isinstance(source, bytes):
            data, fmt = source, format or "turtle"
            label = name or "bytes-" + hashlib.sha256(data).hexdigest()[:12]
        else:
            path = Path(source)
            if not path.is_file():
                raise NotFound(f"There is no shapes file at {path}; check the path.")
            data, fmt = path.read_bytes(), format or path.suffix.lstrip(".") or "turtle"
            label = name or path.name
        fmt = fmt.strip().casefold()
        fmt = {"ttl": "turtle", "jsonld": "json-ld", "rdf": "xml", "owl": "xml"}.get(fmt, fmt)
        with self.store.lock:
            count = add_shapes(self.store, source_name(label), data, fmt)
            self.gate.shapes = self._memory.shape_check.with_domain(domain_shapes(self.store))
        return count

    def shapes_sources(self) -> list[ShapesSource]:
        """The shapes files the owner added, by name, with their triple counts."""
        return list_shapes(self.store)

    def remove_shapes(self, name: str) -> int:
        """Remove shapes source ``name``; returns how many triples it held. Raises
        :class:`~doxa.NotFound` for a name never added."""
        with self.store.lock:
            count = remove_shapes(self.store, name)
            self.gate.shapes = self._memory.shape_check.with_domain(domain_shapes(self.store))
        return count
