"""A running doxa server's REST API, called as if it were :class:`~doxa.Memory`.

``doxa --server URL …`` (and a command that finds its store held by a local server,
:mod:`doxa.interfaces.discovery`) runs the same commands through this class: each method the
CLI calls has the name and arguments of ``Memory``'s (on :attr:`RemoteMemory.owner`, of
``memory.owner``'s: every decision of :data:`~doxa.memory.decisions.DECISIONS`), sends one
request, and turns the JSON answer back into the same result objects
(:func:`~doxa.interfaces.revive.revive`), so the CLI's printing code, text and ``--json``, is
one code for both. An error answer comes back as the doxa error it stands for
(:func:`~doxa.interfaces.failures.error_from`, the one table read backwards), so the exit
codes are those of the embedded store.

An export and a SPARQL query go through the server too (:class:`RemoteAdmin`,
:class:`RemoteRdf`): the file is written here from the quads the server sends, the same
bytes as from the store. What the REST API does not offer (a backup, an import, creating a
scope …) is not attempted: those commands need the store itself
(:func:`~doxa.interfaces.cli.running.run_store`), which refuses a server with
:class:`~doxa.InvalidInput` naming the two ways on (stop the server, or use the REST API);
erasure's ``wait`` for the purge, the Python API's only, raises it here.
"""

from __future__ import annotations

import enum
import inspect
import json
import types
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import IO, Any, Concatenate, ParamSpec, Protocol, TypeVar
from urllib.parse import quote

import httpx
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.term import Node

from doxa.audit.exports import Progress, format_of, write_export
from doxa.audit.validation import AuditReport, AuditViolation
from doxa.errors import ConstraintFailure, DoxaError, InvalidInput, ShapeViolation, StoreError
from doxa.interfaces.failures import error_from
from doxa.interfaces.revive import revive
from doxa.memory.decisions import (
    APPROVE,
    CLEAR_ALARM,
    CONFIRM,
    DISCARD,
    ERASE,
    GRANT,
    REJECT,
    REJUDGE,
    RELEASE,
    RESCREEN,
    RETRACT,
    REVOKE,
    Decision,
    Returns,
)
from doxa.memory.owner import Owner
from doxa.model import Alarm, Fact, HeldWrite, History, Receipt, Standing, Why
from doxa.reads.sparql import check_query
from doxa.reads.stats import Stats
from doxa.reads.vocabulary import Vocabulary
from doxa.scope import Scope
from doxa.store.base import QueryResult
from doxa.store.convert import read_quads
from doxa.writes import PYTHON_FIELDS

__all__ = [
    "RemoteAdmin",
    "RemoteMemory",
    "RemoteOwner",
    "RemoteRdf",
    "Served",
    "ServedAdmin",
    "ServedRdf",
    "sent",
]

P = ParamSpec("P")
R = TypeVar("R")

#: a write waits for the judge, which may be an LLM: as long as a person would wait
TIMEOUT = httpx.Timeout(120.0, connect=5.0)


class Served(Protocol):
    """What a command may ask of a memory that may be a running server's (the CLI's
    :func:`~doxa.interfaces.cli.running.run`): :class:`~doxa.Memory` and
    :class:`RemoteMemory` both satisfy it, so mypy knows which commands work through a
    server. Parameters are as narrow as the CLI passes them; a test holds each to Memory's."""

    @property
    def scope(self) -> Scope: ...

    @property
    def owner(self) -> Owner | RemoteOwner: ...

    # a write's and a read's fields are passed as keywords built from one definition
    # (doxa.writes.FIELDS, the read options): any signature taking them will do
    @property
    def remember(self) -> Callable[..., Receipt]: ...

    @property
    def facts(self) -> Callable[..., list[Fact]]: ...

    @property
    def recall(self) -> Callable[..., list[Fact]]: ...

    def get(self, fact: str) -> Fact: ...

    def history(self, fact: str, *, as_of: str | None = ...) -> History: ...

    def why(self, fact: str) -> Why: ...

    def held(self) -> list[HeldWrite]: ...

    def flagged(self, *, as_of: str | None = ...) -> list[Fact]: ...

    def receipts(self) -> list[Receipt]: ...

    def stats(self) -> Stats: ...

    def vocabulary(self, search: str | None = ..., *, limit: int = ...) -> Vocabulary: ...

    def verify(self) -> int: ...

    def require_scope(self) -> None: ...

    @property
    def admin(self) -> ServedAdmin: ...

    @property
    def rdf(self) -> ServedRdf: ...


