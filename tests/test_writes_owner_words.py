"""Attacks on the one permission rule of a write (``doxa.writes.remember_arguments``): an
agent may not write with authority ``owner``, a standing rule or in the owner's standpoint.

Each attack is kept beside its control: the spelling the rule is about is refused (or, for
an IRI that is another standpoint, written outside the owner's), and the honest write passes.
"""

from __future__ import annotations

from typing import Any

import pytest
from rdflib import URIRef

import doxa
from doxa.model import Authority, RuleMode
from doxa.scope import Scope
from doxa.writes import Role, remember_arguments

ALICE = Scope.named("alice")
OWNER_POINT = "urn:doxa:scope:alice/standpoint/owner"
BASE = {"text": "Calls are on Monday", "topic": "calls"}


def as_agent(**fields: object) -> dict[str, Any]:
    return remember_arguments(BASE | fields, role=Role.AGENT, scope=ALICE)


def as_owner(**fields: object) -> dict[str, Any]:
    return remember_arguments(BASE | fields, role=Role.OWNER)


# -- spellings and look-alikes of "owner" ------------------------------------------------------

#: what is not the word ``owner`` however it looks: the parse refuses it for every caller
LOOK_ALIKES = {
    "upper": "OWNER",
    "title": "Owner",
    "leading-space": " owner",
    "trailing-tab": "owner\t",
    "nbsp": "\u00a0owner",
    "cyrillic-o": "\u043ewner",
    "greek-omicron": "\u03bfwner",
    "fullwidth": "\uff4f\uff57\uff4e\uff45\uff52",
    "math-bold": "\U0001d428\U0001d430\U0001d427\U0001d41e\U0001d42b",
    "modifier-O": "\u1d3cwner",
    "zero-width-space": "owner\u200b",
    "zero-width-joiner": "ow\u200dner",
    "soft-hyphen": "own\u00ader",
    "right-to-left-mark": "\u200fowner",
    "combining-accent": "owne\u0301r",
    "nul": "owner\x00",
    "prefixed-name": "doxa:Owner",
    "iri-lower-case": "https://w3id.org/doxa#owner",
    "iri-http": "http://w3id.org/doxa#Owner",
}


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.value)
@pytest.mark.parametrize("spelling", list(LOOK_ALIKES.values()), ids=list(LOOK_ALIKES))
def test_a_look_alike_of_owner_is_no_authority_for_anyone(role: Role, spelling: str) -> None:
    """No spelling but the value and its IRI names the owner: refused as invalid input for
    the agent (never a Forbidden the agent could probe around) and for the owner alike."""
    caller = {"role": role, "scope": ALICE}
    with pytest.raises(doxa.InvalidInput, match="is not a valid authority") as refused:
        remember_arguments(BASE | {"authority": spelling}, **caller)
    assert not isinstance(refused.value, doxa.Forbidden)
    assert remember_arguments(BASE | {"authority": "agent"}, **caller)["authority"] is (
        Authority.AGENT
    )  # control


@pytest.mark.parametrize(
    "value",
    [
        "owner",
        "https://w3id.org/doxa#Owner",
        URIRef("https://w3id.org/doxa#Owner"),
        Authority.OWNER,
    ],
    ids=["value", "iri-text", "iri", "member"],
)
def test_every_accepted_spelling_of_owner_is_forbidden_to_an_agent(value: object) -> None:
    """What the parse reads as the owner is refused to an agent, whatever the form (a
    Python caller may pass the member or the IRI); the owner is given it (control)."""
    with pytest.raises(doxa.Forbidden, match="Only the owner may write with authority 'owner'"):
        as_agent(authority=value)
    assert as_owner(authority=value)["authority"] is Authority.OWNER


# -- a standing rule ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"rule": "forbids"},
        {"rule": "requires", "authority": "agent"},
        {"rule": "forbids", "authority": "tool"},
        {"rule": RuleMode.FORBIDS},
        {"rule": "https://w3id.org/doxa#Forbids"},
    ],
    ids=["bare", "as-agent", "as-tool", "member", "iri"],
)
def test_an_agent_cannot_write_a_rule_in_any_form(fields: dict[str, object]) -> None:
    with pytest.raises(doxa.Forbidden, match="Only the owner may write a standing rule"):
        as_agent(**fields)
    assert as_owner(**(fields | {"authority": "owner"}))["rule"] is not None  # control


