"""`verify` covers the vocabulary: each name is what the latest receipt that wrote it left.

A name decides what later writes' names resolve to: changing the label of the entity "Bob"
to "Robert" would send the next "Bob" to a new entity and "Robert" to Bob's facts. Each
decision that writes a vocabulary node (a minted name, a predicate the owner taught about)
records one ``doxa:nameDigest`` entry per node, its IRI and the digest of its quads as the
decision left them. Each attack sits beside the untouched store that verifies; minting,
teaching and erasing keep verifying; an erasure takes the removed names' entries off.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from tests.helpers import EX

import doxa
from doxa.audit.chain import verify_export
from doxa.gate import record
from doxa.store import Change
from doxa.vocabulary import DOXA, OWL, RDF, RDFS


def named(clock: doxa.FixedClock) -> tuple[doxa.Memory, doxa.Receipt]:
    """A memory where the owner wrote about Bob by name: "Bob" and "lives in" are minted."""
    mem = doxa.Memory.open(None, scope="alice", clock=clock)
    receipt = mem.remember(
        "Bob lives in Paris", topic="people", subject="Bob", predicate="lives in", object="Paris"
    )
    return mem, receipt


def vocabulary(mem: doxa.Memory) -> list[tuple[URIRef, URIRef, object, URIRef]]:
    return list(mem.store.quads(mem.scope.vocabulary))  # type: ignore[arg-type]


def entries(mem: doxa.Memory) -> dict[str, list[str]]:
    """Each receipt's name entries, by receipt id."""
    log = list(mem.store.quads(mem.scope.log))
    return {
        r.id: sorted(
            str(o) for s, p, o, _ in log if s == mem.scope.receipt(r.id) and p == DOXA.nameDigest
        )
        for r in mem.receipts()
    }


def bob(mem: doxa.Memory) -> URIRef:
    return next(s for s, p, o, _ in vocabulary(mem) if p == RDFS.label and str(o) == "Bob")


def test_the_minting_receipt_digests_each_name_it_wrote(clock: doxa.FixedClock) -> None:
    mem, receipt = named(clock)
    nodes = {str(s) for s, *_ in vocabulary(mem)}
    assert len(nodes) == 2  # the entity Bob and the predicate "lives in"
    assert {e.split(" ")[0] for e in entries(mem)[receipt.id]} == nodes
    again = mem.remember(
        "Bob likes tea", topic="people", subject="Bob", predicate="likes", object="tea"
    )
    # control: a name used again is not written again; only the new predicate is
    assert [e.split(" ")[0] for e in entries(mem)[again.id]] == [
        str(s) for s, p, o, _ in vocabulary(mem) if p == RDFS.label and str(o) == "likes"
    ]
    assert mem.verify() == len(mem.receipts())


def _alter(mem: doxa.Memory, attack: str) -> None:
    graph, node = mem.scope.vocabulary, bob(mem)
    label = (node, RDFS.label, Literal("Bob"), graph)
    if attack == "relabel":
        mem.store.apply(
            Change(delete=[label], insert=[(node, RDFS.label, Literal("Robert"), graph)])
        )
    elif attack == "rekey":
        key = next(q for q in vocabulary(mem) if q[0] == node and q[1] == DOXA.nameKey)
        mem.store.apply(
            Change(delete=[key], insert=[(node, DOXA.nameKey, Literal("robert"), graph)])
        )
    elif attack == "alias":  # a second label: "Robert" now resolves to Bob too
        mem.store.apply(Change(insert=[(node, RDFS.label, Literal("Robert"), graph)]))
    elif attack == "drop":
        mem.store.apply(Change(delete=[label]))
    elif attack == "delete":
        mem.store.apply(Change(delete=[q for q in vocabulary(mem) if q[0] == node]))
    elif attack == "lesson":  # "lives in" made one value at a time, which the owner never taught
        predicate = next(
            s for s, p, o, _ in vocabulary(mem) if p == RDFS.label and str(o) == "lives in"
        )
        mem.store.apply(Change(insert=[(predicate, RDF.type, OWL.FunctionalProperty, graph)]))
    else:
        raise AssertionError(attack)


