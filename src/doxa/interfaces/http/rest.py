"""The JSON API: gated writes and every read of :class:`doxa.Memory`, one route per method.

Results are the Python API's result objects as JSON, exactly as ``doxa --json`` prints them
(same field names, enums by value, times in ISO 8601). Agent keys may write and read; the
owner's verbs (approve, reject, retract, grant, revoke) and writes with ``authority: owner``
need the scope's owner key.
"""

from __future__ import annotations

import inspect
import io
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field, create_model

from doxa.interfaces.http.auth import Bound, bound, owner
from doxa.interfaces.http.bodies import StrictJSONRoute
from doxa.interfaces.http.errors import Problem
from doxa.interfaces.http.runner import QueryRunner
from doxa.interfaces.presentation import audit_json, matches, plain, written
from doxa.interfaces.read_schema import read_signature
from doxa.interfaces.write_schema import json_fields
from doxa.memory import Memory
from doxa.memory.decisions import DECISIONS, Decision
from doxa.memory.owner import Owner as MemoryOwner
from doxa.reads.parameters import FACTS, RECALL, Read
from doxa.writes import Role, remember_arguments

__all__ = ["add_decision", "router"]

router = APIRouter(route_class=StrictJSONRoute)

Caller = Annotated[Bound, Depends(bound)]
Owner = Annotated[Bound, Depends(owner)]
JSON = dict[str, Any]
NQUADS = "application/n-quads"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


if TYPE_CHECKING:  # a model built at import time; the type checker knows it as a model
    RememberBody = _Body
else:
    #: one write for the gate: every field of :data:`doxa.writes.FIELDS`, nothing else
    RememberBody = create_model(
        "RememberBody",
        __base__=_Body,
        __doc__="One write for the gate (the arguments of ``Memory.remember``).",
        **json_fields(agent=False),
    )


T = TypeVar("T")


def _heavily(request: Request, found: Bound, work: Callable[[], T]) -> T:
    """Run a request that reads the whole scope (export, verify, audit) in a heavy slot:
    one per scope and two in the server at once, a third gets 503 ``Busy`` at once, so one
    scope's exports cannot starve every other scope's writes (bench/bench_load.py --abuse)."""
    runner: QueryRunner = request.app.state.heavy
    return runner.run(lambda _stop: work(), scope=found.caller.scope)


def _json(value: object) -> Any:
    """``value`` as the JSON the routes answer (``plain``'s form, shared with the CLI)."""
    return plain(value)


def _one(value: object) -> JSON:
    """One result object as a JSON object."""
    found = plain(value)
    assert isinstance(found, dict)
    return found


def _many(value: object) -> list[JSON]:
    """A list of results as a JSON array."""
    found = plain(value)
    assert isinstance(found, list)
    return found


@router.post("/remember", tags=["writes"])
def remember(body: RememberBody, found: Caller) -> JSON:
    """Write one fact through the gate; returns the receipt (a held write is a success too),
    with ``matched``: each stored fact the write matched, refined or would replace (id, text,
    effect).

    A write the shapes refuse gets 422 with each failed constraint listed (only a rejection
    receipt is stored). Only the owner key may write with authority ``owner``, write a
    standing rule (``rule``) or name the owner's standpoint (403 otherwise).
    """
    receipt = found.memory.remember(**_fields(body, found), strict=True)
    return written(receipt, matches(receipt, found.memory.get))


def _fields(body: BaseModel, found: Bound) -> dict[str, Any]:
    """The keyword arguments of ``Memory.remember`` (and ``preview``) a body carries.

    :func:`doxa.writes.remember_arguments` is the one parse of a write and holds the one
    permission rule: the owner key writes as the owner, any other key as an agent, whose
    owner words (authority ``owner``, a ``rule``, the owner's standpoint) are
    :class:`~doxa.Forbidden` (403), decided on the parsed values.
    """
    return remember_arguments(
        body.model_dump(exclude_unset=True),
        role=Role.OWNER if found.caller.is_owner else Role.AGENT,
        scope=found.memory.scope,
    )


