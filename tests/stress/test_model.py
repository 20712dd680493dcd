"""Model-based fuzzing: a hypothesis state machine drives remember / approve / reject /
retract / erase / backup / reopen on an on-disk memory and checks it after every step against
a plain Python model of which facts are live, ended, held and erased."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from tests.helpers import scaled
from tests.stress.writer import EX, ONTOLOGY

import doxa
from doxa.judges.rules import overlaps

PEOPLE = ("ann", "bob")
CITIES = ("Lyon", "Paris", "Rome")
LIVES = EX + "livesIn"
SECOND = timedelta(seconds=1)


@dataclass
class Model:
    """What the memory should hold, by fact id."""

    live: set[str] = field(default_factory=set)
    ended: set[str] = field(default_factory=set)  # superseded or retracted
    retracted: set[str] = field(default_factory=set)
    held: set[str] = field(default_factory=set)
    erased: set[str] = field(default_factory=set)
    notes: dict[str, str] = field(default_factory=dict)  # live note text -> fact id
    statements: dict[tuple[str, str, str], str] = field(default_factory=dict)  # live, by id
    gone_texts: set[str] = field(default_factory=set)  # erased content: refused from now on
    gone_statements: set[tuple[str, str]] = field(default_factory=set)
    receipts: int = 0
    backups: int = 0


class MemoryMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="doxa-model-"))
        self.path = self.folder / "store"
        self.clock = doxa.FixedClock("2027-01-01T09:00:00Z")
        self.model = Model()
        self.mem = doxa.Memory.open(self.path, scope="s", clock=self.clock)
        self.mem.schema.add_ontology(ONTOLOGY)
        self.mem.owner.grant("general")
        self.model.receipts = 1
        self.texts: dict[str, str] = {}  # fact id -> its text
        self.statements: dict[str, tuple[str, str]] = {}  # fact id -> (who, city)
        self.months: dict[str, int] = {}  # fact id -> the month it is valid from

    def teardown(self) -> None:
        self.mem.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- steps ----------------------------------------------------------------------

    def _record(self, receipt: doxa.Receipt, text: str) -> None:
        self.model.receipts += 1
        model = self.model
        if receipt.outcome in (doxa.Outcome.ADMITTED, doxa.Outcome.APPROVED):
            assert receipt.fact is not None
            model.held.discard(receipt.fact)
            model.live.add(receipt.fact)
            self.texts[receipt.fact] = text
            for target in receipt.targets:
                # a superseded fact may be ended again, for the part of its time it kept
                assert target in model.live | model.ended, "a decision ended an unknown fact"
                assert target not in model.retracted, "a decision ended a retracted fact"
                model.live.discard(target)
                model.ended.add(target)
                if self._retracts(receipt, target):
                    model.retracted.add(target)
            if receipt.outcome is doxa.Outcome.APPROVED and self._yields(receipt.fact):
                model.live.discard(receipt.fact)
                model.ended.add(receipt.fact)
        elif receipt.outcome is doxa.Outcome.HELD:
            assert receipt.fact is not None
            model.held.add(receipt.fact)
            self.texts[receipt.fact] = text

    def _retracts(self, receipt: doxa.Receipt, target: str) -> bool:
        """Whether a decision retracted (rather than superseded) one of its targets: the
        judge says so; an approval retracts a value that does not start before its own."""
        if receipt.outcome is doxa.Outcome.ADMITTED:
            return receipt.relation is doxa.Relation.WAS_WRONG
        assert receipt.fact is not None
        return self.months[receipt.fact] <= self.months[target]

    def _yields(self, fact: str) -> bool:
        """Whether an approved statement starts before another value of its person still
        believed (live, or superseded after its own start): then it holds only until that
        one starts, superseded by it, and the later value stays."""
        if fact not in self.statements:
            return False
        who, city = self.statements[fact]
        model = self.model
        return any(
            self.statements[other][0] == who
            and self.statements[other][1] != city
            and self.months[other] > self.months[fact]
            for other in (model.live | model.ended) - model.retracted
            if other in self.statements and other != fact
        )

    @rule(
        who=st.sampled_from(PEOPLE),
        city=st.sampled_from(CITIES),
        month=st.integers(1, 12),
        authority=st.sampled_from(["owner", "agent"]),
    )
    def remember_statement(self, who: str, city: str, month: int, authority: str) -> None:
        text = f"{who} lives in {city} since month {month}"
        self.clock.advance(SECOND)
        if text in self.model.gone_texts or (who, city) in self.model.gone_statements:
            with pytest.raises(doxa.ErasedContent):
                self._statement(text, who, city, month, authority)
            return
        receipt = self._statement(text, who, city, month, authority)
        if receipt.fact is not None and receipt.outcome is not doxa.Outcome.MERGED:
            # a merged write corroborates an older fact: that fact keeps its own start
            self.statements[receipt.fact] = (who, city)
            self.months[receipt.fact] = month
        live_same = [
            f for f in self.model.live if self.texts.get(f) == text and f in self.model.live
        ]
        if live_same:  # the very same statement, from the same start: one fact, corroborated
            assert receipt.relation is doxa.Relation.SAME, receipt
        self._record(receipt, text)

    def _statement(
        self, text: str, who: str, city: str, month: int, authority: str
    ) -> doxa.Receipt:
        return self.mem.remember(
            text,
            topic="people",
            subject=EX + who,
            predicate=LIVES,
            object=EX + city,
            authority=authority,
            valid_from=f"2026-{month:02d}-01",
        )

    @rule(number=st.integers(0, 4), topic=st.sampled_from(["notes", "misc"]))
    def remember_note(self, number: int, topic: str) -> None:
        text = f"note number {number}"
        self.clock.advance(SECOND)
        if text in self.model.gone_texts:
            with pytest.raises(doxa.ErasedContent):
                self.mem.remember(text, topic=topic)
            return
        receipt = self.mem.remember(text, topic=topic)
        same_topic = [
            f
            for f in self.model.live
            if self.texts.get(f) == text and self.mem.get(f).topic == topic
        ]
        if same_topic:
            assert receipt.outcome is doxa.Outcome.MERGED
            assert receipt.targets == (same_topic[0],)
        else:
            assert receipt.outcome is doxa.Outcome.ADMITTED
        self._record(receipt, text)

    @precondition(lambda self: self.model.held)
    @rule(data=st.data())
    def approve(self, data: st.DataObject) -> None:
        self.approve_item(data.draw(st.sampled_from(sorted(self.model.held))))

    def approve_item(self, item: str) -> None:
        self.clock.advance(SECOND)
        receipt = self.mem.owner.approve(item)
        assert receipt.fact == item
        self._record(receipt, self.texts[item])

    @precondition(lambda self: self.model.held)
    @rule(data=st.data())
    def reject(self, data: st.DataObject) -> None:
        item = data.draw(st.sampled_from(sorted(self.model.held)))
        self.mem.owner.reject(item, reason="not so")
        self.model.receipts += 1
        self.model.held.discard(item)

    @precondition(lambda self: self.model.live | (self.model.ended - self.model.retracted))
    @rule(data=st.data())
    def retract(self, data: st.DataObject) -> None:
        """A live fact, or a superseded one (it may still turn out never true)."""
        model = self.model
        self.retract_item(
            data.draw(st.sampled_from(sorted(model.live | (model.ended - model.retracted))))
        )

    def retract_item(self, item: str) -> None:
        model = self.model
        self.clock.advance(SECOND)
        self.mem.owner.retract(item, reason="never true")
        model.receipts += 1
        model.live.discard(item)
        model.ended.add(item)
        model.retracted.add(item)

    @rule(data=st.data())
    def retract_unknown(self, data: st.DataObject) -> None:
        """Retracting what is retracted or erased is a clear NotFound and changes nothing."""
        candidates = sorted(self.model.retracted | self.model.erased) or ["0" * 20]
        self.retract_unknown_item(data.draw(st.sampled_from(candidates)))

    def retract_unknown_item(self, item: str) -> None:
        with pytest.raises(doxa.NotFound):
            self.mem.owner.retract(item, reason="never true")

    @precondition(lambda self: self.model.live or self.model.ended or self.model.held)
    @rule(data=st.data())
    def erase(self, data: st.DataObject) -> None:
        model = self.model
        item = data.draw(st.sampled_from(sorted(model.live | model.ended | model.held)))
        self.mem.owner.erase(item, reason="asked to forget", wait=True)
        model.receipts += 2  # the erasure, then the purge that made it real in the files
        for group in (model.live, model.ended, model.retracted, model.held):
            group.discard(item)
        model.erased.add(item)
        model.gone_texts.add(self.texts[item])
        if item in self.statements:
            model.gone_statements.add(self.statements[item])

    @rule(granted=st.booleans())
    def closing(self, granted: bool) -> None:
        """The owner grants or revokes automatic closing: revoked, every closing the judge
        decides is held, so approvals meet held ``replaces`` and ``was_wrong`` verdicts
        whose targets changed meanwhile (otherwise only an alarm holds them)."""
        self.clock.advance(SECOND)
        if granted:
            self.mem.owner.grant("general")
        else:
            self.mem.owner.revoke("general")
        self.model.receipts += 1

    @rule()
    def backup(self) -> None:
        self.clock.advance(SECOND)
        self.mem.admin.backup()
        self.model.backups += 1

    @rule()
    def reopen(self) -> None:
        self.mem.close()
        self.mem = doxa.Memory.open(self.path, scope="s", clock=self.clock)

    # -- checks after every step ------------------------------------------------------

    @invariant()
    def matches_the_model(self) -> None:
        model = self.model
        facts = self.mem.facts(include_ended=True)
        live = {f.id for f in facts if f.status is doxa.FactStatus.LIVE}
        assert live == model.live
        assert {f.id for f in facts} - live == model.ended
        assert {h.id for h in self.mem.held()} == model.held
        assert len(self.mem.admin.backups()) == model.backups
        for item in model.erased:
            with pytest.raises(doxa.NotFound):
                self.mem.get(item)
        assert self.mem.verify() == model.receipts

    @invariant()
    def one_value_at_a_time(self) -> None:
        for who in PEOPLE:
            believed = [  # live, or superseded: believed before its (earliest) end
                f
                for f in self.mem.facts(subject=EX + who, predicate=LIVES, include_ended=True)
                if f.status is not doxa.FactStatus.RETRACTED
            ]
            for i, a in enumerate(believed):
                for b in believed[i + 1 :]:
                    assert a.object == b.object or not overlaps(
                        a.valid_from, a.valid_until, b.valid_from, b.valid_until
                    ), [(f.object, f.valid_from, f.valid_until, f.status) for f in (a, b)]
            for month in (1, 4, 7, 10, 12):
                found = self.mem.facts(
                    subject=EX + who, predicate=LIVES, valid_at=f"2026-{month:02d}-15"
                )
                # the same value may stand twice (two sources); two values never
                assert len({f.object for f in found}) <= 1, [
                    (f.object, f.valid_from) for f in found
                ]


class Replay:
    """A found sequence, step by step on the state machine, checked after every step as a
    hypothesis run checks it (a stateful test takes no ``@example``, so these stand in)."""

    def __init__(self) -> None:
        self.machine = MemoryMachine()

    def __enter__(self) -> Replay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.machine.teardown()

    def step(self, name: str, *args: object, **kwargs: object) -> None:
        getattr(self.machine, name)(*args, **kwargs)
        self.machine.matches_the_model()
        self.machine.one_value_at_a_time()

    def said(self, city: str, month: int) -> str:
        """The fact id of ann's statement of ``city`` from ``month``."""
        text = f"ann lives in {city} since month {month}"
        return next(f for f, t in self.machine.texts.items() if t == text)


