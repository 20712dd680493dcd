"""The LLM judge's one call also returns the statement it read in a text-only write; the gate
checks it comes from the write's text and resolves it like a writer's names.

Still one model call per write. Each refusal (names not in the text, an invented predicate,
an ambiguous name, garbage) keeps the write text-only and says why, beside a control that
is used.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rdflib import Literal, URIRef
from tests.conftest import DOMAIN, EX
from tests.judges.fake_openai import FakeOpenAI, answer, running

import doxa
from doxa.judges.llm import LLMConfig, LLMJudge, answer_schema

PHONES = b"""
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:mobile a owl:DatatypeProperty ; rdfs:label "phone" .
ex:landline a owl:DatatypeProperty ; rdfs:label "Phone" .
"""


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with running() as server:
        yield server


@pytest.fixture
def mem(fake: FakeOpenAI, clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    judge = LLMJudge(LLMConfig(base_url=fake.base_url, model="fake-model", timeout=2))
    memory = doxa.Memory.open(None, scope="alice", clock=clock, judge=judge)
    memory.schema.add_ontology(DOMAIN)
    memory.schema.add_ontology(PHONES)
    yield memory
    memory.close()
    judge.close()


def write(mem: doxa.Memory, fake: FakeOpenAI, text: str, statement: Any) -> doxa.Receipt:
    fake.reply(answer("new", reason="nothing like it", statement=statement))
    before = len(fake.requests)
    receipt = mem.remember(text, topic="meetings", kind="schedule")
    assert len(fake.requests) == before + 1  # one model call per write, structure included
    return receipt


def statement(s: str, p: str, o: str) -> dict[str, str]:
    return {"subject": s, "predicate": p, "object": o}


def test_the_schema_asks_for_the_statement() -> None:
    """The strict schema requires the field, nullable, with three short names."""
    schema = answer_schema([])
    assert "statement" in schema["required"]
    choice = schema["properties"]["statement"]["anyOf"]
    assert choice[0] == {"type": "null"}
    assert choice[1]["required"] == ["subject", "predicate", "object"]
    assert choice[1]["properties"]["subject"]["maxLength"] == 200


def test_a_statement_from_the_text_is_stored_resolved(mem: doxa.Memory, fake: FakeOpenAI) -> None:
    """Names from the text resolve (the predicate to the ontology's ex:dayOfWeek; the
    object is a literal, as a writer's string object) and the claim is structured."""
    receipt = write(
        mem,
        fake,
        "The weekly supplier call is on Wednesday",
        statement("supplier call", "day of week", "Wednesday"),
    )
    assert receipt.outcome is doxa.Outcome.ADMITTED
    assert receipt.reason == "nothing like it (read as 'supplier call', 'day of week', 'Wednesday')"
    assert receipt.fact is not None
    fact = mem.get(receipt.fact)
    assert fact.subject == URIRef("urn:doxa:scope:alice/entity/supplier-call")
    assert fact.predicate == URIRef(EX + "dayOfWeek")
    assert fact.object == Literal("Wednesday")
    assert [f.id for f in mem.facts(subject="urn:doxa:scope:alice/entity/supplier-call")] == [
        fact.id
    ]


def test_a_new_predicate_from_the_text_is_minted(mem: doxa.Memory, fake: FakeOpenAI) -> None:
    """A predicate made of the text's words mints a scope property."""
    receipt = write(
        mem, fake, "Bob's phone number is 555-0101", statement("Bob", "phone number", "555-0101")
    )
    assert receipt.fact is not None
    fact = mem.get(receipt.fact)
    assert fact.predicate == URIRef("urn:doxa:scope:alice/property/phone-number")
    assert fact.object == Literal("555-0101")


@pytest.mark.parametrize(
    ("said", "why"),
    [
        (
            statement("Carol", "day of week", "Wednesday"),
            "its subject 'Carol' is not in the write's text",
        ),
        (
            statement("supplier call", "day of week", "Friday"),
            "its object 'Friday' is not in the write's text",
        ),
        (
            statement("supplier call", "scheduled weekday", "Wednesday"),
            "its predicate 'scheduled weekday' is neither known nor in the write's text",
        ),
        (
            statement("supplier call", "http://evil.example/p", "Wednesday"),
            "a judge names the subject and predicate, it gives no IRIs",
        ),
    ],
    ids=["subject-not-in-text", "object-not-in-text", "invented-predicate", "an-iri"],
)
def test_a_statement_naming_what_the_write_does_not_say_is_not_used(
    mem: doxa.Memory, fake: FakeOpenAI, said: dict[str, str], why: str
) -> None:
    """The write is admitted text-only, the reason says why, and nothing is minted."""
    receipt = write(mem, fake, "The weekly supplier call is on Wednesday", said)
    assert receipt.outcome is doxa.Outcome.ADMITTED
    assert receipt.reason == f"nothing like it (its statement was not used: {why})"
    assert receipt.fact is not None
    assert mem.get(receipt.fact).subject is None
    assert mem.vocabulary().entities == ()


def test_an_ambiguous_predicate_is_not_used(mem: doxa.Memory, fake: FakeOpenAI) -> None:
    """'phone' labels two ontology properties: the statement is left out, naming both."""
    receipt = write(mem, fake, "Bob's phone is 555", statement("Bob", "phone", "555"))
    assert receipt.reason.startswith(
        "nothing like it (its statement was not used: predicate name 'phone' matches 2"
    )
    assert receipt.fact is not None
    assert mem.get(receipt.fact).subject is None


@pytest.mark.parametrize(
    "garbage",
    [
        "supplier call",
        ["supplier call", "day", "Wednesday"],
        {"subject": "supplier call", "predicate": "day of week"},
        {"subject": "supplier call", "predicate": "day of week", "object": 7},
        {"subject": " ", "predicate": "day of week", "object": "Wednesday"},
        {"subject": "x" * 201, "predicate": "day of week", "object": "Wednesday"},
        {"subject": "a", "predicate": "b", "object": "c", "graph": "d"},
    ],
    ids=["string", "list", "missing-object", "number", "blank", "too-long", "extra-key"],
)
def test_a_garbage_statement_is_left_out_and_the_verdict_stands(
    mem: doxa.Memory, fake: FakeOpenAI, garbage: object
) -> None:
    """A malformed statement never refuses the answer: the relation is applied text-only."""
    receipt = write(mem, fake, "The weekly supplier call is on Wednesday", garbage)
    assert receipt.outcome is doxa.Outcome.ADMITTED
    assert "(its statement was not used: " in receipt.reason
    assert receipt.fact is not None
    assert mem.get(receipt.fact).subject is None


def test_a_null_statement_and_a_structured_write_are_kept_as_given(
    mem: doxa.Memory, fake: FakeOpenAI
) -> None:
    """null: the write stays text-only with the model's reason as is; a write with its own
    structure keeps it, whatever the model read."""
    fake.reply(answer("new", reason="plain"))
    plain = mem.remember("Some note about nothing", topic="meetings")
    assert plain.reason == "plain"
    fake.reply(answer("new", reason="own", statement=statement("Bob", "likes", "tea")))
    own = mem.remember(
        "Alice likes tea",
        topic="drinks",
        subject=EX + "alice",
        predicate=EX + "likes",
        object=EX + "tea",
    )
    assert own.reason == "own"
    assert own.fact is not None
    assert mem.get(own.fact).subject == URIRef(EX + "alice")
