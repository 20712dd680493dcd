"""``/sparql``: real clients, content negotiation, the scope as dataset, row cap and timeout."""

from __future__ import annotations

import csv
import io
import json
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from urllib.error import HTTPError

import httpx
import pytest
from rdflib import Dataset, Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import (
    CSV,
    JSON,
    JSONLD,
    N3,
    POST,
    RDF,
    RDFXML,
    TSV,
    TURTLE,
    XML,
    SPARQLWrapper,
)
from tests.helpers import EX
from tests.interfaces.conftest import AGENT, BOB, Server, config_text

ALICE = "urn:doxa:scope:alice"
MAX_ROWS = 40
WEDNESDAY = f"SELECT ?o WHERE {{ <{EX}supplierCall> <{EX}dayOfWeek> ?o }}"
CONSTRUCT = f"CONSTRUCT {{ ?s <{EX}dayOfWeek> ?o }} WHERE {{ ?s <{EX}dayOfWeek> ?o }}"


@pytest.fixture(scope="module")
def server(serve: Callable[[str], Server]) -> Server:
    server = serve(config_text(max_rows=MAX_ROWS, timeout=20.0, max_running=1))
    with server.client(AGENT) as alice, server.client(BOB) as bob:
        for body in [
            {"text": "Alice prefers tea", "topic": "drinks"},
            {
                "text": "The call is on Wednesday",
                "topic": "meetings",
                "subject": EX + "supplierCall",
                "predicate": EX + "dayOfWeek",
                "object": EX + "Wednesday",
            },
        ]:
            assert alice.post("/remember", json=body).json()["outcome"] == "admitted"
        bob_fact = {"text": "bobsecret marker", "topic": "drinks", "authority": "owner"}
        assert bob.post("/remember", json=bob_fact).json()["outcome"] == "admitted"
    return server


@pytest.fixture(scope="module")
def alice(server: Server) -> Iterator[httpx.Client]:
    with server.client(AGENT) as client:
        yield client


def query(client: httpx.Client, text: str, **params: Any) -> httpx.Response:
    return client.post(
        "/sparql",
        params=params,
        content=text.encode(),
        headers={"content-type": "application/sparql-query", **params.pop("headers", {})},
    )


def bindings(response: httpx.Response) -> list[dict[str, str]]:
    assert response.status_code == 200, response.text
    rows = response.json()["results"]["bindings"]
    return [{k: v["value"] for k, v in row.items()} for row in rows]


def wrapper(server: Server, key: str = AGENT) -> SPARQLWrapper:
    client = SPARQLWrapper(f"{server.url}/sparql")
    client.addCustomHttpHeader("Authorization", f"Bearer {key}")
    return client


# -- real clients ---------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [JSON, XML], ids=["json", "xml"])
def test_sparqlwrapper_select(server: Server, fmt: str) -> None:
    """SPARQLWrapper reads a SELECT in JSON and in XML."""
    client = wrapper(server)
    client.setQuery(WEDNESDAY)
    client.setReturnFormat(fmt)
    result = client.query().convert()
    if fmt == JSON:
        assert isinstance(result, dict)
        values = [row["o"]["value"] for row in result["results"]["bindings"]]
    else:
        values = [
            node.firstChild.firstChild.data for node in result.getElementsByTagName("binding")
        ]  # type: ignore[union-attr]
    assert values == [EX + "Wednesday"]


WEDNESDAY_TRIPLE = (URIRef(EX + "supplierCall"), URIRef(EX + "dayOfWeek"), URIRef(EX + "Wednesday"))


def _select_values(fmt: str, result: Any) -> list[str]:
    """The ?o values of a converted SELECT result, whichever form SPARQLWrapper gave it in."""
    if fmt == JSON:
        return [row["o"]["value"] for row in result["results"]["bindings"]]
    if fmt == XML:
        return [node.firstChild.firstChild.data for node in result.getElementsByTagName("binding")]
    text = result.decode() if isinstance(result, bytes) else result
    if fmt == CSV:
        return [row[0] for row in list(csv.reader(io.StringIO(text)))[1:]]
    return [line.strip("<>") for line in text.splitlines()[1:]]


