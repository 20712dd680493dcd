"""The owner's review page in a real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from tests.helpers import EX, INJECTED
from tests.interfaces.conftest import AGENT, OWNER, Server, config_text

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def test_chromium_is_installed() -> None:
    """Debian's chromium is where the tests expect it (scripts/check installs it)."""
    assert shutil.which("chromium") == CHROMIUM


def day(text: str, obj: str, valid_from: str, call: str = "supplierCall") -> dict[str, Any]:
    return {
        "text": text,
        "topic": "meetings",
        "kind": "schedule",
        "subject": EX + call,
        "predicate": EX + "dayOfWeek",
        "object": EX + obj,
        "authority": "owner",
        "valid_from": valid_from,
    }


@pytest.fixture(scope="module")
def server(serve: Callable[[str], Server]) -> Server:
    return serve(config_text())


@pytest.fixture(scope="module")
def owner(server: Server) -> Iterator[httpx.Client]:
    with server.client(OWNER) as client:
        yield client


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(base_url=server.url)
    page = context.new_page()
    yield page
    context.close()


def sign_in(page: Page, key: str) -> None:
    response = page.goto("/review")
    assert response is not None
    assert response.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.fill("#key", key)
    page.click("#sign-in")


def test_owner_approves_a_held_write(page: Page, owner: httpx.Client, tmp_path: Path) -> None:
    """A held write shows the judge's relation and the fact it would end; the owner approves
    it in the browser; the new fact is live and the held list is empty."""
    wednesday = owner.post(
        "/remember", json=day("The call is on Wednesday", "Wednesday", "2026-01-01")
    )
    held = owner.post("/remember", json=day("The call is on Thursday", "Thursday", "2026-03-08"))
    assert held.json()["outcome"] == "held"
    sign_in(page, OWNER)
    card = page.locator(f"[data-held='{held.json()['held']}']")
    assert card.locator(".relation").inner_text() == "replaces"
    assert "The call is on Wednesday" in card.inner_text()
    assert wednesday.json()["fact"] in card.inner_text()
    page.screenshot(path=tmp_path / "review-held.png", full_page=True)

    card.locator("button.approve").click()
    assert (
        page.locator("#notice")
        .inner_text()
        .startswith(f"approved: held write {held.json()['held']} (")
    )
    assert page.locator("#held-empty").is_visible()
    assert owner.get("/held").json() == []
    live = owner.get("/facts", params={"topic": "meetings"}).json()
    assert [f["text"] for f in live] == ["The call is on Thursday"]
    row = page.locator(f"tr[data-fact='{wednesday.json()['fact']}']")
    assert row.get_attribute("data-status") == "superseded"
    assert (tmp_path / "review-held.png").stat().st_size > 0


def test_agent_key_cannot_open_the_page(page: Page, owner: httpx.Client) -> None:
    """An agent key is refused at sign-in and a POST without a session is refused; the held
    write stays held. The owner's key then rejects it (control)."""
    owner.post("/remember", json=day("Standup on Monday", "Monday", "2026-01-01", "standup"))
    held = owner.post("/remember", json=day("Standup on Friday", "Friday", "2026-05-01", "standup"))
    held_id = held.json()["held"]
    sign_in(page, AGENT)
    assert (
        "only the owner key may open the review page" in page.locator("#login-error").inner_text()
    )
    anonymous = page.request.post(f"/review/held/{held_id}/approve", form={"csrf": "x"})
    assert anonymous.status == 401
    assert [h["id"] for h in owner.get("/held").json()] == [held_id]

    sign_in(page, OWNER)
    forged = page.request.post(f"/review/held/{held_id}/approve", form={"csrf": "forged"})
    assert forged.status == 403  # signed in, but the form did not come from the page
    assert [h["id"] for h in owner.get("/held").json()] == [held_id]
    card = page.locator(f"[data-held='{held_id}']")
    card.locator("input[name=reason]").fill("it stays on Thursday")
    card.locator("button.reject").click()
    # the notice names the button pressed, then the outcome (it began "discarded:")
    notice = page.locator("#notice").inner_text()
    assert notice.startswith(f"rejected: held write {held_id} (discarded, receipt ")
    assert owner.get("/held").json() == []


