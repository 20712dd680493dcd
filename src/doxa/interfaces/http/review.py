"""``/review``: the owner's page — held writes, alarms, quarantine, and each fact's history.

Server-rendered HTML, no JavaScript. The owner signs in by typing the scope's owner key into
the form at ``/review``; the server answers with a session cookie (HttpOnly, SameSite=Strict,
path ``/review``, 12 hours) holding an opaque random token the server keeps (never the key).
Agent keys are refused. The sign-in form itself carries a CSRF token bound to a pre-session
cookie, and a sign-in from another origin is refused (login CSRF: another site cannot sign
the owner's browser in to the attacker's session). Every form that acts carries a CSRF token
bound to the session, and a POST from another origin is refused, so only the owner's own page
can approve or reject. Signing out ends the session on the server: a copied cookie stops
working at once.

A held write that asks "replace or add?" gets the owner's answers as separate forms, each
posting its ``as_relation`` through the same checks (:mod:`doxa.interfaces.answers` decides
which writes ask it and what the answers are); every other held write keeps one Approve.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from doxa.errors import DoxaError, NotFound
from doxa.interfaces.answers import REPLACE_OR_ADD, Answer, asks_replace_or_add, parse_answer
from doxa.interfaces.failures import http_status
from doxa.interfaces.http.auth import Memories, ReviewSessions
from doxa.interfaces.http.config import ServerConfig
from doxa.interfaces.http.moments import exact, spoken
from doxa.interfaces.http.timeline import timeline_svg
from doxa.memory import Memory
from doxa.memory.decisions import DECISIONS, Decision
from doxa.model import Alarm, Fact, HeldWrite, Outcome, Receipt, Relation

__all__ = ["router"]

router = APIRouter(prefix="/review", include_in_schema=False)

COOKIE = "doxa_review"
SESSION_SECONDS = 12 * 3600
#: the pre-session cookie the sign-in form's CSRF token is bound to
LOGIN_COOKIE = "doxa_review_login"
LOGIN_SECONDS = 3600

_templates = Environment(
    loader=PackageLoader("doxa.interfaces.http", "templates"),
    autoescape=select_autoescape(["html"]),
)


# -- sessions ---------------------------------------------------------------------------


def _sign(secret: bytes, text: str) -> str:
    return hmac.new(secret, text.encode("utf-8"), hashlib.sha256).hexdigest()


def _csrf(token: str, secret: bytes) -> str:
    return _sign(secret, f"csrf:{token}")


def _login_csrf(nonce: str, secret: bytes) -> str:
    """The sign-in form's token, bound to the browser's pre-session cookie."""
    return _sign(secret, f"login:{nonce}")


def _sessions(request: Request) -> ReviewSessions:
    sessions: ReviewSessions = request.app.state.sessions
    return sessions


@dataclass(frozen=True)
class _Owner:
    scope: str
    memory: Memory
    csrf: str


def _signed_in(request: Request) -> _Owner | None:
    secret: bytes = request.app.state.secret
    token = request.cookies.get(COOKIE)
    scope = _sessions(request).scope_of(token)
    config: ServerConfig = request.app.state.config
    if token is None or scope is None or scope not in {k.scope for k in config.scopes}:
        return None
    memories: Memories = request.app.state.memories
    return _Owner(scope, memories[scope], _csrf(token, secret))


#: no scripts at all, forms only to this server, never inside another site's frame
#: (a framed page could trick the owner into clicking Approve)
_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # no-referrer would make the forms send Origin: null
    "X-Content-Type-Options": "nosniff",
}


def _when(now: datetime) -> Callable[[datetime | None], Markup]:
    """The page's way to show a time: in words ("3 minutes ago"), the exact local time on
    hover (:mod:`doxa.interfaces.http.moments`), the ISO time for machines."""

    def when(moment: datetime | None) -> Markup:
        if moment is None:
            return Markup("-")
        return Markup(
            f'<time datetime="{escape(moment.isoformat())}" title="{escape(exact(moment))}">'
            f"{escape(spoken(moment, now))}</time>"
        )

    return when


def _page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    html = _templates.get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers=_HEADERS)


def _message(title: str, message: str, status: int) -> HTMLResponse:
    return _page("message.html", status, title=title, message=message)


async def _form(request: Request) -> dict[str, str]:
    body = (await request.body()).decode("utf-8", errors="replace")
    return {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}


def _own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.headers.get('host', '')}"


def _same_origin(request: Request) -> bool:
    """Whether the POST came from this server's pages, as far as the browser says: its
    Origin (``null`` from a sandboxed or privacy-stripped page is refused), or, where a
    browser sends no Origin, its Referer. Neither header: the CSRF token decides alone."""
    own = _own_origin(request)
    origin = request.headers.get("origin")
    if origin is not None:
        return origin == own
    referer = request.headers.get("referer")
    if referer is not None:
        return referer == own or referer.startswith(own + "/")
    return True


async def _acting(request: Request) -> tuple[_Owner | None, dict[str, str], Response | None]:
    """The signed-in owner of a POST, its form, or the refusal to send instead."""
    form = await _form(request)
    owner = _signed_in(request)
    if owner is None:
        return None, form, _message("Sign in first", "Sign in with the owner key to act.", 401)
    if not _same_origin(request) or not hmac.compare_digest(form.get("csrf", ""), owner.csrf):
        refusal = _message(
            "Refused",
            "This form did not come from your review page (CSRF check failed); "
            "reload the page and try again.",
            403,
        )
        return None, form, refusal
    return owner, form, None


# -- what the page shows ---------------------------------------------------------------


@dataclass(frozen=True)
class _HeldView:
    item: HeldWrite
    receipt: Receipt | None
    targets: list[tuple[str, Fact | None]]
    compared: list[tuple[str, Fact | None]]
    #: the owner's choices where the write asks "replace or add?" (each its own button,
    #: "would end" only beside those that end the old value); empty: the plain Approve
    answers: tuple[Answer, ...] = ()


def _fact_or_none(memory: Memory, fact_id: str) -> Fact | None:
    try:
        return memory.get(fact_id)
    except NotFound:
        return None


def _held_views(memory: Memory, receipts: list[Receipt]) -> list[_HeldView]:
    by_held = {r.held: r for r in receipts if r.outcome is Outcome.HELD and r.held}
    views = []
    for item in memory.held():
        receipt = by_held.get(item.id)
        compared = [c for c in (receipt.consulted if receipt else ()) if c not in item.targets]
        views.append(
            _HeldView(
                item=item,
                receipt=receipt,
                targets=[(t, _fact_or_none(memory, t)) for t in item.targets],
                compared=[(c, _fact_or_none(memory, c)) for c in compared],
                answers=REPLACE_OR_ADD if asks_replace_or_add(item) else (),
            )
        )
    return views


def quarantine_of(memory: Memory) -> list[Fact]:
    """Writes in quarantine, oldest first: only the owner's page shows them."""
    return memory.owner.quarantined()


