"""The hint under a held write's receipt names the command that decides it.

A write held as "unclear" may ask "replace or add?", which a plain ``doxa approve`` refuses
(it would leave two values live and teach nothing), so its hint names ``--as``; a write held
for any other relation keeps the plain command (the control)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import doxa
from doxa.interfaces.cli.show import receipt_text


def held(relation: doxa.Relation) -> doxa.Receipt:
    return doxa.Receipt(
        id="r1",
        sequence=3,
        relation=relation,
        outcome=doxa.Outcome.HELD,
        recorded_at=datetime(2026, 3, 9, tzinfo=UTC),
        judge="rule",
        judge_version="5",
        reason="held",
        fact="f1",
        held="f1",
    )


def hint(receipt: doxa.Receipt) -> str:
    return receipt_text(receipt).splitlines()[-1]


def test_an_unclear_hold_names_the_answers() -> None:
    assert hint(held(doxa.Relation.UNCLEAR)) == (
        "  waiting for the owner: `doxa approve f1 --as replaces|new|was_wrong` or "
        "`doxa reject f1 --reason TEXT`"
    )


@pytest.mark.parametrize("relation", [doxa.Relation.REPLACES, doxa.Relation.INSTRUCTION])
def test_another_hold_keeps_the_plain_approve(relation: doxa.Relation) -> None:
    assert hint(held(relation)) == (
        "  waiting for the owner: `doxa approve f1` or `doxa reject f1 --reason TEXT`"
    )
