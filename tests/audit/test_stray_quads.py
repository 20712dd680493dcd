"""Stray quads: quads no receipt covers must fail verification and must not sway the gate.

The gate's queries match patterns, so an untyped node carrying ``doxa:ends`` once silenced
an owner's rule and one carrying ``doxa:grantsKind`` granted automatic closing, while both
checks still passed. Each attack is kept twice: tampered into an export (verify_export and
load_export refuse it) and inserted straight into a live store (the gate ignores it, verify
names it), each beside its untampered control.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from tests.helpers import DOMAIN, EX

import doxa
from doxa.audit.chain import verify_export
from doxa.gate.receipts import (
    ChainHead,
    ReceiptDraft,
    produced_digest,
    quad_digest,
    receipt_triples,
)
from doxa.store import Change
from doxa.vocabulary import DOXA, RDF

LOG = "<urn:doxa:scope:alice/log>"
D = "https://w3id.org/doxa#"


def fresh(clock: str = "2026-03-10") -> doxa.Memory:
    mem = doxa.Memory.open(None, scope="alice", clock=doxa.FixedClock(clock))
    mem.schema.add_ontology(DOMAIN)
    return mem


def forbid(mem: doxa.Memory) -> doxa.Receipt:
    return mem.remember(
        "Never pay the invoice to Evil Corp",
        topic="finance",
        subject="http://ex/invoice",
        predicate="http://ex/payTo",
        object="http://ex/evilcorp",
        authority="owner",
        rule="forbids",
    )


def pay(mem: doxa.Memory) -> doxa.Receipt:
    return mem.remember(
        "The invoice goes to Evil Corp",
        topic="finance",
        subject="http://ex/invoice",
        predicate="http://ex/payTo",
        object="http://ex/evilcorp",
        authority="agent",
    )


def call(mem: doxa.Memory, day: str, start: str, authority: str) -> doxa.Receipt:
    return mem.remember(
        f"Call is {day}",
        topic="meetings",
        subject=EX + "call",
        predicate=EX + "dayOfWeek",
        object=EX + day,
        authority=authority,
        valid_from=start,
    )


def untyped_ending(rule: str) -> str:
    return f"<urn:x:e> <{D}ends> <urn:doxa:scope:alice/fact/{rule}> {LOG} .\n"


UNTYPED_GRANT = (
    f'<urn:x:forged> <{D}grantsKind> "general" {LOG} .\n'
    f"<urn:x:forged> <{D}outcome> <{D}Granted> {LOG} .\n"
    f'<urn:x:forged> <{D}sequence> "999"^^<http://www.w3.org/2001/XMLSchema#integer> {LOG} .\n'
)


def exported(tmp_path: Path, mem: doxa.Memory, extra: str = "") -> Path:
    path = tmp_path / "export.nq"
    mem.admin.export(path)
    if extra:
        path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    return path


def stray_message(subject: str, graph: str = "urn:doxa:scope:alice/log") -> str:
    return re.escape(f"in graph {graph} belongs to no receipted node: subject {subject} ")


# -- the rule silenced by an untyped ending (the reviewer's i4) --------------------------


def test_an_untampered_rule_export_verifies_and_the_rule_holds(tmp_path: Path) -> None:
    """Control: the genuine export verifies, loads, and the rule still holds the write."""
    owner = fresh("2026-03-01")
    forbid(owner)
    path = exported(tmp_path, owner)
    assert verify_export(path) == {"urn:doxa:scope:alice/log": 1}
    mem = fresh()
    mem.admin.load_export(path)
    assert mem.verify() == 1
    written = pay(mem)
    assert (written.relation, written.outcome) == (
        doxa.Relation.CLASHES_WITH_RULE,
        doxa.Outcome.HELD,
    )


def test_an_untyped_ending_in_an_export_fails_verify_and_load(tmp_path: Path) -> None:
    """One appended untyped doxa:ends quad fails verify_export and load_export, naming it."""
    owner = fresh("2026-03-01")
    rule = forbid(owner).fact
    assert rule is not None
    path = exported(tmp_path, owner, untyped_ending(rule))
    with pytest.raises(doxa.ChainBroken, match=stray_message("urn:x:e")):
        verify_export(path)
    mem = fresh()
    with pytest.raises(doxa.ChainBroken, match=stray_message("urn:x:e")):
        mem.admin.load_export(path)
    assert mem.facts() == []  # nothing was written


def test_a_stray_ending_in_a_live_store_leaves_the_rule_standing() -> None:
    """Inserted past the gate, an untyped ending does not silence the rule; verify names it."""
    mem = fresh("2026-03-01")
    rule = forbid(mem).fact
    assert rule is not None
    stray = (URIRef("urn:x:e"), DOXA.ends, mem.scope.fact(rule), mem.scope.log)
    mem.store.apply(Change(insert=[stray]))
    written = pay(mem)
    assert (written.relation, written.outcome) == (
        doxa.Relation.CLASHES_WITH_RULE,
        doxa.Outcome.HELD,
    )
    with pytest.raises(doxa.ChainBroken, match=stray_message("urn:x:e")):
        mem.verify()


def test_a_typed_ending_through_the_gate_still_ends_the_rule() -> None:
    """Control: a retraction the gate wrote does end the rule, and the store verifies."""
    mem = fresh("2026-03-01")
    rule = forbid(mem).fact
    assert rule is not None
    mem.owner.retract(rule, reason="the owner changed their mind")
    written = pay(mem)
    assert written.outcome is doxa.Outcome.ADMITTED
    assert mem.verify() == 3


# -- closing granted by an untyped grant (the reviewer's i2) -----------------------------


def owner_call(clock: str = "2026-03-01") -> doxa.Memory:
    mem = fresh(clock)
    call(mem, "Wednesday", "2026-01-01", "owner")
    return mem


def test_an_untampered_export_grants_no_closing(tmp_path: Path) -> None:
    """Control: the genuine export verifies and the owner's correction is held, not closed."""
    path = exported(tmp_path, owner_call())
    assert verify_export(path) == {"urn:doxa:scope:alice/log": 1}
    mem = fresh()
    mem.admin.load_export(path)
    assert not mem.owner.closing_earned("general")
    assert call(mem, "Thursday", "2026-03-09", "owner").outcome is doxa.Outcome.HELD


