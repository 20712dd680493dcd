"""The LangGraph store over a doxa scope: BaseStore's contract, through the gate.

LangGraph's own store suites (in its sdists) run against DoxaStore in
``tests/interfaces/langgraph_suites`` (slow); these tests follow ``BaseStore``'s documented
contract and keep each fix those suites led to: get/put/search/delete/list_namespaces and ``batch`` /
``abatch``, on a real on-disk Memory, plus what doxa adds: every put meets the gate, a delete
waits for the owner, the clocks are filters.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
import rdflib
from tests.helpers import INJECTED

import doxa

pytest.importorskip("langgraph.store.base")

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)

from doxa.interfaces.langgraph_store import (
    KEY_PREFIX,
    QUOTATION,
    VALUE,
    DoxaStore,
    NamespaceRefused,
    namespace_of,
    topic_of_namespace,
)

PREFS = ("users", "alice", "prefs")


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[doxa.Memory]:
    """A memory on disk, scope alice (closed afterwards: its files are not left open)."""
    with doxa.Memory.open(tmp_path / "store", scope="alice") as opened:
        yield opened


@pytest.fixture
def store(memory: doxa.Memory) -> DoxaStore:
    """The agent's LangGraph store over scope alice."""
    return DoxaStore(memory)


def live_values(memory: doxa.Memory) -> list[str]:
    """The text of every live fact (the canonical JSON of every live item)."""
    return sorted(f.text for f in memory.facts())


def test_is_a_base_store(store: DoxaStore) -> None:
    """LangGraph code that asks for a BaseStore accepts it."""
    assert isinstance(store, BaseStore)


def test_round_trip(store: DoxaStore, memory: doxa.Memory) -> None:
    """put, get, search with and without a query and list_namespaces read back one item."""
    store.put(PREFS, "drink", {"text": "Alice prefers green tea", "rank": 1})
    receipt = store.last_receipt
    assert receipt is not None
    assert receipt.outcome is doxa.Outcome.ADMITTED
    item = store.get(PREFS, "drink")
    assert item is not None
    assert (item.namespace, item.key) == (PREFS, "drink")
    assert item.value == {"text": "Alice prefers green tea", "rank": 1}
    assert item.created_at == item.updated_at == memory.get(receipt.fact or "").recorded_at
    found = store.search(("users",), query="green tea")
    assert [(i.key, i.value["rank"]) for i in found] == [("drink", 1)]
    assert found[0].score is not None
    assert found[0].score > 0
    assert [i.key for i in store.search(("users", "alice"))] == ["drink"]
    assert store.list_namespaces() == [PREFS]
    assert live_values(memory) == ['{"rank":1,"text":"Alice prefers green tea"}']


def test_missing_reads(store: DoxaStore) -> None:
    """A key never put reads as None, a delete of it does nothing; a put one is found."""
    assert store.get(PREFS, "nothing") is None
    store.delete(PREFS, "nothing")
    assert store.last_receipt is None
    store.put(PREFS, "something", {"v": 1})
    assert store.get(PREFS, "something") is not None


def test_same_key_twice_is_a_revision(store: DoxaStore, memory: doxa.Memory) -> None:
    """A second put of a key revises its fact: one live fact, created_at kept."""
    memory.owner.grant("general")  # agents may close facts of kind general: revisions apply
    store.put(PREFS, "drink", {"text": "Alice prefers tea"})
    first = store.get(PREFS, "drink")
    store.put(PREFS, "drink", {"text": "Alice prefers coffee"})
    receipt = store.last_receipt
    assert receipt is not None
    assert (receipt.outcome, receipt.relation) == (doxa.Outcome.ADMITTED, doxa.Relation.REPLACES)
    second = store.get(PREFS, "drink")
    assert first is not None
    assert second is not None
    assert second.value == {"text": "Alice prefers coffee"}
    assert second.created_at == first.created_at < second.updated_at
    assert live_values(memory) == ['{"text":"Alice prefers coffee"}']
    assert [i.value for i in store.search(PREFS)] == [{"text": "Alice prefers coffee"}]