class ServedAdmin(Protocol):
    """What of ``memory.admin`` works through a server: the export (``GET /export``) and
    the audit (``GET /audit``)."""

    def audit(self, *, infer: bool = ...) -> AuditReport: ...

    def export(
        self,
        target: str | Path | IO[str],
        *,
        audit: bool = ...,
        format: str | None = ...,
        progress: Progress | None = ...,
    ) -> int: ...


class ServedRdf(Protocol):
    """What of ``memory.rdf`` works through a server: read-only SPARQL (``GET /sparql``)."""

    def sparql(self, query: str) -> QueryResult: ...


def sent(decision: Decision[P, R]) -> Callable[Concatenate[RemoteOwner, P], R]:
    """A method of :class:`RemoteOwner` with the decision's Python signature, sent to its
    REST route (mypy checks each call against ``Owner``'s method)."""

    def call(self: RemoteOwner, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return self._send(decision, args, kwargs)  # type: ignore[no-any-return]

    call.__name__ = call.__qualname__ = decision.name
    call.__doc__ = decision.doc
    call.__signature__ = inspect.signature(decision.method)  # type: ignore[attr-defined]
    return call


class RemoteMemory:
    """The REST API at ``url`` with the API ``key``, answering as :class:`~doxa.Memory` does.

    The key decides the scope (the server binds each key to one scope), as for every REST
    caller; an agent key is refused the owner's verbs with the server's own 403.
    """

    def __init__(self, url: str, key: str, *, transport: httpx.BaseTransport | None = None):
        self.url = url
        self._scope: Scope | None = None
        self._http = httpx.Client(
            base_url=url,
            headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
            timeout=TIMEOUT,
            transport=transport,
            follow_redirects=False,  # the key is never sent on to another address
        )

    # -- plumbing -------------------------------------------------------------------------

    def __enter__(self) -> RemoteMemory:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: types.TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (the server's store stays open: it is the server's)."""
        self._http.close()

    def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, object] | None = None,
        body: Mapping[str, object] | None = None,
    ) -> Any:
        query = {k: _param(v) for k, v in (params or {}).items() if v is not None}
        try:
            answer = self._http.request(method, path, params=query, json=body)
        except httpx.HTTPError as error:
            raise StoreError(
                f"Cannot reach the doxa server at {self.url} ({error}); is `doxa serve` "
                "running there? Check --server (or $DOXA_SERVER)."
            ) from None
        try:
            document = answer.json()
        except ValueError:
            raise StoreError(
                f"The server at {self.url} answered {answer.status_code} with no JSON; is it a "
                "doxa server? Check --server (or $DOXA_SERVER)."
            ) from None
        if answer.is_success:
            return document
        raise _error(document, answer.status_code)

    # -- writes ---------------------------------------------------------------------------

    def remember(self, text: str, *, strict: bool = True, **fields: object) -> Receipt:
        """``Memory.remember`` through ``POST /remember``; with ``strict=False`` a write the
        shapes reject returns its rejection receipt instead of raising, as on the store."""
        try:
            answer = self._call("POST", "/remember", body=_write_body(text, fields))
        except ShapeViolation as violation:
            if strict or violation.receipt_id is None:
                raise
            stored = self._receipt(violation.receipt_id)
            # as the gate does: the receipt carries each failed constraint (not stored)
            return replace(stored, failures=tuple(str(f) for f in violation.failures))
        return revive(Receipt, answer)

    @cached_property
    def owner(self) -> RemoteOwner:
        """The owner's decisions through the server (an agent key gets the server's 403)."""
        return RemoteOwner(self)

    @cached_property
    def admin(self) -> RemoteAdmin:
        """The export through the server (``GET /export``)."""
        return RemoteAdmin(self)

    @cached_property
    def rdf(self) -> RemoteRdf:
        """Read-only SPARQL through the server's endpoint (``GET /sparql``)."""
        return RemoteRdf(self)

    def _fetch(self, path: str, *, params: Mapping[str, object], accept: str) -> bytes:
        """A route's body as bytes in the media type ``accept`` (an export, query results);
        an error answer comes back as the doxa error it stands for, as for :meth:`_call`."""
        query = {k: _param(v) for k, v in params.items() if v is not None}
        try:
            answer = self._http.get(path, params=query, headers={"Accept": accept})
        except httpx.HTTPError as error:
            raise StoreError(
                f"Cannot reach the doxa server at {self.url} ({error}); is `doxa serve` "
                "running there? Check --server (or $DOXA_SERVER)."
            ) from None
        if answer.is_success:
            return answer.content
        try:
            document = answer.json()
        except ValueError:
            raise StoreError(
                f"The server at {self.url} answered {answer.status_code} with no JSON; is it a "
                "doxa server? Check --server (or $DOXA_SERVER)."
            ) from None
        raise _error(document, answer.status_code)

    def _receipt(self, receipt_id: str) -> Receipt:
        """One receipt by id (a rejection's: the REST answer names it, ``GET /receipts`` has
        it); read only when a write was rejected, so a plain write costs one request."""
        for receipt in self.receipts():
            if receipt.id == receipt_id:
                return receipt
        raise StoreError(f"The server named rejection receipt {receipt_id} but does not list it.")

    # -- reads ----------------------------------------------------------------------------

    def get(self, fact: str) -> Fact:
        return revive(Fact, self._call("GET", f"/facts/{_segment(fact)}"))

    def facts(self, **given: object) -> list[Fact]:
        """``Memory.facts`` (``valid_at``, ``as_of``, ``topic``, ``subject``, ``predicate``,
        ``include_ended``, ``include_unchecked``): the same names are ``GET /facts``'s."""
        return revive(list[Fact], self._call("GET", "/facts", params=given))

    def recall(self, text: str, **given: object) -> list[Fact]:
        answer = self._call("GET", "/recall", params={"q": text, **given})
        return revive(list[Fact], answer)

    def history(self, fact: str, *, as_of: str | None = None) -> History:
        answer = self._call("GET", f"/facts/{_segment(fact)}/history", params={"as_of": as_of})
        return revive(History, answer)

    def why(self, fact: str) -> Why:
        return revive(Why, self._call("GET", f"/facts/{_segment(fact)}/why"))

    def held(self) -> list[HeldWrite]:
        return revive(list[HeldWrite], self._call("GET", "/held"))

    def flagged(self, *, as_of: str | None = None) -> list[Fact]:
        answer = self._call("GET", "/flagged", params={"as_of": as_of})
        return revive(list[Fact], answer)

    def receipts(self) -> list[Receipt]:
        return revive(list[Receipt], self._call("GET", "/receipts"))

    def stats(self) -> Stats:
        return revive(Stats, self._call("GET", "/stats"))

    def vocabulary(self, search: str | None = None, *, limit: int = 50) -> Vocabulary:
        answer = self._call("GET", "/vocabulary", params={"search": search, "limit": limit})
        return revive(Vocabulary, answer)

    def verify(self) -> int:
        """``GET /verify``: the receipts verified; the scope the key reaches is then known."""
        answer = self._call("GET", "/verify")
        self._scope = Scope.named(str(answer["scope"]))
        return int(answer["receipts"])

    def whoami(self) -> tuple[str, str]:
        """``GET /key``: the scope and the role (``owner`` or ``agent``) the key reaches."""
        answer = self._call("GET", "/key")
        self._scope = Scope.named(str(answer["scope"]))
        return str(answer["scope"]), str(answer["role"])

    @property
    def scope(self) -> Scope:
        """The scope the key reaches, as the server names it (asked once)."""
        if self._scope is None:
            self.whoami()
        assert self._scope is not None
        return self._scope

    def require_scope(self) -> None:
        """Nothing to check here: the server binds the key to a scope it serves."""


