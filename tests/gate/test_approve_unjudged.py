"""Approving a held closing ends the facts the judge did not judge by when they start.

Found by the model-based test (tests/stress/test_model.py): a write held ``was_wrong``
against a value with its own start, approved after that value was retracted and an earlier
value was written, retracted the earlier value too, though it only came before the approved
one ("Rome from January" is history, not a mistake, once "Paris from March" is approved).
The model then still took it as retractable, and the memory answered ``NotFound``. The held
verdict's relation now ends only the facts the judge named; any other fact an approval finds
is superseded when the approved value starts later, retracted when it starts at the same time,
and left standing when it starts after it, the approved value then holding until it starts
(design.md §5: replaces supersedes, was_wrong retracts; docs/decisions.md). Each case runs on an on-disk memory
with its control beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from rdflib import URIRef
from tests.stress.writer import EX, ONTOLOGY

import doxa

LIVES = EX + "livesIn"


@pytest.fixture
def mem(tmp_path: Path, clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    """An on-disk memory where the judge may not close on its own: every closing is held."""
    memory = doxa.Memory.open(tmp_path / "store", scope="s", clock=clock)
    memory.schema.add_ontology(ONTOLOGY)
    memory.owner.revoke("general")
    yield memory
    memory.close()


def lives(mem: doxa.Memory, clock: doxa.FixedClock, city: str, month: int) -> doxa.Receipt:
    clock.advance(timedelta(seconds=1))
    return mem.remember(
        f"ann lives in {city} since month {month}",
        topic="people",
        subject=EX + "ann",
        predicate=LIVES,
        object=EX + city,
        authority="agent",
        valid_from=f"2026-{month:02d}-01",
    )


def status(mem: doxa.Memory, fact: str | None) -> tuple[doxa.FactStatus, str | None]:
    assert fact is not None
    found = mem.get(fact)
    until = None if found.valid_until is None else found.valid_until.date().isoformat()
    return found.status, until


def held(receipt: doxa.Receipt, relation: doxa.Relation) -> str:
    assert (receipt.outcome, receipt.relation) == (doxa.Outcome.HELD, relation), receipt
    assert receipt.fact is not None
    return receipt.fact


def test_a_held_was_wrong_supersedes_an_earlier_value_it_never_judged(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Paris from March, held as proving Lyon from March wrong, is approved after Lyon was
    retracted and Rome from January written: Rome is superseded at March (still believed
    before, still retractable), the receipt says so, and Paris is the one live value."""
    lyon = lives(mem, clock, "Lyon", 3)
    paris = held(lives(mem, clock, "Paris", 3), doxa.Relation.WAS_WRONG)
    assert lyon.fact is not None
    mem.owner.retract(lyon.fact, reason="never true")
    rome = lives(mem, clock, "Rome", 1)
    assert (rome.outcome, rome.relation) == (doxa.Outcome.ADMITTED, doxa.Relation.NEW)
    assert rome.fact is not None

    approved = mem.owner.approve(paris)

    assert (approved.outcome, approved.targets) == (doxa.Outcome.APPROVED, (rome.fact,))
    assert approved.reason == (
        "approved by the owner; ended by when they start (not among the judged targets): "
        f"{rome.fact} superseded"
    )
    assert status(mem, rome.fact) == (doxa.FactStatus.SUPERSEDED, "2026-03-01")
    assert status(mem, paris) == (doxa.FactStatus.LIVE, None)
    assert status(mem, lyon.fact) == (doxa.FactStatus.RETRACTED, None)  # not ended again
    assert [f.object for f in mem.facts(subject=EX + "ann", valid_at="2026-02-15")] == [
        URIRef(EX + "Rome")
    ]
    mem.owner.retract(rome.fact, reason="never true")  # the model's next step: it is retractable
    assert status(mem, rome.fact)[0] is doxa.FactStatus.RETRACTED
    assert mem.verify() > 0