def test_revision_not_earned_waits_for_the_owner(store: DoxaStore, memory: doxa.Memory) -> None:
    """Without the closing earned the revision is held: get still shows the old value,
    until the owner approves it (then the new one)."""
    store.put(PREFS, "drink", {"text": "Alice prefers tea"})
    store.put(PREFS, "drink", {"text": "Alice prefers coffee"})
    receipt = store.last_receipt
    assert receipt is not None
    assert receipt.outcome is doxa.Outcome.HELD
    item = store.get(PREFS, "drink")
    assert item is not None
    assert item.value == {"text": "Alice prefers tea"}
    memory.owner.approve(memory.held()[0])
    item = store.get(PREFS, "drink")
    assert item is not None
    assert item.value == {"text": "Alice prefers coffee"}


def test_same_value_twice_is_one_fact(store: DoxaStore, memory: doxa.Memory) -> None:
    """Putting the value a key already holds stores nothing new; a new key is a new fact."""
    store.put(PREFS, "drink", {"text": "Alice prefers tea"})
    store.put(PREFS, "drink", {"text": "Alice prefers tea"})
    assert len(memory.facts()) == 1
    store.put(PREFS, "food", {"text": "Alice likes bread"})
    assert len(memory.facts()) == 2


def test_delete_is_held_for_the_owner(store: DoxaStore, memory: doxa.Memory) -> None:
    """delete asks the owner; the item stays until they approve, then it is gone."""
    store.put(PREFS, "drink", {"text": "Alice prefers tea"})
    store.delete(PREFS, "drink")
    receipt = store.last_receipt
    assert receipt is not None
    assert receipt.outcome is doxa.Outcome.HELD
    assert store.get(PREFS, "drink") is not None
    assert len(store.search(PREFS)) == 1
    store.delete(PREFS, "drink")  # asking twice is asking once
    assert store.last_receipt is None
    (held,) = memory.held()
    assert held.relation is doxa.Relation.WAS_WRONG
    memory.owner.approve(held)
    assert store.get(PREFS, "drink") is None
    assert store.search(PREFS) == []
    assert memory.get(held.targets[0]).status is doxa.FactStatus.RETRACTED


def test_rejected_delete_keeps_the_item(store: DoxaStore, memory: doxa.Memory) -> None:
    """The owner's rejection of the request leaves the item live."""
    store.put(PREFS, "drink", {"text": "Alice prefers tea"})
    store.delete(PREFS, "drink")
    memory.owner.reject(memory.held()[0], reason="it is true")
    item = store.get(PREFS, "drink")
    assert item is not None
    assert item.value == {"text": "Alice prefers tea"}


SOURCE = "https://bakery.example/news"


def test_injection_from_outside_is_quarantined(memory: doxa.Memory) -> None:
    """An external put of an injection is quarantined: not an item; a harmless one is."""
    outside = DoxaStore(memory, authority="external", sources=[SOURCE])
    outside.put(("bakery",), "hours", {"text": INJECTED})
    receipt = outside.last_receipt
    assert receipt is not None
    assert receipt.outcome is doxa.Outcome.QUARANTINED
    assert outside.get(("bakery",), "hours") is None
    assert outside.search(("bakery",), query="bakery opens") == []
    assert outside.search(("bakery",)) == []
    outside.put(("bakery",), "days", {"text": "The bakery opens at 7 on weekdays."})
    assert [i.key for i in outside.search(("bakery",), query="bakery opens")] == ["days"]


def test_outside_items_come_back_marked_as_quotations(memory: doxa.Memory) -> None:
    """An item an outside store put reads back with its quotation mark beside its fields
    (get and search, with and without a query); read and put back, the mark is not stored.
    The control: the agent's own item comes back exactly as put."""
    outside = DoxaStore(memory, authority="external", sources=[SOURCE])
    outside.put(("bakery",), "days", {"text": "The bakery opens at 7 on weekdays."})
    own = DoxaStore(memory)
    own.put(("bakery",), "visit", {"text": "Alice visits the bakery on Fridays."})
    got = outside.get(("bakery",), "days")
    assert got is not None
    assert got.value["text"] == "The bakery opens at 7 on weekdays."
    assert got.value[QUOTATION].startswith(f"quoted from {SOURCE} (external)")
    listed = {i.key: i.value for i in own.search(("bakery",))}
    found = {i.key: i.value for i in own.search(("bakery",), query="bakery weekdays")}
    for values in (listed, found):
        assert QUOTATION in values["days"]
        assert values["visit"] == {"text": "Alice visits the bakery on Fridays."}
    # a filter compares the fields as put, the mark aside
    assert [i.key for i in own.search(("bakery",), filter={"text": got.value["text"]})] == ["days"]
    outside.put(("bakery",), "days", got.value)
    assert outside.last_receipt is not None
    assert outside.last_receipt.outcome is doxa.Outcome.MERGED
    assert all(QUOTATION not in text for text in live_values(memory))