class RemoteAdmin:
    """``memory.admin.export`` through ``GET /export``: the server sends the scope's quads as
    N-Quads, and they are written here as the store would write them (canonical, in the
    format asked for), so the file is the same bytes either way. ``memory.admin.audit``
    through ``GET /audit``."""

    def __init__(self, client: RemoteMemory) -> None:
        self._client = client

    def audit(self, *, infer: bool = False) -> AuditReport:
        """The server's audit of the scope: its results as JSON, and the SHACL report graph
        as Turtle (two requests, each one validation: the graph is what
        :meth:`~doxa.audit.validation.AuditReport.serialize` writes)."""
        found = self._client._call("GET", "/audit", params={"infer": infer})
        data = self._client._fetch(
            "/audit", params={"infer": infer, "format": "turtle"}, accept="text/turtle"
        )
        try:
            return AuditReport(
                conforms=bool(found["conforms"]),
                violations=revive(tuple[AuditViolation, ...], found["violations"]),
                triples=int(found["triples"]),
                shapes=int(found["shapes"]),
                inferred=int(found["inferred"]),
                report=Graph().parse(data=data.decode("utf-8"), format="turtle"),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise StoreError(
                f"The server at {self._client.url} answered /audit with a shape this client "
                f"does not know ({error}); is it a doxa server of this version?"
            ) from None

    def export(
        self,
        target: str | Path | IO[str],
        *,
        audit: bool = False,
        format: str | None = None,
        progress: Progress | None = None,
    ) -> int:
        where = Path(target) if isinstance(target, str | Path) else Path("export.nq")
        chosen = format_of(where, format)  # a bad name fails before the request
        data = self._client._fetch("/export", params={"audit": audit}, accept=NQUADS_TYPE)
        quads = list(read_quads(data, format="nquads", source=self._client.url))
        return write_export(quads, target, format=chosen, progress=progress)  # type: ignore[arg-type]


class RemoteRdf:
    """``memory.rdf.sparql`` through the server's SPARQL endpoint: results as SPARQL JSON
    (SELECT, ASK) or N-Triples (CONSTRUCT, DESCRIBE), read back into a ``QueryResult``."""

    def __init__(self, client: RemoteMemory) -> None:
        self._client = client

    def sparql(self, query: str) -> QueryResult:
        form = check_query(query).form  # a bad query fails here, before the request
        if form == "construct":
            data = self._client._fetch("/sparql", params={"query": query}, accept=NTRIPLES_TYPE)
            graph = Graph().parse(data=data.decode("utf-8"), format="nt")
            return QueryResult(form=form, triples=tuple(sorted(graph)))
        data = self._client._fetch("/sparql", params={"query": query}, accept=RESULTS_TYPE)
        document = json.loads(data)
        if form == "ask":
            return QueryResult(form=form, boolean=bool(document["boolean"]))
        names = tuple(document["head"]["vars"])
        rows = tuple(
            tuple(_term(binding[name]) if name in binding else None for name in names)
            for binding in document["results"]["bindings"]
        )
        return QueryResult(form=form, variables=names, rows=rows)


def _term(value: Mapping[str, str]) -> Node:
    """One SPARQL JSON result term as an rdflib term."""
    kind, text = value["type"], value["value"]
    if kind == "uri":
        return URIRef(text)
    if kind == "bnode":
        return BNode(text)
    if "xml:lang" in value:
        return Literal(text, lang=value["xml:lang"])
    datatype = value.get("datatype")
    return Literal(text, datatype=URIRef(datatype) if datatype else None)


NQUADS_TYPE = "application/n-quads"
NTRIPLES_TYPE = "application/n-triples"
RESULTS_TYPE = "application/sparql-results+json"


class RemoteOwner:
    """``memory.owner`` through the REST API: each decision of
    :data:`~doxa.memory.decisions.DECISIONS` is a method with ``Owner``'s signature, sent to
    the row's route; the owner's reads beside them are sent to theirs."""

    def __init__(self, client: RemoteMemory) -> None:
        self._client = client

    def _send(
        self, decision: Decision[Any, Any], args: tuple[object, ...], kwargs: Mapping[str, object]
    ) -> Any:
        bound = inspect.signature(decision.method).bind(self, *args, **kwargs).arguments
        given = dict(list(bound.items())[1:])  # the method's own parameters, after self
        for name in decision.python_only:
            if given.pop(name, False):
                raise InvalidInput(
                    f"{decision.name}({name}=...) is the Python API's only; the doxa server at "
                    f"{self._client.url} does it on its own."
                )
        path = decision.rest
        if decision.target is not None:
            target = given.pop(next(iter(given)))
            named = target.id if isinstance(target, Fact | HeldWrite | Alarm) else target
            path = path.format(_segment(str(named)))
        body = {}
        for argument in decision.arguments:  # parsed here as every surface parses them
            value = argument.read(given.get(argument.name))
            body[argument.name] = value.value if isinstance(value, enum.Enum) else value
        answer = self._client._call("POST", path, body=body)
        kind: Any = Receipt if decision.returns is Returns.RECEIPT else list[Receipt]
        return revive(kind, answer)

    approve = sent(APPROVE)
    reject = sent(REJECT)
    retract = sent(RETRACT)
    confirm = sent(CONFIRM)
    erase = sent(ERASE)
    grant = sent(GRANT)
    revoke = sent(REVOKE)
    clear_alarm = sent(CLEAR_ALARM)
    release = sent(RELEASE)
    discard = sent(DISCARD)
    rescreen = sent(RESCREEN)
    rejudge = sent(REJUDGE)

    def quarantined(self) -> list[Fact]:
        return revive(list[Fact], self._client._call("GET", "/quarantine"))

    def ledger(self) -> list[Standing]:
        return revive(list[Standing], self._client._call("GET", "/ledger"))

    def alarms(self, *, include_cleared: bool = False) -> list[Alarm]:
        answer = self._client._call("GET", "/alarms", params={"include_cleared": include_cleared})
        return revive(list[Alarm], answer)


def _segment(name: str) -> str:
    """An id as one path segment: ``/`` and ``..`` cannot move the request elsewhere."""
    return quote(name, safe="")


def _param(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _write_body(text: str, fields: Mapping[str, object]) -> dict[str, object]:
    """``Memory.remember``'s keyword arguments as the REST body's fields (the definition in
    :mod:`doxa.writes` names both): closed lists by value, the object as ``object`` or as
    ``literal`` with its datatype or language; defaults left out."""
    from doxa.interfaces.presentation import plain

    body: dict[str, object] = {"text": text}
    for item in PYTHON_FIELDS:
        value = fields.get(item.name)
        if item.name in ("text", "object") or value is None or value == item.default:
            continue
        body[item.name] = plain(list(value) if isinstance(value, tuple) else value)
    thing = fields.get("object")
    if isinstance(thing, Literal):
        body["literal"] = str(thing)
        if thing.language:
            body["language"] = thing.language
        elif thing.datatype is not None:
            body["datatype"] = str(thing.datatype)
    elif thing is not None:
        body["object"] = str(thing)
    return body


def _error(document: object, status: int) -> DoxaError:
    """The doxa error an error answer stands for (a shape violation with its failures)."""
    error = document.get("error") if isinstance(document, dict) else None
    if not isinstance(error, dict):
        return StoreError(f"The server answered {status} without doxa's error document.")
    name, message = str(error.get("type", "")), str(error.get("message", ""))
    if name == "ShapeViolation":
        failures = tuple(
            ConstraintFailure(
                str(f.get("focus_node") or ""),
                f.get("path"),
                str(f.get("message", "")),
                str(f.get("constraint", "")),
            )
            for f in error.get("failures", [])
            if isinstance(f, dict)
        )
        receipt = error.get("receipt")
        return ShapeViolation(failures, receipt if isinstance(receipt, str) else None)
    return error_from(name, message, status)
