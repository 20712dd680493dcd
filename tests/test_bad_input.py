"""Bad input gets a clear doxa error and changes nothing; a good value beside it passes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rdflib.namespace import XSD
from tests.conftest import EX

import doxa

SURROGATE = "bad \ud800 text"

# (id, remember() arguments that must fail, expected error, message fragment)
BAD_WRITES: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    ("surrogate-text", {"text": SURROGATE}, doxa.InvalidInput, "not valid Unicode text"),
    (
        "surrogate-query",
        {"support": "absent", "query": SURROGATE},
        doxa.InvalidInput,
        "not valid Unicode text",
    ),
    (
        "iri-two-fragments",
        {"subject": "http://ex/a#b#c"},
        doxa.InvalidInput,
        "is not an absolute IRI",
    ),
    ("iri-bad-escape", {"subject": "a:b%zz"}, doxa.InvalidInput, "is not an absolute IRI"),
    ("iri-open-bracket", {"source": "http://[::1"}, doxa.InvalidInput, "is not an absolute IRI"),
    (
        "datatype-with-space",
        {"object": doxa.Literal("x", datatype=doxa.IRI("xsd:foo bar"))},
        doxa.InvalidInput,
        "is not an absolute IRI",
    ),
    (
        "year-one-offset",
        {"valid_from": "0001-01-01T00:00:00+05:00"},
        doxa.InvalidInput,
        "outside the years 1-9999",
    ),
    (
        "year-one-says-later",
        {"valid_from": "0001-01-01T00:00:00+05:00"},
        doxa.InvalidInput,
        "use a later date",
    ),
    # the review's: the last day of the calendar, west of UTC, was told to use a later date
    (
        "year-9999-says-earlier",
        {"valid_from": "9999-12-31T23:59:59-12:00"},
        doxa.InvalidInput,
        "use an earlier date",
    ),
    ("sources-number", {"sources": 5}, doxa.InvalidInput, "is not a list of IRIs"),
    ("sources-none", {"sources": None}, doxa.InvalidInput, "is not a list of IRIs"),
    ("decimal-nan", {"object": Decimal("NaN")}, doxa.InvalidInput, "is not a finite number"),
    ("text-number", {"text": 42}, doxa.InvalidInput, "is not a string"),
]


def _write(mem: doxa.Memory, **changes: Any) -> doxa.Receipt:
    args: dict[str, Any] = {"text": "Bob likes tea", "topic": "drinks"}
    if "source" in changes:
        changes["sources"] = [changes.pop("source")]
    if {"subject", "object"} & changes.keys():
        args.update(subject=EX + "bob", predicate=EX + "likes", object=EX + "tea")
    args.update(changes)
    return mem.remember(args.pop("text"), **args)


@pytest.mark.parametrize(
    ("bad", "error", "fragment"), [c[1:] for c in BAD_WRITES], ids=[c[0] for c in BAD_WRITES]
)
def test_bad_write_is_refused_and_nothing_changes(
    memory: doxa.Memory, bad: dict[str, Any], error: type[Exception], fragment: str
) -> None:
    """Each malformed write raises a clear error, writes nothing, and a good write still works."""
    with pytest.raises(error, match=fragment):
        _write(memory, **bad)
    assert memory.receipts() == []
    assert _write(memory).outcome is doxa.Outcome.ADMITTED


@pytest.mark.parametrize(
    "fact_id", ["x y", "a>b", 'q"', "", None], ids=["space", "angle", "quote", "empty", "none"]
)
def test_malformed_ids_are_not_found(memory: doxa.Memory, fact_id: Any) -> None:
    """Ids that cannot exist are NotFound in every verb; a real id works (control)."""
    for call in (memory.history, memory.why, memory.owner.approve, memory.get):
        with pytest.raises(doxa.NotFound):
            call(fact_id)
    with pytest.raises(doxa.NotFound):
        memory.owner.retract(fact_id, reason="x")
    real = _write(memory).fact
    assert memory.get(real).id == real


def test_reads_refuse_non_text(memory: doxa.Memory) -> None:
    """recall(None) and sparql(None) are InvalidInput; text works (control)."""
    with pytest.raises(doxa.InvalidInput, match="is not a string"):
        memory.recall(None)  # type: ignore[arg-type]
    with pytest.raises(doxa.InvalidInput, match="is not a string"):
        memory.rdf.sparql(None)  # type: ignore[arg-type]
    with pytest.raises(doxa.InvalidInput, match="not valid Unicode text"):
        memory.recall(SURROGATE)
    _write(memory)
    assert [f.text for f in memory.recall("tea")] == ["Bob likes tea"]


def test_tiny_confidence_is_a_valid_decimal(memory: doxa.Memory) -> None:
    """A confidence like 1E-30 is stored in plain decimal notation and verifies."""
    r = _write(memory, confidence=Decimal("1E-30"))
    assert r.outcome is doxa.Outcome.ADMITTED
    assert memory.get(r.fact).confidence == Decimal("1E-30")
    assert memory.verify() == 1


def test_ill_typed_integer_literal_is_refused(memory: doxa.Memory) -> None:
    """An integer literal that is not a number is refused; a real one passes."""
    with pytest.raises(doxa.InvalidInput, match="is not a valid"):
        _write(memory, object=doxa.Literal("12x", datatype=XSD.integer))
    assert (
        _write(memory, object=doxa.Literal("12", datatype=XSD.integer)).outcome
        is doxa.Outcome.ADMITTED
    )


def test_a_python_date_is_read_as_its_iso_string_is(memory: doxa.Memory) -> None:
    """The review's: ``facts(valid_at=date(2026, 3, 1))`` failed with "datetime.date(2026, 3, 1)
    is not a date or datetime". A ``datetime.date`` now means what its ISO string means, in
    a write and in both clocks of a read, the string answering beside it as the control."""
    from datetime import date

    memory.remember("Bob likes tea", topic="drinks", valid_from=date(2026, 2, 1))
    (fact,) = memory.facts(valid_at="2026-03-01")
    assert fact.valid_from is not None
    assert fact.valid_from.isoformat() == "2026-02-01T00:00:00+00:00"
    assert memory.facts(valid_at=date(2026, 3, 1)) == [fact]
    assert memory.facts(valid_at=date(2026, 1, 1)) == memory.facts(valid_at="2026-01-01") == []
    recorded = fact.recorded_at.date()
    # a bare date as ``as_of`` is the end of that day, as its string is
    assert memory.facts(as_of=recorded) == memory.facts(as_of=recorded.isoformat()) == [fact]
    with pytest.raises(doxa.InvalidInput, match="pass a datetime, a date or an ISO 8601"):
        memory.facts(valid_at=20260301)  # type: ignore[arg-type]


@pytest.mark.parametrize("verb", ["grant", "revoke"])
def test_a_grant_or_revoke_reason_that_is_not_text_is_refused(
    memory: doxa.Memory, verb: str
) -> None:
    """The review's: ``POST /kinds/K/grant`` with a lone surrogate as the reason was a 500
    (the receipt's literal could not be written); every other verb's reason was checked.
    Now it is InvalidInput and nothing is written; the same call with a plain reason works."""
    act = getattr(memory.owner, verb)
    with pytest.raises(doxa.InvalidInput, match="not valid Unicode text"):
        act("general", reason=SURROGATE)
    with pytest.raises(doxa.InvalidInput, match="reason"):
        act("general", reason=42)
    assert memory.receipts() == []
    assert act("general", reason="checked by the owner").outcome is not None
    assert len(memory.receipts()) == 1
