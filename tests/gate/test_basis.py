"""Facts resting on facts: ``derived_from`` is checked like ``revises``, and when a basis ends
(superseded, retracted, erased, or an empty search answered) every live fact resting on it,
transitively, gets a basis-ended flag with its own belief time.

Each negative test sits beside its control: the same story whose basis did not end.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from rdflib import URIRef
from tests.helpers import EX, domain_memory, statement

import doxa
from doxa.errors import InvalidInput, NotFound
from doxa.store import Change, EmbeddedStore
from doxa.terms import dt_literal
from doxa.vocabulary import DOXA


@pytest.fixture
def mem(clock: doxa.FixedClock) -> Iterator[doxa.Memory]:
    memory = domain_memory(clock)
    yield memory
    memory.close()


def say(mem: doxa.Memory, text: str, clock: doxa.FixedClock, **kwargs: object) -> str:
    """Remember ``text`` a minute later than the last write; its fact id."""
    clock.advance(timedelta(minutes=1))
    kwargs.setdefault("topic", "meetings")
    receipt = mem.remember(text, **kwargs)  # type: ignore[arg-type]
    assert receipt.outcome is doxa.Outcome.ADMITTED, receipt.reason
    assert receipt.fact is not None
    return receipt.fact


def flagged_ids(mem: doxa.Memory, **kwargs: object) -> set[str]:
    return {f.id for f in mem.flagged(**kwargs)}  # type: ignore[arg-type]


@pytest.fixture
def clash(mem: doxa.Memory, clock: doxa.FixedClock) -> dict[str, str]:
    """The supplier call and the dentist, an inference from both, a plan from the inference,
    and a control resting on nothing that ends."""
    call = say(mem, "Supplier call on Tuesday at 10", clock, authority="owner")
    dentist = say(mem, "Dentist on Tuesday at 10", clock, authority="owner")
    lunch = say(mem, "Lunch with Bob on Friday", clock, authority="owner")
    inferred = say(mem, "The supplier call clashes with the dentist", clock,
                   derived_from=[call, dentist])  # fmt: skip
    plan = say(mem, "Move the dentist to Wednesday", clock, derived_from=inferred)
    control = say(mem, "Book a table for lunch with Bob", clock, derived_from=[lunch])
    return {"call": call, "dentist": dentist, "lunch": lunch, "inferred": inferred,
            "plan": plan, "control": control}  # fmt: skip


# -- the write names what it rests on -----------------------------------------------------


def test_a_write_records_the_facts_it_rests_on(mem: doxa.Memory, clash: dict[str, str]) -> None:
    """derived_from is stored as doxa:restsOn and read back; a fresh write is not flagged."""
    fact = mem.get(clash["inferred"])
    assert fact.derived_from == tuple(sorted((clash["call"], clash["dentist"])))
    assert not fact.needs_recheck
    assert flagged_ids(mem) == set()


@pytest.mark.parametrize(
    ("given", "error"),
    [
        ("no-such-fact", NotFound),
        (["nope"], NotFound),
        ([" x"], InvalidInput),
        (["x\n"], InvalidInput),
        (["\uff10\uff11"], InvalidInput),  # fullwidth digits: a look-alike, never an id
        ([7], InvalidInput),
        (7, InvalidInput),
        (None, InvalidInput),
    ],
    ids=["unknown", "unknown-in-list", "space", "newline", "fullwidth", "number", "int", "none"],
)
def test_a_bad_basis_is_refused_and_nothing_is_stored(
    mem: doxa.Memory, clock: doxa.FixedClock, given: object, error: type[Exception]
) -> None:
    """Unknown ids, other spellings and non-lists are refused before anything is stored."""
    before = len(mem.receipts())
    with pytest.raises(error, match=r"derived_from|rest on"):
        mem.remember("An inference", topic="meetings", derived_from=given)  # type: ignore[arg-type]
    assert len(mem.receipts()) == before


def test_a_good_basis_goes_through(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """Control: the same write resting on a live fact, named twice, is admitted once."""
    basis = say(mem, "Supplier call on Tuesday", clock, authority="owner")
    inferred = say(mem, "An inference", clock, derived_from=[basis, basis])
    assert mem.get(inferred).derived_from == (basis,)


def test_another_case_of_a_live_id_is_not_that_fact(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Ids are compared exactly: the upper-cased id of a live fact is not found."""
    basis = say(mem, "Supplier call on Tuesday", clock, authority="owner")
    with pytest.raises((NotFound, InvalidInput)):
        mem.remember("An inference", topic="meetings", derived_from=[basis.upper() + "X"])