def quarantine_reasons(receipts: list[Receipt]) -> dict[str, str]:
    """Why each write is in quarantine, by fact id: its quarantine receipt's reason, which
    names the attack family and the span that triggered the screen."""
    return {r.fact: r.reason for r in receipts if r.outcome is Outcome.QUARANTINED and r.fact}


def alarms_of(memory: Memory) -> list[Alarm]:
    """The scope's alarms, open first: open ones stop automatic closing until cleared."""
    found = memory.owner.alarms(include_cleared=True)
    return sorted(found, key=lambda a: (not a.open, a.raised_at))


@dataclass(frozen=True)
class _AlarmView:
    """An alarm and where its write is now: still held (a link to its card on this page),
    a fact (a link to its history), or neither (rejected or erased: its id, unlinked)."""

    alarm: Alarm
    held: bool
    fact: Fact | None


@dataclass(frozen=True)
class _KindView:
    """One kind of memory and whether the judge may close its facts without asking: the
    refusal says why not (None: it may), so the owner grants or revokes knowing the state."""

    kind: str
    refusal: str | None


def _kind_views(memory: Memory, held: list[_HeldView], facts: list[Fact]) -> list[_KindView]:
    kinds = {s.kind for s in memory.owner.ledger()}
    kinds |= {view.item.kind for view in held} | {f.kind for f in facts}
    return [_KindView(k, memory.owner.closing_refusal(k)) for k in sorted(kinds)]