@pytest.mark.parametrize("method", ["GET", POST], ids=["get", "post"])
@pytest.mark.parametrize("fmt", [JSON, XML, CSV, TSV], ids=["json", "xml", "csv", "tsv"])
def test_sparqlwrapper_every_select_format(server: Server, fmt: str, method: str) -> None:
    """Every SELECT format SPARQLWrapper offers comes back in that format, GET and POST.

    SPARQLWrapper sends ``format=tsv&format=text/tab-separated-values`` (a short name and a
    media type) besides its Accept header; the endpoint reads both kinds of value.
    """
    client = wrapper(server)
    client.setMethod(method)
    client.setQuery(WEDNESDAY)
    client.setReturnFormat(fmt)
    assert _select_values(fmt, client.query().convert()) == [EX + "Wednesday"]


@pytest.mark.parametrize("fmt", [JSON, XML], ids=["json", "xml"])
def test_sparqlwrapper_every_ask_format(server: Server, fmt: str) -> None:
    """An ASK comes back in both result formats that can carry a boolean."""
    client = wrapper(server)
    client.setQuery(f"ASK {{ ?s <{EX}dayOfWeek> <{EX}Wednesday> }}")
    client.setReturnFormat(fmt)
    result: Any = client.query().convert()
    if fmt == JSON:
        assert result["boolean"] is True
    else:
        assert result.getElementsByTagName("boolean")[0].firstChild.data == "true"


def test_sparqlwrapper_ask_as_csv_is_refused(server: Server) -> None:
    """An ASK has no CSV form: SPARQLWrapper gets a 406 naming the formats (beside the above)."""
    client = wrapper(server)
    client.setQuery("ASK {}")
    client.setReturnFormat(CSV)
    with pytest.raises(HTTPError) as caught:
        client.query()
    assert caught.value.code == 406
    assert "application/sparql-results+json" in caught.value.read().decode()


@pytest.mark.parametrize(
    "fmt",
    [TURTLE, N3, XML, RDFXML, JSONLD, RDF],
    ids=["turtle", "n3", "xml", "rdfxml", "jsonld", "rdf"],
)
def test_sparqlwrapper_every_graph_format(server: Server, fmt: str) -> None:
    """Every CONSTRUCT format SPARQLWrapper offers comes back as that graph."""
    client = wrapper(server)
    client.setQuery(CONSTRUCT)
    client.setReturnFormat(fmt)
    with warnings.catch_warnings():
        # SPARQLWrapper's own warnings, not doxa's: it sends */* for its RDF constant, and it
        # parses RDF/XML and JSON-LD into rdflib's deprecated ConjunctiveGraph
        warnings.filterwarnings("ignore", "Sending Accept header", RuntimeWarning)
        warnings.filterwarnings("ignore", "ConjunctiveGraph is deprecated", DeprecationWarning)
        result: Any = client.query().convert()
    graph = result if isinstance(result, Graph) else Graph().parse(data=result, format="turtle")
    assert set(graph) == {WEDNESDAY_TRIPLE}


def test_sparqlwrapper_ask_and_construct_by_post(server: Server) -> None:
    """SPARQLWrapper's POST: an ASK answers true and false; a CONSTRUCT comes back as Turtle."""
    client = wrapper(server)
    client.setMethod(POST)
    client.setReturnFormat(JSON)
    client.setQuery(f"ASK {{ ?s <{EX}dayOfWeek> <{EX}Wednesday> }}")
    assert client.query().convert()["boolean"] is True  # type: ignore[index]
    client.setQuery(f"ASK {{ ?s <{EX}dayOfWeek> <{EX}Sunday> }}")
    assert client.query().convert()["boolean"] is False  # type: ignore[index]
    client.setQuery(CONSTRUCT)
    client.setReturnFormat(TURTLE)
    graph = Graph().parse(data=client.query().convert(), format="turtle")  # type: ignore[arg-type]
    assert set(graph) == {
        (URIRef(EX + "supplierCall"), URIRef(EX + "dayOfWeek"), URIRef(EX + "Wednesday"))
    }


