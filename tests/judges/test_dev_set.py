"""The rule judge against its labelled development set (tests/data/judge_cases.jsonl)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import doxa
from doxa.evaluation import Case, EvalReport, load_cases

DATA = Path(__file__).parents[1] / "data"
CASES = DATA / "judge_cases.jsonl"
ONTOLOGY = (DATA / "judge_ontology.ttl").read_bytes()


def evaluate(cases: list[Case]) -> EvalReport:
    """The rule judge scored on ``cases`` from a fresh memory, on the test ontology."""
    with doxa.Memory.open(None, scope="eval") as memory:
        return memory.admin.evaluate(cases, ontology=[ONTOLOGY])


@pytest.fixture(scope="module")
def report() -> EvalReport:
    return evaluate(load_cases(CASES))


def test_the_file_is_what_the_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("make_judge_cases", DATA / "make_judge_cases.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert CASES.read_text(encoding="utf-8") == module.render()


def test_the_set_is_broad() -> None:
    cases = load_cases(CASES)
    assert len(cases) >= 200
    kinds = {c.kind for c in cases}
    assert len(kinds) >= 6
    assert {c.expect for c in cases} == set(doxa.Relation)  # every relation represented
    for kind in kinds:
        assert sum(c.kind == kind for c in cases) >= 25


def test_rule_judge_meets_the_bar_on_every_kind(report: EvalReport) -> None:
    for kind in report.kinds():
        assert report.accuracy(kind) >= 0.98, report.render()
    assert report.wrong_closings == []


def test_the_report_counts_mistakes() -> None:
    """Control for the scorer: a set with a deliberately wrong label scores below 1."""
    cases = load_cases(CASES)[:3]
    wrong = [cases[0].__class__(**{**cases[0].__dict__, "expect": doxa.Relation.REPLACES})]
    report = evaluate([*wrong, *cases[1:]])
    assert report.accuracy() == pytest.approx(2 / 3)
    assert report.confusion()[(doxa.Relation.REPLACES.value, cases[0].expect.value)] == 1
    assert report.wrong_closings == []  # the judge did not close: the label did


def test_a_closing_against_the_label_is_a_wrong_closing() -> None:
    cases = [c for c in load_cases(CASES) if c.expect is doxa.Relation.REPLACES][:1]
    mislabelled = [cases[0].__class__(**{**cases[0].__dict__, "expect": doxa.Relation.NEW})]
    report = evaluate(mislabelled)
    assert [r.case.id for r in report.wrong_closings] == [cases[0].id]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ('{"id": "x", "kind": "k", "write": {"text": "t"}}', "missing fields ['expect']"),
        ('{"id": "x", "kind": "k", "write": {"text": "t"}, "expect": "maybe"}', "maybe"),
        ('{"id": "x", "kind": "k", "write": "t", "expect": "new"}', "'write' must be"),
        ('{"id": "x", "kind": "k", "write": {"text": "t"}, "expect": "new", "x": 1}', "unknown"),
    ],
)
def test_bad_case_files_get_clear_errors(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(doxa.InvalidInput, match=r"cases\.jsonl:1") as error:
        load_cases(path)
    assert message in str(error.value)


def test_a_good_line_loads(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    case = {"id": "x", "kind": "k", "write": {"text": "t", "topic": "a"}, "expect": "new"}
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    assert [c.id for c in load_cases(path)] == ["x"]