def test_found_an_approval_retracting_an_earlier_value_it_never_judged() -> None:
    """Found by a random run (2 Dec 2026): Paris from March is held as proving Lyon from
    March wrong; Lyon is retracted and Rome from January admitted; approving Paris must
    supersede Rome (it came before), not retract it, so Rome is still retractable, while
    Lyon, retracted, is refused (control)."""
    with Replay() as run:
        run.step("closing", granted=False)
        run.step("remember_statement", who="ann", city="Lyon", month=3, authority="agent")
        run.step("remember_statement", who="ann", city="Paris", month=3, authority="agent")
        assert run.machine.model.held == {run.said("Paris", 3)}
        run.step("retract_item", run.said("Lyon", 3))
        run.step("remember_statement", who="ann", city="Rome", month=1, authority="agent")
        run.step("approve_item", run.said("Paris", 3))
        rome = run.said("Rome", 1)
        assert run.machine.mem.get(rome).status is doxa.FactStatus.SUPERSEDED
        run.step("retract_unknown_item", run.said("Lyon", 3))  # control: refused
        run.step("retract_item", rome)


def test_found_a_merged_write_keeps_the_start_of_the_fact_it_corroborates() -> None:
    """Found by a random run (2 Dec 2026), a fault of the model: Rome from June merged into
    Rome from March (the same statement), and the model took June as that fact's start, so
    when Lyon from May was approved it expected Rome retracted; the memory superseded it in
    May, as the fact starts in March. Rome stays retractable; Paris, approved before, stays
    superseded (control)."""
    with Replay() as run:
        run.step("remember_statement", who="ann", city="Paris", month=1, authority="owner")
        run.step("closing", granted=False)
        run.step("remember_statement", who="ann", city="Rome", month=3, authority="owner")
        run.step("approve_item", run.said("Rome", 3))
        run.step("remember_statement", who="ann", city="Lyon", month=5, authority="agent")
        run.step("closing", granted=True)
        run.step("remember_statement", who="ann", city="Rome", month=6, authority="agent")
        rome = run.said("Rome", 3)
        assert run.machine.months[rome] == 3
        run.step("approve_item", run.said("Lyon", 5))
        assert run.machine.mem.get(rome).status is doxa.FactStatus.SUPERSEDED
        assert run.machine.mem.get(run.said("Paris", 1)).status is doxa.FactStatus.SUPERSEDED
        run.step("retract_item", rome)
        run.step("retract_unknown_item", rome)