ATTACKS = ["relabel", "rekey", "alias", "drop", "delete", "lesson"]


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_altered_name_fails_verify(clock: doxa.FixedClock, attack: str) -> None:
    mem, _ = named(clock)
    assert mem.verify() == len(mem.receipts())  # control: untouched, it verifies
    _alter(mem, attack)
    with pytest.raises(doxa.ChainBroken, match=r"is not what receipt .* left"):
        mem.verify()


def test_an_altered_export_fails_and_the_untouched_one_verifies(
    clock: doxa.FixedClock, tmp_path: Path
) -> None:
    mem, _ = named(clock)
    path = tmp_path / "export.nq"
    mem.admin.export(path)
    assert verify_export(path) == {str(mem.scope.log): len(mem.receipts())}
    text = path.read_text(encoding="utf-8")
    assert text.count('"Bob"') == 1  # the label: the fact's text says "Bob lives in Paris"
    forged = tmp_path / "forged.nq"
    forged.write_text(text.replace('"Bob"', '"Robert"'), encoding="utf-8")
    with pytest.raises(doxa.ChainBroken, match="is not what receipt"):
        verify_export(forged)


def test_the_owners_lesson_is_digested_with_the_name_it_adds_to(clock: doxa.FixedClock) -> None:
    """A lesson adds a type to a predicate another decision wrote: its entry digests the
    node as it now stands, so the store verifies, and the lesson's type removed fails."""
    mem = doxa.Memory.open(None, scope="alice", clock=clock)
    mem.owner.grant("contact")
    phone = {"topic": "contacts", "subject": EX + "bob", "predicate": "phone", "kind": "contact"}
    mem.remember("Bob's phone is 555-0101", object="555-0101", **phone)  # type: ignore[arg-type]
    second = mem.remember("Bob's phone is 555-0199", object="555-0199", **phone)  # type: ignore[arg-type]
    assert second.held is not None
    answer = mem.owner.approve(second.held, as_relation="replaces")
    predicate = next(s for s, p, o, _ in vocabulary(mem) if p == RDFS.label and str(o) == "phone")
    taught = (predicate, RDF.type, OWL.FunctionalProperty, mem.scope.vocabulary)
    assert taught in vocabulary(mem)
    assert any(e.startswith(f"{predicate} ") for e in entries(mem)[answer.id])
    assert mem.verify() == len(mem.receipts())
    mem.store.apply(Change(delete=[taught]))
    with pytest.raises(doxa.ChainBroken, match=r"is not what receipt .* left"):
        mem.verify()


def test_an_erasure_takes_the_removed_names_entries_off(clock: doxa.FixedClock) -> None:
    """Erasing Bob's only fact removes the name "Bob" and its entry (the entry holds the IRI
    made from the name); the entry of "lives in", still used, stays (control)."""
    mem, receipt = named(clock)
    mem.remember(
        "Carol lives in Rome", topic="people", subject="Carol", predicate="lives in", object="Rome"
    )
    node = str(bob(mem))
    assert any(e.startswith(f"{node} ") for e in entries(mem)[receipt.id])
    mem.owner.erase(receipt.fact or "", reason="asked to forget", wait=True)
    assert not any(str(s) == node for s, *_ in vocabulary(mem))
    left = entries(mem)[receipt.id]
    assert not any(e.startswith(f"{node} ") for e in left)
    assert len(left) == 1  # "lives in"
    assert all(node not in e for es in entries(mem).values() for e in es)
    assert mem.verify() == len(mem.receipts())