@router.post("/preview", tags=["reads"])
def preview(body: RememberBody, found: Caller) -> JSON:
    """What the judge would say about a write (its verdict), without writing anything; the
    same owner-only rules as ``/remember`` apply (403)."""
    return _one(found.memory.preview(**_fields(body, found)))


def facts(found: Caller, **given: Any) -> list[JSON]:
    """Facts true at ``valid_at`` as believed at ``as_of`` (both default to now), oldest
    record first; ``include_unchecked`` adds writes waiting for the judge, last and flagged;
    ``limit`` keeps the newest that many."""
    return _many(found.memory.facts(**given))


def recall(found: Caller, **given: Any) -> list[JSON]:
    """Facts whose words match ``q``, best first, each with a score."""
    text = given.pop("text")
    return _many(found.memory.recall(text, **given))


def _serve_read(read: Read, route: Callable[..., list[JSON]]) -> None:
    """Route ``GET /<read>``: FastAPI reads its query parameters from the signature, built
    from the reads' one definition (:mod:`doxa.reads.parameters`)."""
    caller = inspect.Parameter("found", inspect.Parameter.KEYWORD_ONLY, annotation=Caller)
    route.__signature__ = read_signature(  # type: ignore[attr-defined]
        read, agent=False, describe=Query, leading=(caller,), returns=list[JSON], http=True
    )
    router.get(f"/{read.name}", tags=["reads"])(route)


_serve_read(FACTS, facts)
_serve_read(RECALL, recall)


@router.get("/facts/{fact}", tags=["reads"])
def get(fact: str, found: Caller) -> JSON:
    """One fact by id, with its status now."""
    return _one(found.memory.get(fact))


@router.get("/facts/{fact}/history", tags=["reads"])
def history(fact: str, found: Caller, as_of: str | None = None) -> JSON:
    """The fact and every event that refined, corroborated, superseded or retracted it."""
    return _one(found.memory.history(fact, as_of=as_of))


@router.get("/facts/{fact}/why", tags=["reads"])
def why(fact: str, found: Caller) -> JSON:
    """The fact's evidence, sources and the receipt that admitted it."""
    return _one(found.memory.why(fact))


@router.get("/held", tags=["reads"])
def held(found: Caller) -> list[JSON]:
    """Writes waiting for the owner (or for the judge), oldest first."""
    return _many(found.memory.held())


@router.get("/receipts", tags=["reads"])
def receipts(found: Caller) -> list[JSON]:
    """Every receipt of the scope, in chain order."""
    return _many(found.memory.receipts())


@router.get("/verify", tags=["reads"])
def verify(request: Request, found: Caller) -> JSON:
    """Verify the scope's receipt hash chain (409 ChainBroken when it does not verify)."""
    receipts = _heavily(request, found, found.memory.verify)
    return {"verified": True, "receipts": receipts, "scope": found.caller.scope}


@router.get("/key", tags=["reads"])
def key(found: Caller) -> JSON:
    """The scope and role the API key reaches: how a client checks that the key it holds is
    the one it meant (the CLI refuses a ``--scope`` the key does not reach)."""
    return {"scope": found.caller.scope, "role": found.caller.role}


@router.get("/kinds/{kind}", tags=["reads"])
def kind(kind: str, found: Caller) -> JSON:
    """Whether the judge may close facts of ``kind`` on its own, and if not, why."""
    return {
        "kind": kind,
        "closing_earned": found.memory.owner.closing_earned(kind),
        "refusal": found.memory.owner.closing_refusal(kind),
    }


@router.get("/ledger", tags=["reads"])
def ledger(found: Caller) -> list[JSON]:
    """The judge's record with the owner per kind of memory (``memory.owner.ledger``)."""
    return _many(found.memory.owner.ledger())


