"""What each backend declares it can do, the typed cache, and the server dialects."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from tests.store.shared import SharedView

import doxa
from doxa.store import (
    CacheKey,
    Change,
    Cloneable,
    Compactable,
    Derived,
    DiskStore,
    EmbeddedStore,
    Journaled,
    JournaledStore,
    OnDisk,
    PlainValues,
    Purgeable,
    RemoteStore,
    SoleWriter,
    StoreCache,
    cache_of,
)
from doxa.store.remote import ANY_SERVER, OxigraphServer, Sparql11, Virtuoso

EVERY = (SoleWriter, Journaled, Compactable, OnDisk, Cloneable, PlainValues, Purgeable)
G = URIRef("urn:test:g")


def _claims(store: object) -> set[type]:
    return {capability for capability in EVERY if isinstance(store, capability)}


def test_each_backend_declares_what_it_can_do(tmp_path: Path) -> None:
    memory = EmbeddedStore()
    disk = EmbeddedStore(tmp_path / "plain", journal=False)
    journaled = EmbeddedStore(tmp_path / "journaled", durable=False)
    remote = RemoteStore("http://127.0.0.1:9/query")
    try:
        basics = {SoleWriter, Compactable, Cloneable, PlainValues}
        assert type(memory) is EmbeddedStore
        assert _claims(memory) == basics
        assert type(disk) is DiskStore
        assert _claims(disk) == basics | {OnDisk}
        assert type(journaled) is JournaledStore
        assert _claims(journaled) == set(EVERY)
        assert _claims(remote) == set()  # shared with other processes, files not doxa's
        assert isinstance(journaled, EmbeddedStore)
        assert isinstance(disk, EmbeddedStore)
    finally:
        for store in (memory, disk, journaled, remote):
            store.close()


def test_a_capability_is_claimed_by_inheriting_it_never_by_an_attribute() -> None:
    class LooksLikeOne:
        cache = StoreCache()

        def compact(self, *, progress: object = None) -> None: ...

    class IsOne(SoleWriter):
        cache = StoreCache()

    assert not isinstance(LooksLikeOne(), SoleWriter)
    assert not isinstance(LooksLikeOne(), Compactable)
    assert isinstance(IsOne(), SoleWriter)  # control


def test_only_a_sole_writer_has_a_cache() -> None:
    embedded = EmbeddedStore()
    shared = SharedView()
    try:
        assert cache_of(embedded) is embedded.cache
        assert cache_of(shared) is None
    finally:
        embedded.close()
        shared.close()


def test_a_clone_is_an_independent_copy() -> None:
    store = EmbeddedStore()
    store.apply(Change(insert=[(G, G, Literal("one"), G)]))
    copy = store.clone()
    copy.apply(Change(insert=[(G, G, Literal("two"), G)]))
    assert len(list(store.quads(G))) == 1
    assert len(list(copy.quads(G))) == 2
    assert sorted(store.values(G)) == [(str(G), str(G), "one")]
    store.close()
    copy.close()


# -- the cache -----------------------------------------------------------------------------


class Counting(Derived):
    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.resets: list[URIRef | None] = []

    def changed(self, change: Change) -> None:
        self.changes.append(change)

    def reset(self, graph: URIRef | None) -> None:
        self.resets.append(graph)


COUNTING: CacheKey[Counting] = CacheKey("test.counting")
NUMBER: CacheKey[int] = CacheKey("test.number")


def test_keys_name_a_kind_and_a_part() -> None:
    cache = StoreCache()
    cache.put(NUMBER.of("alice"), 1)
    assert cache.get(NUMBER.of("alice")) == 1
    assert cache.get(NUMBER.of("bob")) is None  # another part
    assert cache.get(NUMBER) is None
    made = cache.get_or_make(COUNTING.of("alice"), Counting)
    assert cache.get_or_make(COUNTING.of("alice"), Counting) is made  # made once
    assert COUNTING.of("alice") in cache
    assert COUNTING.of("bob") not in cache


def test_the_store_tells_its_cache_of_every_write() -> None:
    store = EmbeddedStore()
    told = store.cache.get_or_make(COUNTING, Counting)
    store.cache.put(NUMBER, 7)
    change = Change(insert=[(G, G, Literal("x"), G)])
    store.apply(change)
    assert told.changes == [change]
    store.load(b"<urn:a> <urn:b> <urn:c> .", format="nt", graph=G)
    store.clear_graph(G)
    assert told.resets == [G, G]
    assert store.cache.get(NUMBER) == 7  # a value no write derives from stays
    store.cache.reset_all()
    assert store.cache.get(NUMBER) is None
    assert COUNTING not in store.cache
    assert told.resets[-1] is None  # a holder of the old value reads the store again
    store.close()


def test_an_import_drops_what_the_gate_remembered(tmp_path: Path) -> None:
    with doxa.Memory.open(None, scope="alice") as mem:
        mem.remember("Alice prefers tea", topic="drinks", authority="owner")
        exported = tmp_path / "alice.nq"
        mem.admin.export(exported)
    with doxa.Memory.open(None, scope="alice") as fresh:
        assert isinstance(fresh.store, SoleWriter)
        fresh.facts()
        assert len(fresh.receipts()) == 0
        fresh.admin.load_export(exported)
        assert [f.text for f in fresh.facts()] == ["Alice prefers tea"]
        fresh.remember("Alice likes green tea", topic="drinks", authority="owner")
        assert fresh.verify() == 2  # the chain head was read again, not the pre-import one


# -- the dialects --------------------------------------------------------------------------


def test_the_default_dialect_keeps_every_known_workaround() -> None:
    store = RemoteStore("http://127.0.0.1:9/query")
    try:
        assert store.dialect is ANY_SERVER
        assert (store.dialect.block, store.row_cap) == (2000, 10_000)
    finally:
        store.close()
    told = RemoteStore("http://127.0.0.1:9/query", dialect=OxigraphServer())
    try:
        assert (told.dialect.block, told.row_cap) == (None, None)
        assert "oxigraph" in repr(told)
    finally:
        told.close()
    capped = RemoteStore("http://127.0.0.1:9/query", dialect=OxigraphServer(), row_cap=50)
    assert capped.row_cap == 50  # an explicit cap wins over the dialect's
    capped.close()


@pytest.mark.parametrize("dialect", [Sparql11(), Virtuoso(), OxigraphServer()])
def test_every_dialect_reads_a_standard_ask_answer(dialect: Sparql11) -> None:
    assert dialect.boolean({"head": {}, "boolean": True}) is True
    assert dialect.boolean({"head": {}, "boolean": False}) is False


def test_virtuoso_answers_ask_as_a_row() -> None:
    row = {"results": {"bindings": [{"__ASK_RETVAL": {"type": "literal", "value": "1"}}]}}
    none: dict[str, object] = {"results": {"bindings": []}}
    assert Virtuoso().boolean(row) is True
    assert Virtuoso().boolean(none) is False
    assert Sparql11().boolean(row) is False  # control: the standard has no such form


def test_a_virtuoso_page_slices_a_sorted_subquery() -> None:
    page = Virtuoso().page("PREFIX e: <urn:e#>", "SELECT ?s { ?s ?p ?o }", "?s", 10, 20)
    assert page.index("ORDER BY ?s") < page.index("LIMIT 10 OFFSET 20")
    assert page.count("SELECT") == 3
    plain = Sparql11().page("", "SELECT ?s { ?s ?p ?o }", "?s", 10, 20)
    assert plain.endswith("ORDER BY ?s LIMIT 10 OFFSET 20")
    assert plain.count("SELECT") == 2
