"""Enum inputs are parsed once, by the same parse everywhere, and permissions compare members.

Finding 2 of issue 14: REST compared ``body.authority == "owner"`` before parsing, and the
parse also took the member's name, so ``{"authority": "OWNER"}`` with an agent key wrote as
the owner (and could plant a rule). Each attack below sits beside its control: the owner
key's owner write still works.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from fastapi.testclient import TestClient
from rdflib import URIRef

import doxa
from doxa import Authority, InvalidInput, Relation, RuleMode, Support
from doxa.interfaces.cli import main
from doxa.interfaces.http.app import create_app
from doxa.interfaces.http.config import ScopeKeys, ServerConfig
from doxa.memory import Memory
from doxa.scope import Scope
from doxa.store import EmbeddedStore
from doxa.vocabulary import DOXA

OWNER_KEY = "enum-owner-key-0123456789"
AGENT_KEY = "enum-agent-key-0123456789"
OWNER_POINT = "urn:doxa:scope:alice/standpoint/owner"


class _Sneaky(str):
    """A string that claims to equal everything."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        return True


#: spellings that must never name a member (value, what it imitates)
NOT_MEMBERS: list[tuple[object, str]] = [
    ("OWNER", "the member's Python name"),
    ("Owner", "another case"),
    ("oWnEr", "mixed case"),
    (" owner", "leading space"),
    ("owner ", "trailing space"),
    ("owner\n", "trailing newline"),
    ("ow ner", "inner space"),
    ("\u043ewner", "Cyrillic o"),
    ("\uff4f\uff57\uff4e\uff45\uff52", "fullwidth letters (NFKC: owner)"),
    ("owner\u200b", "zero-width space"),
    ("\u1d3cwner", "modifier capital O (NFKC: Owner)"),
    ("doxa:Owner", "a prefixed name"),
    ("https://w3id.org/doxa#owner", "the IRI in another case"),
    (_Sneaky("boss"), "a str subclass whose __eq__ says yes"),
    (1, "a number"),
    (True, "a boolean"),
    (["owner"], "a list"),
    ({"value": "owner"}, "an object"),
    (b"owner", "bytes"),
]


@pytest.mark.parametrize(("value", "why"), NOT_MEMBERS, ids=[why for _, why in NOT_MEMBERS])
def test_the_parse_refuses_every_other_spelling(value: object, why: str) -> None:
    """Only the exact value, the IRI or the member name an authority; nothing is folded."""
    with pytest.raises(InvalidInput, match=r"is not a valid authority; use one of: owner, tool"):
        Authority.parse(value)


@pytest.mark.parametrize(
    "value",
    [
        Authority.OWNER,
        "owner",
        URIRef("https://w3id.org/doxa#Owner"),
        "https://w3id.org/doxa#Owner",
    ],
    ids=["member", "value", "iri", "iri-text"],
)
def test_the_parse_accepts_the_member_its_value_and_its_iri(value: object) -> None:
    """The control: the spellings doxa documents all read as the owner."""
    assert Authority.parse(value) is Authority.OWNER


def test_every_enum_input_shares_the_strict_parse() -> None:
    """Support, rule mode and relation refuse names and other cases the same way."""
    assert Support.parse("stated") is Support.STATED
    assert RuleMode.parse("forbids") is RuleMode.FORBIDS
    assert Relation.parse("was_wrong") is Relation.WAS_WRONG
    for enum, name in ((Support, "STATED"), (RuleMode, "FORBIDS"), (Relation, "WAS_WRONG")):
        with pytest.raises(InvalidInput, match="is not a valid"):
            enum.parse(name)
    with pytest.raises(InvalidInput) as error:
        RuleMode.parse("Forbids")
    assert str(error.value) == (
        "'Forbids' is not a valid rule mode; use one of: requires, forbids."
    )


def test_a_long_value_is_cut_short_in_the_message() -> None:
    """The refusal names the value without echoing a megabyte back."""
    with pytest.raises(InvalidInput) as error:
        Authority.parse("x" * 100_000)
    assert len(str(error.value)) < 200


def test_the_python_api_refuses_the_member_name_and_writes_nothing() -> None:
    """``remember(authority="OWNER")`` is bad input; ``"owner"`` is the control."""
    mem = Memory.open(None, scope="alice")
    with pytest.raises(InvalidInput, match="'OWNER' is not a valid authority"):
        mem.remember("Alice drinks tea", topic="drinks", authority="OWNER")
    with pytest.raises(InvalidInput, match="'FORBIDS' is not a valid rule mode"):
        mem.remember("No calls on Sunday", topic="calls", authority="owner", rule="FORBIDS")
    assert mem.receipts() == []
    receipt = mem.remember("Alice drinks tea", topic="drinks", authority="owner")
    assert receipt.admitted
    assert mem.get(receipt.fact or "").authority is Authority.OWNER


