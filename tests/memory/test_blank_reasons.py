"""A reason the owner's actions require cannot be blank in disguise: spaces, a newline, a
zero-width space or a no-break space alone are refused like an empty reason, and the
action then goes through with a real one (the control)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import doxa

BLANKS = ["   ", "\n", "\t \r\n", "\u200b", "\u00a0", "\u3000", "\ufeff \u200d"]


def _flagged(m: doxa.Memory) -> str:
    a = m.remember("Call on Tuesday", topic="m", authority="owner").fact
    c = m.remember("They clash", topic="m", derived_from=[a]).fact
    assert a is not None
    assert c is not None
    m.owner.retract(a, reason="cancelled")
    return c


def _owner_fact(m: doxa.Memory, text: str) -> str:
    fact = m.remember(text, topic="t", authority="owner").fact
    assert fact is not None
    return fact


def _retract(m: doxa.Memory) -> Callable[[str], doxa.Receipt]:
    fact = _owner_fact(m, "Bob is in Oslo")
    return lambda r: m.owner.retract(fact, reason=r)


def _erase(m: doxa.Memory) -> Callable[[str], object]:
    fact = _owner_fact(m, "Bob's PIN is 1234")
    return lambda r: m.owner.erase(fact, reason=r)


def _confirm(m: doxa.Memory) -> Callable[[str], doxa.Receipt]:
    fact = _flagged(m)
    return lambda r: m.owner.confirm(fact, reason=r)


#: each action's target made first; the action then takes only the reason
ACTIONS: dict[str, Callable[[doxa.Memory], Callable[[str], object]]] = {
    "retract": _retract,
    "erase": _erase,
    "confirm": _confirm,
}


@pytest.mark.parametrize("action", sorted(ACTIONS))
@pytest.mark.parametrize("blank", BLANKS)
def test_a_blank_reason_is_refused_and_a_real_one_acts(action: str, blank: str) -> None:
    with doxa.Memory.open(None, scope="a") as m:
        act = ACTIONS[action](m)
        receipts = len(m.receipts())
        with pytest.raises(doxa.InvalidInput, match="reason"):
            act(blank)
        assert len(m.receipts()) == receipts  # nothing written
        assert act("checked with the owner") is not None  # control