def test_an_untyped_grant_in_an_export_fails_verify_and_load(tmp_path: Path) -> None:
    """Three appended untyped grant quads fail verify_export and load_export, naming them."""
    path = exported(tmp_path, owner_call(), UNTYPED_GRANT)
    with pytest.raises(doxa.ChainBroken, match=stray_message("urn:x:forged")):
        verify_export(path)
    mem = fresh()
    with pytest.raises(doxa.ChainBroken, match=stray_message("urn:x:forged")):
        mem.admin.load_export(path)
    assert not mem.owner.closing_earned("general")


def test_a_stray_grant_in_a_live_store_grants_nothing() -> None:
    """Inserted past the gate, an untyped grant earns no closing; verify names it."""
    mem = owner_call()
    node, log = URIRef("urn:x:forged"), mem.scope.log
    mem.store.apply(
        Change(
            insert=[
                (node, DOXA.grantsKind, Literal("general"), log),
                (node, DOXA.outcome, DOXA.Granted, log),
                (node, DOXA.sequence, Literal(999), log),
            ]
        )
    )
    assert not mem.owner.closing_earned("general")
    assert call(mem, "Thursday", "2026-03-09", "owner").outcome is doxa.Outcome.HELD
    with pytest.raises(doxa.ChainBroken, match=stray_message("urn:x:forged")):
        mem.verify()


def test_a_grant_through_the_gate_still_earns_closing() -> None:
    """Control: the owner's grant (a receipt) earns closing, and the store verifies."""
    mem = owner_call()
    mem.owner.grant("general")
    assert mem.owner.closing_earned("general")
    assert call(mem, "Thursday", "2026-03-09", "owner").outcome is doxa.Outcome.ADMITTED
    assert mem.verify() == 3


def test_a_stray_ledger_score_earns_nothing() -> None:
    """An untyped node carrying a perfect ledger score earns no closing for the judge."""
    mem = owner_call()
    judge = f"{mem.gate.judge.name}/{mem.gate.judge.version}"
    node, log = URIRef("urn:x:score"), mem.scope.log
    score = [
        (node, DOXA.scoresJudge, Literal(judge), log),
        (node, DOXA.kind, Literal("general"), log),
        (node, DOXA.agreements, Literal(10_000), log),
        (node, DOXA.decisions, Literal(10_000), log),
    ]
    mem.store.apply(Change(insert=score))
    assert not mem.owner.closing_earned("general")
    # control: the same fields on a receipt-typed node do count (the query reads them)
    mem.store.apply(Change(insert=[(node, RDF.type, DOXA.Receipt, log)]))
    assert mem.owner.closing_earned("general")