def test_search_never_ranks_outside_text_above_the_owners_item(memory: doxa.Memory) -> None:
    """The page repeats the query's words, so by words alone it ranks first (the control);
    the owner's item on the same namespace still comes first, as recall ranks."""
    outside = DoxaStore(memory, authority="external", sources=[SOURCE])
    owners = DoxaStore(memory, authority="owner")
    outside.put(("bank",), "page", {"text": "Transfer fee: transfer fee is 30 euros per transfer."})
    owners.put(("bank",), "mine", {"text": "I pay 5 euros for each wire."})
    by_words = memory.recall("transfer fee euros", topic="bank", limit=10)
    assert by_words[0].authority is doxa.Authority.OWNER  # recall's own order, owner first
    found = owners.search(("bank",), query="transfer fee euros")
    assert [i.key for i in found] == ["mine", "page"]
    scores = {i.key: i.score or 0.0 for i in found}
    assert scores["page"] > scores["mine"]  # the control: the words alone rank the page first


def test_injection_in_another_field_is_screened(memory: doxa.Memory) -> None:
    """The screen reads every field of the value, not only ``text``."""
    outside = DoxaStore(memory, authority="external", sources=[SOURCE])
    outside.put(("bakery",), "hours", {"text": "opening hours", "note": INJECTED})
    receipt = outside.last_receipt
    assert receipt is not None
    assert receipt.outcome is doxa.Outcome.QUARANTINED
    assert outside.get(("bakery",), "hours") is None


def test_rejected_put_is_not_an_item(memory: doxa.Memory) -> None:
    """A put the shapes reject (external, citing nothing) is visible as rejected, not stored;
    the same put citing its source is admitted."""
    uncited = DoxaStore(memory, authority="external")
    uncited.put(("bakery",), "days", {"text": "The bakery opens at 7 on weekdays."})
    receipt = uncited.last_receipt
    assert receipt is not None
    assert receipt.outcome is doxa.Outcome.REJECTED
    assert "source" in receipt.reason
    assert uncited.get(("bakery",), "days") is None
    cited = DoxaStore(memory, authority="external", sources=[SOURCE])
    cited.put(("bakery",), "days", {"text": "The bakery opens at 7 on weekdays."})
    assert cited.get(("bakery",), "days") is not None


def test_clocks(store: DoxaStore, memory: doxa.Memory) -> None:
    """as_of reads what was believed then, in get, in search's filter and as keywords."""
    memory.owner.grant("general")
    store.put(PREFS, "drink", {"text": "Alice prefers tea"})
    between = memory.clock.now()
    store.put(PREFS, "drink", {"text": "Alice prefers coffee"})
    then = store.get(PREFS, "drink", as_of=between)
    assert then is not None
    assert then.value == {"text": "Alice prefers tea"}
    now = store.get(PREFS, "drink")
    assert now is not None
    assert now.value == {"text": "Alice prefers coffee"}
    assert [i.value["text"] for i in store.search(PREFS, filter={"as_of": between})] == [
        "Alice prefers tea"
    ]
    assert [i.value["text"] for i in store.search(PREFS, query="prefers", as_of=between)] == [
        "Alice prefers tea"
    ]
    assert [i.value["text"] for i in store.search(PREFS, valid_at=between)] == ["Alice prefers tea"]
    before = datetime(2000, 1, 1).astimezone()
    assert store.get(PREFS, "drink", as_of=before) is None