def test_history_timeline_draws_every_event(
    page: Page, owner: httpx.Client, tmp_path: Path
) -> None:
    """The fact page's SVG has one marker per history event, on both clocks' lanes."""
    first = owner.post(
        "/remember", json=day("Review on Tuesday", "Tuesday", "2026-01-01", "review")
    )
    later = owner.post("/remember", json=day("Review on Monday", "Monday", "2026-02-01", "review"))
    assert owner.post(f"/held/{later.json()['held']}/approve").status_code == 200
    ended = owner.get(f"/facts/{first.json()['fact']}").json()
    assert ended["status"] == "superseded"
    history = owner.get(f"/facts/{ended['id']}/history").json()
    kinds = [e["kind"] for e in history["events"]]
    assert kinds == ["recorded", "recorded", "superseded"]
    sign_in(page, OWNER)
    page.goto(f"/review/facts/{ended['id']}")
    svg = page.locator("#timeline svg")
    assert svg.locator("g.event").count() == len(kinds)
    assert svg.locator("g.event-superseded").count() == 1
    assert svg.locator("g.version").count() == 1 + len(history["successors"])
    assert svg.locator("rect.lane.valid").count() == svg.locator("rect.lane.believed").count() == 2
    assert svg.locator("line.valid-end").count() >= 1
    box = svg.bounding_box()
    assert box is not None
    assert box["width"] > 500
    page.screenshot(path=tmp_path / "timeline.png", full_page=True)
    assert (tmp_path / "timeline.png").stat().st_size > 0


def quote(text: str) -> dict[str, Any]:
    return {
        "text": text,
        "topic": "bakery",
        "kind": "observation",
        "authority": "external",
        "sources": ["https://bakery.example/news"],
    }


def test_owner_releases_and_discards_quarantine(
    page: Page, server: Server, owner: httpx.Client, tmp_path: Path
) -> None:
    """Injected text lands in quarantine, which only the owner sees (the agent key gets 403);
    the owner discards one copy and releases another on the page."""
    with server.client(AGENT) as agent:
        first = agent.post("/remember", json=quote(INJECTED)).json()
        second = agent.post("/remember", json=quote(INJECTED + " Really.")).json()
        assert [first["outcome"], second["outcome"]] == ["quarantined", "quarantined"]
        assert agent.get("/quarantine").status_code == 403
        assert INJECTED not in str(agent.get("/facts").json())
    assert [f["id"] for f in owner.get("/quarantine").json()] == [first["fact"], second["fact"]]

    sign_in(page, OWNER)
    page.screenshot(path=tmp_path / "quarantine.png", full_page=True)
    # the card says why: the screen's family and the span that triggered it
    why = page.locator(f"[data-quarantined='{first['fact']}'] .sign").inner_text()
    assert why.startswith("why: outside text acting as an instruction: "), why
    page.locator(f"[data-quarantined='{first['fact']}'] button.discard").click()
    assert page.locator("#notice").inner_text().startswith(f"discarded: {first['fact']}")
    card = page.locator(f"[data-quarantined='{second['fact']}']")
    card.locator("input[name=reason]").fill("a quotation from the bakery's page, no more")
    card.locator("button.release").click()
    assert page.locator("#quarantine-empty").is_visible()
    assert owner.get("/quarantine").json() == []
    released = owner.get(f"/facts/{second['fact']}")
    assert released.status_code == 200, released.text
    assert released.json()["authority"] == "external"  # released as a quotation, not promoted


