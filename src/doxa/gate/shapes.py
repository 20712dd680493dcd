"""The shape check: pySHACL over one write's own graph, never the whole store.

The shapes graph is parsed and its shapes gathered once per process; each write then costs one
small validation whose size does not depend on how much the store holds.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pyshacl import Validator
from pyshacl.graph_abstraction import DataGraph
from rdflib import Graph, URIRef
from rdflib.namespace import SH

from doxa.errors import ConstraintFailure, ShapeCheckFailed
from doxa.resources import data_file

__all__ = ["ShapeCheck"]


class ShapeCheck:
    """Validates write graphs against doxa's shapes (and any shapes a user adds)."""

    def __init__(self, extra: list[Path] | None = None) -> None:
        self.graph = Graph()
        self.graph.parse(data_file("shapes", "doxa.ttl"), format="turtle")
        for path in extra or ():
            self.graph.parse(path)
        self._lock = threading.Lock()
        self._shapes: Any = None

    def check(self, write: Graph) -> tuple[ConstraintFailure, ...]:
        """Every constraint the write breaks; empty when it conforms.

        Raises :class:`ShapeCheckFailed` when pySHACL itself fails, which is never read as a
        verdict on the write.
        """
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


def _failures(report: Graph) -> tuple[ConstraintFailure, ...]:
    failures = []
    for result in report.subjects(SH.resultSeverity, None):
        focus = report.value(result, SH.focusNode)
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
    return tuple(sorted(failures, key=lambda f: (f.message, f.path or "")))
