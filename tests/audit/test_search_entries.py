"""`verify` holds the search graph to its claims both ways (issue 34).

The search graph is derived, but recall and the gate read it: a claim whose entries are gone
is hidden from ``recall`` and from the gate's lookups (a second value would not meet it).
Verify already held each entry present to its claim; it now also requires each claim's
entries (the copies of its topic and clocks, its links, its question, the words of its text)
and refuses any other field of a claim copied in. Each attack sits beside the untouched store
or export that verifies, and the everyday paths (a correction, an erasure) keep verifying.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.term import Node
from tests.helpers import EX

import doxa
from doxa.audit.chain import verify_export
from doxa.gate.index import TERM
from doxa.store import Change
from doxa.vocabulary import DOXA, RDF

MINUTE = timedelta(minutes=1)
Quad = tuple[Node, Node, Node, Node]


def stored(clock: doxa.FixedClock) -> tuple[doxa.Memory, URIRef, URIRef]:
    """A structured claim, a plain sentence and a fact resting on the first: the claims."""
    mem = doxa.Memory.open(None, scope="alice", clock=clock)
    home = mem.remember(
        "Alice lives in Lyon",
        topic="home",
        subject=EX + "alice",
        predicate=EX + "livesIn",
        object=EX + "Lyon",
        authority="owner",
    )
    clock.advance(MINUTE)
    note = mem.remember("The weekly supplier call is on Wednesday", topic="work", authority="owner")
    clock.advance(MINUTE)
    mem.remember(
        "Alice's post goes to Lyon",
        topic="home",
        derived_from=[home.fact or ""],
        authority="owner",
    )
    return mem, mem.scope.fact(home.fact or ""), mem.scope.fact(note.fact or "")


def search_quads(mem: doxa.Memory, claim: URIRef) -> list[Quad]:
    return [q for q in mem.store.quads(mem.scope.search) if q[0] == claim]


def _attack(mem: doxa.Memory, attack: str, home: URIRef, note: URIRef) -> None:
    search = mem.scope.search
    mine = search_quads(mem, note)
    if attack == "drop-topic":
        mem.store.apply(Change(delete=[q for q in mine if q[1] == DOXA.topic]))
    elif attack == "drop-recorded":
        mem.store.apply(Change(delete=[q for q in mine if q[1] == DOXA.recordedAt]))
    elif attack == "drop-word":
        word = Literal("wednesday")
        mem.store.apply(Change(delete=[q for q in mine if (q[1], q[2]) == (TERM, word)]))
    elif attack == "drop-all":
        mem.store.apply(Change(delete=mine))
    elif attack == "drop-link":
        rests = [q for q in mem.store.quads(search) if q[1] == DOXA.restsOn]
        assert rests
        mem.store.apply(Change(delete=rests))
    elif attack == "copy-text":
        text = next(q for q in mem.store.quads() if q[0] == note and q[1] == DOXA.text)
        mem.store.apply(Change(insert=[(note, DOXA.text, text[2], search)]))
    elif attack == "copy-subject":
        subject = next(q for q in mem.store.quads() if q[0] == home and q[1] == RDF.subject)
        mem.store.apply(Change(insert=[(home, RDF.subject, subject[2], search)]))
    else:
        raise AssertionError(attack)


MISSING = ["drop-topic", "drop-recorded", "drop-word", "drop-all", "drop-link"]
COPIED = ["copy-text", "copy-subject"]


@pytest.mark.parametrize("attack", MISSING + COPIED)
def test_an_altered_search_graph_fails_verify(clock: doxa.FixedClock, attack: str) -> None:
    mem, home, note = stored(clock)
    assert mem.verify() == len(mem.receipts())  # control: untouched, it verifies
    _attack(mem, attack, home, note)
    message = "is missing from the search graph" if attack in MISSING else "does not follow"
    with pytest.raises(doxa.ChainBroken, match=message):
        mem.verify()


def test_a_dropped_entry_fails_in_the_export_and_a_reordered_one_verifies(
    clock: doxa.FixedClock, tmp_path: Path
) -> None:
    """From the file alone: the audit export verifies, in reverse order too; without one
    word of the sentence it does not."""
    mem, _, note = stored(clock)
    path = tmp_path / "audit.nq"
    mem.admin.export(path, audit=True)
    expected = {str(mem.scope.log): len(mem.receipts())}
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    reordered = tmp_path / "reordered.nq"
    reordered.write_text("".join(reversed(lines)), encoding="utf-8")
    assert verify_export(path) == verify_export(reordered) == expected
    word = f'<{note}> <{TERM}> "wednesday" <{mem.scope.search}> .\n'
    assert word in lines
    forged = tmp_path / "forged.nq"
    forged.write_text("".join(line for line in lines if line != word), encoding="utf-8")
    with pytest.raises(doxa.ChainBroken, match="wednesday"):
        verify_export(forged)


def test_corrections_and_erasure_keep_the_search_graph_verifying(
    clock: doxa.FixedClock,
) -> None:
    """The everyday paths rewrite entries (a supersession moves keys, an erasure takes the
    claim and its entries): each keeps verifying."""
    mem, home, _ = stored(clock)
    clock.advance(MINUTE)
    moved = mem.remember(
        "Alice lives in Paris",
        topic="home",
        subject=EX + "alice",
        predicate=EX + "livesIn",
        object=EX + "Paris",
        authority="owner",
        revises=mem.scope.local_id(home),
    )
    assert moved.outcome is doxa.Outcome.ADMITTED, moved.reason
    assert mem.verify() == len(mem.receipts())
    assert search_quads(mem, home)  # the ended claim keeps its words
    mem.owner.erase(moved.fact or "", reason="asked to forget", wait=True)
    assert not search_quads(mem, mem.scope.fact(moved.fact or ""))
    assert mem.verify() == len(mem.receipts())