def test_owner_clears_an_alarm(
    page: Page, server: Server, owner: httpx.Client, tmp_path: Path
) -> None:
    """A burst of closings from one source raises an alarm; the agent key cannot clear it;
    the owner clears it on the page, with a reason, and automatic closing resumes."""
    owner.post("/kinds/routine/grant")
    feed = "https://calendar.example/feed"
    for who in ("a", "b", "c"):
        first = day(f"{who} on Wednesday", "Wednesday", "2026-01-05", f"alarm-{who}")
        owner.post("/remember", json={**first, "kind": "routine"})
    for who in ("a", "b", "c"):
        later = day(f"{who} on Thursday", "Thursday", "2026-03-01", f"alarm-{who}")
        owner.post("/remember", json={**later, "kind": "routine", "sources": [feed]})
    [alarm] = owner.get("/alarms").json()
    assert "closings within" in alarm["reason"]
    with server.client(AGENT) as agent:
        refused = agent.post(f"/alarms/{alarm['id']}/clear", json={"reason": "no"})
    assert refused.status_code == 403

    sign_in(page, OWNER)
    card = page.locator(f"[data-alarm='{alarm['id']}']")
    assert card.get_attribute("data-open") == "true"
    assert alarm["reason"] in card.inner_text()
    page.screenshot(path=tmp_path / "alarm.png", full_page=True)
    # the alarm names a held write, not a fact: its link goes to the held card on this page
    assert owner.get(f"/facts/{alarm['fact']}").status_code == 404
    link = card.locator("a.alarm-write")
    assert link.get_attribute("href") == f"#held-{alarm['fact']}"
    assert page.locator(f"#held-{alarm['fact']}").is_visible()
    card.locator("input[name=reason]").fill("the feed was migrated")
    card.locator("button.clear").click()
    assert page.locator("#notice").inner_text().startswith(f"cleared: alarm {alarm['id']}")
    assert page.locator(f"[data-alarm='{alarm['id']}']").get_attribute("data-open") == "false"
    assert owner.get("/alarms").json() == []
    [cleared] = owner.get("/alarms", params={"include_cleared": "true"}).json()
    assert cleared["cleared_reason"] == "the feed was migrated"

    # control: once the write is approved it is a fact, and the link goes to its history
    assert owner.post(f"/held/{alarm['fact']}/approve", json={}).status_code == 200
    page.goto("/review")
    link = page.locator(f"[data-alarm='{alarm['id']}'] a.alarm-write")
    assert link.get_attribute("href") == f"/review/facts/{alarm['fact']}"
    link.click()
    assert page.locator("h1").inner_text() == "c on Thursday"


# -- sign-in CSRF and sign-out -------------------------------------------------------------

REVIEW_HEADING = "Review: scope"
EVIL = "http://evil.example"


def evil_login_form(server: Server, key: str) -> str:
    """Another site's page whose form signs the visitor in with the attacker's key."""
    return (
        f'<form method="post" action="{server.url}/review/login">'
        f'<input name="key" value="{key}"><button id="go" type="submit">win</button></form>'
    )


def test_a_sign_in_from_another_site_is_refused(page: Page, server: Server) -> None:
    """Login CSRF: a form on another origin posting a valid owner key to /review/login gets
    403 and no session; the same key typed into the server's own page signs in (control)."""
    body = evil_login_form(server, OWNER)
    page.context.route(
        f"{EVIL}/**", lambda route: route.fulfill(content_type="text/html", body=body)
    )
    page.goto(f"{EVIL}/")
    with page.expect_navigation():
        page.click("#go")
    assert (
        page.locator("#login-error")
        .inner_text()
        .startswith("This sign-in did not come from this server's review page")
    )
    assert not [c for c in page.context.cookies() if c["name"] == "doxa_review"]
    page.goto("/review")
    assert page.locator("#sign-in").is_visible()  # still signed out

    sign_in(page, OWNER)
    assert REVIEW_HEADING in page.locator("h1").inner_text()


