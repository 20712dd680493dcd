"""The history timeline SVG: well-formed, one marker per event, endings drawn on both clocks."""

from __future__ import annotations

from xml.etree import ElementTree

import doxa
from doxa.interfaces.http.timeline import timeline_svg

SVG = "{http://www.w3.org/2000/svg}"


def drawn(memory: doxa.Memory, fact_id: str) -> ElementTree.Element:
    history = memory.history(fact_id)
    versions = [history.fact, *(memory.get(s) for s in history.successors)]
    return ElementTree.fromstring(timeline_svg(history, versions, memory.clock.now()))


def classes(root: ElementTree.Element, tag: str) -> list[str]:
    return [e.get("class", "") for e in root.iter(f"{SVG}{tag}")]


def test_a_retraction_ends_belief_and_voids_validity(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """A retracted fact: one version, a hollow valid lane, a retraction marker; the live fact
    beside it (control) has a filled lane and only its recording."""
    wrong = memory.remember("Bob was born in 1971", topic="people", authority="owner").fact
    right = memory.remember("Bob likes tea", topic="people", authority="owner").fact
    assert wrong is not None
    assert right is not None
    clock.set("2026-03-05T09:00:00Z")
    memory.owner.retract(wrong, reason="it was 1977")
    root = drawn(memory, wrong)
    assert [
        g.get("data-kind") for g in root.iter(f"{SVG}g") if "event" in g.get("class", "").split()
    ] == [
        "recorded",
        "retracted",
    ]
    assert "lane valid void" in classes(root, "rect")
    control = drawn(memory, right)
    assert "lane valid" in classes(control, "rect")
    assert "lane valid void" not in classes(control, "rect")
    assert [
        g.get("data-kind") for g in control.iter(f"{SVG}g") if "event" in g.get("class", "").split()
    ] == ["recorded"]


def test_text_is_escaped(memory: doxa.Memory) -> None:
    """Reasons with markup stay text inside the SVG (it parses, and no element is injected)."""
    fact = memory.remember("A <b>bold</b> claim & more", topic="t", authority="owner").fact
    assert fact is not None
    memory.owner.retract(fact, reason='<script>alert("x")</script>')
    root = drawn(memory, fact)
    assert list(root.iter(f"{SVG}script")) == []
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert any('<script>alert("x")</script>' in t for t in titles)
