"""The API docs and the SPARQL editor work with no network: every request they make goes to
this server (Chromium, with every other request aborted and recorded)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright
from tests.helpers import EX
from tests.interfaces.conftest import AGENT, OWNER, Server, config_text
from tests.interfaces.http.test_review import CHROMIUM, FLAGS


@pytest.fixture(scope="module")
def server(serve: Callable[[str], Server]) -> Server:
    return serve(config_text())


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


class Offline:
    """A page whose requests anywhere but the server are aborted, and remembered."""

    def __init__(self, page: Page, server: Server) -> None:
        self.page = page
        self.elsewhere: list[str] = []
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.route("**/*", self._route)
        self.origin = server.url

    def _route(self, route: Route) -> None:
        url = route.request.url
        if url == self.origin or url.startswith(self.origin + "/"):
            route.continue_()
        else:
            self.elsewhere.append(url)
            route.abort()


@pytest.fixture
def offline(browser: Browser, server: Server) -> Iterator[Offline]:
    context = browser.new_context(base_url=server.url)
    yield Offline(context.new_page(), server)
    context.close()


def test_api_docs_render_with_no_network(offline: Offline) -> None:
    response = offline.page.goto("/docs")
    assert response is not None
    assert response.status == 200
    offline.page.wait_for_selector(".opblock-summary-path", timeout=30_000)
    paths = offline.page.locator(".opblock-summary-path").all_inner_texts()
    assert any("/remember" in p for p in paths)
    assert offline.elsewhere == []
    assert offline.errors == []


def test_docs_html_names_no_other_host(server: Server) -> None:
    """Control for the browser test: the page itself links only to this server's assets."""
    html = httpx.get(server.url + "/docs").text
    assert "cdn.jsdelivr.net" not in html
    assert "tiangolo.com" not in html
    assert "/docs/assets/swagger-ui-bundle.js" in html


@pytest.mark.parametrize(
    ("name", "media"),
    [("swagger-ui-bundle.js", "text/javascript"), ("swagger-ui.css", "text/css")],
)
def test_docs_assets_are_served(server: Server, name: str, media: str) -> None:
    response = httpx.get(f"{server.url}/docs/assets/{name}")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(media)
    assert len(response.content) > 10_000


@pytest.mark.parametrize(
    "name",
    [
        "index.html",  # a file of the bundle, but not one the page loads
        "SWAGGER-UI.CSS",  # another case
        "swagger-ui.css.map",
        "..%2F..%2F__init__.py",
        "%2e%2e%2fswagger-ui.css",
        "swagger-ui.css%00",
    ],
)
def test_only_the_named_assets_are_served(server: Server, name: str) -> None:
    assert httpx.get(f"{server.url}/docs/assets/{name}").status_code == 404


def test_redoc_from_a_cdn_is_gone(server: Server) -> None:
    assert httpx.get(server.url + "/redoc").status_code == 404


def _remember(server: Server) -> None:
    body: dict[str, Any] = {
        "text": "The supplier call is on Wednesday.",
        "topic": "meetings",
        "kind": "schedule",
        "subject": EX + "editorCall",
        "predicate": EX + "dayOfWeek",
        "object": EX + "Wednesday",
        "authority": "owner",
        "valid_from": "2026-01-01T00:00:00+00:00",
    }
    with server.client(OWNER) as owner:
        assert owner.post("/remember", json=body).status_code in (200, 201)


def _run(offline: Offline, key: str, query: str) -> None:
    page = offline.page
    response = page.goto("/sparql/editor")
    assert response is not None
    assert response.status == 200
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.fill("#key", key)
    page.fill("#query", query)
    page.click("#run")
    # a locator expectation, not wait_for_function: the page's CSP forbids eval
    expect(page.locator("#status")).to_have_text(re.compile("done|after"), timeout=30_000)


def test_editor_runs_a_select_with_an_agent_key(offline: Offline, server: Server) -> None:
    _remember(server)
    _run(offline, AGENT, f"SELECT ?o WHERE {{ <{EX}editorCall> <{EX}dayOfWeek> ?o }}")
    cells = offline.page.locator("#answer td").all_inner_texts()
    assert cells == [f"<{EX}Wednesday>"]
    assert offline.page.locator("#error").is_hidden()
    assert offline.elsewhere == []
    assert offline.errors == []


def test_editor_keeps_the_key_in_the_tab(offline: Offline) -> None:
    _run(offline, AGENT, "ASK { }")
    offline.page.reload()
    assert offline.page.input_value("#key") == AGENT
    assert offline.page.locator("#answer td").all_inner_texts() == []


def test_editor_shows_a_construct_as_text(offline: Offline, server: Server) -> None:
    _remember(server)
    _run(
        offline,
        AGENT,
        f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o . FILTER(?s = <{EX}editorCall>) }}",
    )
    assert "Wednesday" in offline.page.inner_text("#graph")


@pytest.mark.parametrize(
    "update",
    [
        f"INSERT DATA {{ <{EX}a> <{EX}b> <{EX}c> }}",
        f"insert data {{ <{EX}a> <{EX}b> <{EX}c> }}",
        "DELETE WHERE { ?s ?p ?o }",
        "CLEAR ALL",
    ],
)
def test_editor_cannot_update(offline: Offline, update: str) -> None:
    _run(offline, OWNER, update)  # even the owner key: the endpoint is read-only
    error = offline.page.inner_text("#error")
    assert "read-only" in error  # an update sent as a query: refused as it is today
    assert offline.page.locator("#answer").count() == 0
    _run(offline, OWNER, f"ASK {{ <{EX}a> <{EX}b> <{EX}c> }}")  # nothing was written
    assert offline.page.locator("#answer td").all_inner_texts() == ["false"]


@pytest.mark.parametrize("key", ["", "not-a-key-0123456789", AGENT.upper()])
def test_editor_without_a_valid_key_is_refused(offline: Offline, key: str) -> None:
    _run(offline, key, "ASK { }")
    assert offline.page.inner_text("#error") != ""
    assert offline.page.locator("#answer").count() == 0


@pytest.mark.parametrize("name", ["editor.html", "EDITOR.JS", "..%2Feditor.py", "editor.js.map"])
def test_editor_serves_only_its_files(server: Server, name: str) -> None:
    assert httpx.get(f"{server.url}/sparql/editor/{name}").status_code == 404
    assert httpx.get(f"{server.url}/sparql/editor/editor.js").status_code == 200  # control


def test_a_literal_cannot_run_as_code_on_the_editor(offline: Offline, server: Server) -> None:
    body: dict[str, Any] = {
        "text": "<img src=x onerror=\"document.title='pwned'\"> is the supplier's note.",
        "topic": "notes",
        "kind": "note",
        "authority": "owner",
    }
    with server.client(OWNER) as owner:
        assert owner.post("/remember", json=body).status_code in (200, 201)
    _run(offline, OWNER, "SELECT ?o WHERE { ?s ?p ?o FILTER(CONTAINS(STR(?o), 'onerror')) }")
    assert any("onerror" in c for c in offline.page.locator("#answer td").all_inner_texts())
    assert offline.page.title() == "doxa SPARQL"
    assert offline.page.locator("#answer img").count() == 0
