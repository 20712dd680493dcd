"""What the gate remembers between writes (rules, broader objects, canonical literals) is
dropped when the store changes under it: every write still reads what the store holds."""

from __future__ import annotations

from decimal import Decimal

import pyoxigraph as ox
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef
from tests.conftest import EX, statement

import doxa
from doxa.gate.gather import RULES
from doxa.store import SoleWriter
from doxa.store.convert import canonical, forget_terms, from_ox, to_ox
from doxa.vocabulary import XSD

FRIDAY = EX + "Friday"


def _forbid_friday(memory: doxa.Memory) -> doxa.Receipt:
    return memory.remember(
        "No meetings on Friday",
        topic="meetings",
        subject="https://w3id.org/doxa#Anything",
        predicate=EX + "dayOfWeek",
        object=FRIDAY,
        authority="owner",
        rule="forbids",
    )


def test_rules_remembered_are_dropped_when_a_rule_comes_or_ends(memory: doxa.Memory) -> None:
    """A rule admitted after writes binds the next write; once retracted, it binds no more."""
    before = statement(memory, "Standup on Friday", "standup", "dayOfWeek", FRIDAY)
    assert before.relation is doxa.Relation.NEW  # control: no rule yet
    assert isinstance(memory.store, SoleWriter)
    assert RULES.of("alice") in memory.store.cache  # the rules were read once and kept
    rule = _forbid_friday(memory)
    assert rule.outcome is doxa.Outcome.ADMITTED
    during = statement(memory, "Review on Friday", "review", "dayOfWeek", FRIDAY)
    assert (during.relation, during.targets) == (doxa.Relation.CLASHES_WITH_RULE, (rule.fact,))
    memory.owner.retract(rule.fact, reason="the owner dropped the rule")
    after = statement(memory, "Retro on Friday", "retro", "dayOfWeek", FRIDAY)
    assert after.relation is doxa.Relation.NEW


def test_rules_remembered_are_dropped_when_a_rule_is_erased(memory: doxa.Memory) -> None:
    """An erased rule binds no later write; before the erasure it did (control)."""
    rule = _forbid_friday(memory)
    held = statement(memory, "Review on Friday", "review", "dayOfWeek", FRIDAY)
    assert held.relation is doxa.Relation.CLASHES_WITH_RULE
    memory.owner.erase(rule.fact, reason="privacy")
    after = statement(memory, "Retro on Friday", "retro", "dayOfWeek", FRIDAY)
    assert after.relation is doxa.Relation.NEW


def test_rules_from_a_bulk_import_bind_the_rest_of_the_import(memory: doxa.Memory) -> None:
    """A rule imported mid-file binds the lines after it, not those before (control)."""
    row = {"topic": "general", "predicate": EX + "dayOfWeek", "object": FRIDAY}
    rule = {
        "text": "No meetings on Friday",
        "topic": "meetings",
        "subject": "https://w3id.org/doxa#Anything",
        "predicate": EX + "dayOfWeek",
        "object": FRIDAY,
        "authority": "owner",
        "rule": "forbids",
    }
    report = memory.admin.import_claims(
        [
            {**row, "text": "Standup on Friday", "subject": EX + "standup"},
            rule,
            {**row, "text": "Review on Friday", "subject": EX + "review"},
        ]
    )
    assert [r.relation for r in report.receipts] == [
        doxa.Relation.NEW,
        doxa.Relation.NEW,
        doxa.Relation.CLASHES_WITH_RULE,
    ]


def test_broader_objects_remembered_are_dropped_when_the_ontology_grows(
    memory: doxa.Memory,
) -> None:
    """A value that becomes a narrower case of a forbidden one by a new ontology clashes on
    the next write; before the ontology said so, it did not (control)."""
    memory.remember(
        "No meetings at the weekend",
        topic="meetings",
        subject="https://w3id.org/doxa#Anything",
        predicate=EX + "dayOfWeek",
        object=EX + "Weekend",
        authority="owner",
        rule="forbids",
    )
    before = statement(memory, "Party on Saturday", "party", "dayOfWeek", EX + "Saturday")
    assert before.relation is doxa.Relation.NEW
    memory.schema.add_ontology(
        b"@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
        b"<http://example.org/Saturday> skos:broader <http://example.org/Weekend> .\n"
    )
    after = statement(memory, "Brunch on Saturday", "brunch", "dayOfWeek", EX + "Saturday")
    assert after.relation is doxa.Relation.CLASHES_WITH_RULE


def _stored(term: Literal) -> Literal:
    """The literal as a fresh Oxigraph store keeps it (what canonical must return)."""
    store = ox.Store()
    node = ox.NamedNode("urn:x")
    store.add(ox.Quad(node, node, to_ox(term)))
    [quad] = list(store)
    found = from_ox(quad.object)
    assert isinstance(found, Literal)
    return found


TYPED = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(
        lambda d: Literal(format(d, "f"), datatype=XSD.decimal)
    ),
    st.integers(-128, 127).map(lambda i: Literal(f"0{i}" if i >= 0 else str(i), datatype=XSD.byte)),
    st.datetimes().map(lambda d: Literal(d.isoformat(), datatype=XSD.dateTime)),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(TYPED, max_size=6), st.booleans())
def test_canonical_literals_match_the_store_cached_or_not(
    terms: list[Literal], forget: bool
) -> None:
    """Canonical forms, remembered or read afresh, are what the store keeps; other terms
    pass through unchanged."""
    if forget:
        forget_terms()
    plain = [URIRef("urn:a"), Literal("text")]
    mixed = [*plain, *terms]
    first, again = canonical(mixed), canonical(mixed)
    assert first == again == [*plain, *(_stored(t) for t in terms)]
    assert str(canonical([Literal(Decimal("0.50"))])[0]) == "0.5"  # control: it does change