def test_sparqlwrapper_update_is_refused(server: Server) -> None:
    """An update through SPARQLWrapper fails with the endpoint's refusal; a query works."""
    client = wrapper(server)
    client.setMethod(POST)
    client.setQuery("INSERT DATA { <urn:x> <urn:y> <urn:z> }")
    with pytest.raises(HTTPError) as refused:
        client.query()
    with refused.value:
        assert refused.value.code == 403
        assert json.loads(refused.value.read())["error"]["type"] == "ReadOnly"
    client.setQuery("ASK { }")
    client.setReturnFormat(JSON)
    assert client.query().convert()["boolean"] is True  # type: ignore[index]


def test_sparqlwrapper_bob_cannot_see_alice(server: Server) -> None:
    """Bob's key sees only Bob's scope: Alice's fact is not there, Bob's marker is."""
    client = wrapper(server, BOB)
    client.setReturnFormat(JSON)
    client.setQuery(WEDNESDAY)
    assert client.query().convert()["results"]["bindings"] == []  # type: ignore[index]
    client.setQuery('ASK { ?c <https://w3id.org/doxa#text> "bobsecret marker" }')
    assert client.query().convert()["boolean"] is True  # type: ignore[index]


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_rdflib_sparqlstore(server: Server, fmt: str) -> None:
    """rdflib's SPARQLStore queries the endpoint and reads triples of a named graph."""
    store = SPARQLStore(
        f"{server.url}/sparql",
        returnFormat=fmt,
        headers={"Authorization": f"Bearer {AGENT}"},
    )
    try:
        rows = list(store.query(WEDNESDAY))
        assert [row[0] for row in rows] == [URIRef(EX + "Wednesday")]  # type: ignore[index]
        current = Graph(store, identifier=URIRef(f"{ALICE}/current"))
        assert list(current.triples((None, URIRef(EX + "dayOfWeek"), None))) == [
            (URIRef(EX + "supplierCall"), URIRef(EX + "dayOfWeek"), URIRef(EX + "Wednesday"))
        ]
        assert list(current.triples((None, URIRef(EX + "nothing"), None))) == []
    finally:
        store.close()


# rdflib's own Dataset warns about its own deprecated attributes when a query runs
@pytest.mark.filterwarnings("ignore:Dataset.default_context is deprecated:DeprecationWarning")
@pytest.mark.filterwarnings("ignore:Dataset.identifier is deprecated:DeprecationWarning")
def test_rdflib_dataset_over_sparqlstore_reads_the_default_graph(server: Server) -> None:
    """The idiomatic rdflib use, ``Dataset(store=SPARQLStore(url))``, sends rdflib's
    placeholder ``default-graph-uri=urn:x-rdflib:default`` (it got 403): it now reads as the
    scope's default graph, the same rows as naming no graph. Control: a graph outside the
    scope named the same way is still refused."""
    store = SPARQLStore(f"{server.url}/sparql", headers={"Authorization": f"Bearer {AGENT}"})
    try:
        dataset = Dataset(store=store)
        rows = [row[0] for row in dataset.query(WEDNESDAY)]  # type: ignore[index]
        assert rows == [URIRef(EX + "Wednesday")]
        found = list(dataset.triples((None, URIRef(EX + "dayOfWeek"), None)))
        assert (
            URIRef(EX + "supplierCall"),
            URIRef(EX + "dayOfWeek"),
            URIRef(EX + "Wednesday"),
        ) in found
    finally:
        store.close()
    placeholder = httpx.get(
        f"{server.url}/sparql",
        params={"query": WEDNESDAY, "default-graph-uri": "urn:x-rdflib:default"},
        headers={"Authorization": f"Bearer {AGENT}", "Accept": "application/sparql-results+json"},
    )
    plain = httpx.get(
        f"{server.url}/sparql",
        params={"query": WEDNESDAY},
        headers={"Authorization": f"Bearer {AGENT}", "Accept": "application/sparql-results+json"},
    )
    assert placeholder.status_code == plain.status_code == 200
    assert placeholder.json()["results"] == plain.json()["results"]
    other = httpx.get(
        f"{server.url}/sparql",
        params={"query": WEDNESDAY, "default-graph-uri": "urn:x-rdflib:defaults"},
        headers={"Authorization": f"Bearer {AGENT}"},
    )
    assert other.status_code == 403


