"""The receipt chain verifies, and any alteration of a receipt or an admitted claim breaks it."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import pytest
from tests.conftest import EX, statement

import doxa
from doxa.audit.chain import verify_export
from doxa.store import EmbeddedStore


def _story(mem: doxa.Memory, clock: doxa.FixedClock) -> None:
    statement(mem, "Bob likes tea", "bob", "likes", EX + "tea", authority="owner")
    statement(mem, "Bob lives in Lyon", "bob", "livesIn", EX + "Lyon", valid_from="2020-01-01")
    clock.set("2026-04-01")
    moved = statement(
        mem, "Bob lives in Paris", "bob", "livesIn", EX + "Paris", valid_from="2026-03-01"
    )
    mem.owner.approve(moved.fact)
    mem.remember("x", topic="general", confidence=7)  # a rejection is receipted too


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _verify(lines: list[str]) -> dict[str, int]:
    path = Path(tempfile.mkdtemp()) / "edited.nq"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return verify_export(path)


def test_chain_verifies_live_and_from_an_export(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path
) -> None:
    """The live store and its N-Quads export both verify, receipt by receipt."""
    _story(memory, clock)
    assert memory.verify() == 5
    out = tmp_path / "audit.nq"
    count = memory.admin.export(out)
    assert count == len(_lines(out)) > 0
    assert _verify(_lines(out)) == {"urn:doxa:scope:alice/log": 5}


@pytest.mark.parametrize(
    ("needle", "replacement"),
    [
        ('#reason> "nothing stored says otherwise', '#reason> "an altered reason'),
        (
            "#outcome> <https://w3id.org/doxa#Rejected>",
            "#outcome> <https://w3id.org/doxa#Admitted>",
        ),
        ('#sequence> "2"', '#sequence> "9"'),
    ],
    ids=["reason", "outcome", "sequence"],
)
def test_altering_one_receipt_breaks_the_chain(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path, needle: str, replacement: str
) -> None:
    """Flipping one receipt quad fails verification; the untouched export passes (control)."""
    _story(memory, clock)
    out = tmp_path / "audit.nq"
    memory.admin.export(out)
    lines = _lines(out)
    assert _verify(lines)
    hits = [i for i, line in enumerate(lines) if needle in line]
    assert hits, needle
    lines[hits[0]] = lines[hits[0]].replace(needle, replacement)
    with pytest.raises(doxa.ChainBroken):
        _verify(lines)


def test_altering_an_admitted_claim_breaks_the_chain(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path
) -> None:
    """Changing a stored claim's text after admission is caught by its receipt's digest."""
    _story(memory, clock)
    out = tmp_path / "audit.nq"
    memory.admin.export(out)
    lines = _lines(out)
    index = next(
        i for i, line in enumerate(lines) if '"Bob likes tea"' in line and "/topic/" in line
    )
    lines[index] = lines[index].replace("Bob likes tea", "Bob likes gin")
    with pytest.raises(doxa.ChainBroken, match="does not match the digest"):
        _verify(lines)


def test_removing_the_last_receipt_is_detected(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path
) -> None:
    """Cutting the newest receipt leaves the head pointing past the chain's end."""
    _story(memory, clock)
    out = tmp_path / "audit.nq"
    memory.admin.export(out)
    last = memory.receipts()[-1].id
    lines = [
        line
        for line in _lines(out)
        if not line.startswith(f"<urn:doxa:scope:alice/receipt/{last}>")
    ]
    with pytest.raises(doxa.ChainBroken, match="head"):
        _verify(lines)


def test_each_receipt_links_to_the_one_before(memory: doxa.Memory, clock: doxa.FixedClock) -> None:
    """Receipts are numbered 1..n and each carries its predecessor's hash."""
    _story(memory, clock)
    receipts = memory.receipts()
    assert [r.sequence for r in receipts] == [1, 2, 3, 4, 5]
    assert receipts[0].previous_hash == ""
    for before, after in itertools.pairwise(receipts):
        assert after.previous_hash == before.receipt_hash


