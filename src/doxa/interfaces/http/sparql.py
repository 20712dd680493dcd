"""``/sparql``: a read-only SPARQL 1.1 Protocol endpoint over the caller's scope.

Queries come by GET (``?query=``), by POST of a form (``application/x-www-form-urlencoded``)
or by POST of the query itself (``application/sparql-query``, UTF-8). The dataset is always
the scope's ordinary graphs (``memory.rdf.sparql``); ``default-graph-uri`` and
``named-graph-uri`` may only narrow it. Updates, by ``update=`` or
``application/sparql-update``, get 403: every write goes through the gate (``POST /remember``).
Each response says the row cap in ``Doxa-Row-Cap`` and whether it cut the result in
``Doxa-Truncated``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Request, Response
from starlette.concurrency import run_in_threadpool

from doxa.interfaces.http.auth import Bound, bound
from doxa.interfaces.http.checker import QueryChecker
from doxa.interfaces.http.config import ServerConfig
from doxa.interfaces.http.errors import Problem
from doxa.interfaces.http.results import choose, media_types, serialise
from doxa.interfaces.http.runner import QueryRunner
from doxa.reads.sparql import CheckedQuery
from doxa.store import QueryResult

__all__ = ["router"]

router = APIRouter(tags=["sparql"])

FORM = "application/x-www-form-urlencoded"
QUERY = "application/sparql-query"
UPDATE = "application/sparql-update"

READ_ONLY = (
    "This SPARQL endpoint is read-only: updates are refused. Every write goes through the "
    "gate: POST /remember with an agent or owner key (see /docs)."
)


def _params(raw: str) -> dict[str, list[str]]:
    try:
        return parse_qs(raw, keep_blank_values=True, strict_parsing=False, errors="strict")
    except UnicodeDecodeError:
        raise Problem(
            400, "BadRequest", "The parameters are not valid UTF-8; percent-encode UTF-8."
        ) from None


def _media(request: Request) -> tuple[str | None, str | None]:
    header = request.headers.get("content-type")
    if header is None:
        return None, None
    media, *params = [part.strip() for part in header.split(";")]
    charset = None
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    return media.lower(), charset


def _utf8(body: bytes, charset: str | None) -> str:
    if charset not in (None, "utf-8", "utf8"):
        raise Problem(
            415,
            "UnsupportedMediaType",
            f"The body is in charset {charset!r}; send the query in UTF-8.",
        )
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        raise Problem(400, "BadRequest", "The body is not valid UTF-8; send UTF-8.") from None


def _refuse_update() -> Problem:
    return Problem(403, "ReadOnly", READ_ONLY)


def _one_query(values: list[str] | None) -> str:
    if not values:
        raise Problem(
            400,
            "BadRequest",
            "No query was given; send one SPARQL query as 'query=' (GET or a form POST) or "
            "as an application/sparql-query body.",
        )
    if len(values) > 1:
        raise Problem(
            400, "BadRequest", f"{len(values)} queries were given; send exactly one per request."
        )
    return values[0]


async def _request(request: Request) -> tuple[str, dict[str, list[str]]]:
    """The query text and the protocol parameters, checked as the Protocol requires."""
    url = _params(request.url.query)
    if "update" in url:
        raise _refuse_update()
    if request.method == "GET":
        return _one_query(url.get("query")), url
    media, charset = _media(request)
    if media == UPDATE:
        raise _refuse_update()
    body = await request.body()
    if media == FORM:
        form = _params(_utf8(body, charset))
        if "update" in form:
            raise _refuse_update()
        merged = {k: [*url.get(k, []), *form.get(k, [])] for k in {*url, *form}}
        return _one_query(merged.get("query")), merged
    if media == QUERY:
        if "query" in url:
            raise Problem(
                400, "BadRequest", "Give the query once: in the body or as 'query=', not both."
            )
        return _utf8(body, charset), url
    raise Problem(
        415,
        "UnsupportedMediaType",
        f"A POST to /sparql must be {FORM} or {QUERY} (UTF-8), not "
        f"{media or 'a body without Content-Type'}.",
    )


_SAFE_IRI = re.compile(r"^https?://[^\s<>\"{}|\\^`]+$")


def _with_base(request: Request, checked: CheckedQuery) -> CheckedQuery:
    """The checked query with the endpoint's URL as its base IRI (the Protocol lets a service
    choose one), so relative IRIs resolve; a BASE in the query itself comes later and wins.

    Added after the check, so a syntax error's line and column are those of the query sent.
    """
    base = f"{str(request.base_url).rstrip('/')}/sparql"
    if not _SAFE_IRI.match(base):
        base = "http://localhost/sparql"  # a Host header that cannot be part of an IRI
    return replace(checked, text=f"BASE <{base}>\n{checked.text}")


def _timeout(params: dict[str, list[str]]) -> float | None:
    values = params.get("timeout")
    if not values:
        return None
    try:
        seconds = float(values[-1])
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise Problem(400, "BadRequest", "timeout must be a number of seconds above 0.")
    return seconds


@router.get("/sparql", response_class=Response, operation_id="sparql_get")
async def sparql_get(request: Request, found: Bound = Depends(bound)) -> Response:  # noqa: B008
    """Answer one SPARQL query (``?query=``) over the caller's scope (read-only)."""
    return await _answer(request, found)


@router.post("/sparql", response_class=Response, operation_id="sparql_post")
async def sparql_post(request: Request, found: Bound = Depends(bound)) -> Response:  # noqa: B008
    """Answer one SPARQL query (a form or an application/sparql-query body), read-only."""
    return await _answer(request, found)


async def _answer(request: Request, found: Bound) -> Response:
    given, params = await _request(request)
    config: ServerConfig = request.app.state.config
    size = len(given.encode("utf-8", "surrogatepass"))
    if size > config.sparql_max_query_bytes:
        raise Problem(
            413,
            "QueryTooLarge",
            f"The query is {size} bytes long, above this server's limit of "
            f"{config.sparql_max_query_bytes}; shorten it (a VALUES list can often become a "
            "FILTER or several queries).",
        )
    runner: QueryRunner = request.app.state.runner
    checker: QueryChecker = request.app.state.checker
    cap = config.sparql_max_rows
    default = params.get("default-graph-uri")
    named = params.get("named-graph-uri")

    def work(stop: Callable[[], bool]) -> QueryResult:
        # parsed in a worker process: a parse past the timeout is killed with it
        checked = _with_base(request, checker.check(given, stop=stop))
        return found.memory.rdf.sparql(
            checked, default_graphs=default, named_graphs=named, max_rows=cap, stop=stop
        )

    result = await run_in_threadpool(
        runner.run, work, scope=found.caller.scope, timeout=_timeout(params)
    )
    shorts = [*params.get("format", []), *params.get("output", []), *params.get("results", [])]
    fmt = choose(result.form, request.headers.get("accept"), shorts)
    if fmt is None:
        offered = ", ".join(media_types(result.form))
        raise Problem(
            406,
            "NotAcceptable",
            f"This {result.form} result can be had as {offered}; accept one of them.",
        )
    headers = {
        "Doxa-Row-Cap": str(cap),
        "Doxa-Truncated": "true" if result.truncated else "false",
        "Vary": "Accept",
    }
    return Response(
        serialise(result, fmt),
        media_type=f"{fmt.media_type}; charset=utf-8",
        headers=headers,
    )