@router.get("/stats", tags=["reads"])
def stats(found: Caller) -> JSON:
    """Decisions per kind, the judge's ledger and the open alarms (``Memory.stats``)."""
    return _one(found.memory.stats())


@router.get("/vocabulary", tags=["reads"])
def vocabulary(found: Caller, search: str | None = None, limit: int = 50) -> JSON:
    """The scope's predicates and entities, most used first (``Memory.vocabulary``)."""
    return _one(found.memory.vocabulary(search, limit=limit))


@router.get("/alarms", tags=["reads"])
def alarms(found: Caller, include_cleared: bool = False) -> list[JSON]:
    """Alarms raised in the scope, oldest first; open ones only unless asked."""
    return _many(found.memory.owner.alarms(include_cleared=include_cleared))


@router.get("/quarantine", tags=["owner"])
def quarantine(found: Owner) -> list[JSON]:
    """Writes judged outside text acting as an instruction (owner key only: no ordinary
    reader sees them)."""
    return _many(found.memory.owner.quarantined())


@router.get("/purge", tags=["owner"])
def purge(found: Owner) -> JSON:
    """Where the background purge of erased content stands (owner key only): erasures owed,
    whether a purge runs and at which step, how many this server purged, the last error."""
    status = found.memory.admin.purge_status()
    return {**status.as_json(), "purges_files": found.memory.admin.store_purges_files}


@router.get("/render", tags=["owner"])
def render(
    found: Owner,
    valid_at: str | None = None,
    as_of: str | None = None,
    include_ended: bool = False,
) -> JSON:
    """The scope as Markdown files (``memory.files.render``, owner key only; read only): file name
    → text, and the manifest a sync compares with."""
    rendered = found.memory.files.render(
        valid_at=valid_at, as_of=as_of, include_ended=include_ended
    )
    return {"files": dict(rendered.files), "manifest": rendered.manifest.to_json()}


@router.get(
    "/export",
    tags=["reads"],
    response_class=PlainTextResponse,
    responses={200: {"content": {NQUADS: {}}}},
)
def export(request: Request, found: Caller, audit: bool = False) -> PlainTextResponse:
    """The scope as sorted N-Quads (``memory.admin.export``); ``audit=true`` (owner key only) also
    includes the quarantine. One export, verification or audit per scope at a time (503
    ``Busy`` with ``Retry-After`` for another)."""
    if audit and not found.caller.is_owner:
        raise Problem(403, "Forbidden", "Only the owner key may take an audit export.")
    out = io.StringIO()
    _heavily(request, found, lambda: found.memory.admin.export(out, audit=audit))
    return PlainTextResponse(out.getvalue(), media_type=NQUADS)


#: the media type of each audit report format
_REPORT_TYPES = {"turtle": "text/turtle", "json-ld": "application/ld+json"}


@router.get(
    "/audit",
    tags=["owner"],
    responses={
        200: {"content": {"application/json": {}, "text/turtle": {}, "application/ld+json": {}}}
    },
)
def audit(request: Request, found: Owner, infer: bool = False, format: str = "json") -> Any:
    """Validate the whole scope against doxa's shapes and the owner's (``memory.admin.audit``;
    owner key only): JSON by default, or the SHACL report as ``turtle`` or ``json-ld``."""
    chosen = format.strip().casefold()
    if chosen != "json" and chosen not in _REPORT_TYPES:
        raise Problem(
            400, "InvalidInput", f"{format!r} is not an audit format; use json, turtle or json-ld."
        )
    report = _heavily(request, found, lambda: found.memory.admin.audit(infer=infer))
    if chosen == "json":
        return audit_json(report)
    return PlainTextResponse(report.serialize(chosen), media_type=_REPORT_TYPES[chosen])


