"""A hypothesis fuzzer over REST write bodies (``/remember``, ``/preview``), against the real app.

Whatever the body (wrong types, unknown fields, every spelling of an enum, repeated keys,
deep or huge JSON, bad IRIs, language tags and dates), the server answers 200 or a 4xx in
doxa's one error shape, never a 5xx; and no agent-key request ever adds a claim with the
owner's authority, or anything at all, to the rules graph. The default run is short; the
``slow`` variant runs the same properties on many more bodies (``pytest -m slow``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from tests.helpers import scaled

from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.memory import Memory
from doxa.store import EmbeddedStore
from doxa.vocabulary import DOXA

OWNER_KEY = "fuzz-owner-key-0123456789"
AGENT_KEY = "fuzz-agent-key-0123456789"
LIMIT = 65_536

FIELDS = [
    "text",
    "topic",
    "kind",
    "subject",
    "predicate",
    "object",
    "literal",
    "datatype",
    "language",
    "authority",
    "support",
    "standpoint",
    "sources",
    "attributed_to",
    "valid_from",
    "valid_until",
    "confidence",
    "query",
    "turn",
    "rule",
]

ENUM_WORDS = [
    "owner",
    "tool",
    "agent",
    "external",
    "stated",
    "observed",
    "inferred",
    "quoted",
    "absent",
    "requires",
    "forbids",
]


def _spellings(word: str) -> list[str]:
    """The word and the ways an attacker might spell it hoping for a looser parse."""
    return [
        word,
        word.upper(),
        word.capitalize(),
        f" {word}",
        f"{word} ",
        f"{word}\n",
        f"{word}\u200b",
        word.replace("o", "\u043e").replace("a", "\u0430").replace("e", "\u0435"),
        "".join(chr(ord(c) + 0xFEE0) for c in word),  # fullwidth
        f"https://w3id.org/doxa#{word.capitalize()}",
        f"doxa:{word.capitalize()}",
    ]


SPELLINGS = st.sampled_from([s for w in ENUM_WORDS for s in _spellings(w)])

BAD_IRIS = st.sampled_from(
    [
        "http://example.org/a",
        "https://shop.example/hours",
        "urn:src:1",
        "",
        "not an iri",
        "http://exa mple.org/x",
        "http://example.org/<x>",
        "urn:doxa:scope:alice/standpoint/owner",
        "urn:doxa:scope:bob/standpoint/owner",
        "javascript:alert(1)",
        "http://example.org/\u0000",
        "x" * 3000,
        "http://[::1",
        "mailto:a@b",
        "http://example.org/" + "a" * 5000,
    ]
)
LANGUAGE_TAGS = st.sampled_from(
    ["en", "de-CH", "", "e", "en_US", "x" * 100, "en--", "123", "en-" + "a" * 70, "\u00e9n"]
)
DATES = st.sampled_from(
    [
        "2026-03-05",
        "2026-03-05T10:00:00Z",
        "2026-02-30",
        "someday",
        "",
        "9999999-01-01",
        "2026-13-01",
        "-0001-01-01",
        "2026-03-05T25:00:00",
        "2026-03-05T10:00:00+99:00",
    ]
)
DATATYPES = st.sampled_from(
    [
        "xsd:integer",
        "xsd:gYear",
        "xsd:dateTime",
        "xsd:nope",
        "xsd:",
        "rdf:langString",
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString",
        "http://www.w3.org/2001/XMLSchema#decimal",
        "integer",
        "http://exa mple.org/t",
    ]
)

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _value_for(field: str) -> st.SearchStrategy[Any]:
    special: dict[str, st.SearchStrategy[Any]] = {
        "authority": SPELLINGS,
        "support": SPELLINGS,
        "rule": SPELLINGS,
        "subject": BAD_IRIS,
        "predicate": BAD_IRIS,
        "object": BAD_IRIS,
        "standpoint": BAD_IRIS,
        "attributed_to": BAD_IRIS,
        "turn": BAD_IRIS,
        "sources": st.lists(BAD_IRIS, max_size=3),
        "language": LANGUAGE_TAGS,
        "datatype": DATATYPES,
        "valid_from": DATES,
        "valid_until": DATES,
        "confidence": st.sampled_from([0, 0.5, 1, 1.5, -1, "0.3", "NaN", "1e999", "x", 10**400]),
        "topic": st.sampled_from(["calls", "Calls", "", "a" * 65, "t\u200b", "rules"]),
        "kind": st.sampled_from(["rule", "schedule", "Rule", "", "owner"]),
    }
    return special.get(field, st.text(max_size=60))


@st.composite
def bodies(draw: st.DrawFn) -> dict[str, Any]:
    """A body: mostly the write's own fields, each plausible or hostile, sometimes more."""
    body: dict[str, Any] = {}
    if draw(st.integers(0, 9)) > 0:
        body["text"] = draw(st.text(min_size=1, max_size=40))
    if draw(st.integers(0, 9)) > 0:
        body["topic"] = "calls"
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=6, unique=True)):
        # mostly a value of the field's own kind, hostile or not; now and then any JSON
        wild = draw(st.integers(0, 9)) == 0
        body[field] = draw(JSON_VALUES if wild else _value_for(field))
    if draw(st.integers(0, 3)) == 0:  # the exact values, owner's included, often
        body["authority"] = draw(st.sampled_from(["owner", "agent", "tool", "external"]))
    if draw(st.integers(0, 9)) == 0:
        body[draw(st.sampled_from(["Authority", "role", "is_owner", "rules", "owner"]))] = draw(
            SPELLINGS
        )
    return body


def _encode(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False)


