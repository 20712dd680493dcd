"""Whole-scope audits: pySHACL over the scope's rdflib view, every violation with its facts.

The gate checks each write's own graph, which by design cannot see constraints that reach
into stored data (an ``sh:class`` on a node described elsewhere, a count across writes). An
audit validates the scope as a whole: doxa's own shapes and the owner's domain shapes
(:mod:`doxa.audit.shape_sources`) over the union of the scope's ordinary graphs, read in place
through ``memory.rdf.dataset`` (nothing copied). Each result names the facts involved:
the fact itself when the focus node is a claim, else the facts stated about the focus node.

With ``infer``, owlrl (OWL 2 RL) runs over a copy of the view and the ontology, and the
triples it adds are kept in a derived graph of their own (``urn:doxa:inferred:SCOPE``): never
in claims, never exported, rebuilt by the next inferring audit and cleared by an erasure.
The audit then validates the view together with those inferences.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

import owlrl
from pyshacl import validate
from rdflib import BNode, Graph, URIRef
from rdflib.namespace import RDF, SH
from rdflib.term import Node

from doxa.errors import InvalidInput, ShapeCheckFailed
from doxa.scope import Scope
from doxa.store import Change, Store

__all__ = [
    "REPORT_FORMATS",
    "AuditReport",
    "AuditViolation",
    "clear_inferred",
    "infer",
    "inferred_graph",
    "validate_scope",
]

ReportFormat = Literal["turtle", "json-ld"]
REPORT_FORMATS: tuple[ReportFormat, ...] = ("turtle", "json-ld")

Triple = tuple[Node, Node, Node]


@dataclass(frozen=True)
class AuditViolation:
    """One SHACL result of an audit: where, what, and the facts it concerns."""

    focus_node: str
    path: str | None
    value: str | None
    message: str
    constraint: str  # the constraint component's local name, e.g. "MinCountConstraintComponent"
    severity: str  # "Violation", "Warning" or "Info"
    shape: str | None
    facts: tuple[str, ...]  # ids of the facts involved (empty: none stated in this scope)


@dataclass(frozen=True)
class AuditReport:
    """The outcome of :func:`validate_scope`: ``conforms`` and every result, in a stable order.

    ``report`` is pySHACL's validation report graph (``sh:ValidationReport``), which
    :meth:`serialize` writes as Turtle or JSON-LD.
    """

    conforms: bool
    violations: tuple[AuditViolation, ...]
    triples: int  # how many triples were validated
    shapes: int  # how many shapes triples were applied (doxa's and the owner's)
    inferred: int  # triples owlrl added (0 without infer)
    report: Graph = field(compare=False, repr=False)

    def serialize(self, format: str = "turtle") -> str:
        """The SHACL validation report as ``turtle`` or ``json-ld``.

        Raises :class:`~doxa.InvalidInput` for another format name.
        """
        chosen = format.strip().casefold()
        if chosen not in REPORT_FORMATS:
            raise InvalidInput(
                f"{format!r} is not a report format; use one of: {', '.join(REPORT_FORMATS)}."
            )
        return self.report.serialize(format=chosen)


def inferred_graph(scope: Scope) -> URIRef:
    """The derived graph an inferring audit of ``scope`` keeps owlrl's triples in (outside
    the scope's own graphs, so exports and the chain never carry it)."""
    return URIRef(f"urn:doxa:inferred:{scope.name}")


def clear_inferred(store: Store, scope: Scope) -> None:
    """Drop the derived inferences of ``scope`` (an erasure must not leave their traces)."""
    store.clear_graph(inferred_graph(scope))