@pytest.mark.parametrize(
    "namespace",
    [
        ("Users",),
        ("users", "Alice"),
        ("us.ers",),
        ("",),
        (),
        ("us\u0435rs",),  # a Cyrillic e
        ("users\u200b",),  # a zero-width space
        ("users\n",),
        ("a" * 65,),
        ("langgraph", "x"),  # LangGraph's reserved root
        (1,),
        "users",
    ],
    ids=[
        "upper",
        "upper-label",
        "dot",
        "empty-label",
        "empty",
        "look-alike",
        "zero-width",
        "newline",
        "long-label",
        "reserved-root",
        "not-a-string",
        "string",
    ],
)
def test_bad_namespace(store: DoxaStore, memory: doxa.Memory, namespace: object) -> None:
    """A namespace that is not a topic's labels is refused, and nothing is written."""
    with pytest.raises(NamespaceRefused, match=r"amespace|topic"):
        store.put(namespace, "k", {"v": 1})  # type: ignore[arg-type]
    with pytest.raises(InvalidNamespaceError):  # LangGraph's own error, for its callers
        store.get(namespace, "k")  # type: ignore[arg-type]
    with pytest.raises(doxa.InvalidInput):
        store.get(namespace, "k")  # type: ignore[arg-type]
    with pytest.raises(doxa.InvalidInput):
        store.delete(namespace, "k")  # type: ignore[arg-type]
    if namespace != ():  # () is every namespace's prefix: search it all
        with pytest.raises(doxa.InvalidInput):
            store.search(namespace)  # type: ignore[arg-type]
    assert memory.facts() == []
    store.put(("users", "alice_1", "prefs-2"), "k", {"v": 1})  # the control
    assert len(memory.facts()) == 1


def test_namespace_mapping_is_reversible() -> None:
    """A namespace maps to one topic and back; two namespaces never share a topic."""
    assert topic_of_namespace(("users", "alice")) == "users.alice"
    assert namespace_of("users.alice") == ("users", "alice")
    assert namespace_of("meetings") == ("meetings",)
    with pytest.raises(doxa.InvalidInput, match="no dots"):
        topic_of_namespace(("users.alice",))


@pytest.mark.parametrize(
    "value",
    [{"x": object()}, {"x": float("nan")}, {1: "x"}, ["x"], "text", None.__class__],
    ids=["object", "nan", "int-key", "list", "string", "type"],
)
def test_bad_value(store: DoxaStore, memory: doxa.Memory, value: object) -> None:
    """A value that is not a JSON object is refused before anything is written."""
    with pytest.raises(doxa.InvalidInput, match=r"JSON|dict"):
        store.put_item(PREFS, "k", value)  # type: ignore[arg-type]
    assert memory.facts() == []
    store.put_item(PREFS, "k", {"x": [1, 2.5, None, True, {"y": "é"}]})  # the control
    item = store.get(PREFS, "k")
    assert item is not None
    assert item.value == {"x": [1, 2.5, None, True, {"y": "é"}]}


@pytest.mark.parametrize("key", ["", "a\x00b", 7], ids=["empty", "nul", "int"])
def test_bad_key(store: DoxaStore, memory: doxa.Memory, key: object) -> None:
    """An empty key, one with NUL or a non-string is refused; nothing is written."""
    with pytest.raises(doxa.InvalidInput, match="key"):
        store.put_item(PREFS, key, {"v": 1})  # type: ignore[arg-type]
    assert memory.facts() == []


def test_keys_are_exact(store: DoxaStore) -> None:
    """Keys differing by case, a look-alike letter or a slash are different items."""
    keys = ["drink", "Drink", "drіnk", "a/b", "a%2Fb", "a:b", "with space"]
    for n, key in enumerate(keys):
        store.put(PREFS, key, {"n": n})
    for n, key in enumerate(keys):
        item = store.get(PREFS, key)
        assert item is not None
        assert (item.key, item.value) == (key, {"n": n})
    assert sorted(i.key for i in store.search(PREFS, limit=20)) == sorted(keys)


def test_same_namespace_keys_are_separate_from_other_namespaces(store: DoxaStore) -> None:
    """The same key in two namespaces is two items."""
    store.put(("a",), "k", {"v": "one"})
    store.put(("a", "b"), "k", {"v": "two"})
    one, two = store.get(("a",), "k"), store.get(("a", "b"), "k")
    assert one is not None
    assert two is not None
    assert (one.value, two.value) == ({"v": "one"}, {"v": "two"})
    assert sorted(i.value["v"] for i in store.search(("a",))) == ["one", "two"]
    assert [i.value["v"] for i in store.search(("a", "b"))] == ["two"]
    assert sorted(i.value["v"] for i in store.search(())) == ["one", "two"]
    assert [i.value["v"] for i in store.search((), query="two")] == ["two"]


