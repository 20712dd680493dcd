"""Approving held values of one slot in either order gives one timeline, ordered by valid time.

Found by the review of the approval fix (docs/decisions.md, "Approving an earlier value after
a later one"): Lyon from March is live; Paris from May and Rome from July are both held as
replacing Lyon; the owner approves Rome, then Paris. Paris was found to retract Rome (never
true, because an earlier value was approved after it), and with ``as_relation="replaces"``
to supersede Rome in May, before its own start. Now a value starting after the approved one
is left standing and the approved one holds until it starts, exactly as if the two had been
approved in order; Lyon's end, moved from July to May, is a second supersession beside the
first, so what was believed in between is still answered. Each case has its control.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from rdflib import URIRef
from tests.gate.test_approve_unjudged import LIVES, lives
from tests.stress.writer import EX, ONTOLOGY

import doxa

Timeline = list[tuple[str, doxa.FactStatus, str | None, str | None]]

#: the in-order history: Lyon March-May, Paris May-July, Rome from July
IN_ORDER: Timeline = [
    ("Lyon", doxa.FactStatus.SUPERSEDED, "2026-03-01", "2026-05-01"),
    ("Paris", doxa.FactStatus.SUPERSEDED, "2026-05-01", "2026-07-01"),
    ("Rome", doxa.FactStatus.LIVE, "2026-07-01", None),
]


class Slot:
    """One on-disk memory where every closing is held: Lyon from March live, Paris from May
    and Rome from July held as replacing it."""

    def __init__(self, folder: Path) -> None:
        self.clock = doxa.FixedClock("2026-03-01T09:00:00Z")
        self.mem = doxa.Memory.open(folder / "store", scope="s", clock=self.clock)
        self.mem.schema.add_ontology(ONTOLOGY)
        self.mem.owner.revoke("general")
        self.ids: dict[str, str] = {}
        lyon = self.lives("Lyon", 3)
        assert lyon.outcome is doxa.Outcome.ADMITTED
        for city, month in (("Paris", 5), ("Rome", 7)):
            receipt = self.lives(city, month)
            assert (receipt.outcome, receipt.relation) == (
                doxa.Outcome.HELD,
                doxa.Relation.REPLACES,
            )

    def lives(self, city: str, month: int) -> doxa.Receipt:
        receipt = lives(self.mem, self.clock, city, month)
        assert receipt.fact is not None
        self.ids[city] = receipt.fact
        return receipt

    def approve(self, city: str, as_relation: doxa.Relation | None = None) -> doxa.Receipt:
        self.clock.advance(timedelta(seconds=1))
        return self.mem.owner.approve(self.ids[city], as_relation=as_relation)

    def timeline(self) -> Timeline:
        """Each value's status and valid time; no value ends before it starts."""
        found = []
        for city in ("Lyon", "Paris", "Rome"):
            fact = self.mem.get(self.ids[city])
            assert fact.valid_from is not None
            assert fact.valid_until is None or fact.valid_until > fact.valid_from, fact
            until = None if fact.valid_until is None else fact.valid_until.date().isoformat()
            found.append((city, fact.status, fact.valid_from.date().isoformat(), until))
        return found

    def believed(self, day: str) -> list[URIRef | None]:
        return [f.object for f in self.mem.facts(subject=EX + "ann", valid_at=day)]


@pytest.fixture
def slot(tmp_path: Path) -> Iterator[Slot]:
    made = Slot(tmp_path)
    yield made
    made.mem.close()


@pytest.mark.parametrize("as_relation", [None, doxa.Relation.REPLACES])
@pytest.mark.parametrize("order", [("Rome", "Paris"), ("Paris", "Rome")])
def test_both_orders_give_the_in_order_timeline(
    slot: Slot, order: tuple[str, str], as_relation: doxa.Relation | None
) -> None:
    """Rome then Paris, or (control) Paris then Rome, as judged or as ``replaces``: Lyon
    March-May, Paris May-July, Rome from July, and one value believed at each time."""
    for city in order:
        assert slot.approve(city, as_relation).outcome is doxa.Outcome.APPROVED

    assert slot.timeline() == IN_ORDER
    for day, city in (("2026-04-15", "Lyon"), ("2026-06-15", "Paris"), ("2026-08-15", "Rome")):
        assert slot.believed(day) == [URIRef(EX + city)]
    assert slot.mem.verify() > 0


