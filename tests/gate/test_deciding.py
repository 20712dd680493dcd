"""The one template every decision of the gate is taken through, and the parts that use it."""

from __future__ import annotations

import threading

import pytest

import doxa
from doxa.gate import deciding
from doxa.gate.deciding import MAX_ATTEMPTS, Decider
from doxa.gate.owner import WritePath
from doxa.gate.record import Decision


@pytest.fixture
def no_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deciding, "pause", lambda attempt: None)


def other_thread_gets(lock: threading.RLock) -> bool:
    """Whether another thread could take ``lock`` now (it lets go at once)."""
    got: list[bool] = []

    def attempt() -> None:
        got.append(lock.acquire(blocking=False))
        if got[0]:
            lock.release()

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join()
    return got[0]


def test_a_step_that_loses_to_another_process_runs_again_afresh(no_pause: None) -> None:
    with doxa.Memory.open(None, scope="s") as mem:
        decider = mem.gate.decider
        assert isinstance(decider, Decider)
        given: list[Decision] = []

        def step(decision: Decision) -> str:
            given.append(decision)
            if len(given) < 3:
                raise doxa.WriteConflict("another process published first")
            assert not other_thread_gets(mem.store.lock)  # it runs under the store's lock
            return "decided"

        assert decider.decide(step) == "decided"
        assert other_thread_gets(mem.store.lock)  # control: let go once decided
        assert len(given) == 3
        assert len({id(d) for d in given}) == 3  # each attempt starts from a fresh decision


def test_a_step_that_always_loses_raises_write_conflict(no_pause: None) -> None:
    with doxa.Memory.open(None, scope="s") as mem:
        attempts = 0

        def step(decision: Decision) -> None:
            nonlocal attempts
            attempts += 1
            raise doxa.WriteConflict("another process published first")

        with pytest.raises(doxa.WriteConflict):
            mem.gate.decider.decide(step)
        assert attempts == MAX_ATTEMPTS
        # control: other errors are the step's answer, not a race: raised at once
        attempts = 0

        def refused(decision: Decision) -> None:
            nonlocal attempts
            attempts += 1
            raise doxa.NotFound("nothing to decide")

        with pytest.raises(doxa.NotFound):
            mem.gate.decider.decide(refused)
        assert attempts == 1


def test_the_gate_is_the_write_path_its_owner_decisions_judge_through() -> None:
    with doxa.Memory.open(None, scope="s") as mem:
        assert isinstance(mem.gate, WritePath)
        assert mem.gate.owner.write_path is mem.gate
    assert not isinstance(object(), WritePath)  # control: the contract is not vacuous