# -- content negotiation --------------------------------------------------------------


def _parse_table(response: httpx.Response) -> list[str]:
    media = response.headers["content-type"].split(";")[0]
    text = response.text
    if media == "application/sparql-results+json":
        return [row["o"]["value"] for row in json.loads(text)["results"]["bindings"]]
    if media == "application/sparql-results+xml":
        graph_free = Graph()  # parse with rdflib's own results reader
        del graph_free
        from rdflib.query import Result

        return [str(row[0]) for row in Result.parse(io.StringIO(text), format="xml")]  # type: ignore[index]
    if media == "text/csv":
        return [row[0] for row in list(csv.reader(io.StringIO(text)))[1:]]
    assert media == "text/tab-separated-values"
    lines = text.splitlines()
    assert lines[0] == "?o"
    return [line.strip("<>") for line in lines[1:]]


@pytest.mark.parametrize(
    "accept",
    [
        "application/sparql-results+json",
        "application/sparql-results+xml",
        "text/csv",
        "text/tab-separated-values",
        "text/csv;q=0.2, text/tab-separated-values;q=0.9",
    ],
)
def test_select_in_each_format(alice: httpx.Client, accept: str) -> None:
    """A SELECT comes back in the accepted format, with the same value in each."""
    response = query(alice, WEDNESDAY, headers={"accept": accept})
    assert response.status_code == 200
    best = accept.split(",")[-1].split(";")[0].strip()
    assert response.headers["content-type"].startswith(best)
    assert _parse_table(response) == [EX + "Wednesday"]


@pytest.mark.parametrize(
    ("accept", "rdflib_format"),
    [
        ("text/turtle", "turtle"),
        ("application/n-triples", "nt"),
        ("application/rdf+xml", "xml"),
        ("application/ld+json", "json-ld"),
    ],
)
def test_construct_in_each_format(alice: httpx.Client, accept: str, rdflib_format: str) -> None:
    """A CONSTRUCT comes back as Turtle, N-Triples, RDF/XML or JSON-LD, the same graph in each."""
    response = query(alice, CONSTRUCT, headers={"accept": accept})
    assert response.headers["content-type"].startswith(accept)
    if rdflib_format == "json-ld":  # rdflib's JSON-LD parser warns of its own deprecations
        [node] = json.loads(response.text)
        assert node == {
            "@id": EX + "supplierCall",
            EX + "dayOfWeek": [{"@id": EX + "Wednesday"}],
        }
        return
    graph = Graph().parse(data=response.text, format=rdflib_format)
    assert set(graph) == {
        (URIRef(EX + "supplierCall"), URIRef(EX + "dayOfWeek"), URIRef(EX + "Wednesday"))
    }


def test_ask_refuses_a_table_format(alice: httpx.Client) -> None:
    """An ASK cannot be CSV: 406 naming what it can be; XML works (control)."""
    refused = query(alice, "ASK {}", headers={"accept": "text/csv"})
    assert refused.status_code == 406
    assert refused.json()["error"]["message"] == (
        "This ask result can be had as application/sparql-results+json, "
        "application/sparql-results+xml; accept one of them."
    )
    fine = query(alice, "ASK {}", headers={"accept": "application/sparql-results+xml"})
    assert "<boolean>true</boolean>" in fine.text


