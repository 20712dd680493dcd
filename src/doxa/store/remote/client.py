"""The remote store's client: any SPARQL 1.1 server speaking the Protocol and Update over HTTP.

Reads are the same ``queries/*.rq`` files the embedded store runs, sent with the scope's
dataset written into the query as ``FROM`` / ``FROM NAMED`` (the query's own dataset clauses
are dropped) and, where the server honours them, as the Protocol's ``default-graph-uri`` /
``named-graph-uri`` parameters too. Each :class:`~doxa.store.Change` is one Update request.

Other processes may write the same server, so the store is no
:class:`~doxa.store.SoleWriter`: it keeps no cache, and
a change that claims a ``slot`` applies only if no other change claimed it first: the request
starts with ``CREATE GRAPH <slot>``, which the server refuses when the graph exists, and a
refused request applies nothing. That is how two doxa processes publishing after the same
receipt find out that one of them lost (see docs/remote.md).

Where servers differ (block sizes, row caps, ``ASK`` answers) the store asks its
:class:`~doxa.store.remote.dialect.Dialect`.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import Enum
from typing import Any
from typing import Literal as TypingLiteral
from urllib.parse import urlencode, urlsplit

import httpx
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput, StoreError, WriteConflict
from doxa.resources import query
from doxa.store.base import (
    SLOT_TOKEN,
    SLOTS_GRAPH,
    Binding,
    Change,
    Dataset,
    Quad,
    QueryResult,
    Row,
    bind_values,
)
from doxa.store.convert import ntriples, stored_literal
from doxa.store.remote.dialect import Dialect
from doxa.store.remote.rewrite import query_form, restrict, split_prologue
from doxa.store.remote.virtuoso import Virtuoso

__all__ = ["ANY_SERVER", "LEASE", "RemoteStore", "endpoint_url"]

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RESULTS_JSON = "application/sparql-results+json"
LEASE = 60.0  # seconds a slot claim may wait for its publish before others clear it
Restriction = TypingLiteral["rewrite", "protocol", "both"]

#: the dialect of a server doxa is not told about: every workaround it knows (Virtuoso's),
#: each harmless on a server that does not need it
ANY_SERVER: Dialect = Virtuoso()


class _Default(Enum):
    """The default of an argument that the dialect decides."""

    DIALECT = "dialect"


def endpoint_url(url: str) -> str:
    """``url`` if it is an HTTP(S) URL with a host and no credentials; else InvalidInput.

    Decided on the parsed URL, so ``HTTP://host/sparql`` passes and ``file:///etc`` does not.
    """
    if any(c.isspace() or unicodedata.category(c) in ("Cc", "Cf") for c in url):
        # urlsplit drops tabs and newlines silently ("ht\ttp://" reads as http://)
        raise InvalidInput(
            f"{url!r} holds spaces, control or invisible characters; write the server's "
            "SPARQL endpoint as plain text, for example http://localhost:7878/query."
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (reading it checks it: "http://h:abc/" raises)
    except ValueError as error:
        raise InvalidInput(
            f"{url!r} is not a valid URL ({error}); give the server's SPARQL endpoint, "
            "for example http://localhost:7878/query."
        ) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InvalidInput(
            f"{url!r} is not an HTTP(S) URL; give the server's SPARQL endpoint, "
            "for example http://localhost:7878/query."
        )
    if parts.username is not None or parts.password is not None:
        raise InvalidInput(
            f"The URL {parts._replace(netloc=parts.hostname).geturl()!r} holds credentials, "
            "which command lines and logs show to anyone; pass them as auth= or in "
            "$DOXA_STORE_USER and $DOXA_STORE_PASSWORD."
        )
    try:
        httpx.URL(url)  # the client that will send it must take it too (an IDNA host, say)
    except httpx.InvalidURL as error:
        raise InvalidInput(
            f"{url!r} is not a URL the HTTP client can send ({error}); give the server's "
            "SPARQL endpoint, for example http://localhost:7878/query."
        ) from None
    return url


_RDF_FORMATS = {
    "turtle": "turtle",
    "ttl": "turtle",
    "ntriples": "nt",
    "nt": "nt",
    "rdfxml": "xml",
    "xml": "xml",
    "rdf": "xml",
    "owl": "xml",
}
_DATASET_FORMATS = ("nquads", "nq", "trig")


class RemoteStore:
    """A SPARQL 1.1 server reached over HTTP.

    ``query_url`` answers queries; ``update_url`` (default: the same URL, as on Virtuoso's
    ``/sparql``) takes updates. ``auth`` is a user and password pair (HTTP basic) or any
    :class:`httpx.Auth`. ``restriction`` says how the dataset reaches the server:
    ``"rewrite"`` (FROM clauses in the text, which every server must honour), ``"protocol"``
    (only the Protocol parameters: for servers verified to honour them) or ``"both"``.
    ``row_cap`` is the most rows the server returns for one query (Virtuoso's
    ``ResultSetMaxRows``, 10,000 by default): a result that long is read again page by page.
    ``dialect`` says how the server differs from the standard (default :data:`ANY_SERVER`);
    ``row_cap`` defaults to the dialect's.

    Raises :class:`~doxa.StoreError` when the server cannot be reached or refuses a request.
    """

    def __init__(
        self,
        query_url: str,
        update_url: str | None = None,
        *,
        auth: tuple[str, str] | httpx.Auth | None = None,
        timeout: float = 30.0,
        restriction: Restriction = "both",
        row_cap: int | _Default | None = _Default.DIALECT,
        dialect: Dialect = ANY_SERVER,
    ) -> None:
        for url in (query_url, update_url):
            if url is not None:
                endpoint_url(url)
        self.query_url = query_url
        self.update_url = update_url or query_url
        self.restriction = restriction
        self.dialect = dialect
        self.row_cap = dialect.row_cap if isinstance(row_cap, _Default) else row_cap
        self.lock = threading.RLock()
        self._client: httpx.Client | None = httpx.Client(auth=auth, timeout=timeout)

    def __repr__(self) -> str:
        return f"RemoteStore({self.query_url!r}, {self.update_url!r}, dialect={self.dialect!r})"

    # -- HTTP ------------------------------------------------------------------------

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            raise StoreError("The store is closed; connect again with Memory.connect.")
        return self._client

    def _post(self, url: str, form: list[tuple[str, str]], accept: str | None) -> httpx.Response:
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if accept:
            headers["Accept"] = accept
        try:
            return self.client.post(url, content=_encode(form), headers=headers)
        except httpx.HTTPError as error:
            raise StoreError(
                f"The SPARQL server at {url} could not be reached: {error}; check that it is "
                "running and the URL is right."
            ) from error

    def _query(self, sparql: str, dataset: Dataset | None, accept: str) -> httpx.Response:
        """Send a query over ``dataset``; ``None`` (the store's own housekeeping) sends the
        text as it is, over whatever the server's default dataset is."""
        text = sparql
        form: list[tuple[str, str]] = []
        if dataset is not None and self.restriction in ("rewrite", "both"):
            try:
                text = restrict(sparql, dataset.default, dataset.named)
            except ValueError as error:
                raise InvalidInput(f"The SPARQL query is not valid: {error}.") from None
        if dataset is not None and self.restriction in ("protocol", "both"):
            form += [("default-graph-uri", str(g)) for g in dataset.default]
            form += [("named-graph-uri", str(g)) for g in dataset.named]
        response = self._post(self.query_url, [("query", text), *form], accept)
        if response.status_code >= 400:
            raise _refused(response, "query", text)
        return response

    def _results(self, sparql: str, dataset: Dataset | None) -> dict[str, Any]:
        response = self._query(sparql, dataset, RESULTS_JSON)
        try:
            data = json.loads(response.content)
        except ValueError:
            raise StoreError(
                f"The SPARQL server answered a query with something that is not SPARQL JSON "
                f"results ({response.headers.get('content-type')}); check the query URL."
            ) from None
        assert isinstance(data, dict)
        return data

    # -- reads -----------------------------------------------------------------------

    def _rows(self, sparql: str, dataset: Dataset | None) -> tuple[list[str], list[dict[str, Any]]]:
        data = self._results(sparql, dataset)
        names = list(data.get("head", {}).get("vars", []))
        bindings = list(data.get("results", {}).get("bindings", []))
        if self.row_cap is not None and len(bindings) >= self.row_cap:
            bindings = self._pages(sparql, dataset, names)
        return names, bindings

    def _pages(
        self, sparql: str, dataset: Dataset | None, names: list[str]
    ) -> list[dict[str, Any]]:
        """Read a capped result again in ordered pages of ``row_cap`` rows."""
        assert self.row_cap is not None
        prologue, body = split_prologue(sparql)
        order = " ".join(f"?{n}" for n in names)
        rows: list[dict[str, Any]] = []
        while True:
            page = self.dialect.page(prologue, body, order, self.row_cap, len(rows))
            found = self._results(page, dataset).get("results", {}).get("bindings", [])
            rows += found
            if len(found) < self.row_cap:
                return rows

    def select(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> list[Row]:
        names, found = self._rows(bind_values(sparql, bindings or {}), dataset)
        return [{n: _term(b[n]) for n in names if n in b} for b in found]

    def column(
        self,
        sparql: str,
        variable: str,
        *,
        dataset: Dataset,
        bindings: Mapping[str, Binding] | None = None,
    ) -> list[str]:
        _, found = self._rows(bind_values(sparql, bindings or {}), dataset)
        return [str(b[variable]["value"]) for b in found if variable in b]

    def referrers(
        self, predicate: URIRef, objects: Sequence[Node], graph: URIRef
    ) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        if not objects:
            return found
        for row in self.select(
            query("referrers"),
            dataset=Dataset(default=(graph,)),
            bindings={"predicate": predicate, "object": list(objects)},
        ):
            found.setdefault(str(row["object"]), []).append(str(row["subject"]))
        return found

    def describe(
        self,
        subjects: Sequence[URIRef],
        graphs: Sequence[URIRef],
        predicates: Sequence[URIRef] | None = None,
    ) -> dict[str, list[tuple[Node, Node]]]:
        described: dict[str, list[tuple[Node, Node]]] = {}
        if not subjects:
            return described
        dataset = Dataset(default=tuple(graphs))
        bindings: dict[str, Binding] = {"claim": list(subjects)}
        if predicates is not None:
            bindings["p"] = list(predicates)
        for row in self.select(query("claim"), dataset=dataset, bindings=bindings):
            described.setdefault(str(row["claim"]), []).append((row["p"], row["o"]))
        return {s: list(dict.fromkeys(pairs)) for s, pairs in described.items()}

    def ask(
        self, sparql: str, *, dataset: Dataset, bindings: Mapping[str, Binding] | None = None
    ) -> bool:
        return self.dialect.boolean(self._results(bind_values(sparql, bindings or {}), dataset))

    def run(
        self,
        sparql: str,
        *,
        dataset: Dataset,
        max_rows: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> QueryResult:
        # the server answers in one response, so ``stop`` has nothing left to cut short; the
        # cap is applied to what came back (the server's own row limit may apply first)
        try:
            form = query_form(sparql)
        except ValueError as error:
            raise InvalidInput(f"The SPARQL query is not valid: {error}.") from None
        if form == "ask":
            return QueryResult(form="ask", boolean=self.ask(sparql, dataset=dataset))
        if form in ("construct", "describe"):
            response = self._query(sparql, dataset, "application/n-triples, text/turtle;q=0.9")
            graph = Graph()
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            graph.parse(data=response.content, format="nt" if "n-triples" in kind else "turtle")
            triples = tuple(graph)
            cut = max_rows is not None and len(triples) > max_rows
            return QueryResult(
                form="construct", triples=triples[:max_rows] if cut else triples, truncated=cut
            )
        names, found = self._rows(sparql, dataset)
        rows = tuple(tuple(_term(b[n]) if n in b else None for n in names) for b in found)
        cut = max_rows is not None and len(rows) > max_rows
        return QueryResult(
            form="select",
            variables=tuple(names),
            rows=rows[:max_rows] if cut else rows,
            truncated=cut,
        )

    def _housekeeping(self, sparql: str, bindings: Mapping[str, Binding]) -> list[Row]:
        names, found = self._rows(bind_values(sparql, bindings), None)
        return [{n: _term(b[n]) for n in names if n in b} for b in found]

    def graphs(self) -> list[URIRef]:
        rows = self._housekeeping("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", {})
        return [g for g in (row["g"] for row in rows) if isinstance(g, URIRef)]

    def quads(self, graph: URIRef | None = None) -> Iterator[Quad]:
        for name in [graph] if graph is not None else self.graphs():
            rows = self._housekeeping(
                "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }", {"g": name}
            )
            for row in rows:
                yield row["s"], row["p"], row["o"], name

    # -- writes ----------------------------------------------------------------------

    def apply(self, change: Change) -> None:
        """Apply ``change`` as one Update request; with a ``slot``, only if it is unclaimed.

        A slot is claimed in three steps that need no server-side locking, only that a read
        sees every write answered before it: write a claim, read the slot's claims, and apply
        the change only if the claim is the slot's only one (else withdraw it). Two writers
        cannot both see only their own claim: the later reader sees the earlier writer's
        claim. Raises :class:`~doxa.WriteConflict` when another writer claimed the slot.
        """
        if not change.delete and not change.insert and change.slot is None:
            return
        try:
            update = change.to_update(block=self.dialect.block)
        except (ValueError, TypeError) as error:
            raise InvalidInput(f"The write holds a term that is not valid RDF: {error}.") from None
        if change.slot is None:
            self._update(update)
            return
        claim = self._claim(change.slot)
        try:
            self._update(update)
        except StoreError:
            if not all(self._holds(q) for q in change.insert[:50]):
                self._withdraw(claim)  # nothing applied: the slot is free again
            raise

    def _update(self, update: str) -> None:
        response = self._post(self.update_url, [("update", update)], None)
        if response.status_code >= 400:
            raise _refused(response, "update", update)

    def _claim(self, slot: URIRef) -> Quad:
        """Claim ``slot`` or raise WriteConflict; returns the claim triple (as a quad)."""
        started = time.monotonic()
        token = Literal(f"{time.time():.3f} {secrets.token_hex(8)}")
        claim: Quad = (slot, SLOT_TOKEN, token, SLOTS_GRAPH)
        self._update(Change(insert=[claim]).to_update())
        rows = self._housekeeping(
            "SELECT ?token WHERE { GRAPH ?g { ?slot ?p ?token } }",
            {"g": SLOTS_GRAPH, "slot": slot, "p": SLOT_TOKEN},
        )
        others = [Literal(str(r["token"])) for r in rows if str(r["token"]) != str(token)]
        abandoned = [t for t in others if _age(t) > LEASE]
        if abandoned:  # claimed by a writer that died before publishing: clear them
            self._update(
                Change(delete=[(slot, SLOT_TOKEN, t, SLOTS_GRAPH) for t in abandoned]).to_update()
            )
        if len(others) > len(abandoned) or time.monotonic() - started > LEASE / 4:
            self._withdraw(claim)
            raise WriteConflict(
                "Another process published to this scope first; the gate judges again."
            )
        return claim

    def _withdraw(self, claim: Quad) -> None:
        self._update(Change(delete=[claim]).to_update())

    def _holds(self, quad: Quad) -> bool:
        s, p, o, g = (ntriples(t) for t in quad)
        ask = f"ASK WHERE {{ GRAPH {g} {{ {s} {p} {o} }} }}"
        return self.dialect.boolean(self._results(ask, None))

    def load(self, data: bytes, *, format: str, graph: URIRef) -> int:
        name = format.lower().lstrip(".")
        if name in _DATASET_FORMATS:
            # quads name their own graphs: loading them could write into any scope
            raise InvalidInput(
                f"{name.upper()} data names its own graphs and cannot be loaded into one graph; "
                "use Turtle, N-Triples or RDF/XML."
            )
        if name not in _RDF_FORMATS:
            known = ", ".join(sorted([*_RDF_FORMATS, *_DATASET_FORMATS]))
            raise InvalidInput(f"{format!r} is not a known RDF format; use one of: {known}.")
        parsed = Graph()
        try:
            parsed.parse(data=data, format=_RDF_FORMATS[name])
        except Exception as error:  # rdflib's parsers raise many types
            text = " ".join(str(error).split()).rstrip(".")
            raise InvalidInput(f"The RDF data could not be parsed: {text}.") from None
        if any(isinstance(t, BNode) for triple in parsed for t in triple):
            parsed = _skolemised(parsed)
        before = self._count(graph)
        self.apply(Change(insert=[(s, p, o, graph) for s, p, o in parsed]))
        return self._count(graph) - before

    def _count(self, graph: URIRef) -> int:
        rows = self._housekeeping(
            "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }", {"g": graph}
        )
        return int(str(rows[0]["n"])) if rows else 0

    def clear_graph(self, graph: URIRef) -> None:
        response = self._post(
            self.update_url, [("update", f"DROP SILENT GRAPH {ntriples(graph)}")], None
        )
        if response.status_code >= 400:
            raise _refused(response, "update", "DROP SILENT GRAPH")

    def flush(self) -> None:
        """Nothing to do: the server made each change durable when it answered."""

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _encode(form: list[tuple[str, str]]) -> bytes:
    return urlencode(form).encode("ascii")


def _term(value: Mapping[str, Any]) -> Node:
    """One SPARQL JSON term as the rdflib term the embedded store would return."""
    kind, text = value["type"], str(value["value"])
    if kind == "uri":
        return URIRef(text)
    if kind == "bnode":
        return BNode(text)
    if "xml:lang" in value:
        return Literal(text, lang=value["xml:lang"])
    datatype = value.get("datatype")
    if datatype is None or datatype == XSD_STRING:
        return Literal(text)
    return stored_literal(text, str(datatype))


def _age(token: Literal) -> float:
    """Seconds since a claim was written (its token starts with the wall-clock time)."""
    try:
        return time.time() - float(str(token).split()[0])
    except (ValueError, IndexError):
        return 0.0  # not a claim this code wrote: never treat it as abandoned


def _refused(response: httpx.Response, what: str, text: str) -> StoreError | InvalidInput:
    message = " ".join(response.text.split())[:300]
    if response.status_code == 400 or "syntax" in message.lower():
        return InvalidInput(f"The SPARQL server refused the {what}: {message}.")
    if response.status_code in (401, 403):
        return StoreError(
            f"The SPARQL server refused the {what} ({response.status_code}): {message}; "
            "check the credentials (auth=) and that the user may "
            + ("update." if what == "update" else "query.")
        )
    return StoreError(f"The SPARQL server failed the {what} ({response.status_code}): {message}.")


def _skolemised(graph: Graph) -> Graph:
    """Blank nodes as IRIs, so one Update request can write them into a named graph."""
    return graph.skolemize()
