"""Erasure on every backend: the content leaves every read, a tombstone refuses it again.

On a remote server doxa deletes the triples and writes the tombstones; what the server keeps in
its own files after a delete is the server's (docs/remote.md).
"""

from __future__ import annotations

import io

import pytest
from tests.conftest import EX

import doxa


def test_erasing_a_person(memory: doxa.Memory, backend: str) -> None:
    zeb, mara = EX + "zebulon-quaxford", EX + "maribel-ostrander"
    memory.remember(
        "Zebulon Quaxford lives at Brindlewick Road 3",
        topic="people",
        authority="owner",
        subject=zeb,
        predicate=EX + "address",
        object="Brindlewick Road 3",
    )
    memory.remember(
        "Zebulon Quaxford's phone is +1 555 0142",
        topic="contacts",
        authority="owner",
        subject=zeb,
        predicate=EX + "phone",
        object="+1 555 0142",
    )
    kept = memory.remember(
        "Maribel Ostrander lives at Quillfeather Lane 7",
        topic="people",
        authority="owner",
        subject=mara,
        predicate=EX + "address",
        object="Quillfeather Lane 7",
    )
    receipt = memory.owner.erase(zeb, reason="right to be forgotten")
    assert receipt.outcome is doxa.Outcome.ERASED
    # on a server, the receipt says what doxa could not purge; on disk, the reason is kept
    assert receipt.reason.startswith("right to be forgotten")
    assert ("server's own files" in receipt.reason) is (backend != "embedded")
    assert memory.admin.store_purges_files is (backend == "embedded")
    assert len(receipt.targets) == 2
    assert [f.id for f in memory.facts(include_ended=True)] == [kept.fact]
    assert memory.recall("Quaxford") == []
    out = io.StringIO()
    memory.admin.export(out, audit=True)
    assert "Quaxford" not in out.getvalue()
    assert "Brindlewick" not in out.getvalue()
    assert "Quillfeather Lane 7" in out.getvalue()
    with pytest.raises(doxa.ErasedContent):
        memory.remember(
            "Zebulon Quaxford lives at Brindlewick Road 3", topic="people", authority="agent"
        )
    assert memory.verify() == len(memory.receipts())
    del backend