@pytest.mark.parametrize("spelling", ["FORBIDS", "Forbids", " forbids", "f\u043erbids"])
def test_a_look_alike_of_a_rule_mode_is_invalid_not_dropped(spelling: str) -> None:
    """A rule in another spelling is refused as invalid input (never read as no rule)."""
    with pytest.raises(doxa.InvalidInput, match="is not a valid rule mode"):
        as_agent(rule=spelling)
    assert as_agent(rule=None)["rule"] is None  # control: no rule is no rule


@pytest.mark.parametrize("key", ["Rule", "rule ", "rules", "r\u0443le", "Authority", "authority_"])
def test_a_respelt_key_is_refused_not_dropped(key: str) -> None:
    """An owner word under another key is an unknown field, refused by name: dropping it
    silently would write an agent's fact the agent believes is the owner's."""
    with pytest.raises(doxa.InvalidInput, match="A write has no field"):
        as_agent(**{key: "owner"})
    assert as_agent(authority="agent")["authority"] is Authority.AGENT  # control


# -- the owner's standpoint --------------------------------------------------------------------


@pytest.mark.parametrize(
    "standpoint",
    [OWNER_POINT, URIRef(OWNER_POINT)],
    ids=["text", "iri"],
)
def test_the_owners_standpoint_is_forbidden_to_an_agent(standpoint: object) -> None:
    with pytest.raises(doxa.Forbidden, match="Only the owner may write in the owner's standpoint"):
        as_agent(standpoint=standpoint)
    assert as_owner(standpoint=standpoint)["standpoint"] == standpoint  # control


@pytest.mark.parametrize(
    "standpoint",
    [
        "URN:doxa:scope:alice/standpoint/owner",
        "urn:DOXA:scope:alice/standpoint/owner",
        "urn:doxa:scope:alice/standpoint/%6Fwner",
        "urn:doxa:scope:alice/standpoint/%6f%77%6e%65%72",
        "urn:%64oxa:scope:alice/standpoint/owner",
    ],
    ids=["scheme-case", "nid-case", "escaped-o", "all-escaped", "escaped-nid"],
)
def test_another_spelling_of_the_owners_standpoint_is_refused(standpoint: str) -> None:
    """The same IRI spelt another way (RFC 3986/8141 equivalence) is refused for everyone,
    naming the one spelling to write; for the agent that spelling is then Forbidden."""
    for role in Role:
        with pytest.raises(doxa.InvalidInput, match="is another spelling of"):
            remember_arguments(BASE | {"standpoint": standpoint}, role=role, scope=ALICE)
    with pytest.raises(doxa.Forbidden):
        as_agent(standpoint=OWNER_POINT)  # control: the canonical spelling is the rule's


#: IRIs that differ from the owner's standpoint by more than a spelling. They were stored as
#: other standpoints, yet a reader comparing prefixes or glyphs takes them for the owner's
#: (the integrity review): in doxa's namespace only this scope's plain standpoint names stand
OTHER_STANDPOINTS = {
    "trailing-slash": OWNER_POINT + "/",
    "nss-upper-case": "urn:doxa:scope:alice/standpoint/OWNER",
    "nss-title-case": "urn:doxa:scope:alice/standpoint/Owner",
    "scope-upper-case": "urn:doxa:scope:ALICE/standpoint/owner",
    "dot-segment": "urn:doxa:scope:alice/standpoint/./owner",
    "dot-dot-segment": "urn:doxa:scope:alice/standpoint/x/../owner",
    "double-slash": "urn:doxa:scope:alice//standpoint/owner",
    "fragment": OWNER_POINT + "#x",
    "query": OWNER_POINT + "?x",
    "escaped-slash": OWNER_POINT + "%2F",
    "cyrillic-o": "urn:doxa:scope:alice/standpoint/\u043ewner",
    "zero-width-space": "urn:doxa:scope:alice/standpoint/own\u200ber",
    "cyrillic-in-doxa": "urn:d\u043exa:scope:alice/standpoint/owner",
    "another-scope": "urn:doxa:scope:bob/standpoint/owner",
    "another-scope-agent": "urn:doxa:scope:bob/standpoint/agent",
}
#: the controls: this scope's other standpoints and IRIs of the writer's own
OWN_STANDPOINTS = [
    "urn:doxa:scope:alice/standpoint/agent",
    "urn:doxa:scope:alice/standpoint/research-team_2",
    "http://example.org/standpoint/owner",
    "https://example.org/people/bob#view",
]


