"""The shape check: pySHACL over one write's own graph, never the whole store.

The shapes graph is parsed and its shapes gathered once per process; each write then costs one
small validation whose size does not depend on how much the store holds.
"""

from __future__ import annotations

import copy
import functools
import threading
from pathlib import Path
from typing import Any, Literal

from pyshacl import Validator
from pyshacl.graph_abstraction import DataGraph
from rdflib import Graph, URIRef
from rdflib.namespace import SH

from doxa.errors import ConstraintFailure, ShapeCheckFailed
from doxa.gate.compiled import Triple, compile_shapes
from doxa.gate.domain_shapes import DomainShapes
from doxa.resources import data_file
from doxa.vocabulary import DOXA

__all__ = ["ShapeCheck", "default_shape_check"]


Engine = Literal["auto", "compiled", "pyshacl"]


@functools.cache
def default_shape_check() -> ShapeCheck:
    """doxa's own shapes, parsed and compiled once per process (checks hold no state)."""
    return ShapeCheck()


class ShapeCheck:
    """Validates write graphs against doxa's shapes (and any shapes a user adds).

    ``engine="auto"`` (the default) checks with the compiled form of the shapes when every
    shape is within the SHACL Core subset it supports (see :mod:`doxa.gate.compiled`), and
    with pySHACL otherwise; ``"pyshacl"`` always uses pySHACL.
    """

    def __init__(self, extra: list[Path] | None = None, *, engine: Engine = "auto") -> None:
        self.graph = Graph()
        self.graph.parse(data_file("shapes", "doxa.ttl"), format="turtle")
        for path in extra or ():
            self.graph.parse(path)
        self._lock = threading.Lock()
        self._shapes: Any = None
        self.compiled = compile_shapes(self.graph) if engine != "pyshacl" else None
        if engine == "compiled" and self.compiled is None:
            raise ShapeCheckFailed(
                "The shapes use SHACL features the compiled engine does not support; "
                "use engine='pyshacl' or 'auto'."
            )
        self.engine: Engine = "compiled" if self.compiled is not None else "pyshacl"
        #: the owner's shapes, applied where one write decides them (:meth:`with_domain`)
        self.domain: DomainShapes | None = None

    def check(self, write: Graph | list[Triple]) -> tuple[ConstraintFailure, ...]:
        """Every constraint the write (its graph, or its triples) breaks; empty when it
        conforms.

        Raises :class:`ShapeCheckFailed` when pySHACL itself fails, which is never read as a
        verdict on the write.
        """
        if self.compiled is not None:
            failures = self.compiled.check(write)
        else:
            graph = write if isinstance(write, Graph) else _graph(write)
            failures = self.check_with_pyshacl(graph)
        if self.domain is not None:
            failures += self.domain.check(write)
        return failures

    def with_domain(self, shapes: Graph) -> ShapeCheck:
        """This check plus the owner's domain shapes (:mod:`doxa.gate.domain_shapes`),
        sharing doxa's parsed and compiled shapes; an empty graph gives this check back."""
        if not len(shapes):
            return self
        extended = copy.copy(self)
        extended.domain = DomainShapes(shapes)
        return extended

    def check_with_pyshacl(self, write: Graph) -> tuple[ConstraintFailure, ...]:
        """The same check, always run by pySHACL (the reference engine)."""
        with self._lock:  # pySHACL's shapes cache is not thread-safe
            try:
                validator = Validator(DataGraph.from_rdflib_graph(write), shacl_graph=self.graph)
                if self._shapes is None:
                    self._shapes = validator.shacl_graph
                else:
                    validator.shacl_graph = self._shapes  # reuse the gathered shapes
                conforms, report, _text = validator.run()  # type: ignore[no-untyped-call]
            except Exception as error:
                raise ShapeCheckFailed(
                    f"The shape check itself failed ({type(error).__name__}: {error}); the write "
                    "was not judged. Check the shapes files, then write again."
                ) from error
        if not isinstance(report, Graph):
            raise ShapeCheckFailed(
                f"The shape check returned {report!r} instead of a report; the write was not "
                "judged. Check the shapes files, then write again."
            )
        if conforms:
            return ()
        return _failures(report)


def _graph(triples: list[Triple]) -> Graph:
    graph = Graph()
    for triple in triples:
        graph.add(triple)
    return graph


def _failures(report: Graph) -> tuple[ConstraintFailure, ...]:
    failures = []
    for result in report.subjects(SH.resultSeverity, None):
        # a shape aimed at an individual (doxa:External) reports the claim as the value node
        value = report.value(result, SH.value)
        focus = report.value(result, SH.focusNode)
        if isinstance(value, URIRef) and str(focus).startswith(str(DOXA)):
            focus = value
        path = report.value(result, SH.resultPath)
        message = report.value(result, SH.resultMessage)
        component = report.value(result, SH.sourceConstraintComponent)
        failures.append(
            ConstraintFailure(
                focus_node=str(focus),
                path=str(path) if isinstance(path, URIRef) else None,
                message=str(message) if message is not None else str(component),
                constraint=str(component).rsplit("#", 1)[-1],
            )
        )
    # a nested shape reports both the inner constraint and the outer sh:node: keep one
    unique = {(f.focus_node, f.message): f for f in failures}
    return tuple(sorted(unique.values(), key=lambda f: (f.message, f.path or "")))
