"""A compiled form of the SHACL Core subset doxa's shapes use, checked in plain Python.

pySHACL rebuilds its constraint objects on every validation: about 4 ms for doxa's shapes,
more than the rest of a gated write. Shapes that use only the features below are compiled
once into closures that check a write's graph in tens of microseconds. Anything else (sh:or,
sh:sparql, complex paths …) makes :func:`compile_shapes` return None, and the gate uses
pySHACL. ``tests/gate/test_compiled_shapes.py`` checks both engines agree on generated writes.

Supported: targets ``sh:targetClass`` (with rdfs:subClassOf in the shapes graph),
``sh:targetNode``, ``sh:targetSubjectsOf``; property shapes with a predicate path or
``sh:inversePath``; ``sh:minCount``, ``sh:maxCount``, ``sh:datatype``, ``sh:nodeKind``,
``sh:in``, ``sh:hasValue``, ``sh:pattern`` (with ``sh:flags``), ``sh:minLength``,
``sh:maxLength``, ``sh:minInclusive``, ``sh:maxInclusive``, ``sh:minExclusive``,
``sh:maxExclusive``, ``sh:lessThan``, ``sh:equals``, ``sh:node``; ``sh:message``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pyshacl.rdfutil import compare_literal  # type: ignore[attr-defined]
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS, SH
from rdflib.term import Node

from doxa.errors import ConstraintFailure

__all__ = ["CompiledShapes", "Triples", "compile_shapes"]

Triple = tuple[Node, Node, Node]


class Triples:
    """A write's few triples, indexed both ways for the lookups the checks make.

    Plain dictionaries: an rdflib graph costs more to build and to ask than the checks
    themselves. Like a graph, it holds each triple once, in the order first given.
    """

    def __init__(self, triples: Iterable[Triple]) -> None:
        self._out: dict[Node, dict[Node, dict[Node, None]]] = {}  # subject → predicate → objects
        self._in: dict[Node, dict[Node, dict[Node, None]]] = {}  # predicate → object → subjects
        for s, p, o in triples:
            self._out.setdefault(s, {}).setdefault(p, {})[o] = None
            self._in.setdefault(p, {}).setdefault(o, {})[s] = None

    def objects(self, subject: Node, predicate: Node) -> list[Node]:
        return list(self._out.get(subject, {}).get(predicate, ()))

    def subjects(self, predicate: Node, obj: Node | None) -> list[Node]:
        found = self._in.get(predicate, {})
        if obj is not None:
            return list(found.get(obj, ()))
        return list(dict.fromkeys(s for subjects in found.values() for s in subjects))


Check = Callable[[Triples, Node, list[Node]], bool]  # (data, focus, values) -> conforms
Target = Callable[[Triples], set[Node]]

_PROPERTY_KEYS = {
    SH.path,
    SH.minCount,
    SH.maxCount,
    SH.datatype,
    SH.nodeKind,
    SH["in"],
    SH.hasValue,
    SH.pattern,
    SH.flags,
    SH.minLength,
    SH.maxLength,
    SH.minInclusive,
    SH.maxInclusive,
    SH.minExclusive,
    SH.maxExclusive,
    SH.lessThan,
    SH.equals,
    SH.node,
    SH.message,
    SH.name,
    SH.description,
    SH.severity,
    RDF.type,
    RDFS.label,
    RDFS.comment,
}
_NODE_KEYS = {
    SH.targetClass,
    SH.targetNode,
    SH.targetSubjectsOf,
    SH.property,
    SH.message,
    RDF.type,
    RDFS.label,
    RDFS.comment,
    SH.severity,
}


class _Unsupported(Exception):
    """The shapes use a feature this compiler does not handle."""


@dataclass(frozen=True)
class _Constraint:
    component: str
    check: Check


@dataclass(frozen=True)
class _PropertyShape:
    predicate: URIRef
    inverse: bool
    message: str | None
    constraints: tuple[_Constraint, ...]

    def values(self, data: Triples, focus: Node) -> list[Node]:
        if self.inverse:
            return data.subjects(self.predicate, focus)
        return data.objects(focus, self.predicate)

    def failures(self, data: Triples, focus: Node) -> list[tuple[str, str]]:
        values = self.values(data, focus)
        return [
            (c.component, self.message or f"{c.component} failed on {self.predicate}")
            for c in self.constraints
            if not c.check(data, focus, values)
        ]


@dataclass(frozen=True)
class _NodeShape:
    targets: tuple[Target, ...]
    properties: tuple[_PropertyShape, ...]

    def conforms(self, data: Triples, focus: Node) -> bool:
        return not any(p.failures(data, focus) for p in self.properties)


class CompiledShapes:
    """Checks write graphs against compiled shapes; same failures as pySHACL would report."""

    def __init__(self, shapes: tuple[_NodeShape, ...]) -> None:
        self._shapes = shapes

    def check(self, write: Iterable[Triple]) -> tuple[ConstraintFailure, ...]:
        """Every constraint the write (a graph, or its triples) breaks; empty when it conforms."""
        data = Triples(write)
        found: dict[tuple[str, str], ConstraintFailure] = {}
        for shape in self._shapes:
            focus_nodes: set[Node] = set()
            for target in shape.targets:
                focus_nodes |= target(data)
            for focus in focus_nodes:
                for prop in shape.properties:
                    for component, message in prop.failures(data, focus):
                        reported = focus
                        if prop.inverse:  # report the claim, not the individual aimed at
                            values = prop.values(data, focus)
                            reported = values[0] if values else focus
                        key = (str(reported), message)
                        found.setdefault(
                            key,
                            ConstraintFailure(
                                focus_node=str(reported),
                                path=None if prop.inverse else str(prop.predicate),
                                message=message,
                                constraint=component,
                            ),
                        )
        return tuple(sorted(found.values(), key=lambda f: (f.message, f.path or "")))


def compile_shapes(graph: Graph) -> CompiledShapes | None:
    """Compile every node shape in ``graph``, or None if any uses an unsupported feature."""
    try:
        roots = set(graph.subjects(RDF.type, SH.NodeShape))
        roots |= {
            s
            for p in (SH.targetClass, SH.targetNode, SH.targetSubjectsOf)
            for s in graph.subjects(p, None)
        }
        if set(graph.subjects(RDF.type, SH.PropertyShape)) - _property_nodes(graph):
            raise _Unsupported("a property shape that no node shape uses")
        return CompiledShapes(tuple(_node_shape(graph, s, {}) for s in sorted(roots, key=str)))
    except _Unsupported:
        return None


def _property_nodes(graph: Graph) -> set[Node]:
    return set(graph.objects(None, SH.property))


def _node_shape(graph: Graph, node: Node, seen: dict[Node, _NodeShape]) -> _NodeShape:
    for p in graph.predicates(node, None):
        if p not in _NODE_KEYS:
            raise _Unsupported(f"node shape feature {p}")
    if graph.value(node, SH.severity) not in (None, SH.Violation):
        raise _Unsupported("severities other than violation")
    targets: list[Target] = []
    for cls in graph.objects(node, SH.targetClass):
        subclasses = {c for c in graph.transitive_subjects(RDFS.subClassOf, cls) if c is not None}
        targets.append(_instances_of(frozenset({cls, *subclasses})))
    targets += [_the_node(t) for t in graph.objects(node, SH.targetNode)]
    targets += [_subjects_of(p) for p in graph.objects(node, SH.targetSubjectsOf)]
    properties = tuple(_property_shape(graph, p, seen) for p in graph.objects(node, SH.property))
    return _NodeShape(tuple(targets), properties)


def _property_shape(graph: Graph, node: Node, seen: dict[Node, _NodeShape]) -> _PropertyShape:
    for p in graph.predicates(node, None):
        if p not in _PROPERTY_KEYS:
            raise _Unsupported(f"property shape feature {p}")
    if graph.value(node, SH.severity) not in (None, SH.Violation):
        raise _Unsupported("severities other than violation")
    path = graph.value(node, SH.path)
    inverse = False
    if isinstance(path, BNode):
        inverse_of = graph.value(path, SH.inversePath)
        if not isinstance(inverse_of, URIRef) or len(list(graph.predicate_objects(path))) != 1:
            raise _Unsupported("complex paths")
        path, inverse = inverse_of, True
    if not isinstance(path, URIRef):
        raise _Unsupported("a property shape without a predicate path")
    message = graph.value(node, SH.message)
    constraints = tuple(_constraints(graph, node, seen))
    return _PropertyShape(path, inverse, str(message) if message is not None else None, constraints)


def _constraints(graph: Graph, node: Node, seen: dict[Node, _NodeShape]) -> list[_Constraint]:
    out: list[_Constraint] = []

    def value(p: URIRef) -> Node | None:
        return graph.value(node, p)

    def add(component: str, check: Check) -> None:
        out.append(_Constraint(component, check))

    if (n := value(SH.minCount)) is not None:
        add("MinCountConstraintComponent", _count_at_least(_int(n)))
    if (n := value(SH.maxCount)) is not None:
        add("MaxCountConstraintComponent", _count_at_most(_int(n)))
    if (datatype := value(SH.datatype)) is not None:
        add("DatatypeConstraintComponent", _each(lambda x: _has_datatype(x, datatype)))
    if (kind := value(SH.nodeKind)) is not None:
        add("NodeKindConstraintComponent", _each(lambda x: _has_kind(x, kind)))
    if (members := value(SH["in"])) is not None:
        allowed = frozenset(Collection(graph, members))
        add("InConstraintComponent", _each(lambda x: x in allowed))
    if (wanted := value(SH.hasValue)) is not None:
        add("HasValueConstraintComponent", _contains(wanted))
    if (pattern := value(SH.pattern)) is not None:
        flags = str(value(SH.flags) or "")
        regex = re.compile(str(pattern), re.IGNORECASE if "i" in flags else 0)
        add(
            "PatternConstraintComponent",
            _each(lambda x: _text(x) is not None and regex.search(str(x)) is not None),
        )
    if (n := value(SH.minLength)) is not None:
        shortest = _int(n)
        add(
            "MinLengthConstraintComponent",
            _each(lambda x: _text(x) is not None and len(str(x)) >= shortest),
        )
    if (n := value(SH.maxLength)) is not None:
        longest = _int(n)
        add(
            "MaxLengthConstraintComponent",
            _each(lambda x: _text(x) is not None and len(str(x)) <= longest),
        )
    for key, name, test in _RANGES:
        if (bound := value(key)) is not None:
            add(name, _each(_in_range_of(bound, test)))
    if (other := value(SH.lessThan)) is not None:
        add("LessThanConstraintComponent", _less_than(other))
    if (other := value(SH.equals)) is not None:
        add("EqualsConstraintComponent", _equals(other))
    if (nested := value(SH.node)) is not None:
        shape = seen.get(nested) or _node_shape(graph, nested, seen)
        seen[nested] = shape
        add("NodeConstraintComponent", _conforming(shape))
    return out


_RANGES: tuple[tuple[URIRef, str, Callable[[int], bool]], ...] = (
    (SH.minInclusive, "MinInclusiveConstraintComponent", lambda c: c >= 0),
    (SH.maxInclusive, "MaxInclusiveConstraintComponent", lambda c: c <= 0),
    (SH.minExclusive, "MinExclusiveConstraintComponent", lambda c: c > 0),
    (SH.maxExclusive, "MaxExclusiveConstraintComponent", lambda c: c < 0),
)


def _int(node: Node) -> int:
    return int(str(node))


def _text(node: Node) -> str | None:
    return None if isinstance(node, BNode) else str(node)


def _instances_of(classes: frozenset[Node]) -> Target:
    return lambda data: {s for c in classes for s in data.subjects(RDF.type, c)}


def _the_node(node: Node) -> Target:
    return lambda data: {node}


def _subjects_of(predicate: Node) -> Target:
    return lambda data: set(data.subjects(predicate, None))


def _each(test: Callable[[Node], bool]) -> Check:
    return lambda data, focus, values: all(test(v) for v in values)


def _count_at_least(n: int) -> Check:
    return lambda data, focus, values: len(values) >= n


def _count_at_most(n: int) -> Check:
    return lambda data, focus, values: len(values) <= n


def _contains(wanted: Node) -> Check:
    return lambda data, focus, values: wanted in values


def _in_range_of(bound: Node, test: Callable[[int], bool]) -> Callable[[Node], bool]:
    return lambda value: _in_range(value, bound, test)


def _less_than(other: Node) -> Check:
    return lambda data, focus, values: all(
        _less(v, o) for v in values for o in data.objects(focus, other)
    )


def _equals(other: Node) -> Check:
    return lambda data, focus, values: set(values) == set(data.objects(focus, other))


def _conforming(shape: _NodeShape) -> Check:
    return lambda data, focus, values: all(shape.conforms(data, v) for v in values)


def _has_datatype(node: Node, datatype: Node) -> bool:
    if not isinstance(node, Literal):
        return False
    if node.datatype is None:
        return datatype == URIRef("http://www.w3.org/2001/XMLSchema#string") and not node.language
    return node.datatype == datatype and not node.ill_typed


def _has_kind(node: Node, kind: Node) -> bool:
    kinds = {
        SH.IRI: (URIRef,),
        SH.Literal: (Literal,),
        SH.BlankNode: (BNode,),
        SH.BlankNodeOrIRI: (BNode, URIRef),
        SH.BlankNodeOrLiteral: (BNode, Literal),
        SH.IRIOrLiteral: (URIRef, Literal),
    }
    return isinstance(node, kinds[kind])  # type: ignore[index]


def _in_range(value: Node, bound: Node, test: Callable[[int], bool]) -> bool:
    """Range checks as pySHACL makes them: strings only against strings, by compare_literal."""
    if not isinstance(value, Literal) or not isinstance(bound, Literal):
        return False
    if isinstance(value.value, str) != isinstance(bound.value, str):
        return False
    try:
        return test(compare_literal(value, bound))  # type: ignore[no-untyped-call]
    except (TypeError, NotImplementedError):  # pySHACL's word for "no order between these"
        return False


def _less(value: Node, other: Node) -> bool:
    """sh:lessThan as pySHACL decides it: IRIs and strings compare as text, the rest by value."""
    if isinstance(value, BNode) or isinstance(other, BNode):
        return False

    def plain(node: Node) -> tuple[bool, object]:
        if isinstance(node, URIRef):
            return True, str(node)
        if isinstance(node, Literal) and isinstance(node.value, str):
            return True, node.value
        return False, node

    value_is_text, left = plain(value)
    other_is_text, right = plain(other)
    if value_is_text != other_is_text:
        return False
    try:
        return bool(left < right)  # type: ignore[operator]
    except TypeError:
        return False
