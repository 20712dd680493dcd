"""Attacks on ``revises``: look-alike ids, another scope's id, and racing revisions.

The guard is src/doxa/gate/revising.py (revision_target); each refusal sits beside its
control, and racing writes must close the target at most once.
"""

from __future__ import annotations

import threading

import pytest
from tests.helpers import DOMAIN, EX, statement

import doxa
from doxa.errors import InvalidInput, NotFound
from doxa.store import EmbeddedStore

JAN, MAR = "2026-01-05", "2026-03-08"


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in text)


@pytest.mark.parametrize(
    ("spell", "error"),
    [
        (_fullwidth, InvalidInput),
        (lambda i: i.encode(), InvalidInput),
        (lambda i: f"{i}\u00a0", InvalidInput),
        (lambda i: f"\ufeff{i}", InvalidInput),
        (lambda i: f"{i}\x00", InvalidInput),
        (lambda i: f"{i}#x", InvalidInput),
        (lambda i: f"{i}\t", InvalidInput),
    ],
    ids=["fullwidth", "bytes", "nbsp", "bom", "nul", "fragment", "tab"],
)
def test_more_spellings_of_an_own_id_are_refused(
    clock: doxa.FixedClock, spell: object, error: type[Exception]
) -> None:
    with doxa.Memory.open(None, scope="alice", clock=clock) as mem:
        mine = mem.remember("Alice likes tea", topic="food", authority="owner")
        before = len(mem.receipts())
        with pytest.raises(error):
            mem.remember("Alice likes coffee", topic="food", revises=spell(mine.fact))  # type: ignore[operator]
        assert len(mem.receipts()) == before
        mem.remember("Alice likes coffee", topic="food", revises=mine.fact)  # control
        assert len(mem.receipts()) == before + 1


@pytest.mark.parametrize(
    "spell",
    [
        lambda i: f"urn:doxa:scope:bob/fact/{i}",
        lambda i: f"../bob/fact/{i}",
        lambda i: i.upper(),
    ],
    ids=["bob-iri", "relative-path", "upper"],
)
def test_another_scopes_fact_cannot_be_reached_by_another_spelling(
    clock: doxa.FixedClock, spell: object
) -> None:
    store = EmbeddedStore()
    alice, bob = (
        doxa.Memory(store, scope=s, clock=clock, owns_store=False) for s in ("alice", "bob")
    )
    theirs = bob.remember("Bob likes tea", topic="food", authority="owner")
    with pytest.raises((InvalidInput, NotFound)):
        alice.remember(
            "Alice likes coffee", topic="food", authority="owner", revises=spell(theirs.fact)
        )  # type: ignore[operator]
    assert bob.get(theirs.fact or "").status is doxa.FactStatus.LIVE
    assert alice.facts() == []


@pytest.mark.parametrize("shared", [True, False], ids=["one-memory", "two-memories"])
def test_racing_revisions_close_the_target_once(clock: doxa.FixedClock, shared: bool) -> None:
    """Six threads revise the same fact at once: one replaces it, the rest are refused."""
    n = 6
    store = EmbeddedStore()
    first = doxa.Memory(store, scope="alice", clock=clock, owns_store=False)
    mems = (
        [first] * n
        if shared
        else [first]
        + [doxa.Memory(store, scope="alice", clock=clock, owns_store=False) for _ in range(n - 1)]
    )
    first.schema.add_ontology(DOMAIN)
    first.owner.grant("preference")
    tea = statement(
        first,
        "Alice likes tea",
        "alice",
        "likes",
        EX + "tea",
        kind="preference",
        authority="owner",
        valid_from=JAN,
    )
    barrier = threading.Barrier(n)
    results: list[object] = []

    def revise(i: int) -> None:
        barrier.wait()
        try:
            results.append(
                statement(
                    mems[i],
                    f"Alice likes drink{i}",
                    "alice",
                    "likes",
                    EX + f"drink{i}",
                    kind="preference",
                    authority="owner",
                    valid_from=MAR,
                    revises=tea.fact,
                ).relation
            )
        except Exception as error:  # the kind of error is what is tested
            results.append(error)

    threads = [threading.Thread(target=revise, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    replaced = [r for r in results if r is doxa.Relation.REPLACES]
    others = [r for r in results if r is not doxa.Relation.REPLACES]
    assert len(replaced) == 1
    assert all(isinstance(r, InvalidInput) or r is doxa.Relation.UNCLEAR for r in others), others
    assert first.get(tea.fact or "").status is doxa.FactStatus.SUPERSEDED
    assert len(first.facts()) == 1
    first.verify()