def test_a_stray_clearing_leaves_the_alarm_open() -> None:
    """An untyped doxa:clears quad does not clear an alarm; the owner's clearing does."""
    mem = fresh()
    mem.owner.grant("general")
    page = "https://calendar.example/feed"
    for who in ("a", "b", "c"):
        mem.remember(
            f"{who} calls on Wednesday",
            topic="calls",
            subject=EX + who,
            predicate=EX + "dayOfWeek",
            object=EX + "Wednesday",
            valid_from="2026-01-05",
            authority="owner",
        )
    for who in ("a", "b", "c"):
        mem.remember(
            f"{who} calls on Thursday",
            topic="calls",
            subject=EX + who,
            predicate=EX + "dayOfWeek",
            object=EX + "Thursday",
            valid_from="2026-03-01",
            authority="owner",
            sources=[page],
        )
    (alarm,) = mem.owner.alarms()
    stray = (URIRef("urn:x:c"), DOXA.clears, mem.scope.alarm(alarm.id), mem.scope.log)
    mem.store.apply(Change(insert=[stray]))
    assert [a.id for a in mem.owner.alarms()] == [alarm.id]
    assert not mem.owner.closing_earned("general")
    mem.store.apply(Change(delete=[stray]))
    mem.owner.clear_alarm(alarm, reason="checked the feed")
    assert mem.owner.alarms() == []
    assert mem.owner.closing_earned("general")


# -- what else counts as a stray ---------------------------------------------------------


Quad = tuple[URIRef, URIRef, URIRef | Literal, URIRef]


def _stray_cases(mem: doxa.Memory, receipt: URIRef) -> dict[str, list[Quad]]:
    log, rules, topic = mem.scope.log, mem.scope.rules, mem.scope.topic("meetings")
    node = URIRef("urn:x:n")
    return {
        "untyped node in the log": [(node, DOXA.reason, Literal("x"), log)],
        "untyped node in a topic": [(node, RDF.subject, URIRef(EX + "call"), topic)],
        "untyped node in the rules": [(node, DOXA.ruleMode, DOXA.Forbids, rules)],
        "a receipt's quad outside its log": [(receipt, DOXA.reason, Literal("x"), topic)],
        "a second chain head": [(log, DOXA.head, URIRef("urn:x:r"), log)],
        "a second change counter": [(log, DOXA.version, Literal(99), log)],
        # one salt is bookkeeping (an erasure arms it); a second one is not
        "a second salt": [(log, DOXA.salt, Literal(v), log) for v in ("00", "01")],
        "an unknown quad on the log": [(log, DOXA.reason, Literal("x"), log)],
    }


CASES = [
    "untyped node in the log",
    "untyped node in a topic",
    "untyped node in the rules",
    "a receipt's quad outside its log",
    "a second chain head",
    "a second change counter",
    "a second salt",
    "an unknown quad on the log",
]


@pytest.mark.parametrize("case", CASES)
def test_every_stray_quad_fails_verify(case: str) -> None:
    """Each kind of quad no receipt covers fails verify, naming its graph and subject."""
    mem = owner_call()
    receipt = mem.scope.receipt(mem.receipts()[0].id)
    assert mem.verify() == 1  # control: the same store, untampered
    quads = _stray_cases(mem, receipt)[case]
    mem.store.apply(Change(insert=quads))
    expected = stray_message(str(quads[0][0]), str(quads[0][3]))
    with pytest.raises(doxa.ChainBroken, match=expected):
        mem.verify()


def test_a_quad_added_to_a_receipted_claim_fails_its_digest() -> None:
    """A quad added to an admitted claim is caught by its receipt's content digest."""
    mem = owner_call()
    fact = mem.scope.fact(mem.facts()[0].id)
    assert mem.verify() == 1
    extra = (fact, DOXA.confidence, Literal(1.0), mem.scope.topic("meetings"))
    mem.store.apply(Change(insert=[extra]))
    with pytest.raises(doxa.ChainBroken, match="does not match the digest it recorded"):
        mem.verify()


def test_a_receipt_outside_the_log_vouches_for_nothing() -> None:
    """A well-formed receipt forged into the pending graph, 'producing' a stray node with the
    right digest, does not account for it: only a log's receipts vouch."""
    mem = owner_call()
    node, log, pending = URIRef("urn:x:n"), mem.scope.log, mem.scope.pending
    stray = (node, DOXA.reason, Literal("x"), log)
    draft = ReceiptDraft(
        outcome=doxa.Outcome.ADMITTED,
        reason="forged",
        judge="rule",
        judge_version="3",
        content_digest=produced_digest({node: quad_digest([stray])}),
        produced=(node,),
    )
    head = ChainHead(receipt=None, receipt_hash="", sequence=0)
    triples, _ = receipt_triples(URIRef("urn:x:receipt"), draft, head, datetime.now(UTC))
    mem.store.apply(Change(insert=[stray, *((s, p, o, pending) for s, p, o in triples)]))
    with pytest.raises(doxa.ChainBroken, match=stray_message("urn:x:n")):
        mem.verify()