def test_control_a_held_was_wrong_still_retracts_the_value_it_judged(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Control: approved while Lyon from March is still live, the held verdict retracts it,
    and the receipt has nothing to add."""
    lyon = lives(mem, clock, "Lyon", 3)
    paris = held(lives(mem, clock, "Paris", 3), doxa.Relation.WAS_WRONG)

    approved = mem.owner.approve(paris)

    assert (approved.relation, approved.targets) == (doxa.Relation.WAS_WRONG, (lyon.fact,))
    assert approved.reason == "approved by the owner"
    assert status(mem, lyon.fact) == (doxa.FactStatus.RETRACTED, None)
    assert status(mem, paris) == (doxa.FactStatus.LIVE, None)


def test_a_held_replaces_yields_to_a_later_value_it_never_judged(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Paris from May, held as replacing Lyon from March, is approved after Lyon was
    retracted and Rome from July written: Rome starts after Paris, so it stays live (ending
    it in May would end it before it began; retracting it would call a later move never
    true), and Paris holds from May until Rome starts (tests/gate/test_approve_order.py)."""
    lyon = lives(mem, clock, "Lyon", 3)
    paris = held(lives(mem, clock, "Paris", 5), doxa.Relation.REPLACES)
    assert lyon.fact is not None
    mem.owner.retract(lyon.fact, reason="never true")
    rome = lives(mem, clock, "Rome", 7)
    assert rome.outcome is doxa.Outcome.ADMITTED

    approved = mem.owner.approve(paris)

    assert approved.targets == ()
    assert approved.reason.endswith(
        f"holds until {rome.fact} starts (2026-07-01), which stays (a later value)"
    )
    assert status(mem, rome.fact) == (doxa.FactStatus.LIVE, None)
    assert status(mem, paris) == (doxa.FactStatus.SUPERSEDED, "2026-07-01")
    assert status(mem, lyon.fact) == (doxa.FactStatus.RETRACTED, None)
    mem.owner.retract(str(rome.fact), reason="never true")  # still live, so still retractable
    assert status(mem, rome.fact)[0] is doxa.FactStatus.RETRACTED


def test_control_a_held_replaces_still_supersedes_the_value_it_judged(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Control: approved while Lyon from March is live, Paris from May supersedes it in May;
    Lyon stays believed before."""
    lyon = lives(mem, clock, "Lyon", 3)
    paris = held(lives(mem, clock, "Paris", 5), doxa.Relation.REPLACES)

    approved = mem.owner.approve(paris)

    assert (approved.targets, approved.reason) == ((lyon.fact,), "approved by the owner")
    assert status(mem, lyon.fact) == (doxa.FactStatus.SUPERSEDED, "2026-05-01")


def test_the_owners_chosen_relation_still_ends_every_value_its_way(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """The owner naming ``as_relation`` decides for every value found, judged or not: the
    earlier Rome is retracted as they said, and the receipt adds no note of its own."""
    lyon = lives(mem, clock, "Lyon", 3)
    paris = held(lives(mem, clock, "Paris", 3), doxa.Relation.WAS_WRONG)
    assert lyon.fact is not None
    mem.owner.retract(lyon.fact, reason="never true")
    rome = lives(mem, clock, "Rome", 1)

    approved = mem.owner.approve(paris, as_relation=doxa.Relation.WAS_WRONG)

    assert (approved.targets, approved.reason) == ((rome.fact,), "approved by the owner")
    assert status(mem, rome.fact) == (doxa.FactStatus.RETRACTED, None)


def test_a_same_start_value_after_an_approved_replaces_ends_each_fact_once(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """The suspected sequence, end to end: Paris from May approved as replacing Lyon from
    March; then Rome from May, held as proving Paris wrong, approved. Paris is retracted
    once; Lyon keeps its supersession (believed March to May, not retracted, not ended
    again); every claim keeps its triples and the chain verifies."""
    lyon = lives(mem, clock, "Lyon", 3)
    paris = held(lives(mem, clock, "Paris", 5), doxa.Relation.REPLACES)
    mem.owner.approve(paris)
    rome = held(lives(mem, clock, "Rome", 5), doxa.Relation.WAS_WRONG)

    approved = mem.owner.approve(rome)

    assert (approved.targets, approved.reason) == ((paris,), "approved by the owner")
    assert status(mem, lyon.fact) == (doxa.FactStatus.SUPERSEDED, "2026-05-01")
    assert status(mem, paris) == (doxa.FactStatus.RETRACTED, None)
    assert status(mem, rome) == (doxa.FactStatus.LIVE, None)
    assert {f.text for f in mem.facts(include_ended=True)} == {
        "ann lives in Lyon since month 3",
        "ann lives in Paris since month 5",
        "ann lives in Rome since month 5",
    }
    assert lyon.fact is not None
    mem.owner.retract(lyon.fact, reason="never true")  # superseded, so still retractable
    assert status(mem, lyon.fact)[0] is doxa.FactStatus.RETRACTED
    mem.verify()