@pytest.mark.parametrize(
    "confidence", ["0.50", "1.0", "0.5"], ids=["trailing-zero", "one-point-zero", "canonical"]
)
def test_non_canonical_literals_still_verify(memory: doxa.Memory, confidence: str) -> None:
    """A decimal the store rewrites ("0.50" → "0.5") still matches its receipt's digest."""
    memory.remember("Bob likes tea", topic="drinks", confidence=confidence)
    statement(
        memory,
        "Bob is 1.0 m tall",
        "bob",
        "height",
        doxa.Literal("1.0", datatype=doxa.IRI("http://www.w3.org/2001/XMLSchema#double")),
    )
    assert memory.verify() == 2


def _edits(lines: list[str]) -> dict[str, list[str]]:
    """Forgeries of an honest export, each a different way to rewrite the record."""
    supersession_until = next(i for i, line in enumerate(lines) if "#Supersession>" in line)
    event = lines[supersession_until].split(" ", 1)[0]
    until = next(
        i for i, line in enumerate(lines) if line.startswith(event) and "#validUntil>" in line
    )
    claim_line = next(
        i for i, line in enumerate(lines) if '"Bob likes tea"' in line and "/topic/" in line
    )
    claim = lines[claim_line].split(" ", 1)[0]
    return {
        "inject-claim": [
            *lines,
            "<urn:doxa:scope:alice/fact/forged> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/doxa#Claim> <urn:doxa:scope:alice/topic/general> .",
        ],
        "drop-supersession": [line for line in lines if not line.startswith(event)],
        "fake-retraction": [
            *lines,
            "<urn:doxa:scope:alice/event/forged> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/doxa#Retraction> <urn:doxa:scope:alice/log> .",
            f"<urn:doxa:scope:alice/event/forged> <https://w3id.org/doxa#ends> {claim} <urn:doxa:scope:alice/log> .",
        ],
        "move-end-date": [
            line.replace("2026-03-01T00:00:00", "2026-09-01T00:00:00") if i == until else line
            for i, line in enumerate(lines)
        ],
        "delete-claim": [line for line in lines if not line.startswith(claim)],
        "move-topic": [
            line.replace("/topic/general>", "/topic/elsewhere>") if line.startswith(claim) else line
            for line in lines
        ],
    }


@pytest.mark.parametrize(
    "forgery",
    [
        "inject-claim",
        "drop-supersession",
        "fake-retraction",
        "move-end-date",
        "delete-claim",
        "move-topic",
    ],
)
def test_rewriting_claims_or_events_breaks_verification(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path, forgery: str
) -> None:
    """Each way of rewriting the record past the gate fails; the honest export passes."""
    _story(memory, clock)
    out = tmp_path / "audit.nq"
    memory.admin.export(out)
    lines = _lines(out)
    assert _verify(lines) == {"urn:doxa:scope:alice/log": 5}
    forged = _edits(lines)[forgery]
    assert forged != lines
    with pytest.raises(doxa.ChainBroken):
        _verify(forged)


# -- receipts hash what the store keeps (issue 14, finding 6) -------------------------------


def _legacy_digest(lines: list[str]) -> str:
    """The receipt digest as doxa computed it before set semantics: over the sorted list."""
    import hashlib

    return hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()


@pytest.mark.parametrize(
    "fields",
    [
        {"sources": ["urn:src:1", "urn:src:1"]},
        {"sources": ["urn:src:1"], "turn": "urn:src:1"},
        {"sources": ["urn:src:1", "urn:src:2", "urn:src:1"], "turn": "urn:src:2"},
    ],
    ids=["duplicate-source", "turn-is-a-source", "both"],
)
def test_repeated_sources_and_turns_verify(
    memory: doxa.Memory, tmp_path: Path, fields: dict[str, object]
) -> None:
    """A write naming a source twice, or its turn among its sources, verifies, exports and
    re-imports."""
    receipt = memory.remember("Bob likes tea", topic="drinks", **fields)  # type: ignore[arg-type]
    assert receipt.outcome is doxa.Outcome.ADMITTED
    assert memory.verify() == 1
    out = tmp_path / "audit.nq"
    memory.admin.export(out, audit=True)
    assert verify_export(out) == {"urn:doxa:scope:alice/log": 1}
    fresh = doxa.Memory(EmbeddedStore(), scope="alice")
    assert fresh.admin.load_export(out) > 0
    assert fresh.verify() == 1
    again = tmp_path / "again.nq"
    fresh.admin.export(again, audit=True)
    assert again.read_bytes() == out.read_bytes()