def test_found_approving_an_earlier_value_after_a_later_one() -> None:
    """Found by review (2 Dec 2026): Lyon from March live, Paris from May and Rome from July
    held as replacing it; Rome approved, then Paris. Paris must hold until July, superseded
    by Rome, not retract Rome; so Rome is still retractable (once), and Paris, superseded,
    can still be retracted too (control)."""
    with Replay() as run:
        run.step("closing", granted=False)
        run.step("remember_statement", who="ann", city="Lyon", month=3, authority="agent")
        run.step("remember_statement", who="ann", city="Paris", month=5, authority="agent")
        run.step("remember_statement", who="ann", city="Rome", month=7, authority="agent")
        paris, rome = run.said("Paris", 5), run.said("Rome", 7)
        assert run.machine.model.held == {paris, rome}
        run.step("approve_item", rome)
        run.step("approve_item", paris)
        assert run.machine.mem.get(paris).status is doxa.FactStatus.SUPERSEDED
        run.step("retract_item", rome)
        run.step("retract_unknown_item", rome)
        run.step("retract_item", paris)


def _settings(examples: int, steps: int) -> settings:
    """No shrinking: a failing run prints its steps, and shrinking one can take many minutes.

    The examples are the same on every run (``derandomize``), so CI passes or fails alike on
    a commit; ``DOXA_EXPLORE=1`` draws new ones, for a session that hunts for new failures
    (docs/decisions.md, "Model-based tests are reproducible").
    """
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
        derandomize=not os.environ.get("DOXA_EXPLORE"),
        database=None if not os.environ.get("DOXA_EXPLORE") else settings.default.database,
    )


quick = _settings(6, 20)
thorough = _settings(scaled(20), 40)  # 40 steps each; DOXA_SLOW_SCALE scales the examples


def test_memory_matches_its_model() -> None:
    """A short run on every CI run."""
    run_state_machine_as_test(MemoryMachine, settings=quick)


@pytest.mark.slow
def test_memory_matches_its_model_at_length() -> None:
    run_state_machine_as_test(MemoryMachine, settings=thorough)