def test_two_threads_put_the_same_key(memory: doxa.Memory) -> None:
    """Threads putting one key, through one store or two, leave one live fact for it."""
    memory.owner.grant("general")
    stores = [DoxaStore(memory), DoxaStore(memory)]
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def put(n: int) -> None:
        try:
            start.wait()
            stores[n % 2].put(PREFS, "drink", {"text": f"Alice prefers drink number {n}"})
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=put, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(memory.facts()) == 1
    item = stores[0].get(PREFS, "drink")
    assert item is not None
    assert item.value["text"].startswith("Alice prefers drink number")


def test_filters(store: DoxaStore) -> None:
    """filter matches top-level fields exactly or with $eq/$ne/$gt/$gte/$lt/$lte."""
    for n in range(5):
        store.put(("scores",), f"k{n}", {"n": n, "colour": "red" if n % 2 else "blue"})
    found = store.search(("scores",), filter={"colour": "red"})
    assert sorted(i.value["n"] for i in found) == [1, 3]
    found = store.search(("scores",), filter={"n": {"$gte": 2, "$lt": 4}})
    assert sorted(i.value["n"] for i in found) == [2, 3]
    found = store.search(("scores",), filter={"n": {"$ne": 0}, "colour": {"$eq": "blue"}})
    assert sorted(i.value["n"] for i in found) == [2, 4]
    assert store.search(("scores",), filter={"n": {"$gt": "2"}}) == []  # no order: no match
    assert store.search(("scores",), filter={"missing": 1}) == []
    with pytest.raises(doxa.InvalidInput, match=r"\$regex"):
        store.search(("scores",), filter={"n": {"$regex": ".*"}})


def test_limit_and_offset(store: DoxaStore) -> None:
    """search pages newest first without a query."""
    for n in range(5):
        store.put(("pages",), f"k{n}", {"n": n})
    assert [i.value["n"] for i in store.search(("pages",), limit=2)] == [4, 3]
    assert [i.value["n"] for i in store.search(("pages",), limit=2, offset=2)] == [2, 1]
    with pytest.raises(doxa.InvalidInput, match="offset"):
        store.search(("pages",), offset=-1)


def test_list_namespaces(store: DoxaStore, memory: doxa.Memory) -> None:
    """Namespaces come from the scope's topics, with prefix, suffix and depth."""
    memory.remember("Alice met Bob on Monday", topic="meetings")
    for namespace in [("users", "alice", "prefs"), ("users", "bob", "prefs"), ("docs", "v1")]:
        store.put(namespace, "k", {"v": 1})
    assert store.list_namespaces() == [
        ("docs", "v1"),
        ("meetings",),
        ("users", "alice", "prefs"),
        ("users", "bob", "prefs"),
    ]
    assert store.list_namespaces(prefix=("users",)) == [
        ("users", "alice", "prefs"),
        ("users", "bob", "prefs"),
    ]
    assert store.list_namespaces(suffix=("prefs",), prefix=("users", "*")) == [
        ("users", "alice", "prefs"),
        ("users", "bob", "prefs"),
    ]
    assert store.list_namespaces(max_depth=1) == [("docs",), ("meetings",), ("users",)]
    assert store.list_namespaces(limit=1, offset=1) == [("meetings",)]
    assert memory.topics() == ["docs.v1", "meetings", "users.alice.prefs", "users.bob.prefs"]


def test_batch_and_abatch(store: DoxaStore) -> None:
    """batch runs ops in order (a None value is a delete request); abatch does the same."""
    results = store.batch(
        [
            PutOp(PREFS, "drink", {"text": "tea"}),
            GetOp(PREFS, "drink"),
            SearchOp(PREFS),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("users",)),)),
            PutOp(PREFS, "drink", None),
        ]
    )
    assert results[0] is None
    assert results[1] is not None
    assert results[1].value == {"text": "tea"}
    assert [i.key for i in results[2]] == ["drink"]  # type: ignore[union-attr]
    assert results[3] == [PREFS]
    receipt = store.last_receipt
    assert receipt is not None
    assert receipt.outcome is doxa.Outcome.HELD
    got = asyncio.run(store.abatch([GetOp(PREFS, "drink")]))
    assert got[0] is not None  # still readable: the delete waits for the owner
    asyncio.run(store.aput(PREFS, "food", {"text": "bread"}))
    item = asyncio.run(store.aget(PREFS, "food"))
    assert item is not None
    assert item.value == {"text": "bread"}


