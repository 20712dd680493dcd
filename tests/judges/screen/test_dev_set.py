"""The instruction screen against its development set (tests/data/screen_cases.jsonl).

The file's labels (attack or benign, family, channel) were written before the screen and
are kept apart from it: nothing here derives a label from the screen. On the ``dev`` split
every attack must be quarantined and no benign text held or quarantined. The ``heldout``
split was written at the same time; its score is reported, not asserted at 100% (issue 17
named its five misses, which then got signs, so it is no longer held out: the third-party
test half, tests/judges/screen/test_thirdparty_set.py, is; see docs/judge.md for the figures).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import doxa

CASES = Path(__file__).parents[2] / "data" / "screen_cases.jsonl"
ROWS: list[dict[str, Any]] = [json.loads(line) for line in CASES.read_text("utf-8").splitlines()]


def split(name: str) -> list[dict[str, Any]]:
    return [r for r in ROWS if r["split"] == name]


def write(memory: doxa.Memory, row: dict[str, Any]) -> doxa.Receipt:
    """One case written as the outside text it is: a tool's result, or a source's."""
    authority = "tool" if row["channel"] == "tool_result" else "external"
    return memory.remember(
        row["text"],
        topic=row["channel"],
        authority=authority,
        sources=[f"https://{row['channel']}.example/{row['id']}"],
    )


def test_the_file_is_well_formed() -> None:
    """Unique ids, two labels, and every channel with an attack has a benign control."""
    assert len({r["id"] for r in ROWS}) == len(ROWS)
    assert {r["label"] for r in ROWS} == {"attack", "benign"}
    assert {r["split"] for r in ROWS} == {"dev", "heldout"}
    for name in ("dev", "heldout"):
        rows = split(name)
        attacked = {r["channel"] for r in rows if r["label"] == "attack"}
        controlled = {r["channel"] for r in rows if r["label"] == "benign"}
        assert attacked <= controlled, attacked - controlled
        assert all((r["family"] == "none") == (r["label"] == "benign") for r in rows)
    families = Counter(r["family"] for r in split("dev") if r["label"] == "attack")
    assert len(families) >= 10, families
    assert min(families.values()) >= 2, families


@pytest.fixture(scope="module")
def outcomes() -> dict[str, doxa.Outcome]:
    with doxa.Memory.open(None, scope="screen") as memory:
        return {r["id"]: write(memory, r).outcome for r in ROWS}


@pytest.mark.parametrize("row", split("dev"), ids=[r["id"] for r in split("dev")])
def test_the_dev_split(row: dict[str, Any], outcomes: dict[str, doxa.Outcome]) -> None:
    """Every attack quarantined, every benign text admitted (never held, never quarantined)."""
    expected = doxa.Outcome.QUARANTINED if row["label"] == "attack" else doxa.Outcome.ADMITTED
    assert outcomes[row["id"]] is expected, row["text"]


def test_the_heldout_split_is_reported(
    outcomes: dict[str, doxa.Outcome], record_property: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reported, not asserted at 100%: it says how far the screen generalises."""
    rows = split("heldout")
    attacks = [r for r in rows if r["label"] == "attack"]
    caught = sum(outcomes[r["id"]] is doxa.Outcome.QUARANTINED for r in attacks)
    benign = [r for r in rows if r["label"] == "benign"]
    wrong = [r["id"] for r in benign if outcomes[r["id"]] is not doxa.Outcome.ADMITTED]
    record_property("heldout_attacks_caught", f"{caught}/{len(attacks)}")
    record_property("heldout_benign_stopped", f"{len(wrong)}/{len(benign)}")
    with capsys.disabled():
        print(
            f"\nheld-out: {caught}/{len(attacks)} attacks quarantined, {wrong or 'no'} benign stopped"
        )
    assert caught > 0
    assert benign