def test_distinct_sources_keep_their_digest(memory: doxa.Memory) -> None:
    """Control: a write with distinct sources verifies, and its sources are all kept."""
    receipt = memory.remember("Bob likes tea", topic="drinks", sources=["urn:a", "urn:b"])
    assert memory.verify() == 1
    assert sorted(str(s) for s in memory.why(receipt.fact or "").sources) == ["urn:a", "urn:b"]


def test_receipts_without_duplicates_hash_as_before(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path
) -> None:
    """For duplicate-free receipts the set digest equals the old list digest, so every receipt
    written before set semantics still verifies."""
    from doxa.gate.receipts import digest

    _story(memory, clock)
    out = tmp_path / "audit.nq"
    memory.admin.export(out)
    bodies: dict[str, list[str]] = {}
    stated: dict[str, str] = {}
    for line in _lines(out):
        subject, predicate, rest = line.split(" ", 2)
        if "/receipt/" not in subject or not line.endswith("/log> ."):
            continue
        triple = f"{subject} {predicate} {rest.rsplit(' ', 2)[0]} ."
        if predicate == "<https://w3id.org/doxa#receiptHash>":
            stated[subject] = rest.split('"')[1]
        else:
            bodies.setdefault(subject, []).append(triple)
    assert len(stated) == 5
    for subject, lines in bodies.items():
        assert len(set(lines)) == len(lines)
        assert digest(lines) == _legacy_digest(lines) == stated[subject]
    assert digest(["b", "a", "b"]) == _legacy_digest(["a", "b"])
    assert digest(["b", "a", "b"]) != _legacy_digest(["a", "b", "b"])  # the old bug


# -- an audit export's derived graphs are verified (issue 14, finding 10) -------------------

CURRENT = "<urn:doxa:scope:alice/current> ."
LIVES_IN = f"<{EX}bob> <{EX}livesIn>"


def _current_edits(lines: list[str]) -> dict[str, list[str]]:
    """Three ways to change ``current``: drop a live statement, bring back an ended one,
    change a value."""
    live = next(i for i, line in enumerate(lines) if line.startswith(LIVES_IN) and CURRENT in line)
    dropped = lines[:live] + lines[live + 1 :]
    ended = [*lines, f"{LIVES_IN} <{EX}Lyon> {CURRENT}"]
    changed = list(lines)
    changed[live] = f"{LIVES_IN} <{EX}Berlin> {CURRENT}"
    return {"dropped": dropped, "ended-brought-back": ended, "changed": changed}


@pytest.mark.parametrize("edit", ["dropped", "ended-brought-back", "changed"])
def test_altering_current_in_an_audit_export_fails(
    memory: doxa.Memory, clock: doxa.FixedClock, tmp_path: Path, edit: str
) -> None:
    """Dropping, reviving or changing a quad of <scope>/current fails verify; the export as
    written verifies (control)."""
    _story(memory, clock)
    out = tmp_path / "audit.nq"
    memory.admin.export(out, audit=True)
    lines = _lines(out)
    assert _verify(lines) == {"urn:doxa:scope:alice/log": 5}
    assert f"{LIVES_IN} <{EX}Paris> {CURRENT}" in lines
    with pytest.raises(doxa.ChainBroken, match="a derived graph was altered"):
        _verify(_current_edits(lines)[edit])


def test_current_matches_the_claims_after_every_ending(
    memory: doxa.Memory, clock: doxa.FixedClock
) -> None:
    """Control: after supersession, retraction and erasure the live store's current graph is
    exactly what the claims give, so it verifies."""
    _story(memory, clock)
    tea = next(f for f in memory.facts() if "tea" in f.text)
    memory.owner.retract(tea.id, reason="never liked it")
    lyon = next(f for f in memory.facts(include_ended=True) if "Lyon" in f.text)
    memory.owner.erase(lyon.id, reason="old address")
    assert memory.verify() == 7
