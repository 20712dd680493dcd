"""The W3C SPARQL 1.1 Protocol test suite, run against a live ``doxa serve``.

See tests/conformance/sparql11-protocol/README.md for how the suite maps onto doxa: query
tests must pass as written; update tests must get the documented read-only refusal (403
``ReadOnly``) and leave the store unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode
from xml.etree import ElementTree

import httpx
import pytest
from rdflib import RDF, Graph, Namespace, URIRef
from rdflib.collection import Collection
from tests.interfaces.conftest import AGENT, Server, config_text

MANIFEST = (
    Path(__file__).resolve().parents[2] / "conformance" / "sparql11-protocol" / "manifest.ttl"
)
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
HT = Namespace("http://www.w3.org/2011/http#")
CNT = Namespace("http://www.w3.org/2011/content#")
HTS = Namespace("http://www.w3.org/2011/http-statusCodes#")
UT = Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
RDFS_LABEL = URIRef("http://www.w3.org/2000/01/rdf-schema#label")
FOAF_DOCUMENT = "http://xmlns.com/foaf/0.1/Document"
SUITE_GRAPHS = "http://kasei.us/2009/09/sparql/data/"
CURRENT = "urn:doxa:scope:alice/current"
DATASET_PARAMS = {"default-graph-uri", "named-graph-uri"}

RESULT_TYPES = {
    "boolean": {"application/sparql-results+json", "application/sparql-results+xml"},
    "tabular": {
        "application/sparql-results+json",
        "application/sparql-results+xml",
        "text/csv",
        "text/tab-separated-values",
    },
    "RDF": {"text/turtle", "application/n-triples", "application/rdf+xml"},
}


@dataclass(frozen=True)
class Step:
    """One HTTP request of a test and what its response must be."""

    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    statuses: frozenset[str]
    boolean: bool | None
    format: str | None


@dataclass(frozen=True)
class Case:
    name: str
    steps: tuple[Step, ...]
    graphs: tuple[str, ...]


def _cases() -> list[Case]:
    graph = Graph().parse(MANIFEST, format="turtle")
    manifest = next(graph.subjects(RDF.type, MF.Manifest))
    entries = Collection(graph, graph.value(manifest, MF.entries))
    cases = []
    for entry in entries:
        action = graph.value(entry, MF.action)
        steps = []
        for request in Collection(graph, graph.value(action, HT.requests)):
            body_node = graph.value(request, HT.body)
            body = None
            if body_node is not None:
                encoding = str(graph.value(body_node, CNT.characterEncoding) or "UTF-8")
                body = str(graph.value(body_node, CNT.chars)).encode(encoding.lower())
            headers = []
            headers_node = graph.value(request, HT.headers)
            if headers_node is not None:
                for header in Collection(graph, headers_node):
                    headers.append(
                        (
                            str(graph.value(header, HT.fieldName)),
                            str(graph.value(header, HT.fieldValue)),
                        )
                    )
            response = graph.value(request, HT.resp)
            boolean = graph.value(response, MF.expectedBoolean)
            fmt = graph.value(response, MF.expectedFormat)
            steps.append(
                Step(
                    method=str(graph.value(request, HT.methodName)),
                    path=str(graph.value(request, HT.absolutePath)),
                    headers=tuple(headers),
                    body=body,
                    statuses=frozenset(
                        str(s).rsplit("#", 1)[-1]
                        for s in graph.objects(response, MF.expectedStatus)
                    ),
                    boolean=None if boolean is None else bool(boolean.toPython()),
                    format=None if fmt is None else str(fmt),
                )
            )
        graphs = tuple(
            sorted(str(graph.value(g, RDFS_LABEL)) for g in graph.objects(entry, UT.graphData))
        )
        cases.append(Case(str(entry).rsplit("#", 1)[-1], tuple(steps), graphs))
    return cases


CASES = _cases()


def test_the_manifest_is_whole() -> None:
    """All 34 entries were read, each with at least one request (a broken reader fails here)."""
    assert len(CASES) == 34
    assert all(case.steps for case in CASES)
    assert sum(case.name.startswith("query_") for case in CASES) == 13
    assert sum("update" in case.name for case in CASES) == 14


def _mapped(path: str) -> str:
    """The suite's path on doxa: /sparql, with the suite's graphs mapped to the scope."""
    assert path.startswith("/sparql/")
    rest = path[len("/sparql/") :]
    query = rest[1:] if rest.startswith("?") else rest
    pairs = [
        (k, CURRENT if k in DATASET_PARAMS and v.startswith(SUITE_GRAPHS) else v)
        for k, v in parse_qsl(query, keep_blank_values=True)
    ]
    return "/sparql" + (f"?{urlencode(pairs)}" if pairs else "")


def _status_class(status: int) -> str:
    return f"StatusCode{status // 100}xx"


def _boolean(response: httpx.Response) -> bool:
    media = response.headers["content-type"].split(";")[0]
    if media == "application/sparql-results+json":
        return bool(json.loads(response.text)["boolean"])
    assert media == "application/sparql-results+xml"
    root = ElementTree.fromstring(response.content)
    found = root.find("{http://www.w3.org/2005/sparql-results#}boolean")
    assert found is not None
    return found.text == "true"


@pytest.fixture(scope="module")
def server(serve: Callable[[str], Server]) -> Server:
    server = serve(config_text())
    graphs = sorted({g for case in CASES for g in case.graphs})
    assert graphs  # the dataset tests name their graphs
    with server.client(AGENT) as client:
        for name in graphs:
            receipt = client.post(
                "/remember",
                json={
                    "text": f"{name} is a document",
                    "topic": "protocol-suite",
                    "subject": name,
                    "predicate": str(RDF.type),
                    "object": FOAF_DOCUMENT,
                },
            )
            assert receipt.json()["outcome"] == "admitted", receipt.text
    return server


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_protocol(server: Server, case: Case) -> None:
    """Each query test passes as written; each update gets the read-only refusal."""
    refused_update = False
    with server.client(AGENT) as client:
        for index, step in enumerate(case.steps):
            response = client.request(
                step.method,
                _mapped(step.path),
                headers=dict(step.headers),
                content=step.body,
            )
            if case.name.startswith("update_") and index == 0:
                assert response.status_code == 403, response.text
                assert response.json()["error"]["type"] == "ReadOnly"
                refused_update = True
                continue
            assert _status_class(response.status_code) in step.statuses, response.text
            if response.status_code >= 400:
                assert response.json()["error"]["message"]
                continue
            if step.format is not None:
                media = response.headers["content-type"].split(";")[0]
                assert media in RESULT_TYPES[step.format]
                if step.format == "RDF":
                    Graph().parse(data=response.text, format=media)
            if step.boolean is not None:
                # after a refused update nothing changed, so its check must now fail
                assert _boolean(response) is (step.boolean and not refused_update)