def _alarm_views(memory: Memory, held: list[_HeldView]) -> list[_AlarmView]:
    # an alarm names the write it stopped, which is held, not (yet) a fact
    held_ids = {view.item.id for view in held}
    views = []
    for alarm in alarms_of(memory):
        still_held = alarm.fact is not None and alarm.fact in held_ids
        fact = None if still_held or alarm.fact is None else _fact_or_none(memory, alarm.fact)
        views.append(_AlarmView(alarm=alarm, held=still_held, fact=fact))
    return views


# -- routes -----------------------------------------------------------------------------


def _login_page(request: Request, status: int = 200, error: str | None = None) -> Response:
    """The sign-in form, with a token bound to a pre-session cookie (login CSRF: another site
    cannot sign the owner's browser in to a session of its choosing)."""
    nonce = request.cookies.get(LOGIN_COOKIE) or ""
    if not 20 <= len(nonce) <= 100 or not nonce.isascii():
        nonce = secrets.token_urlsafe(32)
    page = _page(
        "login.html",
        status,
        error=error,
        csrf=_login_csrf(nonce, request.app.state.secret),
    )
    page.set_cookie(
        LOGIN_COOKIE,
        nonce,
        max_age=LOGIN_SECONDS,
        path="/review",
        httponly=True,
        samesite="strict",
    )
    return page


@router.get("", response_class=HTMLResponse)
def page(request: Request) -> Response:
    owner = _signed_in(request)
    if owner is None:
        return _login_page(request)
    memory = owner.memory
    receipts = memory.receipts()
    held = _held_views(memory, receipts)
    facts = memory.facts(include_ended=True)
    return _page(
        "review.html",
        scope=owner.scope,
        csrf=owner.csrf,
        held=held,
        quarantine=quarantine_of(memory),
        quarantine_reasons=quarantine_reasons(receipts),
        alarms=_alarm_views(memory, held),
        flagged=memory.flagged(),
        facts=facts,
        kinds=_kind_views(memory, held, facts),
        notice=request.query_params.get("notice", ""),
        when=_when(memory.clock.now()),
    )


@router.post("/login")
async def login(request: Request) -> Response:
    form = await _form(request)
    nonce = request.cookies.get(LOGIN_COOKIE, "")
    expected = _login_csrf(nonce, request.app.state.secret)
    if (
        not _same_origin(request)
        or not nonce
        or not hmac.compare_digest(form.get("csrf", ""), expected)
    ):
        return _login_page(
            request,
            403,
            error="This sign-in did not come from this server's review page (CSRF check "
            "failed); reload the page and sign in again.",
        )
    config: ServerConfig = request.app.state.config
    caller = config.caller(form.get("key", "").strip())
    if caller is None:
        return _login_page(request, 401, error="That key is not known to this server.")
    if not caller.is_owner:
        return _login_page(
            request,
            403,
            error=f"That is an agent key of scope {caller.scope!r}; only the owner key may "
            "open the review page.",
        )
    response = RedirectResponse("/review", status_code=303)
    # a fresh session every sign-in: a cookie planted before it is never promoted
    _sessions(request).revoke(request.cookies.get(COOKIE))
    response.set_cookie(
        COOKIE,
        _sessions(request).open(caller.scope),
        max_age=SESSION_SECONDS,
        path="/review",
        httponly=True,
        samesite="strict",
    )
    response.delete_cookie(LOGIN_COOKIE, path="/review")
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    _, _, refusal = await _acting(request)
    if refusal is not None:
        return refusal
    _sessions(request).revoke(request.cookies.get(COOKIE))  # a copied cookie stops working
    response = RedirectResponse("/review", status_code=303)
    response.delete_cookie(COOKIE, path="/review")
    return response


