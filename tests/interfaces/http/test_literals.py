"""REST refuses literals no export could carry with 400 and doxa's error shape (issue 14)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from tests.helpers import EX
from tests.interfaces.conftest import AGENT, Server, config_text

BODY = {
    "text": "hello",
    "topic": "literals",
    "literal": "hello",
    "subject": EX + "greeting",
    "predicate": EX + "says",
}


@pytest.fixture(scope="module")
def agent(serve: Callable[[str], Server]) -> Iterator[httpx.Client]:
    with serve(config_text()).client(AGENT) as client:
        yield client


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"language": "a" * 100},
            "language tag 'aaaaaaaaaaaaaaaaaaaa'… is 100 characters long; doxa takes tags of "
            "at most 64, such as 'en' or 'de-CH'.",
        ),
        (
            {"datatype": "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"},
            "object 'hello' has datatype http://www.w3.org/1999/02/22-rdf-syntax-ns#langString "
            "but no language tag; give a language (such as 'en') or drop the datatype.",
        ),
    ],
    ids=["100-character-tag", "langstring-without-language"],
)
def test_unserialisable_literals_are_400(
    agent: httpx.Client, extra: dict[str, str], message: str
) -> None:
    """A 100-character tag or a bare rdf:langString is 400 InvalidInput; nothing is written."""
    response = agent.post("/remember", json={**BODY, **extra})
    assert response.status_code == 400, response.text
    assert response.json() == {"error": {"type": "InvalidInput", "message": message, "status": 400}}
    assert agent.get("/facts", params={"topic": "literals"}).json() == []


def test_a_language_tagged_literal_is_admitted(agent: httpx.Client) -> None:
    """Control: a well-formed tag is admitted, and the scope still verifies."""
    response = agent.post("/remember", json={**BODY, "language": "de-CH"})
    assert response.status_code == 200, response.text
    assert [f["text"] for f in agent.get("/facts", params={"topic": "literals"}).json()] == [
        "hello"
    ]
    assert agent.get("/verify").status_code == 200