# -- REST -------------------------------------------------------------------------------


@pytest.fixture
def app() -> Iterator[FastAPI]:
    config = ServerConfig(
        scopes=(ScopeKeys(scope="alice", owner_key=OWNER_KEY, agent_keys=(AGENT_KEY,)),)
    )
    store = EmbeddedStore(None)
    yield create_app(store, config, rejudge_every=None)
    store.close()


def client(app: FastAPI, key: str) -> TestClient:
    return TestClient(
        app, headers={"Authorization": f"Bearer {key}"}, raise_server_exceptions=False
    )


def owner_quads(app: FastAPI) -> list[Any]:
    """Every quad anywhere in the store that says a claim has the owner's authority, or
    that sits in the rules graph."""
    memory: Memory = app.state.memories["alice"]
    rules = memory.scope.rules
    return [
        q
        for q in memory.store.quads()
        if (q[1] == DOXA.authority and q[2] == DOXA.Owner) or q[3] == rules
    ]


def post_raw(http: TestClient, path: str, text: str) -> httpx.Response:
    return http.post(path, content=text, headers={"content-type": "application/json"})


BASE = {"text": "Calls are on Monday", "topic": "calls"}

#: (body fields, status, error type): each an agent key's attempt to write as the owner
REST_ATTACKS: list[tuple[dict[str, Any], int, str]] = [
    ({"authority": "owner"}, 403, "Forbidden"),
    ({"authority": "OWNER"}, 400, "InvalidInput"),
    ({"authority": "Owner"}, 400, "InvalidInput"),
    ({"authority": " owner"}, 400, "InvalidInput"),
    ({"authority": "owner\t"}, 400, "InvalidInput"),
    ({"authority": "\u043ewner"}, 400, "InvalidInput"),
    ({"authority": "\uff4f\uff57\uff4e\uff45\uff52"}, 400, "InvalidInput"),
    ({"authority": "owner\u200b"}, 400, "InvalidInput"),
    ({"authority": "https://w3id.org/doxa#Owner"}, 403, "Forbidden"),
    ({"authority": 4}, 422, "InvalidRequest"),
    ({"authority": True}, 422, "InvalidRequest"),
    ({"authority": ["owner"]}, 422, "InvalidRequest"),
    ({"authority": {"value": "owner"}}, 422, "InvalidRequest"),
    ({"authority": None}, 422, "InvalidRequest"),
    ({"rule": "forbids"}, 403, "Forbidden"),
    ({"rule": "forbids", "authority": "agent", "support": "stated"}, 403, "Forbidden"),
    ({"rule": "FORBIDS"}, 400, "InvalidInput"),
    ({"standpoint": OWNER_POINT}, 403, "Forbidden"),
    # scheme and NID are case-insensitive, an unreserved escape is its character: one IRI
    ({"standpoint": "URN:doxa:scope:alice/standpoint/owner"}, 400, "InvalidInput"),
    ({"standpoint": "urn:DOXA:scope:alice/standpoint/owner"}, 400, "InvalidInput"),
    ({"standpoint": "urn:doxa:scope:alice/standpoint/%6Fwner"}, 400, "InvalidInput"),
    ({"standpoint": "urn:%64oxa:scope:alice/standpoint/owner"}, 400, "InvalidInput"),
    ({"support": "STATED"}, 400, "InvalidInput"),
    ({"Authority": "owner"}, 422, "InvalidRequest"),
    ({"authority_": "owner"}, 422, "InvalidRequest"),
]


@pytest.mark.parametrize("path", ["/remember", "/preview"])
@pytest.mark.parametrize(
    ("fields", "status", "kind"),
    REST_ATTACKS,
    ids=[json.dumps(f, ensure_ascii=True) for f, _, _ in REST_ATTACKS],
)
def test_an_agent_key_cannot_write_as_the_owner(
    app: FastAPI, path: str, fields: dict[str, Any], status: int, kind: str
) -> None:
    """Each spelling of the owner, and each owner-only field, is refused for an agent key
    with doxa's error shape, and nothing owner-like enters the store."""
    with client(app, AGENT_KEY) as agent:
        response = agent.post(path, json=BASE | fields)
    assert response.status_code == status, response.text
    assert response.json()["error"]["type"] == kind
    assert response.json()["error"]["status"] == status
    assert owner_quads(app) == []


