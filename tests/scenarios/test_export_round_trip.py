"""An export taken from any backend verifies on its own and restores elsewhere with the same
answers; exporting the restored copy gives the same bytes (on every backend: the export
reads the store through its query interface, which a SPARQL server answers differently)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from tests.conftest import EX

import doxa
from doxa.audit.chain import verify_export
from doxa.store import EmbeddedStore


def _history(mem: doxa.Memory) -> None:
    mem.owner.grant("location")
    mem.remember("Ann drinks green tea", topic="drinks", authority="owner")
    wrong = mem.remember("Ann likes black coffee", topic="drinks").fact
    assert wrong is not None
    mem.owner.retract(wrong, reason="never true")
    for city in ("Lyon", "Rome"):
        mem.remember(
            f"Ann lives in {city}",
            topic="places",
            subject=EX + "ann",
            predicate=EX + "livesIn",
            object=EX + city,
            kind="location",
            authority="owner",
            valid_from=mem.clock.now(),  # moved then: the old city is superseded, not wrong
        )
        mem.clock.advance(timedelta(days=3))  # type: ignore[attr-defined]


def _answers(mem: doxa.Memory) -> list[tuple[str, str, str]]:
    return sorted((f.id, f.text, f.status.value) for f in mem.facts(include_ended=True))


@pytest.mark.parametrize("suffix", [".nq", ".trig"])
def test_an_export_restores_with_the_same_answers(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path, suffix: str
) -> None:
    _history(memory)
    first, second = tmp_path / f"first{suffix}", tmp_path / f"second{suffix}"
    count = memory.admin.export(first)
    assert verify_export(first) == {str(memory.scope.log): len(memory.receipts())}
    copy = doxa.Memory(EmbeddedStore(), scope="alice", clock=clock)
    assert copy.admin.load_export(first) == count
    assert copy.admin.export(second) == count
    assert second.read_bytes() == first.read_bytes()
    answers = _answers(copy)
    assert answers == _answers(memory)
    statuses = {text: status for _, text, status in answers}
    assert statuses["Ann likes black coffee"] == "retracted"
    assert statuses["Ann lives in Lyon"] == "superseded"
    assert statuses["Ann lives in Rome"] == "live"  # control: not everything ended


def test_an_export_changed_by_one_quad_does_not_verify(memory: doxa.Memory, tmp_path: Path) -> None:
    _history(memory)
    export = tmp_path / "x.nq"
    memory.admin.export(export)
    verify_export(export)  # control: the untouched export verifies
    text = export.read_text(encoding="utf-8")
    assert "Ann drinks green tea" in text
    export.write_text(text.replace("Ann drinks green tea", "Ann drinks red wine"), encoding="utf-8")
    with pytest.raises(doxa.DoxaError):
        verify_export(export)