#: the line shown after each decision the page offers: what the owner did, to what, and
#: the receipt (the button's word, "rejected", not the outcome's, "discarded")
_NOTICES: dict[str, Callable[[str, Receipt, Relation | None], str]] = {
    "approve": lambda target, r, answer: (
        f"approved: held write {target}{'' if answer is None else f' as {answer.value}'} "
        f"({r.outcome.value}, receipt {r.id})"
    ),
    "reject": lambda target, r, _: (
        f"rejected: held write {target} ({r.outcome.value}, receipt {r.id})"
    ),
    "release": lambda target, r, _: f"released: {target} ({r.outcome.value}, receipt {r.id})",
    "discard": lambda target, r, _: f"discarded: {target} ({r.outcome.value}, receipt {r.id})",
    "clear_alarm": lambda target, r, _: f"cleared: alarm {target} (receipt {r.id})",
    "confirm": lambda target, r, _: f"confirmed: fact {target} stands on its own (receipt {r.id})",
    "retract": lambda target, r, _: f"retracted: fact {target} was never true (receipt {r.id})",
    "erase": lambda target, r, _: (
        f"erased: fact {target}; only its tombstone stays (receipt {r.id})"
    ),
    "grant": lambda target, r, _: (
        f"granted: the judge may close facts of kind {target} on its own (receipt {r.id})"
    ),
    "revoke": lambda target, r, _: (
        f"revoked: closings of kind {target} wait for you again (receipt {r.id})"
    ),
}

#: decisions the page makes only when the form repeats the target's id in ``confirm``
#: (erasure cannot be undone: a stray click must not do it)
_CONFIRMED = frozenset({"erase"})


def _review_route(decision: Decision[Any, Any]) -> None:
    """The page's form for one row of the owner's decisions, posting to ``/review`` + the
    row's REST path: sign-in and CSRF checks, the decision with the form's fields as its
    arguments, then the page again with what was done (or why it failed)."""

    async def act(request: Request, target: str) -> Response:
        owner, form, refusal = await _acting(request)
        if refusal is not None:
            return refusal
        assert owner is not None
        if decision.name in _CONFIRMED and form.get("confirm", "").strip() != target:
            return _message(
                f"Not {decision.name}d",
                f"To {decision.name} fact {target}, type its id into the confirmation field; "
                "nothing was changed.",
                400,
            )
        given = {a.name: form[a.name] for a in decision.arguments if a.name in form}
        try:
            receipt = decision.call(owner.memory.owner, target, given)
        except DoxaError as error:
            verb = decision.name.replace("_", " ")
            return _message(f"Could not {verb}", str(error), http_status(error))
        answer = given.get("as_relation")
        relation = parse_answer(answer) if answer else None
        notice = _NOTICES[decision.name](target, receipt, relation)
        return RedirectResponse("/review?" + urlencode({"notice": notice}), status_code=303)

    router.add_api_route(decision.rest.format("{target}"), act, methods=["POST"])


for _decision in DECISIONS:
    if _decision.review:
        _review_route(_decision)


@router.get("/facts/{fact_id}", response_class=HTMLResponse)
def fact_page(request: Request, fact_id: str) -> Response:
    owner = _signed_in(request)
    if owner is None:
        return _login_page(request, 401)
    memory = owner.memory
    try:
        history = memory.history(fact_id)
        why = memory.why(fact_id)
    except DoxaError as error:
        return _message("Not found", str(error), http_status(error))
    versions = [history.fact]
    for successor in history.successors:
        found = _fact_or_none(memory, successor)
        if found is not None:
            versions.append(found)
    now = memory.clock.now()
    return _page(
        "fact.html",
        scope=owner.scope,
        csrf=owner.csrf,
        history=history,
        why=why,
        svg=Markup(timeline_svg(history, versions, now)),  # built escaped
        when=_when(now),
    )