def test_approving_the_earlier_value_leaves_the_later_one_and_says_so(slot: Slot) -> None:
    """Rome approved first: Paris ends nothing but Lyon, holds until Rome starts, and the
    receipt names Lyon's corrected end and the value Paris yields to; Rome stays
    retractable (it is live, not retracted)."""
    rome = slot.approve("Rome")
    assert rome.targets == (slot.ids["Lyon"],)

    paris = slot.approve("Paris")

    lyon_id, rome_id = slot.ids["Lyon"], slot.ids["Rome"]
    assert (paris.relation, paris.targets) == (doxa.Relation.REPLACES, (lyon_id,))
    assert paris.reason == (
        f"approved by the owner; {lyon_id}'s end corrected from 2026-07-01 to 2026-05-01 "
        f"(the earlier end stays recorded); holds until {rome_id} starts (2026-07-01), which "
        "stays (a later value)"
    )
    slot.mem.owner.retract(rome_id, reason="never true")
    assert slot.mem.get(rome_id).status is doxa.FactStatus.RETRACTED


def test_control_approved_in_order_the_receipts_have_nothing_to_add(slot: Slot) -> None:
    """Control: Paris then Rome; each approval ends the one value before it, plainly."""
    paris = slot.approve("Paris")
    rome = slot.approve("Rome")

    assert (paris.targets, paris.reason) == ((slot.ids["Lyon"],), "approved by the owner")
    assert rome.targets == (slot.ids["Paris"],)
    assert "corrected" not in rome.reason
    assert "holds until" not in rome.reason


def test_lyons_end_is_corrected_never_overwritten(slot: Slot) -> None:
    """Between the two approvals Lyon was believed to end in July; after, in May. Both
    supersessions stay in its history, each at its own belief time."""
    slot.approve("Rome")
    between = slot.clock.now()
    slot.approve("Paris")
    lyon = slot.ids["Lyon"]

    then = slot.mem.history(lyon, as_of=between).fact
    assert then.valid_until is not None
    assert then.valid_until.date().isoformat() == "2026-07-01"
    assert slot.mem.facts(subject=EX + "ann", valid_at="2026-06-15", as_of=between)[0].id == lyon
    ends = [
        (e.other, e.valid_until.date().isoformat())
        for e in slot.mem.history(lyon).events
        if e.kind == "superseded" and e.fact == lyon and e.valid_until is not None
    ]
    assert ends == [(slot.ids["Rome"], "2026-07-01"), (slot.ids["Paris"], "2026-05-01")]
    assert slot.mem.get(lyon).valid_until is not None


def test_control_in_order_lyon_is_ended_once(slot: Slot) -> None:
    """Control: approved in order, Lyon has the one supersession, in May."""
    slot.approve("Paris")
    slot.approve("Rome")

    lyon = slot.ids["Lyon"]
    ends = [e for e in slot.mem.history(lyon).events if e.kind == "superseded" and e.fact == lyon]
    assert [(e.other, e.valid_until) for e in ends] == [
        (slot.ids["Paris"], slot.mem.get(slot.ids["Lyon"]).valid_until)
    ]


def test_the_owners_was_wrong_still_retracts_a_later_value(slot: Slot) -> None:
    """The owner saying ``was_wrong`` of every other value is their word on each, the later
    Rome too: it is retracted, and Paris is the one value from May."""
    slot.approve("Rome")

    paris = slot.approve("Paris", doxa.Relation.WAS_WRONG)

    assert set(paris.targets) == {slot.ids["Lyon"], slot.ids["Rome"]}
    assert slot.mem.get(slot.ids["Rome"]).status is doxa.FactStatus.RETRACTED
    assert slot.mem.get(slot.ids["Paris"]).status is doxa.FactStatus.LIVE
    assert slot.believed("2026-08-15") == [URIRef(EX + "Paris")]


