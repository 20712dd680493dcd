"""The rule judge reads the domain ontology's owlrl closure, end to end through remember().

Each case has a control beside it: the same write without the axiom (or with a value the
axiom does not cover) is judged the plain way.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.helpers import EX

import doxa

ONTOLOGY = Path(__file__).parents[1] / "data" / "judge_ontology.ttl"


@pytest.fixture
def mem(clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    memory = doxa.Memory.open(None, scope="alice", clock=clock)
    memory.schema.add_ontology(ONTOLOGY)
    memory.owner.grant("work")
    memory.owner.grant("location")
    yield memory
    memory.close()


def say(mem: doxa.Memory, text: str, s: str, p: str, o: object, **kw: object) -> doxa.Receipt:
    kw.setdefault("topic", "t")
    kw.setdefault("authority", "owner")
    obj = EX + o if isinstance(o, str) and o[:1].isupper() else o
    return mem.remember(text, subject=EX + s, predicate=EX + p, object=obj, **kw)


def live(mem: doxa.Memory, predicate: str) -> set[str]:
    return {str(f.object) for f in mem.facts(predicate=EX + predicate)}


def test_inverse_property_is_the_same_statement(mem: doxa.Memory) -> None:
    first = say(mem, "bob works for Acme", "bob", "worksFor", "Acme", kind="work")
    again = say(mem, "Acme employs bob", "Acme", "employs", EX + "bob", kind="work")
    assert again.relation is doxa.Relation.SAME
    assert again.targets == (first.fact,)
    # control: the inverse with another employer is a contradiction, not the same
    other = say(
        mem,
        "Globex employs bob",
        "Globex",
        "employs",
        EX + "bob",
        kind="work",
        valid_from="2026-02-01",
    )
    assert other.relation is doxa.Relation.REPLACES
    assert live(mem, "worksFor") == set()  # the old statement ended ...
    assert live(mem, "employs") == {EX + "bob"}  # ... and the new one is live


def test_equivalent_property_is_the_same_statement(mem: doxa.Memory) -> None:
    say(mem, "bob works for Acme", "bob", "worksFor", "Acme", kind="work")
    same = say(mem, "bob's employer is Acme", "bob", "employer", "Acme", kind="work")
    assert same.relation is doxa.Relation.SAME
    # control: a property the ontology does not relate is a separate statement
    unrelated = say(mem, "bob admires Acme", "bob", "admires", "Acme", kind="work")
    assert unrelated.relation is doxa.Relation.NEW


def test_part_of_is_more_detail_and_the_old_fact_stays(mem: doxa.Memory) -> None:
    country = say(mem, "gina lives in Germany", "gina", "livesIn", "Germany", kind="location")
    city = say(mem, "gina lives in Berlin", "gina", "livesIn", "Berlin", kind="location")
    assert city.relation is doxa.Relation.ADDS_DETAIL
    assert city.targets == (country.fact,)
    assert live(mem, "livesIn") == {EX + "Germany", EX + "Berlin"}
    # control: a city outside Germany contradicts both and replaces them (closing granted)
    moved = say(
        mem,
        "gina moved to Paris",
        "gina",
        "livesIn",
        "Paris",
        kind="location",
        valid_from="2026-02-01",
    )
    assert moved.relation is doxa.Relation.REPLACES
    assert set(moved.targets) == {country.fact, city.fact}
    assert live(mem, "livesIn") == {EX + "Paris"}


def test_a_broader_value_is_already_known(mem: doxa.Memory) -> None:
    say(mem, "gina lives in Berlin", "gina", "livesIn", "Berlin", kind="location")
    europe = say(mem, "gina lives in Europe", "gina", "livesIn", "Europe", kind="location")
    assert europe.relation is doxa.Relation.SAME
    assert europe.outcome is doxa.Outcome.MERGED
    assert live(mem, "livesIn") == {EX + "Berlin"}


def test_sub_property_is_more_detail(mem: doxa.Memory) -> None:
    phone = say(mem, "mira's phone is 555", "mira", "phone", "555", kind="contact")
    mobile = say(mem, "555 is mira's mobile", "mira", "mobilePhone", "555", kind="contact")
    assert mobile.relation is doxa.Relation.ADDS_DETAIL
    assert mobile.targets == (phone.fact,)
    # control: a second, different number is simply new (phone is not functional)
    second = say(mem, "mira's mobile is 777", "mira", "mobilePhone", "777", kind="contact")
    assert second.relation is doxa.Relation.NEW


def test_subclass_object_is_more_detail(mem: doxa.Memory) -> None:
    say(mem, "jana is an engineer", "jana", "role", "Engineer", kind="work")
    senior = say(mem, "jana is a senior engineer", "jana", "role", "SeniorEngineer", kind="work")
    assert senior.relation is doxa.Relation.ADDS_DETAIL
    # control: an unrelated role contradicts (no start: it starts when recorded, a change)
    sales = say(mem, "jana is head of sales", "jana", "role", "HeadOfSales", kind="work")
    assert sales.relation is doxa.Relation.REPLACES


def test_a_rule_forbidding_a_country_covers_its_cities(mem: doxa.Memory) -> None:
    mem.remember(
        "never record a home in France",
        topic="rules",
        rule="forbids",
        subject="https://w3id.org/doxa#Anything",
        predicate=EX + "livesIn",
        object=EX + "France",
        authority="owner",
    )
    lyon = say(mem, "hugo lives in Lyon", "hugo", "livesIn", "Lyon", authority="agent")
    assert lyon.relation is doxa.Relation.CLASHES_WITH_RULE
    assert lyon.outcome is doxa.Outcome.HELD
    munich = say(mem, "hugo lives in Munich", "hugo", "livesIn", "Munich", authority="agent")
    assert munich.relation is doxa.Relation.NEW


def test_axioms_added_later_apply_to_later_writes(clock: doxa.FixedClock) -> None:
    with doxa.Memory.open(None, scope="s", clock=clock) as memory:
        memory.remember(
            "bob works for Acme",
            topic="t",
            subject=EX + "bob",
            predicate=EX + "worksFor",
            object=EX + "Acme",
            authority="owner",
        )
        before = memory.preview(
            "Acme employs bob",
            topic="t",
            subject=EX + "Acme",
            predicate=EX + "employs",
            object=EX + "bob",
            authority="owner",
        )
        assert before.relation is doxa.Relation.NEW
        memory.schema.add_ontology(
            b"@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
            b"<http://example.org/employs> owl:inverseOf <http://example.org/worksFor> .\n"
            b"<http://example.org/worksFor> a owl:FunctionalProperty ."
        )
        # the stored fact keeps the keys it was written with; new writes use the new axioms
        memory.remember(
            "carol works for Acme",
            topic="t",
            subject=EX + "carol",
            predicate=EX + "worksFor",
            object=EX + "Acme",
            authority="owner",
        )
        after = memory.preview(
            "Acme employs carol",
            topic="t",
            subject=EX + "Acme",
            predicate=EX + "employs",
            object=EX + "carol",
            authority="owner",
        )
        assert after.relation is doxa.Relation.SAME


def test_outside_detail_keeps_its_own_authority_and_standpoint(mem: doxa.Memory) -> None:
    """Merging never raises authority: a web page's detail on an owner fact stays the page's."""
    page = "https://people.example/gina"
    owner = say(mem, "gina lives in Germany", "gina", "livesIn", "Germany", kind="location")
    detail = say(
        mem,
        "Gina lives in Berlin, says her page",
        "gina",
        "livesIn",
        "Berlin",
        kind="location",
        authority="external",
        sources=[page],
    )
    assert detail.relation is doxa.Relation.ADDS_DETAIL
    fact = mem.get(detail.fact or "")
    assert (fact.authority, fact.support, str(fact.standpoint)) == (
        doxa.Authority.EXTERNAL,
        doxa.Support.QUOTED,
        page,
    )
    assert fact.refines == (owner.fact,)
    why = mem.why(detail.fact or "")
    assert why.fact.authority is doxa.Authority.EXTERNAL
    assert [str(s) for s in why.fact.sources] == [page]
    # control: the owner's fact is still the owner's, and a page repeating it adds evidence
    # without lending the page's words the owner's authority, or the owner's fact the page's
    again = say(
        mem,
        "gina lives in germany",
        "gina",
        "livesIn",
        "Germany",
        kind="location",
        authority="external",
        sources=[page],
    )
    assert again.relation is doxa.Relation.SAME
    assert mem.get(owner.fact or "").authority is doxa.Authority.OWNER