def test_names_from_before_name_digests_still_verify(
    clock: doxa.FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written before name digests: its names have no entries and are accepted as
    they are; a name minted after the upgrade is checked (control)."""
    monkeypatch.setattr(record.Record, "_names", lambda self, decision: ((), False))
    mem, _ = named(clock)
    monkeypatch.undo()
    assert not any(entries(mem).values())
    _alter(mem, "relabel")
    assert mem.verify() == len(mem.receipts())
    mem.remember(
        "Dan lives in Nice", topic="people", subject="Dan", predicate="lives in", object="Nice"
    )
    dan = next(s for s, p, o, _ in vocabulary(mem) if p == RDFS.label and str(o) == "Dan")
    graph = mem.scope.vocabulary
    mem.store.apply(
        Change(
            delete=[(dan, RDFS.label, Literal("Dan"), graph)],
            insert=[(dan, RDFS.label, Literal("Daniel"), graph)],
        )
    )
    with pytest.raises(doxa.ChainBroken, match="is not what receipt"):
        mem.verify()


def test_a_name_added_past_the_gate_fails_once_the_scope_has_its_baseline(
    clock: doxa.FixedClock,
) -> None:
    """The scope's first name receipt digests every name (``doxa:nameBaseline``): after it,
    a vocabulary node no receipt wrote (a label copied in, a receipt's quad copied in) was
    added past the gate and fails; before any name receipt, there is nothing to require."""
    mem, receipt = named(clock)
    log = list(mem.store.quads(mem.scope.log))
    baselines = [s for s, p, o, _ in log if p == DOXA.nameBaseline and o == Literal(True)]
    assert baselines == [mem.scope.receipt(receipt.id)]
    graph = mem.scope.vocabulary
    for stray in [
        (URIRef(EX + "robert"), RDFS.label, Literal("Robert"), graph),
        (mem.scope.receipt(receipt.id), DOXA.sequence, Literal(1), graph),
    ]:
        assert mem.verify() == len(mem.receipts())  # control: untouched, it verifies
        mem.store.apply(Change(insert=[stray]))
        with pytest.raises(doxa.ChainBroken, match="was written by no receipt"):
            mem.verify()
        mem.store.apply(Change(delete=[stray]))
    # control: a second name receipt is no baseline (one per scope)
    mem.remember("Bob likes tea", topic="people", subject="Bob", predicate="likes", object="tea")
    log = list(mem.store.quads(mem.scope.log))
    assert len([s for s, p, o, _ in log if p == DOXA.nameBaseline]) == 1
    assert mem.verify() == len(mem.receipts())


def test_an_upgraded_store_baselines_its_older_names_with_its_next_name(
    clock: doxa.FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names written before digests get their entries from the first name receipt after the
    upgrade: from then on, altering an older name fails as a new one does."""
    monkeypatch.setattr(record.Record, "_names", lambda self, decision: ((), False))
    mem, _ = named(clock)
    monkeypatch.undo()
    older = bob(mem)
    baseline = mem.remember(
        "Eve lives in Oslo", topic="people", subject="Eve", predicate="lives in", object="Oslo"
    )
    assert any(e.startswith(f"{older} ") for e in entries(mem)[baseline.id])
    assert mem.verify() == len(mem.receipts())
    _alter(mem, "relabel")
    with pytest.raises(doxa.ChainBroken, match="is not what receipt"):
        mem.verify()


def test_names_minted_by_threads_at_once_have_one_baseline_and_verify(tmp_path: Path) -> None:
    """Attack: six threads mint names at once in a fresh on-disk scope; the baseline is
    written once and every name has its entry (a name added past the gate still fails:
    the control)."""
    import threading

    with doxa.Memory.open(tmp_path / "store", scope="bob") as mem:

        def mint(i: int) -> None:
            mem.remember(
                f"P{i} lives in C{i}",
                topic="people",
                subject=f"P{i}",
                predicate="lives in",
                object=f"C{i}",
            )

        threads = [threading.Thread(target=mint, args=(i,)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        log = list(mem.store.quads(mem.scope.log))
        assert sum(1 for q in log if q[1] == DOXA.nameBaseline) == 1
        assert mem.verify() == len(mem.receipts()) == 6
        stray = (URIRef(EX + "ghost"), RDFS.label, Literal("Ghost"), mem.scope.vocabulary)
        mem.store.apply(Change(insert=[stray]))
        with pytest.raises(doxa.ChainBroken, match="was written by no receipt"):
            mem.verify()