def test_ttl_is_refused(store: DoxaStore, memory: doxa.Memory) -> None:
    """doxa keeps no TTL: a put with one is refused, as BaseStore refuses it."""
    with pytest.raises(NotImplementedError, match="TTL"):
        store.put(PREFS, "k", {"v": 1}, ttl=5)
    with pytest.raises(doxa.InvalidInput, match="ttl"):
        store.batch([PutOp(PREFS, "k", {"v": 1}, ttl=5)])
    assert memory.facts() == []
    store.put(PREFS, "k", {"v": 1}, ttl=None)
    assert len(memory.facts()) == 1


def test_a_list_namespace_is_its_tuple(store: DoxaStore) -> None:
    """A list of labels (as JSON hands a namespace over) reads as the tuple it spells."""
    store.put(["users", "alice"], "k", {"v": 1})  # type: ignore[arg-type]
    item = store.get(("users", "alice"), "k")
    assert item is not None
    assert item.namespace == ("users", "alice")
    assert [i.key for i in store.search(["users"])] == ["k"]  # type: ignore[arg-type]


USER = "2f9d3c1e-8a4b-4c6d-9e0f-1a2b3c4d5e6f"
THREAD = "7b1e5d2c-3f4a-4b8c-8d9e-0f1a2b3c4d5e"


def test_namespaces_of_realistic_length(store: DoxaStore, memory: doxa.Memory) -> None:
    """A namespace of two UUIDs and a label (longer than a topic name may be) is kept under a
    digest topic; its items read back with their whole namespace, by get, search and
    list_namespaces, and two such namespaces stay apart."""
    long_ns = ("memories", USER, THREAD)
    other_ns = ("memories", USER, THREAD.replace("7b", "7c"))
    store.put(long_ns, "drink", {"text": "Alice prefers tea"})
    store.put(other_ns, "drink", {"text": "Bob prefers coffee"})
    item = store.get(long_ns, "drink")
    assert item is not None
    assert (item.namespace, item.value) == (long_ns, {"text": "Alice prefers tea"})
    other = store.get(other_ns, "drink")
    assert other is not None
    assert other.value == {"text": "Bob prefers coffee"}
    topics = memory.topics()
    assert len(topics) == 2
    assert all(len(t) <= 64 and t.startswith("memories..") for t in topics)
    assert [i.namespace for i in store.search(("memories", USER, THREAD))] == [long_ns]
    assert {i.namespace for i in store.search(("memories",))} == {long_ns, other_ns}
    assert [i.value for i in store.search(long_ns, query="tea")] == [{"text": "Alice prefers tea"}]
    assert store.list_namespaces(prefix=("memories", USER)) == sorted([long_ns, other_ns])
    assert store.list_namespaces(max_depth=2) == [("memories", USER)]
    short = ("users", "alice")  # the control: a short namespace is still its joined topic
    store.put(short, "k", {"v": 1})
    assert "users.alice" in memory.topics()


def test_empty_query_is_no_query(store: DoxaStore) -> None:
    """LangGraph reads query="" as no query: every item, newest first."""
    store.put(PREFS, "a", {"text": "tea"})
    store.put(PREFS, "b", {"text": "bread"})
    assert [i.key for i in store.search(PREFS, query="")] == ["b", "a"]
    assert [i.key for i in store.search(PREFS, query="bread")] == ["b"]  # the control


def test_a_bad_op_refuses_the_whole_batch(store: DoxaStore, memory: doxa.Memory) -> None:
    """A batch is checked whole before anything runs: a bad op after good puts writes
    nothing."""
    good = [PutOp(PREFS, "a", {"v": 1}), PutOp(PREFS, "b", {"v": 2})]
    for bad in [
        PutOp(("Bad",), "c", {"v": 3}),
        PutOp(PREFS, "", {"v": 3}),
        PutOp(PREFS, "c", {"v": float("nan")}),
        PutOp(PREFS, "c", {"v": 3}, ttl=5),
        GetOp(("langgraph",), "c"),
        SearchOp(PREFS, limit=-1),
    ]:
        with pytest.raises(doxa.InvalidInput):
            store.batch([*good, bad])
        assert memory.facts() == []
    store.batch(good)  # the control
    assert len(memory.facts()) == 2


