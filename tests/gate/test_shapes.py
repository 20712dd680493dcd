"""Every shape constraint rejects what it should, with an accepted control beside it."""

from __future__ import annotations

from typing import Any

import pytest
from rdflib import Graph
from tests.conftest import EX

import doxa
from doxa.gate.shapes import ShapeCheck

SOURCE = "https://news.example.com/article/1"
STRUCTURE = {"subject": EX + "bob", "predicate": EX + "likes", "object": EX + "tea"}

# (id, bad write, expected message, good control differing only where the constraint bites)
CASES: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = [
    (
        "text-empty",
        {"text": ""},
        "text is required: one plain string of 1 to 4000 characters",
        {"text": "x"},
    ),
    (
        "text-only-spaces",
        {"text": " \t\n "},
        "text must hold something to read, not only spaces or invisible characters",
        {"text": " x "},
    ),
    (
        "text-only-unicode-spaces",
        {"text": "\u00a0\u2003\u3000"},
        "text must hold something to read, not only spaces or invisible characters",
        {"text": "\u00a0\u65e5\u3000"},
    ),
    (
        "text-only-invisible",
        {"text": "\u200b\u200d\ufeff\u00ad\u2060"},
        "text must hold something to read, not only spaces or invisible characters",
        {"text": "\u200bx\u200d"},
    ),
    (
        "text-too-long",
        {"text": "x" * 4001},
        "text is required: one plain string of 1 to 4000 characters",
        {"text": "x" * 4000},
    ),
    (
        "confidence-above-one",
        {"confidence": "1.5"},
        "confidence must be one decimal between 0 and 1 (leave it out for 'not rated')",
        {"confidence": "1"},
    ),
    (
        "confidence-below-zero",
        {"confidence": -0.1},
        "confidence must be one decimal between 0 and 1 (leave it out for 'not rated')",
        {"confidence": 0},
    ),
    (
        "valid-until-before-from",
        {"valid_from": "2026-03-02", "valid_until": "2026-03-01"},
        "validFrom must be one xsd:dateTime, earlier than validUntil",
        {"valid_from": "2026-03-01", "valid_until": "2026-03-02"},
    ),
    (
        "valid-until-equal-from",
        {"valid_from": "2026-03-01", "valid_until": "2026-03-01"},
        "validFrom must be one xsd:dateTime, earlier than validUntil",
        {"valid_from": "2026-03-01", "valid_until": "2026-03-01T00:00:01Z"},
    ),
    (
        "rule-by-agent",
        {"rule": "forbids", "authority": "agent", **STRUCTURE},
        "only the owner's own words can become a rule: authority must be owner",
        {"rule": "forbids", "authority": "owner", **STRUCTURE},
    ),
    (
        "rule-by-web-page",
        {"rule": "requires", "authority": "external", "sources": [SOURCE], **STRUCTURE},
        "only the owner's own words can become a rule: authority must be owner",
        {"rule": "requires", "authority": "owner", **STRUCTURE},
    ),
    (
        "rule-not-stated",
        {"rule": "forbids", "authority": "owner", "support": "inferred", **STRUCTURE},
        "a rule must be stated by the owner: support must be 'stated'",
        {"rule": "forbids", "authority": "owner", "support": "stated", **STRUCTURE},
    ),
    (
        "external-without-source",
        {"authority": "external"},
        "external content must name exactly one source document (prov:wasDerivedFrom)",
        {"authority": "external", "sources": [SOURCE]},
    ),
    (
        "external-not-quoted",
        {"authority": "external", "sources": [SOURCE], "support": "stated"},
        "external content is always a quotation: its support must be 'quoted'",
        {"authority": "external", "sources": [SOURCE], "support": "quoted"},
    ),
    (
        "external-in-owner-standpoint",
        {
            "authority": "external",
            "sources": [SOURCE],
            "standpoint": "urn:doxa:scope:alice/standpoint/owner",
        },
        "external content holds in its source's standpoint, never the owner's: standpoint must be the source",
        {"authority": "external", "sources": [SOURCE], "standpoint": SOURCE},
    ),
    (
        "absent-without-query",
        {"support": "absent"},
        "a claim with support 'absent' must keep the query that found nothing",
        {"support": "absent", "query": "dentist appointments in March"},
    ),
    (
        "half-a-statement",
        {"subject": EX + "bob", "predicate": EX + "likes"},
        "subject, predicate and object go together: give all three or none",
        STRUCTURE,
    ),
]


def _write(mem: doxa.Memory, fields: dict[str, Any]) -> doxa.Receipt:
    values: dict[str, Any] = {"text": "Bob likes tea", "topic": "drinks", **fields}
    return mem.remember(values.pop("text"), **values)


