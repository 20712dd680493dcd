"""The owner's domain shapes on each write, where one write can decide them.

A write's own graph describes a claim (``rdf:subject``, ``rdf:predicate``, ``rdf:object``),
not the domain triple it states, and it cannot see the stored data. So the owner's shapes are
applied to the write's plain triple alone, and only the constraints one triple decides are
kept: those that judge one value node by itself (``sh:datatype``, ``sh:nodeKind``,
``sh:pattern``, ``sh:in``, lengths, ranges, ``sh:languageIn``). A write that breaks one of
them breaks the whole scope too, so the gate may reject it without reading the store. The
rest (``sh:class``, counts, ``sh:hasValue``, closed shapes, targets by class) need the stored
data: a whole-scope audit (``memory.admin.audit``) checks them. The per-write cost is one small
pySHACL run, and none at all while the owner added no shapes.
"""

from __future__ import annotations

import threading

from pyshacl import validate
from rdflib import Graph, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from doxa.errors import ConstraintFailure, ShapeCheckFailed

__all__ = ["LOCAL_COMPONENTS", "DomainShapes"]

Triple = tuple[Node, Node, Node]

#: the constraint components a single triple decides (SHACL §4.1-4.4 and sh:languageIn)
LOCAL_COMPONENTS = frozenset(
    f"{name}ConstraintComponent"
    for name in (
        "Datatype",
        "NodeKind",
        "Pattern",
        "In",
        "MinLength",
        "MaxLength",
        "MinInclusive",
        "MaxInclusive",
        "MinExclusive",
        "MaxExclusive",
        "LanguageIn",
    )
)


class DomainShapes:
    """The owner's shapes, applied to the plain triples of a write."""

    def __init__(self, shapes: Graph) -> None:
        self.graph = shapes
        self._lock = threading.Lock()  # pySHACL's shape gathering is not thread-safe

    def check(self, write: Graph | list[Triple]) -> tuple[ConstraintFailure, ...]:
        """The failures of the write's plain triples against the local constraints."""
        plain = _stated(list(write))
        if not plain:
            return ()
        data = Graph()
        for triple in plain:
            data.add(triple)
        with self._lock:
            try:
                conforms, report, _ = validate(data, shacl_graph=self.graph, inference="none")
            except Exception as error:
                raise ShapeCheckFailed(
                    f"The owner's shapes could not be checked ({type(error).__name__}: "
                    f"{error}); the write was not judged. Fix or remove the shapes "
                    "(`doxa shapes list`), then write again."
                ) from error
        if conforms or not isinstance(report, Graph):
            if not isinstance(report, Graph):
                raise ShapeCheckFailed(
                    f"The owner's shapes returned {report!r} instead of a report; the write "
                    "was not judged. Fix or remove the shapes, then write again."
                )
            return ()
        failures = []
        for result in report.subjects(SH.resultSeverity, SH.Violation):
            component = str(report.value(result, SH.sourceConstraintComponent))
            constraint = component.rsplit("#", 1)[-1]
            if constraint not in LOCAL_COMPONENTS:
                continue  # needs the stored data: the audit's to decide
            path = report.value(result, SH.resultPath)
            message = report.value(result, SH.resultMessage)
            failures.append(
                ConstraintFailure(
                    focus_node=str(report.value(result, SH.focusNode)),
                    path=str(path) if isinstance(path, URIRef) else None,
                    message=str(message) if message is not None else component,
                    constraint=constraint,
                )
            )
        return tuple(failures)


def _stated(write: list[Triple]) -> list[Triple]:
    """The domain triples the write's claims state (``rdf:subject``/``predicate``/``object``)."""
    parts: dict[Node, dict[Node, Node]] = {}
    for s, p, o in write:
        if p in (RDF.subject, RDF.predicate, RDF.object):
            parts.setdefault(s, {})[p] = o
    return [
        (found[RDF.subject], found[RDF.predicate], found[RDF.object])
        for found in parts.values()
        if len(found) == 3
    ]