@pytest.mark.parametrize("path", ["/remember", "/preview"])
@pytest.mark.parametrize(
    "fields",
    [
        {"authority": "owner"},
        {"authority": "owner", "rule": "forbids"},
        {"standpoint": OWNER_POINT},
    ],
    ids=["owner", "rule", "owner-standpoint"],
)
def test_the_owner_key_may_write_as_the_owner(
    app: FastAPI, path: str, fields: dict[str, Any]
) -> None:
    """The control: the same bodies with the owner key are answered 200."""
    with client(app, OWNER_KEY) as owner:
        response = owner.post(path, json=BASE | {"authority": "owner"} | fields)
    assert response.status_code == 200, response.text


def test_the_owners_rule_and_fact_stand_after_the_agents_attempts(app: FastAPI) -> None:
    """The agent's attempts leave no rule behind: the owner's next write is admitted, not held
    ``clashes_with_rule``; the owner's own rule is stored as a rule (control)."""
    sunday = {"text": "No calls on Sunday", "topic": "calls", "rule": "forbids"}
    with client(app, AGENT_KEY) as agent:
        for fields in ({"authority": "OWNER"}, {"authority": "owner"}, {}):
            assert agent.post("/remember", json=sunday | fields).status_code in (400, 403)
    assert owner_quads(app) == []
    with client(app, OWNER_KEY) as owner:
        written = owner.post("/remember", json=BASE | {"authority": "owner"})
        assert written.json()["outcome"] == "admitted"
        rule = owner.post("/remember", json=sunday | {"authority": "owner"})
        assert rule.json()["outcome"] == "admitted"
    memory: Memory = app.state.memories["alice"]
    assert [f.rule_mode for f in memory.facts() if f.is_rule] == [RuleMode.FORBIDS]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"text": "x", "topic": "t", "authority": "agent", "authority": "owner"}',
            "The JSON repeats the key 'authority'; send each key once.",
        ),
        (
            '{"text": "x", "topic": "t", "authority": "owner", "authority": "agent"}',
            "The JSON repeats the key 'authority'; send each key once.",
        ),
        (
            '{"text": "x", "topic": "t", "confidence": NaN}',
            "The JSON holds NaN, which is not a JSON number; send a number.",
        ),
        (
            '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "The JSON nests arrays or objects more than 64 levels deep; send a flat document.",
        ),
        (
            '{"text": "x", "topic": "t", "sources": ' + "[" * 70 + "]" * 70 + "}",
            "The JSON nests arrays or objects more than 64 levels deep; send a flat document.",
        ),
    ],
    ids=["agent-then-owner", "owner-then-agent", "nan", "deep-100000", "deep-71"],
)
def test_the_body_is_read_strictly(app: FastAPI, text: str, message: str) -> None:
    """Repeated keys, NaN and over-deep documents are a 400 before any check runs."""
    for key in (AGENT_KEY, OWNER_KEY):
        with client(app, key) as http:
            response = post_raw(http, "/remember", text)
        assert response.status_code == 400, response.text
        assert response.json() == {
            "error": {"type": "InvalidInput", "message": message, "status": 400}
        }
    assert owner_quads(app) == []


def test_a_body_with_each_key_once_is_read(app: FastAPI) -> None:
    """The control: the same document without the repeat is written."""
    with client(app, AGENT_KEY) as agent:
        response = post_raw(agent, "/remember", '{"text": "x", "topic": "t", "authority": "agent"}')
    assert response.status_code == 200, response.text


def test_the_schema_lists_the_exact_values(app: FastAPI) -> None:
    """The OpenAPI description names the accepted spellings of each enum field."""
    with client(app, OWNER_KEY) as http:
        schema = http.get("/openapi.json").json()
    fields = schema["components"]["schemas"]["RememberBody"]["properties"]
    assert fields["authority"]["enum"] == ["owner", "tool", "agent", "external"]
    assert fields["rule"]["enum"] == ["requires", "forbids", None]