@pytest.mark.parametrize(
    ("subject", "value"),
    [
        (f"{KEY_PREFIX}users.alice.prefs:k", "{bad"),
        (f"{KEY_PREFIX}users.alice.prefs:k", "[1, 2]"),
        ("urn:x:elsewhere", '{"v": 1}'),
        (f"{KEY_PREFIX}users.bob:k", '{"v": 1}'),
        (f"{KEY_PREFIX}Users:k", '{"v": 1}'),
    ],
    ids=["not-json", "not-an-object", "other-subject", "other-topic", "bad-namespace"],
)
def test_facts_it_did_not_write_are_skipped(
    store: DoxaStore,
    memory: doxa.Memory,
    subject: str,
    value: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A writer of the scope who hand-writes a fact of the value predicate cannot break the
    store's reads: the fact is skipped and reported in the log."""
    store.put(PREFS, "good", {"v": 0})
    receipt = memory.remember(
        f"hand-written {value}",
        topic="users.alice.prefs",
        subject=subject,
        predicate=VALUE,
        object=rdflib.Literal(value),
    )
    assert receipt.outcome is doxa.Outcome.ADMITTED
    with caplog.at_level(logging.WARNING, logger="doxa.langgraph"):
        assert [i.key for i in store.search(PREFS)] == ["good"]
        assert store.get(PREFS, "k") is None
        assert store.list_namespaces() == [PREFS]
    assert "did not write" in caplog.text
    assert store.get(PREFS, "good") is not None  # the control


def test_a_delete_does_not_list_the_held_writes(
    store: DoxaStore, memory: doxa.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking to delete looks the fact's waiting request up by target; it never lists every
    held write (whose number grows with the store). Asking twice still holds one request."""
    store.put(PREFS, "drink", {"text": "tea"})
    store.put(PREFS, "food", {"text": "bread"})

    def listing(*_: object, **__: object) -> object:
        raise AssertionError("a delete listed every held write")

    monkeypatch.setattr(doxa.Memory, "held", listing)
    store.delete(PREFS, "drink")
    first = store.last_receipt
    store.delete(PREFS, "drink")
    assert store.last_receipt is None  # asked twice: one request
    store.delete(PREFS, "food")  # the control: another fact's request is its own
    assert first is not None
    assert store.last_receipt is not None
    monkeypatch.undo()
    assert sorted(h.targets[0] for h in memory.held()) == sorted(
        f.id for f in memory.facts(predicate=VALUE)
    )


def test_a_filter_reads_dotted_paths(store: DoxaStore) -> None:
    """A filter field is a top-level key as written (hyphens, leading digits), else a dotted
    path through nested objects, as LangGraph's SQL stores read it."""
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "nested"}})
    store.put(("docs",), "digit", {"123abc": "ok", "user": {"123abc": "ok2"}})
    assert [i.key for i in store.search(("docs",), filter={"access-level": "public"})] == ["hyphen"]
    assert [i.key for i in store.search(("docs",), filter={"user.access-level": "nested"})] == [
        "hyphen"
    ]
    assert [i.key for i in store.search(("docs",), filter={"user.123abc": {"$eq": "ok2"}})] == [
        "digit"
    ]
    assert store.search(("docs",), filter={"user.missing": "x"}) == []  # the control


@pytest.mark.parametrize("path", [("foo.bar",), ("foo", ""), ("foo", 1)])
def test_a_bad_match_path_refuses_the_batch(
    store: DoxaStore, memory: doxa.Memory, path: tuple[object, ...]
) -> None:
    """A list_namespaces condition is checked like a namespace (``*`` allowed), before any
    op of its batch runs."""
    for kind in ("prefix", "suffix"):
        op = ListNamespacesOp((MatchCondition(kind, path),))  # type: ignore[arg-type]
        with pytest.raises(InvalidNamespaceError):
            store.batch([PutOp(("valid",), "k", {"v": 1}), op])
    assert memory.facts() == []
    good = ListNamespacesOp((MatchCondition("prefix", ("valid", "*")),))  # the control
    assert store.batch([PutOp(("valid",), "k", {"v": 1}), good]) == [None, []]
    assert store.list_namespaces(prefix=("valid",)) == [("valid",)]
