"""``doxa judge eval|calibrate``, ``doxa stats``, ``doxa alarms`` and ``doxa rejudge``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.interfaces.cli.test_cli import EX, SUPPLIER_ONTOLOGY, run, run_json

from doxa import FixedClock

DATA = Path(__file__).parents[2] / "data"
CLOCK = FixedClock("2026-03-01T09:00:00Z")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "memory"
    ontology = tmp_path / "domain.ttl"
    ontology.write_text(SUPPLIER_ONTOLOGY, encoding="utf-8")
    assert run(path, "ontology", "add", str(ontology)).exit_code == 0
    return path


def cases(tmp_path: Path, count: int, *, wrong: int = 0) -> Path:
    lines = []
    for i in range(count):
        given = {
            "text": "Wednesday",
            "topic": "calls",
            "kind": "schedule",
            "subject": f"{EX}c{i}",
            "predicate": EX + "dayOfWeek",
            "object": EX + "Wednesday",
            "valid_from": "2026-01-05",
            "authority": "owner",
        }
        write = {**given, "text": "Thursday", "object": EX + "Thursday", "valid_from": "2026-03-02"}
        expect = "new" if i >= count - wrong else "replaces"
        lines.append(
            json.dumps(
                {
                    "id": f"c{i}",
                    "kind": "schedule",
                    "given": [given],
                    "write": write,
                    "expect": expect,
                }
            )
        )
    path = tmp_path / f"cases-{count}-{wrong}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_judge_eval_prints_accuracy_and_confusion(store: Path) -> None:
    result = run(
        store,
        "judge",
        "eval",
        str(DATA / "judge_cases.jsonl"),
        "--ontology",
        str(DATA / "judge_ontology.ttl"),
    )
    assert result.exit_code == 0, result.stderr
    assert "location          36    100.0%" in result.stdout
    assert "wrong closings: 0" in result.stdout
    assert "confusion (rows: expected, columns: judged)" in result.stdout
    # eval records nothing
    assert run_json(store, "receipts") == []


def test_judge_eval_reports_mistakes(store: Path, tmp_path: Path) -> None:
    data = run_json(store, "judge", "eval", str(cases(tmp_path, 4, wrong=1)))
    assert data["accuracy"] == 0.75
    assert data["wrong_closings"] == ["c3"]
    assert data["mistakes"][0]["judged"] == "replaces"


def test_judge_calibrate_earns_closing(store: Path, tmp_path: Path) -> None:
    file = cases(tmp_path, 50)
    assert run(store, "judge", "calibrate", str(file), clock=CLOCK).exit_code == 0
    ledger = run_json(store, "stats")["ledger"]
    assert ledger == [
        {
            "judge": "rule/5",
            "kind": "schedule",
            "agreements": 50,
            "decisions": 50,
            "agreement": 1.0,
            "earned": True,
        }
    ]
    again = run(store, "judge", "calibrate", str(file), clock=CLOCK)
    assert again.exit_code == 2
    assert "already counted" in again.stderr


def test_judge_eval_bad_file(store: Path, tmp_path: Path) -> None:
    missing = run(store, "judge", "eval", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{\n", encoding="utf-8")
    broken = run(store, "judge", "eval", str(bad))
    assert broken.exit_code == 2
    assert "bad.jsonl:1: not JSON" in broken.stderr


def write_day(store: Path, who: str, day: str, start: str, *more: str) -> dict[str, object]:
    return run_json(  # type: ignore[no-any-return]
        store,
        "remember",
        f"{who} on {day}",
        "--topic=calls",
        "--kind=schedule",
        f"--subject={EX}{who}",
        f"--predicate={EX}dayOfWeek",
        f"--object={EX}{day}",
        f"--valid-from={start}",
        "--authority=owner",
        *more,
        clock=CLOCK,
    )


def test_stats_counts_holds_and_needless_holds(store: Path) -> None:
    write_day(store, "bob", "Wednesday", "2026-01-05")
    held = write_day(store, "bob", "Thursday", "2026-02-01")
    assert held["outcome"] == "held"
    assert run(store, "approve", str(held["held"]), clock=CLOCK).exit_code == 0
    text = run(store, "stats", clock=CLOCK).stdout
    assert "schedule  2       1         0       1     0            0         1" in text
    data = run_json(store, "stats")
    [kind] = data["kinds"]
    assert (kind["writes"], kind["held"], kind["needless_holds"]) == (2, 1, 1)
    assert kind["needless_hold_rate"] == 0.5


def test_alarms_list_and_clear(store: Path) -> None:
    assert run(store, "grant", "schedule", clock=CLOCK).exit_code == 0
    for who in "abc":
        write_day(store, who, "Wednesday", "2026-01-05")
    for who in "abc":
        write_day(store, who, "Thursday", "2026-02-01", "--source=https://feed.example/")
    [alarm] = run_json(store, "alarms")
    assert "3 closings" in alarm["reason"]
    assert run(store, "alarms", clock=CLOCK).stdout.startswith("alarm")
    missing_reason = run(store, "alarms", "clear", alarm["id"])
    assert missing_reason.exit_code == 2
    cleared = run_json(store, "alarms", "clear", alarm["id"], "--reason", "checked")
    assert cleared["outcome"] == "cleared"
    assert run(store, "alarms").stdout.strip() == "No open alarms."
    assert len(run_json(store, "alarms", "--all")) == 1


def test_rejudge_with_nothing_unchecked(store: Path) -> None:
    result = run(store, "rejudge")
    assert result.exit_code == 0
    assert result.stdout.strip() == "Nothing was judged again."


def test_stats_json_carries_every_field_the_python_api_lists(store: Path) -> None:
    """`--json stats` has each field docs/python-api.md names for Stats, KindStats and each
    ledger Standing (`agreement` was missing); the values agree with Memory's (control)."""
    write_day(store, "bob", "Wednesday", "2026-01-05")
    held = write_day(store, "bob", "Thursday", "2026-02-01")
    assert run(store, "approve", str(held["held"]), clock=CLOCK).exit_code == 0
    data = run_json(store, "stats")
    assert set(data) == {"kinds", "ledger", "open_alarms", "footprint"}
    assert set(data["footprint"]) == {"claims", "disk_bytes", "resident_bytes"}
    [kind] = data["kinds"]
    assert set(kind) == {
        "kind",
        "outcomes",
        "relations",
        "writes",
        "held",
        "needless_holds",
        "needless_hold_rate",
    }
    [standing] = data["ledger"]
    assert set(standing) == {"judge", "kind", "agreements", "decisions", "agreement", "earned"}
    assert standing["agreement"] == standing["agreements"] / standing["decisions"]


def test_alarms_all_on_an_empty_scope_says_no_alarms(store: Path) -> None:
    """`alarms --all` with none raised says "No alarms." (it said "No open alarms."), and the
    plain list still says "No open alarms." (control)."""
    assert run(store, "alarms", "--all").stdout == "No alarms.\n"
    assert run(store, "alarms").stdout == "No open alarms.\n"


def test_stats_shows_the_memorys_footprint(store: Path) -> None:
    """Claims on record, the store's bytes on disk and resident memory (issue 35): the text
    line and the JSON agree, and two more claims count two more (the control)."""
    write_day(store, "bob", "Wednesday", "2026-01-05")
    before = run_json(store, "stats")["footprint"]
    assert before["claims"] == 1
    assert before["disk_bytes"] > 0
    assert before["resident_bytes"] > 0
    write_day(store, "ann", "Monday", "2026-01-05")
    write_day(store, "cid", "Monday", "2026-01-05")
    after = run_json(store, "stats")["footprint"]
    assert after["claims"] == 3
    text = run(store, "stats", clock=CLOCK).stdout
    assert "claims on record: 3; store on disk: " in text
    assert "bytes a claim" in text
    assert "resident memory: " in text