# -- CLI ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--authority", "OWNER", "'OWNER' is not a valid authority"),
        ("--authority", "\u043ewner", "is not a valid authority"),
        ("--rule", "Forbids", "'Forbids' is not a valid rule mode"),
        ("--support", "STATED", "'STATED' is not a valid support"),
    ],
    ids=["authority-name", "authority-cyrillic", "rule-case", "support-name"],
)
def test_the_cli_reads_enum_flags_with_the_shared_parse(
    tmp_path: Any, option: str, value: str, message: str
) -> None:
    """A flag spelled any other way is a usage error (exit 2) naming the allowed values."""
    args = ["--store", str(tmp_path / "m"), "remember", "x", "--topic", "t"]
    result = CliRunner().invoke(main, [*args, "--authority", "owner", option, value])
    assert result.exit_code == 2, result.output
    assert message in result.output
    control = CliRunner().invoke(main, [*args, "--authority", "owner", "--rule", "forbids"])
    assert control.exit_code == 0, control.output
    with doxa.Memory.open(tmp_path / "m", scope="default") as mem:
        [rule] = mem.facts()
        assert (rule.authority, rule.rule_mode) == (Authority.OWNER, RuleMode.FORBIDS)


@pytest.mark.parametrize(
    ("iri", "owners"),
    [
        (OWNER_POINT, True),
        ("URN:doxa:scope:alice/standpoint/owner", True),
        ("urn:DoXa:scope:alice/standpoint/owner", True),
        ("urn:doxa:scope:alice/standpoint/%6Fwner", True),
        ("urn:doxa:scope:alice/standpoint/%6fwner", True),
        ("urn:doxa:scope:alice/standpoint/agent", False),
        ("urn:doxa:scope:bob/standpoint/owner", False),
        ("urn:doxa:scope:alice/standpoint/owner%2F", False),
        ("urn:doxa:scope:alice/standpoint/Owner", False),
    ],
)
def test_the_owners_standpoint_is_recognised_in_every_spelling(iri: str, owners: bool) -> None:
    """The one check REST and MCP make compares normal forms: the scheme and the URN's
    namespace id in any case, and an escaped unreserved letter, name the owner's standpoint;
    another standpoint, scope or name (the NSS keeps its case) does not (controls)."""
    assert Scope.named("alice").is_owners_standpoint(iri) is owners


@pytest.mark.parametrize("role", ["owner", "agent"])
def test_a_respelt_doxa_standpoint_is_refused_and_others_are_kept(role: str) -> None:
    """Every interface's parse refuses a second spelling of a doxa IRI as a standpoint,
    saying which to write, whoever sends it; the canonical one and a standpoint outside doxa
    pass as sent."""
    from doxa.writes import Role, remember_arguments

    caller = {"role": Role(role), "scope": Scope.named("alice")}
    with pytest.raises(InvalidInput, match="another spelling of <urn:doxa:scope:alice/"):
        remember_arguments(
            {"text": "x", "topic": "t", "standpoint": "URN:doxa:scope:alice/standpoint/a"},
            **caller,
        )
    for kept in ("urn:doxa:scope:alice/standpoint/a", "HTTP://Example.org/%7Esp"):
        assert (
            remember_arguments({"text": "x", "topic": "t", "standpoint": kept}, **caller)[
                "standpoint"
            ]
            == kept
        )


def test_a_respelt_standpoint_is_refused_from_python_and_claims_files_too() -> None:
    """The final review's: only the interfaces' parse refused it, so ``Memory.remember`` and
    a claims file (``doxa import-claims``) stored ``URN:doxa:…/%6Fwner`` as a second graph.
    The proposal every write becomes refuses it now; the canonical spelling and a standpoint
    outside doxa are kept (controls)."""
    import io

    import doxa

    respelt = "URN:doxa:scope:alice/standpoint/%6Fwner"
    with doxa.Memory.open(None, scope="alice") as mem:
        with pytest.raises(InvalidInput, match="another spelling of <urn:doxa:scope:alice/"):
            mem.remember("Alice likes cheese", topic="t", standpoint=respelt)
        line = '{"text": "Alice likes brie", "topic": "t", "standpoint": "%s"}'
        with pytest.raises(InvalidInput, match=r"Line 1: standpoint .* another spelling"):
            mem.admin.import_claims(io.StringIO(line % respelt))
        assert mem.receipts() == []
        for kept in ("urn:doxa:scope:alice/standpoint/agent", "https://x.example/me"):
            receipt = mem.remember(f"Alice likes {kept}", topic="t", standpoint=kept)
            assert receipt.outcome is doxa.Outcome.ADMITTED
        assert mem.admin.import_claims(io.StringIO(line % "https://y.example/me")).counts == {
            "admitted": 1
        }
