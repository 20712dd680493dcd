"""Cardinality learned once: for a predicate no ontology declares, a second value for one
subject is held ``unclear`` asking "replace or add?"; the owner's answer is kept in the
scope's vocabulary (``owl:FunctionalProperty`` or ``doxa:ManyValuedProperty``) with a
receipt, and later writes decide by themselves. Domain ontology axioms win.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.conftest import EX

import doxa
from doxa.vocabulary import DOXA, OWL

PHONE = EX + "phone"
DECLARED = b"""
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:nickname a owl:DatatypeProperty .
ex:badge a owl:DatatypeProperty, owl:FunctionalProperty .
"""


@pytest.fixture
def mem(clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    memory = doxa.Memory.open(None, scope="alice", clock=clock)
    memory.schema.add_ontology(DECLARED)
    yield memory
    memory.close()


def phone(
    mem: doxa.Memory, who: str, number: str, predicate: str = PHONE, **kw: object
) -> doxa.Receipt:
    kw.setdefault("authority", "owner")
    kw.setdefault("kind", "contact")
    return mem.remember(
        f"{who}'s phone is {number}",
        topic="contacts",
        subject=EX + who,
        predicate=predicate,
        object=number,
        **kw,
    )


def lesson(mem: doxa.Memory, predicate: str = PHONE) -> set[str]:
    rows = mem.rdf.sparql(
        f"SELECT ?t WHERE {{ GRAPH <{mem.scope.vocabulary}> {{ <{predicate}> a ?t }} }}"
    ).rows
    return {str(t) for (t,) in rows}


def test_a_second_value_asks_replace_or_add(mem: doxa.Memory) -> None:
    """The first value is new and the same value again merges (controls); a second value of
    an undeclared predicate is held unclear with the question, the first value kept live."""
    first = phone(mem, "bob", "555-0101")
    assert (first.outcome, first.relation) == (doxa.Outcome.ADMITTED, doxa.Relation.NEW)
    assert phone(mem, "bob", "555-0101").outcome is doxa.Outcome.MERGED
    other = phone(mem, "carol", "555-0199")  # another subject: nothing to ask
    assert other.outcome is doxa.Outcome.ADMITTED
    second = phone(mem, "bob", "555-0199")
    assert (second.outcome, second.relation) == (doxa.Outcome.HELD, doxa.Relation.UNCLEAR)
    assert second.reason.startswith("replace or add? a second value of <http://example.org/phone>")
    assert second.targets == (first.fact,)
    assert [f.id for f in mem.facts(subject=EX + "bob")] == [first.fact]


def test_approving_as_replaces_teaches_one_value(mem: doxa.Memory) -> None:
    """The owner's "replaces" ends the old value, records owl:FunctionalProperty with the
    approval's receipt, and the next value is judged as a functional slot, not asked."""
    first = phone(mem, "bob", "555-0101")
    held = phone(mem, "bob", "555-0199", valid_from="2026-02-01")
    approved = mem.owner.approve(held.held or "", as_relation="replaces")
    assert approved.reason == (
        "approved by the owner; learned: <http://example.org/phone> holds one value at a time"
    )
    assert approved.targets == (first.fact,)
    assert lesson(mem) == {str(OWL.FunctionalProperty)}
    assert [f.object.toPython() for f in mem.facts(subject=EX + "bob")] == ["555-0199"]  # type: ignore[union-attr]
    mem.owner.grant("contact")
    third = phone(mem, "bob", "555-0200", valid_from="2026-03-01")
    assert (third.outcome, third.relation) == (doxa.Outcome.ADMITTED, doxa.Relation.REPLACES)
    # another subject's second value is decided alone too
    phone(mem, "carol", "1", valid_from="2026-01-01")
    assert phone(mem, "carol", "2", valid_from="2026-02-01").relation is doxa.Relation.REPLACES


def test_approving_as_new_teaches_many_values(mem: doxa.Memory) -> None:
    """The owner's "new" keeps both values and records doxa:ManyValuedProperty: every later
    second value, for any subject, is admitted without asking (held once per predicate)."""
    phone(mem, "bob", "555-0101")
    held = phone(mem, "bob", "555-0199")
    approved = mem.owner.approve(held.held or "", as_relation="new")
    assert approved.reason.endswith("learned: <http://example.org/phone> holds many values")
    assert lesson(mem) == {str(DOXA.ManyValuedProperty)}
    assert len(mem.facts(subject=EX + "bob")) == 2
    outcomes = [phone(mem, f"p{i}", n).outcome for i in range(5) for n in ("1", "2", "3")]
    assert set(outcomes) == {doxa.Outcome.ADMITTED}
    assert mem.held() == []


def test_approving_without_a_choice_is_refused_and_teaches_nothing(mem: doxa.Memory) -> None:
    """A plain approval of the question is refused: no lesson, the write still waits and
    the next second value waits on the same question (the control: a choice records one)."""
    phone(mem, "bob", "1")
    held = phone(mem, "bob", "2").held or ""
    with pytest.raises(doxa.InvalidInput, match="replace or add"):
        mem.owner.approve(held)
    assert lesson(mem) == set()
    assert [h.id for h in mem.held()] == [held]
    assert phone(mem, "bob", "3").outcome is doxa.Outcome.HELD
    mem.owner.approve(held, as_relation="new")
    assert lesson(mem) != set()


def test_rejecting_teaches_nothing(mem: doxa.Memory) -> None:
    """Rejecting the held write discards it; nothing is learned."""
    phone(mem, "bob", "1")
    mem.owner.reject(phone(mem, "bob", "2").held or "")
    assert lesson(mem) == set()


@pytest.mark.parametrize("predicate", [EX + "nickname", EX + "badge"], ids=["many", "functional"])
def test_domain_ontology_axioms_win(mem: doxa.Memory, predicate: str) -> None:
    """A declared predicate is never asked about: a plain DatatypeProperty holds many values
    (both admitted), a FunctionalProperty replaces as it always did."""
    phone(mem, "bob", "1", predicate=predicate, valid_from="2026-01-01")
    second = phone(mem, "bob", "2", predicate=predicate, valid_from="2026-02-01")
    if predicate.endswith("nickname"):
        assert (second.outcome, second.relation) == (doxa.Outcome.ADMITTED, doxa.Relation.NEW)
    else:
        assert second.relation is doxa.Relation.REPLACES
    assert "replace or add?" not in second.reason


def test_a_lesson_is_kept_per_scope(mem: doxa.Memory) -> None:
    """Alice's lesson does not reach Bob's scope on the same store: Bob is asked himself."""
    phone(mem, "bob", "1")
    mem.owner.approve(phone(mem, "bob", "2").held or "", as_relation="new")
    other = doxa.Memory(mem.store, scope="bob", clock=mem.clock)
    phone(other, "bob", "1")
    assert phone(other, "bob", "2").outcome is doxa.Outcome.HELD


def test_a_declared_predicate_approved_teaches_nothing(mem: doxa.Memory) -> None:
    """Approving a held write on a declared predicate never writes a lesson over the axioms."""
    phone(mem, "bob", "1", predicate=EX + "badge", valid_from="2026-01-01")
    held = phone(mem, "bob", "2", predicate=EX + "badge", valid_from="2026-02-01")
    assert held.outcome is doxa.Outcome.HELD  # closing not earned
    mem.owner.approve(held.held or "", as_relation="new")
    assert lesson(mem, EX + "badge") == set()