def test_format_parameter_overrides_accept(alice: httpx.Client) -> None:
    """format=csv (as some clients send) wins over the Accept header."""
    response = query(alice, WEDNESDAY, format="csv", headers={"accept": "application/json"})
    assert response.headers["content-type"].startswith("text/csv")


def test_describe_is_a_graph(alice: httpx.Client) -> None:
    """DESCRIBE answers with a graph (Turtle by default)."""
    response = query(alice, f"DESCRIBE <{EX}supplierCall>")
    assert response.headers["content-type"].startswith("text/turtle")
    graph = Graph().parse(data=response.text, format="turtle")
    assert (
        URIRef(EX + "supplierCall"),
        URIRef(EX + "dayOfWeek"),
        URIRef(EX + "Wednesday"),
    ) in graph


# -- the dataset is the scope ---------------------------------------------------------


def test_default_graph_uri_narrows_to_one_topic(alice: httpx.Client) -> None:
    """Naming a topic graph narrows the dataset to it; without it both topics answer."""
    texts = "SELECT ?t WHERE { ?c <https://w3id.org/doxa#text> ?t }"
    everything = {row["t"] for row in bindings(query(alice, texts))}
    assert {"Alice prefers tea", "The call is on Wednesday"} <= everything
    drinks = bindings(query(alice, texts, **{"default-graph-uri": f"{ALICE}/topic/drinks"}))
    assert [row["t"] for row in drinks] == ["Alice prefers tea"]


@pytest.mark.parametrize(
    "graph",
    [
        "urn:doxa:scope:bob/topic/drinks",
        f"{ALICE}/pending",
        f"{ALICE}/quarantine",
        "urn:doxa:ontology",
        "http://example.org/anything",
    ],
)
@pytest.mark.parametrize("param", ["default-graph-uri", "named-graph-uri"])
def test_dataset_cannot_leave_the_scope(alice: httpx.Client, graph: str, param: str) -> None:
    """A graph outside the scope's ordinary graphs gets 403; the scope's own topic works."""
    refused = query(alice, "ASK {}", **{param: graph})
    assert refused.status_code == 403
    assert refused.json()["error"]["type"] == "ScopeViolation"
    assert query(alice, "ASK {}", **{param: f"{ALICE}/topic/drinks"}).status_code == 200


def test_from_clause_cannot_reach_another_scope(alice: httpx.Client) -> None:
    """FROM / FROM NAMED naming Bob's graphs see nothing of Bob's; Alice's own data shows."""
    sneaky = (
        "SELECT ?t FROM <urn:doxa:scope:bob/topic/drinks> FROM NAMED <urn:doxa:scope:bob/topic/drinks> "
        "WHERE { { ?c <https://w3id.org/doxa#text> ?t } UNION { GRAPH ?g { ?c <https://w3id.org/doxa#text> ?t } } }"
    )
    found = {row["t"] for row in bindings(query(alice, sneaky))}
    assert "bobsecret marker" not in found
    assert "Alice prefers tea" in found


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }",
        "LOAD <http://example.org/data.ttl>",
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
    ],
    ids=["service", "load", "insert-as-query"],
)
def test_network_and_writes_are_refused(alice: httpx.Client, text: str) -> None:
    """SERVICE, LOAD and updates sent as queries get 403; a plain query works (control)."""
    response = alice.get("/sparql", params={"query": text})
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "ScopeViolation"
    assert alice.get("/sparql", params={"query": "ASK {}"}).status_code == 200


def test_update_by_form_points_to_the_gate(alice: httpx.Client) -> None:
    """update= gets 403 with a message naming POST /remember."""
    response = alice.post("/sparql", data={"update": "CLEAR ALL"})
    assert response.status_code == 403
    assert response.json()["error"] == {
        "type": "ReadOnly",
        "message": "This SPARQL endpoint is read-only: updates are refused. Every write goes "
        "through the gate: POST /remember with an agent or owner key (see /docs).",
        "status": 403,
    }


