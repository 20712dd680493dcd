"""Invariants found by review: each case once broke them; each sits beside its control."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from rdflib.namespace import XSD
from tests.conftest import EX, statement

import doxa
from doxa.judges.rules import overlaps


def _live_cities(mem: doxa.Memory, when: str = "2026-06-01") -> list[str]:
    return sorted(str(f.object) for f in mem.facts(subject=EX + "bob", valid_at=when))


def test_approving_an_unclear_value_ends_the_other(memory: doxa.Memory) -> None:
    """The owner approving an agent's contradiction leaves one live value, not two."""
    statement(
        memory,
        "Bob lives in Lyon",
        "bob",
        "livesIn",
        EX + "Lyon",
        authority="owner",
        valid_from="2020-01-01",
    )
    guess = statement(
        memory,
        "Bob lives in Paris",
        "bob",
        "livesIn",
        EX + "Paris",
        authority="agent",
        valid_from="2026-01-01",
    )
    assert guess.relation is doxa.Relation.UNCLEAR
    approval = memory.owner.approve(guess.fact)
    assert len(approval.targets) == 1
    assert _live_cities(memory) == [EX + "Paris"]
    assert _live_cities(memory, "2021-01-01") == [EX + "Lyon"]  # superseded, still history


def test_approving_two_held_replacements_leaves_one_value(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Two held replacements of one value, both approved: the later approval ends the earlier."""
    statement(memory, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", valid_from="2020-01-01")
    paris = statement(
        memory, "Bob lives in Paris", "bob", "livesIn", EX + "Paris", valid_from="2026-02-01"
    )
    rome = statement(
        memory, "Bob lives in Rome", "bob", "livesIn", EX + "Rome", valid_from="2026-03-01"
    )
    assert paris.outcome is rome.outcome is doxa.Outcome.HELD
    memory.owner.approve(paris.fact)
    assert _live_cities(memory) == [EX + "Paris"]
    memory.owner.approve(rome.fact)
    assert _live_cities(memory) == [EX + "Rome"]
    assert _live_cities(memory, "2026-02-15") == [EX + "Paris"]


def test_same_statement_in_another_topic_is_compared(memory: doxa.Memory) -> None:
    """A functional value written under another topic still meets the stored one."""
    memory.owner.grant("general")
    first = statement(
        memory,
        "Bob lives in Lyon",
        "bob",
        "livesIn",
        EX + "Lyon",
        topic="family",
        valid_from="2020-01-01",
    )
    second = statement(
        memory,
        "Bob lives in Paris",
        "bob",
        "livesIn",
        EX + "Paris",
        topic="travel",
        valid_from="2026-01-01",
    )
    assert (second.relation, second.targets) == (doxa.Relation.REPLACES, (first.fact,))
    assert _live_cities(memory) == [EX + "Paris"]
    again = statement(
        memory,
        "Bob lives in Paris",
        "bob",
        "livesIn",
        EX + "Paris",
        topic="misc",
        valid_from="2026-01-01",
    )
    assert again.relation is doxa.Relation.SAME


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (doxa.Literal("Wed", datatype=XSD.string), "Wed"),
        (doxa.Literal("5", datatype=XSD.byte), 5),
        (doxa.Literal("0.50", datatype=XSD.decimal), doxa.Literal("0.5", datatype=XSD.decimal)),
    ],
    ids=["xsd-string", "xsd-byte", "decimal-zeros"],
)
def test_equal_values_in_other_lexical_forms_are_same(
    memory: doxa.Memory, first: object, second: object
) -> None:
    """A value the store keeps in another form is still 'same'; a different value is not."""
    statement(memory, "v", "x", "livesIn", first)
    assert statement(memory, "v", "x", "livesIn", second).relation is doxa.Relation.SAME
    assert statement(memory, "v", "x", "livesIn", "Thu").relation is not doxa.Relation.SAME
    assert memory.verify() == 3


@pytest.mark.parametrize(
    "value",
    [
        doxa.Literal("0.3333333333", datatype=XSD.float),
        doxa.Literal("5", datatype=XSD.byte),
        doxa.Literal("1971+00:00", datatype=XSD.gYear),
    ],
    ids=["float", "byte", "gyear-offset"],
)
def test_values_the_store_rewrites_still_verify(memory: doxa.Memory, value: object) -> None:
    """Literals Oxigraph stores in canonical form do not break the receipt chain."""
    statement(memory, "v", "x", "likes", value)
    assert memory.verify() == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [("+500 EUR", "-500 EUR"), ("temperature > -18 C", "temperature < 18 C")],
    ids=["sign", "comparison"],
)
def test_signs_and_symbols_keep_texts_apart(memory: doxa.Memory, first: str, second: str) -> None:
    """Texts differing only in a sign or symbol are not duplicates; case and spacing are."""
    memory.remember(first, topic="money")
    assert memory.remember(second, topic="money").relation is doxa.Relation.NEW
    assert memory.remember(first.upper() + "  ", topic="money").relation is doxa.Relation.SAME


def test_values_that_do_not_overlap_in_time_are_new(memory: doxa.Memory) -> None:
    """A value for a time the stored one does not cover is 'new'; an overlapping one is not."""
    statement(
        memory,
        "Bob lived in Lyon",
        "bob",
        "livesIn",
        EX + "Lyon",
        valid_from="2025-01-01",
        valid_until="2025-06-01",
    )
    later = statement(
        memory, "Bob lives in Paris", "bob", "livesIn", EX + "Paris", valid_from="2025-06-01"
    )
    assert (later.relation, later.outcome) == (doxa.Relation.NEW, doxa.Outcome.ADMITTED)
    overlapping = statement(
        memory, "Bob lives in Rome", "bob", "livesIn", EX + "Rome", valid_from="2025-03-01"
    )
    assert overlapping.relation is not doxa.Relation.NEW


def test_a_value_without_start_starts_when_recorded(memory: doxa.Memory) -> None:
    """An undated value starts when it is recorded: it replaces a value that started before
    then, and against one planned to start later it cannot tell which holds (unclear)."""
    statement(
        memory, "Call on Wednesday", "call", "dayOfWeek", EX + "Wednesday", valid_from="2026-01-01"
    )
    undated = statement(memory, "Call on Thursday", "call", "dayOfWeek", EX + "Thursday")
    assert undated.relation is doxa.Relation.REPLACES, undated.reason
    # control: a value planned to start after now, then an undated one
    statement(
        memory, "Review on Monday", "review", "dayOfWeek", EX + "Monday", valid_from="2099-01-01"
    )
    ahead = statement(memory, "Review on Tuesday", "review", "dayOfWeek", EX + "Tuesday")
    assert (ahead.relation, ahead.outcome) == (doxa.Relation.UNCLEAR, doxa.Outcome.HELD)


def test_current_graph_keeps_a_statement_another_fact_still_holds(memory: doxa.Memory) -> None:
    """Retracting a fact leaves its triple in `current` while a refining fact states it."""
    base = statement(
        memory, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", valid_from="2020-01-01"
    )
    detail = statement(
        memory,
        "Bob lives in Lyon until June",
        "bob",
        "livesIn",
        EX + "Lyon",
        valid_from="2020-01-01",
        valid_until="2026-06-30",
    )
    assert detail.relation is doxa.Relation.ADDS_DETAIL
    memory.owner.retract(base.fact, reason="only the detailed line is right")
    ask = "ASK { GRAPH <urn:doxa:scope:alice/current> { <http://example.org/bob> <http://example.org/livesIn> <http://example.org/Lyon> } }"
    assert memory.rdf.sparql(ask).boolean is True
    memory.owner.retract(detail.fact, reason="he never lived there")
    assert memory.rdf.sparql(ask).boolean is False


#: one agent's moves recorded this far apart are no burst of closings (3 within 10 minutes)
BETWEEN_MOVES = timedelta(minutes=6)


def test_history_of_a_long_running_statement_stays_out_of_the_gather(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Ended values leave the gate's key index: the judge reads only the live one."""
    memory.owner.grant("general")
    previous = None
    for year in range(2000, 2030):
        clock.advance(BETWEEN_MOVES)
        r = statement(
            memory,
            f"Bob lives in city {year}",
            "bob",
            "livesIn",
            EX + f"c{year}",
            valid_from=f"{year}-01-01",
        )
        assert r.consulted == ((previous.fact,) if previous else ())
        previous = r
    assert len(memory.facts(subject=EX + "bob", include_ended=True)) == 30


def _believed(mem: doxa.Memory, who: str = "bob") -> list[tuple[str, object, object]]:
    """(city, from, until) of every fact about where ``who`` lives that is believed for some
    valid time: live or superseded (a superseded fact keeps the time before its end)."""
    return sorted(
        (str(f.object).removeprefix(EX), f.valid_from, f.valid_until)
        for f in mem.facts(subject=EX + who, predicate=EX + "livesIn", include_ended=True)
        if f.status is not doxa.FactStatus.RETRACTED
    )


def _two_values_at_once(mem: doxa.Memory, who: str = "bob") -> list[tuple[str, str]]:
    """Pairs of different values whose believed valid intervals share a moment."""
    believed = _believed(mem, who)
    return [
        (a[0], b[0])
        for i, a in enumerate(believed)
        for b in believed[i + 1 :]
        if a[0] != b[0] and overlaps(a[1], a[2], b[1], b[2])  # type: ignore[arg-type]
    ]


def _moved(memory: doxa.Memory, clock: doxa.FixedClock) -> None:
    """Paris since February, then (by the owner) Lyon since May: Paris is believed Feb–May."""
    memory.owner.grant("general")
    for city, start in (("Paris", "2026-02-01"), ("Lyon", "2026-05-01")):
        clock.advance(timedelta(seconds=1))
        r = statement(
            memory,
            f"Bob lives in {city}",
            "bob",
            "livesIn",
            EX + city,
            authority="owner",
            valid_from=start,
        )
        assert r.outcome is doxa.Outcome.ADMITTED
    assert _live_cities(memory, "2026-03-01") == [EX + "Paris"]


@pytest.mark.parametrize(
    ("start", "paris_until"),
    [("2026-02-01", None), ("2026-03-01", "2026-03-01"), ("2026-01-01", None)],
)
def test_approving_a_value_inside_a_superseded_interval_cuts_it(
    memory: doxa.Memory, clock: doxa.FixedClock, start: str, paris_until: str | None
) -> None:
    """An approved value that starts inside a superseded fact's believed time ends that
    part too: from the same start (or earlier) the superseded fact was wrong, from a later
    one it is superseded again, keeping the time before."""
    _moved(memory, clock)
    clock.advance(timedelta(seconds=1))
    rome = statement(
        memory,
        "Bob lives in Rome",
        "bob",
        "livesIn",
        EX + "Rome",
        authority="agent",
        valid_from=start,
    )
    assert rome.outcome is doxa.Outcome.HELD
    clock.advance(timedelta(seconds=1))
    memory.owner.approve(rome.fact)
    assert _two_values_at_once(memory) == []
    assert _live_cities(memory, "2026-04-15") == [EX + "Rome"]
    assert _live_cities(memory, "2026-06-01") == [EX + "Rome"]
    if paris_until is None:  # control: nothing of Paris stays believed
        assert [c for c, _, _ in _believed(memory)] == ["Rome"]
    else:  # control: the part of Paris before Rome stays, as history
        assert _live_cities(memory, "2026-02-15") == [EX + "Paris"]
        assert ("Paris", instant_of(paris_until)) in [(c, u) for c, _, u in _believed(memory)]


def test_approving_a_value_after_a_superseded_interval_leaves_it(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Control: an approved value starting after the superseded fact's end leaves it whole."""
    _moved(memory, clock)
    clock.advance(timedelta(seconds=1))
    rome = statement(
        memory,
        "Bob lives in Rome",
        "bob",
        "livesIn",
        EX + "Rome",
        authority="agent",
        valid_from="2026-06-01",
    )
    assert rome.outcome is doxa.Outcome.HELD  # the agent contradicts the owner's Lyon
    memory.owner.approve(rome.fact)
    assert _two_values_at_once(memory) == []
    assert ("Paris", instant_of("2026-02-01"), instant_of("2026-05-01")) in _believed(memory)
    assert _live_cities(memory, "2026-05-15") == [EX + "Lyon"]
    assert _live_cities(memory, "2026-07-01") == [EX + "Rome"]


@pytest.mark.parametrize(("start", "overlapping"), [("2026-03-01", True), ("2026-06-01", False)])
def test_a_value_inside_a_superseded_interval_is_judged_against_it(
    memory: doxa.Memory, clock: doxa.FixedClock, start: str, overlapping: bool
) -> None:
    """With the successor retracted, no value is live, but Paris is still believed Feb–May:
    a new value from March replaces that part of it; one from June (control) is new."""
    _moved(memory, clock)
    lyon = memory.facts(subject=EX + "bob", valid_at="2026-06-01")[0]
    memory.owner.retract(lyon.id, reason="he never moved to Lyon")
    clock.advance(timedelta(seconds=1))
    rome = statement(
        memory,
        "Bob lives in Rome",
        "bob",
        "livesIn",
        EX + "Rome",
        authority="owner",
        valid_from=start,
    )
    assert rome.outcome is doxa.Outcome.ADMITTED
    assert _two_values_at_once(memory) == []
    paris = next(b for b in _believed(memory) if b[0] == "Paris")
    if overlapping:
        assert rome.relation is doxa.Relation.REPLACES
        assert paris[2] == instant_of(start)
        assert _live_cities(memory, "2026-04-15") == [EX + "Rome"]
    else:
        assert rome.relation is doxa.Relation.NEW
        assert paris[2] == instant_of("2026-05-01")
        assert _live_cities(memory, "2026-04-15") == [EX + "Paris"]
    assert _live_cities(memory, "2026-02-15") == [EX + "Paris"]


def instant_of(day: str) -> datetime:
    """Midnight UTC of a day, as the valid-time fields come back."""
    return datetime.fromisoformat(day + "T00:00:00+00:00")


def test_a_backdated_value_reads_only_the_history_it_overlaps(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """In a long history a value written into 2005 meets the 2005 value (superseded, still
    believed that year) and the live one, not the other 28; an in-order write (control:
    ``test_history_of_a_long_running_statement_stays_out_of_the_gather``) meets only the
    live one."""
    memory.owner.grant("general")
    ids = {}
    for year in range(2000, 2030):
        clock.advance(BETWEEN_MOVES)
        r = statement(
            memory,
            f"Bob lives in city {year}",
            "bob",
            "livesIn",
            EX + f"c{year}",
            valid_from=f"{year}-01-01",
        )
        ids[year] = r.fact
    clock.advance(BETWEEN_MOVES)
    guess = statement(
        memory,
        "Bob lives in Rome",
        "bob",
        "livesIn",
        EX + "Rome",
        authority="agent",
        valid_from="2005-06-01",
        valid_until="2005-09-01",
    )
    assert guess.relation is doxa.Relation.REPLACES
    assert set(guess.consulted) == {ids[2005], ids[2029]}
    assert _live_cities(memory, "2005-07-01") == [EX + "Rome"]
    assert _live_cities(memory, "2005-03-01") == [EX + "c2005"]
    assert _two_values_at_once(memory) == []