def test_control_the_owners_replaces_leaves_the_later_value(slot: Slot) -> None:
    """Control: the owner's ``replaces`` says the world changed, which a later value is not
    ended by: Rome stays live, Paris holds until July."""
    slot.approve("Rome")

    paris = slot.approve("Paris", doxa.Relation.REPLACES)

    assert paris.targets == (slot.ids["Lyon"],)
    assert slot.timeline() == IN_ORDER


def test_two_threads_approving_give_the_same_timeline(slot: Slot) -> None:
    """Paris and Rome approved at once from two threads: whichever commits first, the
    timeline is the in-order one and the chain verifies."""
    errors: list[BaseException] = []

    def approve(city: str) -> None:
        try:
            slot.mem.owner.approve(slot.ids[city])
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=approve, args=(city,)) for city in ("Rome", "Paris")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert slot.timeline() == IN_ORDER
    assert slot.mem.verify() > 0


def test_a_later_value_entering_the_slot_meets_the_yielded_value_in_its_time(slot: Slot) -> None:
    """After Rome then Paris, Paris is history May-July: a new value from June meets it
    there (the gate's own rule for a backdated write: held ``unclear``), and one from
    September (control) simply replaces Rome."""
    slot.approve("Rome")
    slot.approve("Paris")

    june = slot.lives("Oslo", 6)
    september = slot.lives("Bern", 9)

    assert june.outcome is doxa.Outcome.HELD
    assert (september.relation, september.targets) == (
        doxa.Relation.REPLACES,
        (slot.ids["Rome"],),
    )


def test_the_approved_value_yields_to_the_earliest_later_value(slot: Slot) -> None:
    """Rome from July, then Oslo from September approved (Rome superseded in September);
    Paris from May approved last holds until July, when Rome (the next value believed)
    starts; Rome and Oslo keep their times. Control: Oslo starts after Rome, so Rome is not
    the one Paris would skip."""
    oslo = slot.lives("Oslo", 9)
    assert oslo.outcome is doxa.Outcome.HELD
    slot.approve("Rome")
    slot.approve("Oslo")
    assert slot.mem.get(slot.ids["Rome"]).status is doxa.FactStatus.SUPERSEDED

    paris = slot.approve("Paris")

    assert f"holds until {slot.ids['Rome']} starts (2026-07-01)" in paris.reason
    assert slot.timeline() == [
        *IN_ORDER[:2],
        ("Rome", doxa.FactStatus.SUPERSEDED, "2026-07-01", "2026-09-01"),
    ]
    assert slot.mem.get(slot.ids["Oslo"]).status is doxa.FactStatus.LIVE
    for day, city in (("2026-06-15", "Paris"), ("2026-08-15", "Rome"), ("2026-10-15", "Oslo")):
        assert slot.believed(day) == [URIRef(EX + city)]


@pytest.mark.parametrize(
    ("until", "ends"), [("2026-06-01", "2026-06-01"), ("2026-09-01", "2026-07-01")]
)
def test_an_approved_value_with_its_own_end(slot: Slot, until: str, ends: str) -> None:
    """Paris from May with its own end, approved after Rome from July: ending in June it
    never meets Rome and keeps its end (no supersession); ending in September (control) it
    is cut where Rome starts. Rome stays live either way."""
    slot.clock.advance(timedelta(seconds=1))
    bounded = slot.mem.remember(
        "ann lives in Oslo from month 5 for a while",
        topic="people",
        subject=EX + "ann",
        predicate=LIVES,
        object=EX + "Oslo",
        authority="agent",
        valid_from="2026-05-01",
        valid_until=until,
    )
    assert bounded.outcome is doxa.Outcome.HELD
    assert bounded.fact is not None
    slot.approve("Rome")

    approved = slot.mem.owner.approve(bounded.fact)

    found = slot.mem.get(bounded.fact)
    assert found.valid_until is not None
    assert found.valid_until.date().isoformat() == ends
    assert ("holds until" in approved.reason) is (ends != until)
    assert slot.mem.get(slot.ids["Rome"]).status is doxa.FactStatus.LIVE