@st.composite
def payloads(draw: st.DrawFn) -> str:
    """The text sent: a body as JSON, or a body bent out of shape on the wire."""
    body = draw(bodies())
    shape = draw(st.integers(0, 9))
    if shape == 0:  # a repeated key: the agent's value, then the owner's
        key = draw(st.sampled_from(["authority", "rule", "support", "standpoint"]))
        return _encode(body)[:-1] + (", " if body else "") + f'"{key}": "agent", "{key}": "owner"}}'
    if shape == 1:  # deep
        depth = draw(st.sampled_from([10, 63, 64, 65, 1000, 100_000]))
        return '{"text": ' + "[" * depth + "]" * depth + ', "topic": "calls"}'
    if shape == 2:  # a JSON value that is not an object
        return draw(st.sampled_from(["[]", "null", '"owner"', "1", "true", '[{"text": "x"}]']))
    if shape == 3:  # not JSON at all
        return draw(st.sampled_from(["", "{", "{'text': 'x'}", "NaN", '{"text": NaN}', "\ufeff{}"]))
    if shape == 4:  # long
        return _encode(body | {"text": "x" * draw(st.sampled_from([10_000, 60_000, 70_000]))})
    return _encode(body)


@pytest.fixture(scope="module")
def app() -> Iterator[FastAPI]:
    config = ServerConfig(
        scopes=(ScopeKeys(scope="alice", owner_key=OWNER_KEY, agent_keys=(AGENT_KEY,)),),
        max_body_bytes=LIMIT,
    )
    store = EmbeddedStore(None)
    yield create_app(store, config, rejudge_every=None)
    store.close()


@pytest.fixture(scope="module")
def agent(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(
        app, headers={"Authorization": f"Bearer {AGENT_KEY}"}, raise_server_exceptions=False
    ) as client:
        yield client


@pytest.fixture(scope="module")
def owner(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(
        app, headers={"Authorization": f"Bearer {OWNER_KEY}"}, raise_server_exceptions=False
    ) as client:
        yield client


def owner_like(app: FastAPI) -> list[Any]:
    """Quads anywhere in the store with the owner's authority, or in the rules graph."""
    memory: Memory = app.state.memories["alice"]
    return [
        q
        for q in memory.store.quads()
        if (q[1] == DOXA.authority and q[2] == DOXA.Owner) or q[3] == memory.scope.rules
    ]


def check_answer(status: int, content_type: str, text: str) -> None:
    """200, or a 4xx in doxa's one error shape."""
    assert status < 500, text
    if status == 200:
        return
    assert 400 <= status < 500, text
    assert content_type.startswith("application/json"), content_type
    answer = json.loads(text)
    assert set(answer) == {"error"}, answer
    error = answer["error"]
    assert error["status"] == status
    assert isinstance(error["type"], str)
    assert isinstance(error["message"], str)
    assert error["message"]


def agent_property(app: FastAPI, agent: TestClient, path: str, payload: str) -> None:
    before = set(owner_like(app))
    response = agent.post(path, content=payload, headers={"content-type": "application/json"})
    event(f"{path} {response.status_code}")
    check_answer(response.status_code, response.headers.get("content-type", ""), response.text)
    assert set(owner_like(app)) == before, payload[:300]


def owner_property(owner: TestClient, path: str, payload: str) -> None:
    response = owner.post(path, content=payload, headers={"content-type": "application/json"})
    event(f"{path} {response.status_code}")
    check_answer(response.status_code, response.headers.get("content-type", ""), response.text)


FAST = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    database=None,
)
LONG = settings(FAST, max_examples=scaled(1000))

PATHS = st.sampled_from(["/remember", "/preview"])


@FAST
@given(path=PATHS, payload=payloads())
def test_no_agent_body_fails_or_writes_as_the_owner(
    app: FastAPI, agent: TestClient, path: str, payload: str
) -> None:
    """Agent key: every body is 200 or a 4xx in the error shape; nothing owner-like is stored."""
    agent_property(app, agent, path, payload)


@FAST
@given(path=PATHS, payload=payloads())
def test_no_owner_body_fails(owner: TestClient, path: str, payload: str) -> None:
    """Owner key: the same bodies are 200 or a 4xx in the error shape, never a 5xx."""
    owner_property(owner, path, payload)


def test_the_fuzzer_reaches_admission_and_refusal(
    app: FastAPI, agent: TestClient, owner: TestClient
) -> None:
    """The control: bodies like the fuzzer's are admitted (200) as well as refused, and the
    owner's rule does reach the rules graph, so the property can see one."""
    good = {"text": "Calls are on Monday", "topic": "calls", "authority": "agent"}
    assert agent.post("/remember", json=good).status_code == 200
    assert agent.post("/remember", json=good | {"authority": "OWNER"}).status_code == 400
    assert agent.post("/remember", json=good | {"authority": "owner"}).status_code == 403
    before = set(owner_like(app))
    rule = {"text": "No calls on Sunday", "topic": "calls", "authority": "owner", "rule": "forbids"}
    assert owner.post("/remember", json=rule).status_code == 200
    memory: Memory = app.state.memories["alice"]
    added = set(owner_like(app)) - before
    assert {q[3] for q in added} == {memory.scope.rules}  # the probe sees an owner's rule


@pytest.mark.slow
@LONG
@given(path=PATHS, payload=payloads())
def test_no_agent_body_fails_or_writes_as_the_owner_long(
    app: FastAPI, agent: TestClient, path: str, payload: str
) -> None:
    """The long run of the agent-key property."""
    agent_property(app, agent, path, payload)


@pytest.mark.slow
@LONG
@given(path=PATHS, payload=payloads())
def test_no_owner_body_fails_long(owner: TestClient, path: str, payload: str) -> None:
    """The long run of the owner-key property."""
    owner_property(owner, path, payload)