@pytest.mark.parametrize(
    ("headers", "with_token"),
    [
        ({"Origin": EVIL}, True),
        ({"Origin": "null"}, True),
        ({"Referer": f"{EVIL}/page"}, True),
        ({}, False),
    ],
    ids=["other-origin", "null-origin", "other-referer", "no-token"],
)
def test_sign_in_needs_this_servers_form(
    server: Server, headers: dict[str, str], with_token: bool
) -> None:
    """A sign-in POST is refused (403, no session cookie) unless it comes from this server's
    origin and carries the token bound to the pre-session cookie."""
    with httpx.Client(base_url=server.url) as http:
        form = http.get("/review")
        token = _hidden_csrf(form.text)
        data = {"key": OWNER, **({"csrf": token} if with_token else {})}
        refused = http.post("/review/login", data=data, headers=headers)
        assert refused.status_code == 403
        assert "CSRF check failed" in refused.text
        assert "doxa_review" not in refused.cookies
        control = http.post(
            "/review/login", data={"key": OWNER, "csrf": _hidden_csrf(refused.text)}
        )
        assert control.status_code == 303
        assert "doxa_review" in control.cookies


def test_a_token_from_another_browser_is_refused(server: Server) -> None:
    """The token is bound to its own browser's pre-session cookie: an attacker's token, sent
    from a browser with another cookie, does not sign in."""
    with httpx.Client(base_url=server.url) as attacker, httpx.Client(base_url=server.url) as victim:
        token = _hidden_csrf(attacker.get("/review").text)
        victim.get("/review")
        refused = victim.post("/review/login", data={"key": OWNER, "csrf": token})
        assert refused.status_code == 403
        control = attacker.post("/review/login", data={"key": OWNER, "csrf": token})
        assert control.status_code == 303


def _hidden_csrf(html: str) -> str:
    marker = 'name="csrf" value="'
    start = html.index(marker) + len(marker)
    return html[start : html.index('"', start)]


def test_signing_out_revokes_the_session_on_the_server(page: Page, server: Server) -> None:
    """A copy of the session cookie works while signed in (control) and stops working the
    moment the owner signs out: the page asks to sign in, and its forms answer 401."""
    sign_in(page, OWNER)
    [cookie] = [c for c in page.context.cookies() if c["name"] == "doxa_review"]
    copied = {"doxa_review": cookie["value"]}
    with httpx.Client(base_url=server.url, cookies=copied) as thief:
        assert REVIEW_HEADING in thief.get("/review").text
        page.click("text=Sign out")
        page.wait_for_selector("#sign-in")
        assert REVIEW_HEADING not in thief.get("/review").text
        csrf = {"csrf": _hidden_csrf(page.content())}
        assert thief.post("/review/held/x/approve", data=csrf).status_code == 401
    page.goto("/review")
    assert page.locator("#sign-in").is_visible()


# -- "replace or add?" ---------------------------------------------------------------------


def value_of(predicate: str, value: str, who: str = "bob") -> dict[str, Any]:
    """An owner's structured write of a predicate no ontology describes: the second value of
    one subject asks "replace or add?"."""
    return {
        "text": f"{who} {predicate} {value}",
        "topic": "tastes",
        "subject": EX + who,
        "predicate": EX + predicate,
        "object": value,
        "authority": "owner",
    }


def replace_or_add(owner: httpx.Client, predicate: str) -> tuple[str, str]:
    """Two values of ``predicate`` for one subject: the first fact's id and the held id."""
    first = owner.post("/remember", json=value_of(predicate, "tea")).json()
    second = owner.post("/remember", json=value_of(predicate, "coffee")).json()
    assert first["outcome"] == "admitted", first
    assert (second["outcome"], second["relation"]) == ("held", "unclear"), second
    return first["fact"], second["held"]


def status_of(owner: httpx.Client, fact_id: str) -> str:
    found = owner.get(f"/facts/{fact_id}")
    assert found.status_code == 200, found.text
    status: str = found.json()["status"]
    return status