def infer(store: Store, scope: Scope, data: Graph, ontology: Iterable[Triple]) -> Graph:
    """owlrl's OWL 2 RL closure of ``data`` and ``ontology``: the triples it adds that neither
    states, kept (replacing the last ones) in :func:`inferred_graph`; returns them."""
    closed = Graph()
    for triple in data:
        closed.add(triple)
    told = set(closed)
    for triple in ontology:
        closed.add(triple)
        told.add(triple)
    # improved_datatypes=False: owlrl's own literal conversions replace rdflib's for the
    # whole process and are never taken back (valid gMonth "--12" then reads as ill typed)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, improved_datatypes=False).expand(closed)
    added = Graph()
    graph = inferred_graph(scope)
    for s, p, o in closed:
        if (s, p, o) not in told and _about_the_data(s, p, o):
            added.add((s, p, o))
    store.clear_graph(graph)
    store.apply(Change(insert=[(s, p, o, graph) for s, p, o in added]))
    return added


_W3C = (
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "http://www.w3.org/2000/01/rdf-schema#",
    "http://www.w3.org/2002/07/owl#",
    "http://www.w3.org/2001/XMLSchema#",
)


def _about_the_data(s: Node, p: Node, o: Node) -> bool:
    """Whether an inferred triple says something new about the scope's nodes.

    owlrl also restates RDF's own axioms (``rdf:_1 a rdfs:ContainerMembershipProperty``),
    reflexive triples (``x owl:sameAs x``), ``x a owl:Thing``, blank-node class expressions
    and the ontology's schema closure, which the gate keeps already: none is kept.
    """
    if not isinstance(s, URIRef) or isinstance(o, BNode) or s == o:
        return False
    if str(s).startswith(_W3C) or str(o).startswith(_W3C):
        return False
    return not str(p).startswith(_W3C) or p == RDF.type


def validate_scope(
    data: Graph,
    shapes: Graph,
    *,
    facts_of: Callable[[Node, Node | None], tuple[str, ...]],
    triples: int,
    inferred: int = 0,
) -> AuditReport:
    """Validate ``data`` (the scope's view, read in place) against ``shapes``.

    ``facts_of(focus, path)`` names the facts a result concerns. Raises
    :class:`~doxa.ShapeCheckFailed` when pySHACL itself fails (its report is then an
    exception, not a verdict on the data).
    """
    try:
        conforms, report, _text = validate(
            data, shacl_graph=shapes, inference="none", allow_warnings=True, allow_infos=True
        )
    except Exception as error:
        raise ShapeCheckFailed(
            f"The audit's shape check itself failed ({type(error).__name__}: {error}); "
            "check the shapes with `doxa shapes list`, then audit again."
        ) from error
    if not isinstance(report, Graph):
        raise ShapeCheckFailed(
            f"The audit's shape check returned {report!r} instead of a report; check the "
            "shapes with `doxa shapes list`, then audit again."
        )
    return AuditReport(
        conforms=bool(conforms),
        violations=_violations(report, facts_of),
        triples=triples,
        shapes=len(shapes),
        inferred=inferred,
        report=report,
    )


def _text(node: Node | None) -> str | None:
    return None if node is None else str(node)


def _named(node: Node | None) -> str | None:
    """A shape's IRI; None for a blank-node shape (its label differs on every run)."""
    return str(node) if isinstance(node, URIRef) else None


def _violations(
    report: Graph, facts_of: Callable[[Node, Node | None], tuple[str, ...]]
) -> tuple[AuditViolation, ...]:
    found = []
    for result in report.subjects(SH.resultSeverity, None):
        focus = report.value(result, SH.focusNode)
        path = report.value(result, SH.resultPath)
        component = report.value(result, SH.sourceConstraintComponent)
        message = report.value(result, SH.resultMessage)
        severity = report.value(result, SH.resultSeverity)
        found.append(
            AuditViolation(
                focus_node=str(focus),
                path=str(path) if isinstance(path, URIRef) else None,
                value=_text(report.value(result, SH.value)),
                message=str(message) if message is not None else str(component),
                constraint=str(component).rsplit("#", 1)[-1],
                severity=str(severity).rsplit("#", 1)[-1],
                shape=_named(report.value(result, SH.sourceShape)),
                facts=facts_of(focus, path if isinstance(path, URIRef) else None)
                if focus is not None
                else (),
            )
        )
    return tuple(sorted(set(found), key=lambda v: (v.focus_node, v.path or "", v.message)))
