"""Erasure: the content leaves every read, export and file (backups included); a tombstone stays
and the same content cannot come back, while different content can."""

from __future__ import annotations

import io
import shutil
import subprocess
import tempfile
from pathlib import Path

import lz4.block
import pytest
import rocksdict
from tests.conftest import EX

import doxa

ERASED = ("Zebulon Quaxford", "Brindlewick Road 3", "zebulon-quaxford", "+1 555 0142")
KEPT = ("Maribel Ostrander", "Quillfeather Lane 7", "maribel-ostrander")


def people(mem: doxa.Memory) -> tuple[doxa.Receipt, doxa.Receipt]:
    zeb, mar = EX + "zebulon-quaxford", EX + "maribel-ostrander"
    mem.remember(
        "Zebulon Quaxford lives at Brindlewick Road 3",
        topic="people",
        authority="owner",
        subject=zeb,
        predicate=EX + "address",
        object="Brindlewick Road 3",
    )
    phone = mem.remember(
        "Zebulon Quaxford's phone is +1 555 0142",
        topic="contacts",
        authority="owner",
        subject=zeb,
        predicate=EX + "phone",
        object="+1 555 0142",
    )
    mem.remember(
        "Zebulon Quaxford likes Maribel",
        topic="people",
        authority="agent",
        subject=zeb,
        predicate=EX + "likes",
        object=mar,
    )
    kept = mem.remember(
        "Maribel Ostrander lives at Quillfeather Lane 7",
        topic="people",
        authority="owner",
        subject=mar,
        predicate=EX + "address",
        object="Quillfeather Lane 7",
    )
    return phone, kept


def decompressed(path: Path) -> bytes:
    """A RocksDB table file's entries, decompressed (Oxigraph's files are LZ4-compressed,
    which hides strings from a plain byte search). Debian's ``sst_dump`` reads most files;
    a newer table format (RocksDB's format_version 7, which Oxigraph's own flushes write) is
    read by ingesting it into a scratch RocksDB (rocksdict) or, failing that, by decoding
    every LZ4 block found in the file (:func:`lz4_blocks`)."""
    tool = shutil.which("sst_dump")
    assert tool is not None, "install Debian's rocksdb-tools (scripts/check does)"
    scan = subprocess.run([tool, f"--file={path}", "--command=scan"], capture_output=True)
    if scan.returncode == 0:
        return scan.stdout
    with tempfile.TemporaryDirectory() as scratch:
        db = rocksdict.Rdict(f"{scratch}/db", rocksdict.Options(raw_mode=True))
        options = rocksdict.IngestExternalFileOptions()
        options.set_move_files(False)
        try:
            db.ingest_external_file([str(path)], options)
            return b"".join(key + b"\0" + value for key, value in db.items())
        except Exception:
            return lz4_blocks(path.read_bytes())
        finally:
            db.close()


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    value, shift = 0, 0
    while offset < len(data) and shift < 35:
        byte = data[offset]
        value |= (byte & 0x7F) << shift
        offset += 1
        shift += 7
        if not byte & 0x80:
            return value, offset
    return 0, offset