def test_replace_or_add_offers_each_answer(page: Page, owner: httpx.Client, tmp_path: Path) -> None:
    """A "replace or add?" question shows the three answers, each its own button, "would end"
    beside the two that end the old value only, and no plain Approve; clicking "Add" leaves
    both values live. Control: an ordinary held write (a replacement on a one-valued
    property) keeps the single Approve and no answers."""
    old, held = replace_or_add(owner, "drinks")
    owner.post("/remember", json=day("Sync on Monday", "Monday", "2026-01-01", "sync"))
    ordinary = owner.post("/remember", json=day("Sync on Friday", "Friday", "2026-04-01", "sync"))
    assert ordinary.json()["outcome"] == "held"
    sign_in(page, OWNER)
    card = page.locator(f"[data-held='{held}']")
    answers = card.locator("[data-answer]")
    assert [answers.nth(i).get_attribute("data-answer") for i in range(3)] == [
        "replaces",
        "new",
        "was_wrong",
    ]
    assert card.locator("button.answer").all_inner_texts() == [
        "Replace (one value at a time)",
        "Add (a second value)",
        "The old value was wrong (never changes)",
    ]
    for relation in ("replaces", "was_wrong"):
        assert card.locator(f"[data-answer='{relation}'] .ends").inner_text() == f"would end {old}"
    assert card.locator("[data-answer='new'] .ends").count() == 0
    assert "would end" not in card.locator("[data-answer='new']").inner_text()
    assert "It would end" not in card.inner_text()
    assert card.locator("button.approve").count() == 0
    assert card.locator("button.reject").count() == 1  # rejecting stays possible
    plain = page.locator(f"[data-held='{ordinary.json()['held']}']")
    assert plain.locator("button.approve").count() == 1
    assert plain.locator("[data-answer]").count() == 0
    assert "It would end" in plain.inner_text()
    page.screenshot(path=tmp_path / "replace-or-add.png", full_page=True)

    card.locator("[data-answer='new'] button").click()
    notice = page.locator("#notice").inner_text()
    assert notice.startswith(f"approved: held write {held} as new (approved, receipt "), notice
    assert page.locator(f"[data-held='{held}']").count() == 0
    assert status_of(owner, old) == status_of(owner, held) == "live"
    assert page.locator(f"tr[data-fact='{old}']").get_attribute("data-status") == "live"


def test_an_answer_the_page_does_not_know_is_refused(page: Page, owner: httpx.Client) -> None:
    """A signed-in POST with the page's own token but an answer that is no relation gets 400
    and leaves the write held; the page's own "Add" button then approves it (control)."""
    old, held = replace_or_add(owner, "reads")
    sign_in(page, OWNER)
    csrf = _hidden_csrf(page.content())
    refused = page.request.post(
        f"/review/held/{held}/approve", form={"csrf": csrf, "as_relation": "Replaces"}
    )
    assert refused.status == 400
    assert "is not a valid relation" in refused.text()
    assert held in {h["id"] for h in owner.get("/held").json()}
    page.locator(f"[data-held='{held}'] [data-answer='new'] button").click()
    assert page.locator("#notice").inner_text().startswith(f"approved: held write {held} as new")
    assert status_of(owner, old) == "live"


def test_replace_ends_the_old_value(
    page: Page, serve: Callable[[str], Server], tmp_path: Path
) -> None:
    """In a fresh store, clicking "Replace" ends the old value (superseded) and the new one
    is live, and the answer is learned for the predicate."""
    fresh = serve(config_text())
    with fresh.client(OWNER) as owner:
        old, held = replace_or_add(owner, "drinks")
        page.goto(fresh.url + "/review")
        page.fill("#key", OWNER)
        page.click("#sign-in")
        card = page.locator(f"[data-held='{held}']")
        card.locator("[data-answer='replaces'] button").click()
        notice = page.locator("#notice").inner_text()
        assert notice.startswith(f"approved: held write {held} as replaces ("), notice
        assert status_of(owner, old) == "superseded"
        assert status_of(owner, held) == "live"
        [receipt] = [r for r in owner.get("/receipts").json() if r["outcome"] == "approved"]
        assert receipt["relation"] == "replaces"
        assert receipt["targets"] == [old]
        assert "learned" in receipt["reason"]