@pytest.mark.parametrize(
    "standpoint", list(OTHER_STANDPOINTS.values()), ids=list(OTHER_STANDPOINTS)
)
def test_a_near_miss_of_the_owners_standpoint_is_refused(standpoint: str) -> None:
    """An IRI one character away from the owner's standpoint (a trailing slash, another
    case, a dot segment, a fragment, a look-alike letter, another scope's) is refused for
    the agent's parse and for any write through the gate, the owner's own included, and
    nothing is stored. Control: the owner's own IRI is Forbidden to the agent."""
    with pytest.raises(doxa.InvalidInput, match="is not one of scope 'alice''s standpoints"):
        as_agent(standpoint=standpoint)
    with doxa.Memory.open(None, scope="alice") as memory:
        with pytest.raises(doxa.InvalidInput, match="standpoint"):
            memory.remember(**as_owner(standpoint=standpoint))
        assert memory.facts(include_unchecked=True) == []
        assert memory.held() == []
    with pytest.raises(doxa.Forbidden):
        as_agent(standpoint=OWNER_POINT)


@pytest.mark.parametrize("standpoint", OWN_STANDPOINTS)
def test_the_scopes_other_standpoints_and_own_iris_are_kept_as_given(standpoint: str) -> None:
    """The controls: an agent's write in another of the scope's standpoints, or in an IRI
    outside doxa's namespace, is stored under exactly that IRI, never the owner's."""
    with doxa.Memory.open(None, scope="alice") as memory:
        receipt = memory.remember(**as_agent(standpoint=standpoint))
        assert receipt.fact is not None
        stored = memory.get(receipt.fact)
        assert str(stored.standpoint) == standpoint
        assert stored.standpoint != memory.scope.standpoint("owner")
        assert stored.authority is Authority.AGENT


# -- the caller's role itself ------------------------------------------------------------------


@pytest.mark.parametrize(
    "role",
    ["owner", Authority.OWNER, None, True, 1, "Role.OWNER"],
    ids=["text", "authority-member", "none", "true", "one", "repr"],
)
def test_a_role_that_is_not_a_role_is_a_type_error(role: object) -> None:
    """Only a :class:`Role` member says who calls; anything else is a programming error,
    never read as the owner (nor quietly as the agent)."""
    with pytest.raises(TypeError, match=r"role must be a doxa\.writes\.Role"):
        remember_arguments(BASE | {"authority": "owner"}, role=role, scope=ALICE)  # type: ignore[arg-type]
    assert as_owner(authority="owner")["authority"] is Authority.OWNER  # control


def test_an_agent_without_its_scope_is_a_type_error() -> None:
    """The owner's standpoint is a scope's: an agent's write is never read without one
    (the owner's needs none: control)."""
    with pytest.raises(TypeError, match="pass scope="):
        remember_arguments(BASE, role=Role.AGENT)
    with pytest.raises(TypeError, match="pass scope="):
        remember_arguments(BASE, role=Role.AGENT, scope="alice")  # type: ignore[arg-type]
    assert remember_arguments(BASE, role=Role.OWNER)["text"] == BASE["text"]
    assert as_agent()["text"] == BASE["text"]


def test_the_refusal_comes_after_the_parse() -> None:
    """A write with two faults gets the parse's message first (a bad value is named before
    permission is weighed), so an agent learns nothing of the rule from a malformed write;
    the rule's own order is authority, rule, standpoint (control)."""
    with pytest.raises(doxa.InvalidInput) as refused:
        as_agent(authority="owner", support="STATED")
    assert not isinstance(refused.value, doxa.Forbidden)
    with pytest.raises(doxa.Forbidden, match="authority 'owner'"):
        as_agent(authority="owner", rule="forbids", standpoint=OWNER_POINT)
    with pytest.raises(doxa.Forbidden, match="standing rule"):
        as_agent(rule="forbids", standpoint=OWNER_POINT)
