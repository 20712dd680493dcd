"""Erasure takes every identifying term only the erased writes used, and the re-write guard
compares normalised content (issue 14, finding 8)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tests.conftest import EX

import doxa
from doxa.audit.chain import verify_export
from doxa.gate.erasure import content_hashes
from doxa.ontology import PropertyTable
from doxa.store import EmbeddedStore
from doxa.text import text_key

MAIL = "mailto:zebulon.quaxford@example.org"
TURN = "urn:turn:zebulon-quaxford-1"
SHARED = "https://example.org/address-book"


def _write(mem: doxa.Memory) -> tuple[doxa.Receipt, doxa.Receipt]:
    erased = mem.remember(
        "Zebulon's phone is +1 555 0142",
        topic="contacts",
        sources=[MAIL, SHARED, MAIL],
        turn=TURN,
    )
    kept = mem.remember("Maribel likes tea", topic="contacts", sources=[SHARED])
    return erased, kept


def _store_text(mem: doxa.Memory, tmp_path: Path) -> str:
    out = tmp_path / "audit.nq"
    mem.admin.export(out, audit=True)
    return out.read_text(encoding="utf-8")


def test_erasure_removes_sources_and_turns_only_it_used(
    memory: doxa.Memory, tmp_path: Path
) -> None:
    """A source and a turn used only by the erased fact leave the store (receipts included);
    a source another fact uses stays (control), and the chain verifies, exports and imports."""
    erased, kept = _write(memory)
    before = _store_text(memory, tmp_path)
    assert MAIL in before
    assert TURN in before
    memory.owner.erase(erased.fact or "", reason="asked to forget")
    after = _store_text(memory, tmp_path)
    assert MAIL not in after
    assert TURN not in after
    assert SHARED in after
    assert memory.verify() == 3
    assert verify_export(tmp_path / "audit.nq") == {"urn:doxa:scope:alice/log": 3}
    fresh = doxa.Memory(EmbeddedStore(), scope="alice")
    fresh.admin.load_export(tmp_path / "audit.nq")
    assert fresh.verify() == 3
    assert [str(s) for s in memory.why(kept.fact or "").sources] == [SHARED]


def test_a_resealed_receipt_is_still_checked(memory: doxa.Memory, tmp_path: Path) -> None:
    """Putting an erased origin back on its receipt fails verification; the export as
    written verifies (control)."""
    erased, _ = _write(memory)
    memory.owner.erase(erased.fact or "", reason="asked to forget")
    lines = _store_text(memory, tmp_path).splitlines()
    assert verify_export(tmp_path / "audit.nq")
    receipt = next(line.split(" ")[0] for line in lines if "#origin> <" + SHARED in line)
    forged = tmp_path / "forged.nq"
    forged.write_text(
        "\n".join(
            [
                *lines,
                f"{receipt} <https://w3id.org/doxa#origin> <{MAIL}> <urn:doxa:scope:alice/log> .",
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(doxa.ChainBroken, match="does not match its hash"):
        verify_export(forged)


VARIANTS = {
    "zero-width-space": "Zebulon's ph\u200bone is +1 555 0142",
    "zero-width-joiner": "Zebu\u200dlon's phone is +1 555 0142",
    "byte-order-mark": "Zeb\ufeffulon's phone is +1 555 0142",
    "soft-hyphen": "Zebu\u00adlon's phone is +1 555 0142",
    "bidi-marks": "Zebu\u200elon's ph\u202aone\u202c is +1 555 0142",
    "fullwidth": "Ｚｅｂｕｌｏｎ's phone is ＋１ ５５５ ０１４２",
}


@pytest.mark.parametrize("text", VARIANTS.values(), ids=VARIANTS.keys())
def test_erased_text_with_invisible_characters_is_refused(memory: doxa.Memory, text: str) -> None:
    """Erased text written again with format characters or compatibility forms is refused."""
    erased, _ = _write(memory)
    memory.owner.erase(erased.fact or "", reason="asked to forget")
    with pytest.raises(doxa.ErasedContent, match="erasure is final"):
        memory.remember(text, topic="contacts")


def test_different_content_is_admitted_after_an_erasure(memory: doxa.Memory) -> None:
    """Control: genuinely different content (another number) is admitted after the erasure."""
    erased, _ = _write(memory)
    memory.owner.erase(erased.fact or "", reason="asked to forget")
    receipt = memory.remember("Zebulon's phone is +1 555 0143", topic="contacts")
    assert receipt.outcome is doxa.Outcome.ADMITTED


def test_erased_string_objects_with_invisible_characters_are_refused(memory: doxa.Memory) -> None:
    """A structured fact whose string object differs only by a zero-width space is refused;
    another value is admitted (control)."""
    fact = memory.remember(
        "Zebulon's phone",
        topic="contacts",
        subject=EX + "zeb",
        predicate=EX + "phone",
        object="+1 555 0142",
    )
    memory.owner.erase(fact.fact or "", reason="asked to forget")
    with pytest.raises(doxa.ErasedContent):
        memory.remember(
            "Zeb's number",
            topic="contacts",
            subject=EX + "zeb",
            predicate=EX + "phone",
            object="+1 555\u200b 0142",
        )
    other = memory.remember(
        "Zeb's number",
        topic="contacts",
        subject=EX + "zeb",
        predicate=EX + "phone",
        object="+1 555 0199",
    )
    assert other.outcome is doxa.Outcome.ADMITTED


def _old_text_hash(salt: str, text: str) -> str:
    """A tombstone's text hash as doxa wrote it before format characters were dropped."""
    return hashlib.sha256(f"{salt}\ntext {text_key(text, legacy=True)}".encode()).hexdigest()


@pytest.mark.parametrize(
    "text",
    ["Zebulon's phone is +1 555 0142", "Zebulon's ph\u200bone is +1 555 0142"],
    ids=["plain", "with-a-zero-width-space"],
)
def test_old_tombstones_still_guard(text: str) -> None:
    """The hashes a write is checked against include the old form, so tombstones written
    before this change still refuse the content they were written for."""
    table = PropertyTable()
    found = content_hashes("salt", table, text=text, subject=None, predicate=None, obj=None)
    assert _old_text_hash("salt", text) in found
    clean = content_hashes(
        "salt",
        table,
        text="Zebulon's phone is +1 555 0142",
        subject=None,
        predicate=None,
        obj=None,
    )
    assert clean[0] in found  # a zero-width space gives the clean text's new hash
