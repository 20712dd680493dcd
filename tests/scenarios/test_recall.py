"""Recall on every backend: the word index, both clocks and the endings read the same way
whether the store is embedded or a SPARQL server."""

from __future__ import annotations

from tests.conftest import EX

import doxa


def test_recall_follows_both_clocks(memory: doxa.Memory, clock: doxa.FixedClock) -> None:
    memory.owner.grant("location")
    lyon = memory.remember(
        "Bob lives in Lyon near the river",
        topic="places",
        kind="location",
        subject=EX + "bob",
        predicate=EX + "livesIn",
        object=EX + "Lyon",
        valid_from="2026-01-01",
    )
    note = memory.remember("Bob likes the river walk", topic="notes")
    wrong = memory.remember("Bob swims in the river", topic="notes")
    clock.set("2026-03-05T09:00:00Z")
    rome = memory.remember(
        "Bob lives in Rome near the river",
        topic="places",
        kind="location",
        subject=EX + "bob",
        predicate=EX + "livesIn",
        object=EX + "Rome",
        valid_from="2026-03-01",
    )
    memory.owner.retract(wrong.fact or "", reason="he never swims")
    now = {f.id for f in memory.recall("river")}
    assert now == {rome.fact, note.fact}  # Lyon was superseded, the swim retracted
    assert {f.id for f in memory.recall("river", valid_at="2026-02-01")} == {lyon.fact, note.fact}
    believed = memory.recall("river", as_of="2026-03-02", valid_at="2026-03-02")
    assert {f.id for f in believed} == {lyon.fact, note.fact, wrong.fact}
    ended = {f.id: f.status for f in memory.recall("river", include_ended=True)}
    assert ended[lyon.fact] is doxa.FactStatus.SUPERSEDED
    assert ended[wrong.fact] is doxa.FactStatus.RETRACTED
    assert [f.id for f in memory.recall("river", topic="places")] == [rome.fact]
    assert memory.recall("lyon river", include_ended=True)[0].id == lyon.fact