def test_an_ended_basis_is_refused(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A write cannot rest on a retracted fact (at its belief time); a live one is fine."""
    gone = say(mem, "Supplier call on Tuesday", clock, authority="owner")
    live = say(mem, "Dentist on Tuesday", clock, authority="owner")
    mem.owner.retract(gone, reason="cancelled")
    with pytest.raises(InvalidInput, match=r"derived_from .* no longer live: it was retracted"):
        mem.remember("An inference", topic="meetings", derived_from=[live, gone])
    say(mem, "An inference", clock, derived_from=[live])


def test_another_scopes_fact_is_not_a_basis(clock: doxa.FixedClock) -> None:
    """The same id in another scope of the same store is not there; in its own scope it is."""
    store = EmbeddedStore()
    alice = doxa.Memory(store, scope="alice", clock=clock)
    bob = doxa.Memory(store, scope="bob", clock=clock)
    fact = alice.remember("Alice's fact", topic="t", authority="owner").fact
    assert fact is not None
    with pytest.raises(NotFound, match="scope 'bob'"):
        bob.remember("Bob's inference", topic="t", derived_from=[fact])
    assert alice.remember("Alice's inference", topic="t", derived_from=[fact]).fact


# -- an ending flags what rests on it -----------------------------------------------------


def test_a_retraction_flags_its_dependents_transitively(
    mem: doxa.Memory, clock: doxa.FixedClock, clash: dict[str, str]
) -> None:
    """The inference and the plan built on it are flagged; the control is not."""
    clock.advance(timedelta(minutes=1))
    receipt = mem.owner.retract(clash["call"], reason="the call was cancelled")
    assert flagged_ids(mem) == {clash["inferred"], clash["plan"]}
    direct, = mem.get(clash["inferred"]).basis_ended  # fmt: skip
    assert (direct.basis, direct.reason) == (
        clash["call"],
        f"re-check: the fact this rests on, {clash['call']}, was retracted",
    )
    through, = mem.get(clash["plan"]).basis_ended  # fmt: skip
    assert f"(through {clash['inferred']})" in through.reason
    assert not mem.get(clash["control"]).needs_recheck
    assert not mem.get(clash["dentist"]).needs_recheck
    # the flags are part of the ending's decision, covered by its receipt: the chain verifies
    assert direct.recorded_at == through.recorded_at == receipt.recorded_at
    mem.verify()


def test_a_stray_ending_does_not_hide_a_dependent_from_its_flag(
    mem: doxa.Memory, clock: doxa.FixedClock, clash: dict[str, str]
) -> None:
    """An untyped doxa:ends quad written past the gate does not count as an ending: the
    inference it names is still flagged, and the plan through it (the control above)."""
    stray = (URIRef("urn:x:e"), DOXA.ends, mem.scope.fact(clash["inferred"]), mem.scope.log)
    mem.store.apply(Change(insert=[stray]))
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(clash["call"], reason="the call was cancelled")
    assert flagged_ids(mem) == {clash["inferred"], clash["plan"]}


def test_stray_flags_and_confirmations_are_not_events(
    mem: doxa.Memory, clock: doxa.FixedClock, clash: dict[str, str]
) -> None:
    """Untyped doxa:confirms and doxa:flags quads written past the gate neither clear a flag
    nor raise one; the owner's confirmation (the control) does clear it."""
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(clash["call"], reason="the call was cancelled")
    log, later = mem.scope.log, dt_literal(clock.now() + timedelta(minutes=5))
    confirm, flag = URIRef("urn:x:confirm"), URIRef("urn:x:flag")
    strays = [
        (confirm, DOXA.confirms, mem.scope.fact(clash["inferred"]), log),
        (confirm, DOXA.recordedAt, later, log),
        (flag, DOXA.flags, mem.scope.fact(clash["control"]), log),
        (flag, DOXA.basisEnding, mem.scope.fact(clash["call"]), log),
        (flag, DOXA.recordedAt, later, log),
    ]
    mem.store.apply(Change(insert=strays))
    clock.advance(timedelta(minutes=10))
    assert flagged_ids(mem) == {clash["inferred"], clash["plan"]}
    mem.store.apply(Change(delete=strays))
    mem.owner.confirm(clash["inferred"], reason="checked: the clash stands anyway")
    assert flagged_ids(mem) == {clash["plan"]}


def test_a_supersession_names_the_successor(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A fact resting on a value that is replaced names the fact that replaced it."""
    mem.owner.grant("schedule")
    day = {"kind": "schedule", "authority": "owner", "topic": "meetings"}
    monday = statement(mem, "The call is on Monday", "call", "dayOfWeek", EX + "Monday",
                       valid_from="2026-01-05", **day).fact  # fmt: skip
    assert monday is not None
    note = say(mem, "Prepare slides by Sunday", clock, derived_from=[monday])
    clock.advance(timedelta(minutes=1))
    friday = statement(mem, "The call is on Friday", "call", "dayOfWeek", EX + "Friday",
                       valid_from="2026-03-08", **day)  # fmt: skip
    assert friday.relation is doxa.Relation.REPLACES
    flag, = mem.get(note).basis_ended  # fmt: skip
    assert flag.reason.endswith(f"was superseded by {friday.fact}")
    assert (flag.basis, flag.recorded_at) == (monday, friday.recorded_at)


def test_a_refinement_rests_on_what_it_refines(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A fact admitted as adding detail (doxa:refines) is flagged when the refined one ends."""
    broad = say(mem, "The offsite is in spring", clock, authority="owner")
    clock.advance(timedelta(minutes=1))
    # a revision that only adds words replaces its line (issue 36); the owner who approves
    # an agent's such edit as adding detail keeps both, the new one refining the old
    held = mem.remember(
        "The offsite is in spring, in April", topic="meetings", revises=broad, authority="agent"
    )
    assert held.outcome is doxa.Outcome.HELD, held.reason
    assert held.fact is not None
    detail = mem.owner.approve(held.fact, as_relation=doxa.Relation.ADDS_DETAIL)
    assert detail.relation is doxa.Relation.ADDS_DETAIL, detail.reason
    assert detail.fact is not None
    assert flagged_ids(mem) == set()
    mem.owner.retract(broad, reason="no offsite this year")
    assert flagged_ids(mem) == {detail.fact}


def test_as_of_before_the_ending_shows_no_flag(
    mem: doxa.Memory, clock: doxa.FixedClock, clash: dict[str, str]
) -> None:
    """Both clocks keep working: belief before the ending has no flag, after it has."""
    before = clock.now()
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(clash["dentist"], reason="moved")
    assert flagged_ids(mem, as_of=before) == set()
    old = mem.facts(as_of=before)
    assert all(not f.needs_recheck for f in old)
    assert {f.id for f in mem.facts() if f.needs_recheck} == {clash["inferred"], clash["plan"]}
    assert mem.history(clash["inferred"], as_of=before).fact.basis_ended == ()
    assert mem.history(clash["inferred"]).fact.basis_ended
    recalled = {f.id: f.needs_recheck for f in mem.recall("supplier call clashes")}
    assert recalled[clash["inferred"]]
    assert mem.why(clash["inferred"]).fact.needs_recheck


def test_erasure_flags_naming_only_the_tombstone(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """The flag names the tombstone, not the erased fact or its words."""
    secret = say(mem, "Gina's diagnosis is confidential-xyz", clock, authority="owner", topic="p")
    derived = say(mem, "Gina needs a quiet desk", clock, derived_from=[secret], topic="p")
    clock.advance(timedelta(minutes=1))
    receipt = mem.owner.erase(secret, reason="asked to forget")
    flag, = mem.get(derived).basis_ended  # fmt: skip
    assert flag.basis is None
    assert "confidential" not in flag.reason
    assert secret not in flag.reason
    assert flag.recorded_at == receipt.recorded_at
    mem.verify()


def test_the_ending_write_itself_is_not_flagged(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A write resting on the fact it replaces is the successor, not a stale dependent."""
    mem.owner.grant("schedule")
    day = {"kind": "schedule", "authority": "owner", "topic": "meetings"}
    monday = statement(mem, "The call is on Monday", "call", "dayOfWeek", EX + "Monday",
                       valid_from="2026-01-05", **day).fact  # fmt: skip
    clock.advance(timedelta(minutes=1))
    friday = statement(mem, "The call is on Friday", "call", "dayOfWeek", EX + "Friday",
                       valid_from="2026-03-08", derived_from=[monday], **day)  # fmt: skip
    assert friday.relation is doxa.Relation.REPLACES
    assert flagged_ids(mem) == set()


# -- the owner answers a flag --------------------------------------------------------------


def test_confirm_clears_the_flag_from_now_on(
    mem: doxa.Memory, clock: doxa.FixedClock, clash: dict[str, str]
) -> None:
    """Confirming leaves a receipt; earlier belief times still show the flag."""
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(clash["call"], reason="cancelled")
    flagged_at = clock.now()
    clock.advance(timedelta(minutes=1))
    receipt = mem.owner.confirm(clash["inferred"], reason="the dentist still clashes with lunch")
    assert receipt.outcome is doxa.Outcome.CLEARED
    assert receipt.targets == (clash["inferred"],)
    assert flagged_ids(mem) == {clash["plan"]}
    assert flagged_ids(mem, as_of=flagged_at) == {clash["inferred"], clash["plan"]}
    mem.verify()


def test_a_later_ending_flags_a_confirmed_fact_again(
    mem: doxa.Memory, clock: doxa.FixedClock, clash: dict[str, str]
) -> None:
    """A confirmation answers the flags before it, not the endings after it."""
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(clash["call"], reason="cancelled")
    clock.advance(timedelta(minutes=1))
    mem.owner.confirm(clash["inferred"], reason="checked")
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(clash["dentist"], reason="moved")
    assert clash["inferred"] in flagged_ids(mem)


@pytest.mark.parametrize("reason", ["", None])
def test_confirm_needs_a_reason(mem: doxa.Memory, clash: dict[str, str], reason: object) -> None:
    """No reason, no confirmation."""
    mem.owner.retract(clash["call"], reason="cancelled")
    with pytest.raises(InvalidInput):
        mem.owner.confirm(clash["inferred"], reason=reason)  # type: ignore[arg-type]


def test_confirm_refuses_a_fact_that_is_not_flagged(
    mem: doxa.Memory, clash: dict[str, str]
) -> None:
    """An unflagged, unknown or look-alike id is NotFound; the flagged one is confirmed."""
    mem.owner.retract(clash["call"], reason="cancelled")
    for wrong in (clash["control"], "nope", clash["inferred"] + "\n", clash["inferred"].upper()):
        with pytest.raises(NotFound):
            mem.owner.confirm(wrong, reason="checked")
    assert mem.owner.confirm(clash["inferred"], reason="checked").outcome is doxa.Outcome.CLEARED
    with pytest.raises(NotFound):  # confirmed twice: nothing left to confirm
        mem.owner.confirm(clash["inferred"], reason="checked")


def test_revising_or_retracting_a_flagged_fact_answers_its_flag(
    mem: doxa.Memory, clock: doxa.FixedClock, clash: dict[str, str]
) -> None:
    """Retracted or replaced, a flagged fact is no longer live and leaves the list."""
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(clash["call"], reason="cancelled")
    mem.owner.retract(clash["plan"], reason="no need to move the dentist")
    assert flagged_ids(mem) == {clash["inferred"]}


# -- absence --------------------------------------------------------------------------------


def test_an_answered_empty_search_is_flagged(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """An empty search about gina's likes is flagged once a write answers it; a write about
    another predicate (the control) does not."""
    clock.advance(timedelta(minutes=1))
    absent = statement(mem, "No liking found for Gina", "gina", "likes", EX + "nothing",
                       support="absent", query="what does gina like").fact  # fmt: skip
    clock.advance(timedelta(minutes=1))
    statement(mem, "Gina lives in Berlin", "gina", "livesIn", EX + "Berlin", authority="owner")
    assert flagged_ids(mem) == set()
    clock.advance(timedelta(minutes=1))
    answer = statement(mem, "Gina likes tea", "gina", "likes", EX + "tea", authority="owner")
    flag, = mem.get(absent or "").basis_ended  # fmt: skip
    assert flag.ending == answer.fact
    assert "found nothing" in flag.reason
    mem.verify()


def test_another_empty_search_does_not_answer_one(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A second empty result on the same question is no answer."""
    statement(mem, "No liking found for Gina", "gina", "likes", EX + "nothing",
              support="absent", query="gina likes")  # fmt: skip
    clock.advance(timedelta(minutes=1))
    statement(mem, "Still no liking found", "gina", "likes", EX + "none",
              support="absent", query="gina likes again")  # fmt: skip
    assert flagged_ids(mem) == set()


# -- the same under load and in bulk --------------------------------------------------------


def test_two_threads_never_leave_a_dependent_of_an_ended_fact_unflagged(
    mem: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Writes resting on a fact race its retraction: each is refused or flagged, never
    left live and unflagged."""
    basis = say(mem, "Supplier call on Tuesday", clock, authority="owner")
    written: list[str] = []
    barrier = threading.Barrier(2)

    def derive() -> None:
        barrier.wait()
        for n in range(20):
            try:
                receipt = mem.remember(f"Inference {n}", topic="meetings", derived_from=[basis])
            except InvalidInput:
                continue
            if receipt.fact:
                written.append(receipt.fact)

    def end() -> None:
        barrier.wait()
        mem.owner.retract(basis, reason="cancelled")

    threads = [threading.Thread(target=derive), threading.Thread(target=end)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert flagged_ids(mem) == set(written)


def test_bulk_import_flags_as_one_by_one(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """A basis, a fact resting on it and the basis's retraction later: flagged in bulk too."""
    basis = say(mem, "Supplier call on Tuesday", clock, authority="owner")
    report = mem.admin.import_claims(
        [
            {"text": "An inference", "topic": "meetings", "derived_from": [basis]},
            {"text": "Unrelated", "topic": "meetings"},
        ]
    )
    derived = report.receipts[0].fact
    mem.owner.retract(basis, reason="cancelled")
    assert flagged_ids(mem) == {derived}


def test_the_flags_are_plain_triples(mem: doxa.Memory, clash: dict[str, str]) -> None:
    """SPARQL finds every live fact whose basis ended, with the fact that ended."""
    mem.owner.retract(clash["call"], reason="cancelled")
    result = mem.rdf.sparql(
        f"""PREFIX doxa: <{DOXA}>
        SELECT ?fact ?basis WHERE {{
          ?flag a doxa:BasisEnded ; doxa:flags ?fact ; doxa:basis ?basis .
        }}"""
    )
    rows = {(str(fact).rsplit("/", 1)[-1], str(basis).rsplit("/", 1)[-1])
            for fact, basis in result.rows}  # fmt: skip
    assert rows == {(clash["inferred"], clash["call"]), (clash["plan"], clash["call"])}


def test_revising_a_flagged_fact_replaces_it(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    """The owner's correction naming the flagged fact supersedes it: the flag is answered,
    and the correction (resting on nothing that ended) is not flagged."""
    mem.owner.grant("place")
    source = say(mem, "Gina's badge was scanned in Berlin", clock, authority="tool", topic="p")
    clock.advance(timedelta(minutes=1))
    berlin = statement(mem, "Gina lives in Berlin", "gina", "livesIn", EX + "Berlin",
                       kind="place", valid_from="2026-01-05", derived_from=[source]).fact  # fmt: skip
    clock.advance(timedelta(minutes=1))
    mem.owner.retract(source, reason="the scan was someone else's badge")
    assert flagged_ids(mem) == {berlin}
    clock.advance(timedelta(minutes=1))
    munich = statement(mem, "Gina lives in Munich", "gina", "livesIn", EX + "Munich",
                       kind="place", authority="owner", valid_from="2026-03-01",
                       revises=berlin)  # fmt: skip
    assert munich.relation is doxa.Relation.REPLACES, munich.reason
    assert flagged_ids(mem) == set()
    assert mem.get(berlin or "").status is doxa.FactStatus.SUPERSEDED