@router.get("/flagged", tags=["reads"])
def flagged(found: Caller, as_of: str | None = None) -> list[JSON]:
    """Live facts whose basis ended, most recently flagged first (``Memory.flagged``)."""
    return _many(found.memory.flagged(as_of=as_of))


def _target_name(decision: Decision[Any, Any]) -> str:
    """The path parameter naming a decision's target."""
    return decision.target.parameter if decision.target is not None else "target"


def _decision_path(decision: Decision[Any, Any]) -> str:
    """A decision's REST route, its target's parameter in the braces."""
    return decision.rest.format("{" + _target_name(decision) + "}")


def add_decision(router: APIRouter, decision: Decision[Any, Any]) -> None:
    """``POST <decision.rest>`` for one row of the owner's decisions: the target's id in the
    path, the row's arguments as the body (required when one of them is), owner key only."""
    fields: dict[str, Any] = {}
    for argument in decision.arguments:
        extra: dict[str, Any] | None = (
            {"enum": [*argument.values, None]} if argument.values else None
        )
        if argument.required:
            fields[argument.name] = (str, Field(description=argument.doc))
        else:
            default = argument.default if isinstance(argument.default, str) else None
            fields[argument.name] = (
                str | None,
                Field(default, description=argument.doc, json_schema_extra=extra),
            )
    body_model = (
        create_model(
            "".join(w.title() for w in decision.name.split("_")) + "Body",
            __base__=_Body,
            **fields,
        )
        if fields
        else None
    )
    required = any(a.required for a in decision.arguments)

    name = _target_name(decision)

    def endpoint(found: Bound, body: BaseModel | None = None, **path: str) -> Any:
        given = body.model_dump(exclude_unset=True) if body is not None else {}
        return _json(decision.call(found.memory.owner, path.get(name), given))

    keyword = inspect.Parameter.KEYWORD_ONLY
    parameters = [inspect.Parameter("found", keyword, annotation=Owner)]
    if decision.target is not None:
        parameters.append(inspect.Parameter(name, keyword, annotation=str))
    if body_model is not None:
        parameters.append(
            inspect.Parameter("body", keyword, annotation=body_model)
            if required
            else inspect.Parameter("body", keyword, annotation=body_model | None, default=None)
        )
    endpoint.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    path = _decision_path(decision)
    router.add_api_route(
        path,
        endpoint,
        methods=["POST"],
        tags=["owner"],
        name=decision.name,
        summary=decision.name.replace("_", " ").capitalize(),
        description=f"{decision.doc} (owner key only)",
    )


for _decision in DECISIONS:
    add_decision(router, _decision)


#: what each route answers, named by the Python method whose result it sends as JSON (its
#: return annotation is the one definition: :func:`doxa.interfaces.presentation.plain` makes
#: the JSON of it, and the OpenAPI document describes it by
#: :func:`~doxa.interfaces.presentation.result_schema`); ``/remember`` sends a receipt with
#: its matches (:func:`~doxa.interfaces.presentation.written`)
RESULTS: dict[tuple[str, str], Callable[..., Any]] = {
    ("post", "/remember"): written,
    ("post", "/preview"): Memory.preview,
    ("get", "/facts"): Memory.facts,
    ("get", "/recall"): Memory.recall,
    ("get", "/facts/{fact}"): Memory.get,
    ("get", "/facts/{fact}/history"): Memory.history,
    ("get", "/facts/{fact}/why"): Memory.why,
    ("get", "/held"): Memory.held,
    ("get", "/receipts"): Memory.receipts,
    ("get", "/flagged"): Memory.flagged,
    ("get", "/stats"): Memory.stats,
    ("get", "/vocabulary"): Memory.vocabulary,
    ("get", "/quarantine"): MemoryOwner.quarantined,
    ("get", "/ledger"): MemoryOwner.ledger,
    ("get", "/alarms"): MemoryOwner.alarms,
    **{("post", _decision_path(d)): d.method for d in DECISIONS},
}
