"""The review page as an owner uses it on a phone: readable at 390 px, times in words, and
every decision on facts and kinds (retract, erase with its confirmation, grant, revoke) made
in a real headless Chromium, each refusal beside the form that works."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from tests.interfaces.conftest import OWNER, Server, config_text
from tests.interfaces.http.test_review import CHROMIUM, FLAGS, day, sign_in

#: an iPhone's CSS width
PHONE = {"width": 390, "height": 844}


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
def phone(browser: Browser, server: Server) -> Iterator[Page]:
    context = browser.new_context(base_url=server.url, viewport=PHONE)
    page = context.new_page()
    yield page
    context.close()


def width(page: Page) -> int:
    found: int = page.evaluate("document.documentElement.scrollWidth")
    return found


def fresh_fact(owner: httpx.Client, text: str) -> str:
    answer = owner.post("/remember", json={"text": text, "topic": "notes", "kind": "notes"})
    assert answer.json()["outcome"] == "admitted"
    return str(answer.json()["fact"])


def test_the_pages_fit_a_phone(phone: Page, owner: httpx.Client) -> None:
    """At 390 px the review page and a fact page are no wider than the screen (tables
    scroll inside their box), with a held write, long ids and a timeline on them."""
    tag = uuid.uuid4().hex
    owner.post("/remember", json=day(f"The {tag} call is on Wednesday", "Wednesday", "2026-01-01"))
    held = owner.post("/remember", json=day(f"The {tag} call is on Friday", "Friday", "2026-03-08"))
    assert held.json()["outcome"] == "held"
    fact = fresh_fact(owner, f"A note {tag} " + "with many words " * 12)
    sign_in(phone, OWNER)
    assert phone.locator(f"[data-held='{held.json()['held']}']").is_visible()
    assert width(phone) <= PHONE["width"]
    phone.goto(f"/review/facts/{fact}")
    assert phone.locator("svg.timeline").is_visible()
    assert width(phone) <= PHONE["width"]
    # the control: the same page in a narrow box without the phone rules is wider
    phone.add_style_tag(
        content=".scroll { overflow-x: visible; } svg.timeline { max-width: none; }"
    )
    assert width(phone) > PHONE["width"]


def test_times_are_said_in_words_with_the_exact_time_on_hover(
    phone: Page, owner: httpx.Client
) -> None:
    """A time reads "just now" / "3 minutes ago", never an ISO string with microseconds;
    hovering shows it to the second with its zone; machines read the ISO time."""
    fact = fresh_fact(owner, f"Timed note {uuid.uuid4().hex}")
    sign_in(phone, OWNER)
    phone.goto(f"/review/facts/{fact}")
    text = phone.locator("#events").inner_text()
    assert not re.search(r"\d{2}:\d{2}:\d{2}\.\d+", text)
    first = phone.locator("#events time").first
    assert re.fullmatch(r"just now|\d+ (minute|hour|day)s? ago", first.inner_text())
    assert re.fullmatch(
        r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \S+", first.get_attribute("title") or ""
    )
    assert (first.get_attribute("datetime") or "").startswith("20")


def test_the_owner_retracts_a_fact(phone: Page, owner: httpx.Client) -> None:
    """Retract on the fact page ends the fact as never true; a form without a reason is
    refused by the server and the fact stays live (posted past the browser's check)."""
    fact = fresh_fact(owner, f"Wrong note {uuid.uuid4().hex}")
    sign_in(phone, OWNER)
    phone.goto(f"/review/facts/{fact}")
    csrf = phone.locator("#retract input[name=csrf]").get_attribute("value")
    empty = phone.request.post(
        f"/review/facts/{fact}/retract", form={"csrf": csrf or "", "reason": ""}
    )
    assert empty.status == 400
    assert owner.get(f"/facts/{fact}").json()["status"] == "live"
    phone.locator("#retract input[name=reason]").fill("it was a typo")
    phone.locator("#retract button.retract").click()
    assert phone.locator("#notice").inner_text().startswith(f"retracted: fact {fact}")
    assert owner.get(f"/facts/{fact}").json()["status"] == "retracted"


def test_erasing_needs_the_fact_id_typed(phone: Page, owner: httpx.Client) -> None:
    """Erase asks for the fact's id: a wrong or missing confirmation changes nothing (400);
    the id typed erases it, leaving a tombstone."""
    fact = fresh_fact(owner, f"Private note {uuid.uuid4().hex}")
    other = fresh_fact(owner, f"Another note {uuid.uuid4().hex}")
    sign_in(phone, OWNER)
    phone.goto(f"/review/facts/{fact}")
    form = phone.locator("#erase")
    form.locator("input[name=reason]").fill("privacy request")
    form.locator("input[name=confirm]").fill(other)  # another fact's id
    form.locator("button.erase").click()
    assert "type its id" in phone.locator("body").inner_text()
    assert owner.get(f"/facts/{fact}").json()["status"] == "live"
    phone.goto(f"/review/facts/{fact}")
    form.locator("input[name=reason]").fill("privacy request")
    form.locator("input[name=confirm]").fill(fact)
    form.locator("button.erase").click()
    assert phone.locator("#notice").inner_text().startswith(f"erased: fact {fact}")
    gone = owner.get(f"/facts/{fact}")
    assert gone.status_code == 404, gone.text
    assert "Private note" not in str(owner.get("/facts", params={"topic": "notes"}).json())
    assert owner.get(f"/facts/{other}").json()["status"] == "live"


def test_the_owner_grants_and_revokes_a_kind(phone: Page, owner: httpx.Client) -> None:
    """The closing-rights section shows a kind that waits; Grant lets the judge close it
    on its own, Revoke takes that back, each with a receipt in the notice."""
    kind = f"k{uuid.uuid4().hex[:8]}"
    owner.post("/remember", json={"text": f"Kind note {kind}", "topic": "notes", "kind": kind})
    sign_in(phone, OWNER)
    card = phone.locator(f"[data-kind='{kind}']")
    assert card.get_attribute("data-may-close") == "false"
    assert "not earned yet" in card.inner_text()
    card.locator("button.grant").click()
    assert phone.locator("#notice").inner_text().startswith("granted: the judge may close")
    assert card.get_attribute("data-may-close") == "true"
    card.locator("button.revoke").click()
    assert phone.locator("#notice").inner_text().startswith(f"revoked: closings of kind {kind}")
    assert card.get_attribute("data-may-close") == "false"
    assert "revoked" in card.inner_text()