def lz4_blocks(data: bytes) -> bytes:
    """Every LZ4-compressed block of a RocksDB table file, decompressed, whatever the
    table format: a compressed block is the varint32 of its size then an LZ4 block, and is
    followed by a trailer whose first byte says LZ4 (4). Blocks stored uncompressed are in
    the file's own bytes, which the callers search too."""
    found = []
    offset = 0
    while offset < len(data):
        size, start = _varint(data, offset)
        decoded = False
        if 0 < size < 1 << 24:
            last = min(len(data) - 5, start + size + size // 255 + 32)
            end = data.find(b"\x04", start)
            while 0 <= end <= last:
                try:
                    found.append(lz4.block.decompress(data[start:end], uncompressed_size=size))
                except lz4.block.LZ4BlockError:
                    end = data.find(b"\x04", end + 1)
                    continue
                offset, decoded = end + 5, True
                break
        if not decoded:
            offset += 1
    return b"".join(found)


def test_the_lz4_reader_finds_what_a_plain_search_cannot() -> None:
    """Control for the byte checks: a string inside an LZ4 block of a table file is hidden
    from a plain search and found by the reader; a string never written is not."""
    secret = b"Zebulon Quaxford " * 40 + b"Brindlewick Road 3"
    packed = lz4.block.compress(secret, store_size=False)
    size = len(secret)
    varint = bytes([(size & 0x7F) | 0x80, size >> 7])
    noise = bytes(range(256)) * 3
    table = noise + varint + packed + b"\x04" + b"\x00" * 4 + noise
    hidden = secret[:60]  # LZ4 writes the repeats as back-references
    assert hidden not in table
    assert hidden in lz4_blocks(table)
    assert b"Quillfeather" not in lz4_blocks(table) + table


def readable_bytes(path: Path) -> bytes:
    """A file's bytes, plus a RocksDB table file's decompressed entries."""
    data = path.read_bytes()
    return data + decompressed(path) if path.suffix == ".sst" else data


def hits_raw(folder: Path, needle: str) -> list[Path]:
    data = needle.encode("utf-8")
    return [p for p in folder.rglob("*") if p.is_file() and data in p.read_bytes()]


def hits(folder: Path, needle: str) -> list[Path]:
    data = needle.encode("utf-8")
    return [p for p in folder.rglob("*") if p.is_file() and data in readable_bytes(p)]


def everything(mem: doxa.Memory) -> str:
    out = io.StringIO()
    mem.admin.export(out, audit=True)
    return out.getvalue()


def test_erasing_a_fact_removes_it_from_every_read(memory: doxa.Memory) -> None:
    phone, kept = people(memory)
    receipt = memory.owner.erase(phone.fact or "", reason="the owner asked")
    assert receipt.outcome is doxa.Outcome.ERASED
    assert receipt.targets == (phone.fact,)
    assert "+1 555 0142" not in {str(f.object) for f in memory.facts(include_ended=True)}
    assert memory.recall("phone 0142") == []
    with pytest.raises(doxa.NotFound):
        memory.history(phone.fact or "")
    assert "555 0142" not in everything(memory)
    # the control fact, and the other facts about the same person, are untouched
    assert memory.get(kept.fact or "").text == "Maribel Ostrander lives at Quillfeather Lane 7"
    assert "Brindlewick Road 3" in everything(memory)
    # the tombstone: id, time, who, why, and hashes, not the content
    tomb = memory.rdf.sparql(
        "SELECT ?ends ?why ?who ?hash WHERE { ?e a <https://w3id.org/doxa#Erasure> ; "
        "<https://w3id.org/doxa#ends> ?ends ; <https://w3id.org/doxa#reason> ?why ; "
        "<http://www.w3.org/ns/prov#wasAttributedTo> ?who ; "
        "<https://w3id.org/doxa#contentHash> ?hash }"
    )
    assert {str(row[0]).rsplit("/", 1)[-1] for row in tomb.rows} == {phone.fact}
    assert {str(row[1]) for row in tomb.rows} == {"the owner asked"}
    assert all(len(str(row[3])) == 64 for row in tomb.rows)
    assert memory.verify() == len(memory.receipts())


def test_erased_content_cannot_come_back(memory: doxa.Memory) -> None:
    phone, _ = people(memory)
    memory.owner.erase(phone.fact or "", reason="the owner asked")
    with pytest.raises(doxa.ErasedContent, match="erasure is final"):
        memory.remember(
            "Zebulon Quaxford's phone is +1 555 0142", topic="contacts", authority="agent"
        )
    with pytest.raises(doxa.ErasedContent):
        memory.remember(
            "his number",
            topic="x",
            subject=EX + "zebulon-quaxford",
            predicate=EX + "phone",
            object="+1 555 0142",
            authority="agent",
        )
    # control: different content passes, even about the same person
    other = memory.remember(
        "Zebulon Quaxford's phone is +1 555 0199",
        topic="contacts",
        subject=EX + "zebulon-quaxford",
        predicate=EX + "phone",
        object="+1 555 0199",
        authority="agent",
    )
    assert other.outcome is doxa.Outcome.ADMITTED


def test_erasing_a_subject_takes_every_claim_about_it(memory: doxa.Memory) -> None:
    _, kept = people(memory)
    held = memory.remember(
        "Zebulon's birth year",
        topic="bio",
        subject=EX + "zebulon-quaxford",
        predicate=EX + "birthYear",
        object=1980,
        authority="agent",
    )
    memory.remember(
        "Zebulon's birth year",
        topic="bio",
        subject=EX + "zebulon-quaxford",
        predicate=EX + "birthYear",
        object=1981,
        authority="tool",
    )
    assert memory.held() != []
    receipt = memory.owner.erase(EX + "zebulon-quaxford", reason="right to be forgotten")
    assert len(receipt.targets) == 5  # address, phone, likes, birth year and the held one
    text = everything(memory)
    for needle in ERASED:
        assert needle not in text
    assert memory.held() == []
    assert [f.id for f in memory.facts()] == [kept.fact]
    with pytest.raises(doxa.ErasedContent):
        memory.remember(
            "anything",
            topic="x",
            subject=EX + "zebulon-quaxford",
            predicate=EX + "shoeSize",
            object=44,
            authority="owner",
        )
    assert memory.verify() == len(memory.receipts())
    del held


def test_erasure_errors_leave_nothing_written(memory: doxa.Memory) -> None:
    _, kept = people(memory)
    before = len(memory.receipts())
    with pytest.raises(doxa.InvalidInput, match="needs a reason"):
        memory.owner.erase(kept.fact or "", reason="")
    with pytest.raises(doxa.NotFound):
        memory.owner.erase("019ac4f2b0e3a1b2c3d4", reason="x")
    with pytest.raises(doxa.NotFound):
        memory.owner.erase(EX + "nobody", reason="x")
    assert len(memory.receipts()) == before
    assert memory.get(kept.fact or "").status is doxa.FactStatus.LIVE


def test_no_byte_of_an_erased_person_stays_in_the_files(
    tmp_path: Path, clock: doxa.FixedClock
) -> None:
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice", clock=clock) as mem:
        people(mem)
        backup = mem.admin.backup()
        mem.owner.erase(EX + "zebulon-quaxford", reason="right to be forgotten")
        assert mem.verify() == len(mem.receipts())
    backups = tmp_path / "memory.backups"
    assert backups.is_dir()
    for needle in ERASED:
        assert hits(path, needle) == [], needle
        assert hits(backups, needle) == [], needle
    # control: the other person is still in both
    for needle in KEPT[:2]:
        assert hits(path, needle)
        assert hits(backups, needle)
    with doxa.Memory.open(path, scope="alice", clock=clock) as again:
        assert [f.text for f in again.facts()] == ["Maribel Ostrander lives at Quillfeather Lane 7"]
    assert backup.is_dir()


def test_the_backup_held_the_person_before_the_erasure(
    tmp_path: Path, clock: doxa.FixedClock
) -> None:
    """Control for the test above: without an erasure the backup's files carry the person
    (Oxigraph's files keep strings; the write-ahead log holds them uncompressed)."""
    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice", clock=clock) as mem:
        people(mem)
        assert hits_raw(path, ERASED[0])  # still in the write-ahead log
        backup = mem.admin.backup()
    with doxa.Memory.open(backup, scope="alice", clock=clock) as old:
        assert any("Quaxford" in f.text for f in old.facts())


def test_an_interrupted_compaction_is_finished_on_open(tmp_path: Path) -> None:
    from doxa.store import EmbeddedStore

    path = tmp_path / "memory"
    with doxa.Memory.open(path, scope="alice") as mem:
        mem.remember("kept across the swap", topic="t", authority="owner")
    # a crash between the two renames: the store was moved aside, the copy not yet in place
    path.rename(tmp_path / "memory.old")
    (tmp_path / "memory.old").rename(tmp_path / "memory.compacting")
    (tmp_path / "memory.old").mkdir()
    store = EmbeddedStore(path)
    store.close()
    assert not (tmp_path / "memory.old").exists()
    assert not (tmp_path / "memory.compacting").exists()
    with doxa.Memory.open(path, scope="alice") as mem:
        assert [f.text for f in mem.facts()] == ["kept across the swap"]
