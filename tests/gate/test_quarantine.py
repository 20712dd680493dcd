"""Quarantine: no ordinary reader sees it; the owner releases or discards, with receipts."""

from __future__ import annotations

import io

import pytest
from tests.helpers import INJECTED

import doxa

HARMLESS = "The bakery opens at 7 on weekdays."


def quote(mem: doxa.Memory, text: str) -> doxa.Receipt:
    return mem.remember(
        text,
        topic="bakery",
        kind="observation",
        authority="external",
        sources=["https://bakery.example/news"],
    )


def test_no_ordinary_reader_sees_quarantine(memory: doxa.Memory) -> None:
    hidden = quote(memory, INJECTED)
    shown = quote(memory, HARMLESS)
    assert hidden.outcome is doxa.Outcome.QUARANTINED
    assert shown.outcome is doxa.Outcome.ADMITTED
    assert [f.text for f in memory.facts()] == [HARMLESS]
    assert [f.text for f in memory.recall("bakery opens")] == [HARMLESS]
    assert [f.text for f in memory.recall("bakery", include_unchecked=True)] == [HARMLESS]
    with pytest.raises(doxa.NotFound):
        memory.history(hidden.fact or "")
    with pytest.raises(doxa.NotFound):
        memory.why(hidden.fact or "")
    everything = memory.rdf.sparql("SELECT ?o WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert not any("Ignore previous" in str(v) for row in everything.rows for v in row)
    assert any(str(v) == HARMLESS for row in everything.rows for v in row)
    ordinary, audit = io.StringIO(), io.StringIO()
    memory.admin.export(ordinary)
    memory.admin.export(audit, audit=True)
    assert "Ignore previous" not in ordinary.getvalue()
    assert HARMLESS in ordinary.getvalue()
    assert "Ignore previous" in audit.getvalue()
    # the owner's review lists it
    assert [(f.text, f.status) for f in memory.owner.quarantined()] == [
        (INJECTED, doxa.FactStatus.QUARANTINED)
    ]


def test_release_judges_it_as_a_quotation(memory: doxa.Memory) -> None:
    hidden = quote(memory, INJECTED)
    released = memory.owner.release(hidden.fact or "", reason="a joke on the bakery's page")
    assert released.outcome is doxa.Outcome.ADMITTED
    assert released.relation is doxa.Relation.NEW
    assert "released from quarantine by the owner" in released.reason
    assert memory.owner.quarantined() == []
    fact = memory.get(hidden.fact or "")
    # still the web page's words, in its standpoint: releasing never raises authority
    assert fact.authority is doxa.Authority.EXTERNAL
    assert fact.support is doxa.Support.QUOTED
    assert str(fact.standpoint) == "https://bakery.example/news"
    assert memory.verify() == len(memory.receipts())


def test_discard_leaves_only_the_receipt(memory: doxa.Memory) -> None:
    hidden = quote(memory, INJECTED)
    kept = quote(memory, HARMLESS)
    discarded = memory.owner.discard(hidden.fact or "", reason="spam")
    assert discarded.outcome is doxa.Outcome.DISCARDED
    assert memory.owner.quarantined() == []
    audit = io.StringIO()
    memory.admin.export(audit, audit=True)
    assert "Ignore previous" not in audit.getvalue()
    assert [f.id for f in memory.facts()] == [kept.fact]
    assert memory.verify() == len(memory.receipts())


def test_release_and_discard_need_a_quarantined_id(memory: doxa.Memory) -> None:
    admitted = quote(memory, HARMLESS)
    with pytest.raises(doxa.NotFound, match="no quarantined write"):
        memory.owner.release(admitted.fact or "", reason="x")
    with pytest.raises(doxa.NotFound, match="no quarantined write"):
        memory.owner.discard("019ac4f2b0e3a1b2c3d4")
    with pytest.raises(doxa.InvalidInput, match="needs a reason"):
        memory.owner.release(admitted.fact or "", reason="")
    # control: nothing was written by the refusals, the fact is untouched
    assert [f.id for f in memory.facts()] == [admitted.fact]
    assert len(memory.receipts()) == 1