def test_query_needs_a_key(server: Server) -> None:
    """/sparql without a key gets 401."""
    assert httpx.get(f"{server.url}/sparql", params={"query": "ASK {}"}).status_code == 401


# -- row cap and timeout --------------------------------------------------------------


def test_row_cap_is_applied_and_said(alice: httpx.Client) -> None:
    """More rows than the cap: exactly the cap comes back, marked truncated; fewer: not marked."""
    many = query(alice, "SELECT * WHERE { ?s ?p ?o }")
    assert len(bindings(many)) == MAX_ROWS
    assert (many.headers["doxa-row-cap"], many.headers["doxa-truncated"]) == (str(MAX_ROWS), "true")
    few = query(alice, "SELECT * WHERE { ?s ?p ?o } LIMIT 3")
    assert len(bindings(few)) == 3
    assert few.headers["doxa-truncated"] == "false"
    graph = query(
        alice,
        "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
        headers={"accept": "application/n-triples"},
    )
    assert graph.headers["doxa-truncated"] == "true"
    assert len(Graph().parse(data=graph.text, format="nt")) == MAX_ROWS


def test_timeout_abandons_a_slow_query_and_busy_workers_refuse(alice: httpx.Client) -> None:
    """A query past its timeout gets 503 QueryTimeout; while it still runs, the one worker is
    busy (503 Busy); once it ends, queries answer again (control)."""
    count = bindings(query(alice, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"))
    triples = int(count[0]["n"])
    spread = max(1, 20_000_000 // triples**3)  # about 2 s of joining on this machine
    values = " ".join(str(i) for i in range(spread))
    slow = (
        "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . "
        f"VALUES ?x {{ {values} }} }}"
    )
    timed_out = query(alice, slow, timeout="0.2")
    assert timed_out.status_code == 503
    assert timed_out.json()["error"]["type"] == "QueryTimeout"
    busy = query(alice, "ASK {}")
    assert busy.status_code == 503
    assert busy.json()["error"]["type"] == "Busy"
    deadline = time.monotonic() + 120
    while query(alice, "ASK {}").status_code == 503:
        assert time.monotonic() < deadline, "the abandoned query never ended"
        time.sleep(0.2)
    assert query(alice, "ASK {}").json()["boolean"] is True


def test_timeout_parameter_must_be_positive(alice: httpx.Client) -> None:
    """timeout=0 is refused with 400; timeout=5 is accepted (control)."""
    assert query(alice, "ASK {}", timeout="0").status_code == 400
    assert query(alice, "ASK {}", timeout="5").status_code == 200


def test_literals_round_trip_through_json(alice: httpx.Client) -> None:
    """Typed and language-tagged literals keep their datatype and language in JSON results."""
    response = query(alice, 'SELECT ?a ?b WHERE { BIND(42 AS ?a) BIND("thé"@fr AS ?b) }')
    row = response.json()["results"]["bindings"][0]
    assert row["a"] == {
        "type": "literal",
        "value": "42",
        "datatype": "http://www.w3.org/2001/XMLSchema#integer",
    }
    assert row["b"] == {"type": "literal", "value": "thé", "xml:lang": "fr"}
    assert Literal("thé", lang="fr").language == row["b"]["xml:lang"]


def test_syntax_error_positions_are_those_of_the_query_sent(alice: httpx.Client) -> None:
    """A syntax error on line 3 is reported on line 3 (the endpoint's BASE line made it 4);
    a relative IRI still resolves against the endpoint's URL (control)."""
    broken = query(alice, "SELECT * WHERE {\n?s ?p ?o .\nFILTER(\n}")
    assert broken.status_code == 400
    message = broken.json()["error"]["message"]
    assert "found 'FILTER'" in message
    assert "(at char 28), (line:3, col:1)" in message
    relative = query(alice, "SELECT ?x WHERE { BIND(<here> AS ?x) }")
    assert bindings(relative) == [{"x": f"{str(alice.base_url).rstrip('/')}/here"}]
