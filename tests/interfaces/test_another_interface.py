"""Adding an interface is one module and its tests: a JSON-lines interface, written here.

It reads one request per line (``{"op": "remember", ...}`` or ``{"op": "facts"}``) and answers
one JSON line. Everything it knows about a write, a result's JSON form and an error's code
comes from the pieces every interface shares: :mod:`doxa.writes` (the one definition of a
write), :mod:`doxa.interfaces.presentation` and :mod:`doxa.interfaces.failures`. It holds no
rule of its own, so it refuses and accepts exactly what the CLI, REST and MCP do.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import doxa
from doxa.interfaces.failures import http_status
from doxa.interfaces.presentation import plain
from doxa.vocabulary import XSD
from doxa.writes import FIELDS, remember_arguments


def answer(memory: doxa.Memory, line: str) -> str:
    """The whole interface: one request line in, one answer line out."""
    try:
        request = json.loads(line)
        if not isinstance(request, dict):
            raise doxa.InvalidInput("A request is one JSON object per line.")
        op = request.pop("op", None)
        if op == "remember":
            result: Any = memory.remember(**remember_arguments(request))
        elif op == "facts" and not request:
            result = memory.facts()
        else:
            raise doxa.InvalidInput(f"Unknown request {op!r}; use 'remember' or 'facts'.")
    except json.JSONDecodeError:
        return json.dumps({"error": "InvalidInput", "status": 400})
    except doxa.DoxaError as error:
        return json.dumps({"error": type(error).__name__, "status": http_status(error)})
    return json.dumps({"ok": plain(result)})


@pytest.fixture
def memory() -> doxa.Memory:
    return doxa.Memory.open(None, scope="alice")


def test_a_write_and_a_read_through_the_new_interface(memory: doxa.Memory) -> None:
    written = json.loads(
        answer(
            memory,
            json.dumps(
                {
                    "op": "remember",
                    "text": "Bob was born in 1990",
                    "topic": "bob",
                    "subject": "http://example.org/bob",
                    "predicate": "http://example.org/birthYear",
                    "literal": "1990",
                    "datatype": "xsd:gYear",
                }
            ),
        )
    )
    assert written["ok"]["outcome"] == "admitted"
    facts = json.loads(answer(memory, '{"op": "facts"}'))["ok"]
    assert [f["object"] for f in facts] == ["1990"]
    assert memory.facts()[0].object == doxa.Literal("1990", datatype=XSD.gYear)


def test_it_refuses_what_every_interface_refuses(memory: doxa.Memory) -> None:
    """An agent-level interface cannot write as the owner, however it spells it: the parse
    is the shared one. Control: the same write as the agent is stored."""
    for spelling in ("OWNER", "Owner", "\uff4fwner"):
        refused = json.loads(
            answer(
                memory,
                json.dumps({"op": "remember", "text": "t", "topic": "x", "authority": spelling}),
            )
        )
        assert refused == {"error": "InvalidInput", "status": 400}
    stored = json.loads(answer(memory, json.dumps({"op": "remember", "text": "t", "topic": "x"})))
    assert stored["ok"]["outcome"] == "admitted"


def test_bad_requests_get_the_shared_status(memory: doxa.Memory) -> None:
    assert json.loads(answer(memory, "not json"))["status"] == 400
    assert json.loads(answer(memory, '{"op": "drop"}'))["status"] == 400
    missing_topic = json.loads(answer(memory, '{"op": "remember", "text": "t"}'))
    assert missing_topic["status"] == 400
    assert memory.facts() == []  # nothing was written by any of them


def test_the_interface_takes_every_defined_field() -> None:
    """The fields it accepts are the definition's, not a list of its own."""
    names = {f.name for f in FIELDS}
    assert {"text", "topic", "attributed_to", "literal", "datatype", "language"} <= names