@pytest.mark.parametrize(
    ("bad", "message", "good"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_constraint_rejects_and_control_passes(
    memory: doxa.Memory, bad: dict[str, Any], message: str, good: dict[str, Any]
) -> None:
    """The bad write is rejected with the constraint's message; the control is admitted."""
    before = memory.facts(include_ended=True)
    rejected = _write(memory, bad)
    assert rejected.outcome is doxa.Outcome.REJECTED
    assert rejected.relation is None
    assert any(f.endswith(message) for f in rejected.failures), rejected.failures
    assert memory.facts(include_ended=True) == before  # nothing but a receipt entered

    accepted = _write(memory, good)
    assert accepted.outcome is doxa.Outcome.ADMITTED, accepted.failures
    assert [f.id for f in memory.facts(include_ended=True)] == [accepted.fact]


def test_rejection_writes_only_its_receipt(memory: doxa.Memory) -> None:
    """A rejected write leaves one receipt and no claim, no hold, no index entry."""
    receipt = memory.remember("x", topic="drinks", confidence=3)
    assert receipt.outcome is doxa.Outcome.REJECTED
    assert [r.outcome for r in memory.receipts()] == [doxa.Outcome.REJECTED]
    assert memory.recall("x") == []
    assert memory.held() == []
    result = memory.rdf.sparql(
        "SELECT (COUNT(*) AS ?n) WHERE { ?s a <https://w3id.org/doxa#Claim> }"
    )
    assert str(result.rows[0][0]) == "0"
    assert memory.verify() == 1


def test_error_lists_every_failed_constraint(memory: doxa.Memory) -> None:
    """With strict=True the error names each failed constraint, one per failure."""
    with pytest.raises(doxa.ShapeViolation) as caught:
        memory.remember(
            "Buy now",
            topic="drinks",
            authority="external",
            confidence=2,
            valid_from="2026-03-02",
            valid_until="2026-03-01",
            strict=True,
        )
    messages = sorted(f.message for f in caught.value.failures)
    assert messages == [
        "confidence must be one decimal between 0 and 1 (leave it out for 'not rated')",
        "external content holds in its source's standpoint, never the owner's: standpoint must be the source",
        "external content must name exactly one source document (prov:wasDerivedFrom)",
        "validFrom must be one xsd:dateTime, earlier than validUntil",
    ]
    assert str(caught.value).startswith("The write was rejected by 4 constraint(s): ")
    assert caught.value.receipt_id is not None
    assert isinstance(caught.value, ValueError)
    # control: the same write, fixed, passes strictly
    fixed = memory.remember(
        "Buy now",
        topic="drinks",
        authority="external",
        sources=[SOURCE],
        confidence=0.2,
        strict=True,
    )
    assert fixed.outcome is doxa.Outcome.ADMITTED


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("topic", "Meetings!", "'Meetings!' is not a valid topic name"),
        ("kind", "", "'' is not a valid kind name"),
        (
            "authority",
            "boss",
            "'boss' is not a valid authority; use one of: owner, tool, agent, external.",
        ),
        ("subject", 42, "subject 42 is not an absolute IRI"),
        ("valid_from", "next tuesday", "'next tuesday' is not a date or datetime"),
        ("confidence", "high", "confidence 'high' is not a number; use a value from 0 to 1."),
        ("object", object(), "has type object; pass an IRI, a string, a number"),
        (
            "object",
            doxa.Literal("19x7", datatype=doxa.IRI("http://www.w3.org/2001/XMLSchema#gYear")),
            "object '19x7' is not a valid http://www.w3.org/2001/XMLSchema#gYear",
        ),
    ],
    ids=["topic", "kind", "authority", "subject", "valid-from", "confidence", "object", "gyear"],
)
def test_wrong_types_raise_before_anything_is_written(
    memory: doxa.Memory, field: str, value: Any, message: str
) -> None:
    """Values of the wrong type raise InvalidInput and leave no receipt; a good value passes."""
    args: dict[str, Any] = {"topic": "drinks", field: value}
    if field in ("subject", "object"):
        args.update({k: v for k, v in STRUCTURE.items() if k != field})
    with pytest.raises(doxa.InvalidInput, match=_escape(message)):
        memory.remember("Bob likes tea", **args)
    assert memory.receipts() == []
    assert memory.remember("Bob likes tea", topic="drinks").outcome is doxa.Outcome.ADMITTED


def test_pyshacl_failure_raises_instead_of_rejecting(monkeypatch: pytest.MonkeyPatch) -> None:
    """When pySHACL itself breaks, the gate raises ShapeCheckFailed, never a rejection."""
    check = ShapeCheck(engine="pyshacl")

    def broken(self: object) -> tuple[bool, object, str]:
        return (False, RuntimeError("boom"), "")

    monkeypatch.setattr("pyshacl.Validator.run", broken)
    with pytest.raises(doxa.ShapeCheckFailed, match="instead of a report"):
        check.check(Graph())


def test_pyshacl_exception_raises_shape_check_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception inside pySHACL becomes ShapeCheckFailed; an intact check conforms (control)."""
    check = ShapeCheck(engine="pyshacl")
    assert check.check(Graph()) == ()

    def explode(self: object) -> None:
        raise KeyError("shapes")

    monkeypatch.setattr("pyshacl.Validator.run", explode)
    with pytest.raises(doxa.ShapeCheckFailed, match="The shape check itself failed"):
        check.check(Graph())


def _escape(text: str) -> str:
    import re

    return re.escape(text)
