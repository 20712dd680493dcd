"""A LangGraph ``BaseStore`` over one doxa scope, so LangGraph and LangMem agents write
through the gate (the ``langgraph`` extra: ``pip install 'doxa[langgraph]'``).

The mapping (docs/decisions.md, "The LangGraph store"):

- a **namespace** is a topic: its labels joined by ``.`` (``("users", "alice")`` is topic
  ``users.alice``). Each label is 1 or more lower-case letters, digits, ``_`` or ``-``, and
  the joined name passes :func:`doxa.scope.check_name`; so the mapping is reversible, and a
  label with upper case, a dot, a look-alike letter or nothing in it is refused
  (:class:`~doxa.InvalidInput`), never folded into another namespace's topic.
- an **item** is one fact, the statement ``<key IRI> <VALUE> "<value as JSON>"`` in that
  topic, whose text is the same canonical JSON (so the instruction screen and recall see
  every field). The key IRI is :data:`KEY_PREFIX` + topic + ``:`` + the percent-encoded
  key: exact, case-sensitive and reversible.
- ``put`` is :meth:`doxa.Memory.remember` (``revises`` the key's live fact when there is
  one, ``valid_from`` the moment of the put); its receipt is :attr:`DoxaStore.last_receipt`
  and :meth:`DoxaStore.put_item`'s answer. A held, rejected or quarantined write is not an
  item: ``get`` and ``search`` still show what was live before.
- ``delete`` is :meth:`doxa.Memory.request_retraction`: held for the owner; the item stays
  readable until the owner approves.
- ``search`` is :meth:`doxa.Memory.recall` with a query, :meth:`doxa.Memory.facts` without;
  ``valid_at`` and ``as_of`` (in ``filter`` or as keywords) are the two clocks.
"""

from __future__ import annotations

import asyncio
import json
import operator
import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime
from typing import Any
from typing import Literal as Literal_
from urllib.parse import quote, unquote

from rdflib import Literal

from doxa.errors import InvalidInput
from doxa.memory import Memory
from doxa.model import Fact, Receipt
from doxa.scope import check_name

try:
    from langgraph.store.base import (
        NOT_PROVIDED,
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        MatchCondition,
        NotProvided,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "doxa's LangGraph store needs langgraph; install it with pip install 'doxa[langgraph]'."
    ) from error

__all__ = ["KEY_PREFIX", "VALUE", "DoxaStore", "namespace_of", "topic_of_namespace"]

#: the IRI every item's key is under (then ``<topic>:<percent-encoded key>``)
KEY_PREFIX = "urn:doxa:langgraph:key:"
#: the predicate of an item's statement: its value, as canonical JSON
VALUE = "urn:doxa:langgraph:value"
#: filter entries that are the clocks, not fields of the value
CLOCKS = ("valid_at", "as_of")
#: the most facts one topic's recall is asked for when a search filters or pages
_RECALL_MOST = 500
_COMPARE = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def topic_of_namespace(namespace: object) -> str:
    """The topic a namespace names: its labels joined by ``.``.

    Raises :class:`~doxa.InvalidInput` for anything but a non-empty tuple of labels of
    lower-case letters, digits, ``_`` and ``-`` (so the topic splits back into them).

    >>> topic_of_namespace(("users", "alice"))
    'users.alice'
    """
    if not isinstance(namespace, tuple) or not namespace:
        raise InvalidInput(
            f"Namespace {namespace!r} is not a namespace; use a non-empty tuple of labels "
            "such as ('users', 'alice')."
        )
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label:
            raise InvalidInput(
                f"Namespace label {label!r} of {namespace!r} is not valid; use lower-case "
                "letters, digits, '_' or '-' (no dots), for example ('users', 'alice')."
            )
        check_name(label, "namespace label")
    return check_name(".".join(namespace), "topic (the namespace's labels joined by '.')")


def namespace_of(topic: str) -> tuple[str, ...]:
    """The namespace a topic stands for: the inverse of :func:`topic_of_namespace`.

    >>> namespace_of("users.alice")
    ('users', 'alice')
    """
    return tuple(check_name(topic, "topic").split("."))


def _key_iri(topic: str, key: object) -> str:
    if not isinstance(key, str) or not key or "\x00" in key:
        raise InvalidInput(f"Key {key!r} is not a key; use a non-empty string without NUL.")
    return f"{KEY_PREFIX}{topic}:{quote(key, safe='')}"


def _value_text(value: object) -> str:
    """The canonical JSON of a value: sorted keys, no spaces, Unicode kept as it is."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise InvalidInput(
            f"Value {value!r} is not a dict with string keys; a LangGraph item's value is a "
            'dict such as {"text": "Alice prefers tea"}.'
        )
    try:
        return json.dumps(
            dict(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
        )
    except (TypeError, ValueError) as error:
        raise InvalidInput(
            f"Value {value!r} is not JSON-serialisable ({error}); store strings, numbers, "
            "booleans, None, lists and dicts only."
        ) from error


class DoxaStore(BaseStore):
    """A LangGraph store whose items are the live facts of one doxa scope.

    Every ``put`` goes through the gate in ``authority``'s words; ``delete`` asks the owner.
    Safe to share between threads: a put or delete finds the key's live fact and writes
    under the store's (reentrant) lock, so two threads putting the same key, through one
    ``DoxaStore`` or two over the same ``Memory``, revise one fact instead of making two.

    >>> from doxa import Memory
    >>> store = DoxaStore(Memory.open(None, scope="alice"))
    >>> store.put(("prefs",), "drink", {"text": "Alice prefers tea"})
    >>> store.last_receipt.outcome.value
    'admitted'
    >>> store.get(("prefs",), "drink").value
    {'text': 'Alice prefers tea'}
    """

    def __init__(
        self, memory: Memory, *, authority: str = "agent", sources: Iterable[str] = ()
    ) -> None:
        self.memory = memory
        self.authority = authority
        #: the documents every put cites (``external`` writes must cite exactly one)
        self.sources = tuple(sources)
        self._last = threading.local()

    @property
    def last_receipt(self) -> Receipt | None:
        """The receipt of this thread's last put or delete (None when it held nothing new)."""
        found: Receipt | None = getattr(self._last, "receipt", None)
        return found

    # -- doxa's own answers ------------------------------------------------------------

    def put_item(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> Receipt:
        """Write ``value`` under ``key`` through the gate and return the receipt.

        The key's live fact (if any) is the one this write ``revises``, so the judge decides
        how the new value relates to the old one; a write the gate holds, rejects or
        quarantines leaves the old value readable. Raises :class:`~doxa.InvalidInput` for a
        bad namespace, key or value, before anything is written.
        """
        topic = topic_of_namespace(namespace)
        subject = _key_iri(topic, key)
        text = _value_text(value)
        with self.memory.store.lock:
            live = self._live(topic, subject)
            receipt = self.memory.remember(
                text,
                topic=topic,
                subject=subject,
                predicate=VALUE,
                object=Literal(text),
                authority=self.authority,
                sources=self.sources,
                valid_from=self.memory.clock.now(),
                revises=None if live is None else live.id,
            )
        self._last.receipt = receipt
        return receipt

    def request_delete(self, namespace: tuple[str, ...], key: str) -> Receipt | None:
        """Ask the owner to retract the key's live fact; None when there is none, or when a
        request for it already waits. The item stays readable until the owner approves."""
        topic = topic_of_namespace(namespace)
        subject = _key_iri(topic, key)
        with self.memory.store.lock:
            live = self._live(topic, subject)
            receipt = None
            if live is not None:
                reason = f"the LangGraph store was asked to delete key {key!r} of {namespace!r}"
                receipt = self.memory.request_retraction(
                    live.id, reason=reason, authority=self.authority
                )
        self._last.receipt = receipt
        return receipt

    # -- BaseStore ---------------------------------------------------------------------

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: Mapping[str, Any],
        index: Literal_[False] | list[str] | None = None,
        *,
        ttl: float | NotProvided | None = NOT_PROVIDED,
    ) -> None:
        """:meth:`put_item`, its receipt kept in :attr:`last_receipt`. ``index`` is accepted
        and ignored (recall indexes every field's words); a ``ttl`` is refused."""
        if ttl not in (NOT_PROVIDED, None):
            raise NotImplementedError(
                f"TTL is not supported by {type(self).__name__}: doxa keeps no TTL; put "
                "without ttl, and end a value by putting a new one or deleting it."
            )
        self.put_item(namespace, key, value)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """:meth:`request_delete`: the owner decides; the item stays until they approve."""
        self.request_delete(namespace, key)

    def get(
        self,
        namespace: tuple[str, ...],
        key: str,
        *,
        refresh_ttl: bool | None = None,
        valid_at: datetime | date | str | None = None,
        as_of: datetime | date | str | None = None,
    ) -> Item | None:
        """The item under ``key``: its live fact (true at ``valid_at`` as believed at
        ``as_of``, both now by default), or None."""
        topic = topic_of_namespace(namespace)
        return self._item(topic, _key_iri(topic, key), valid_at=valid_at, as_of=as_of)

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
        valid_at: datetime | date | str | None = None,
        as_of: datetime | date | str | None = None,
    ) -> list[SearchItem]:
        """Items under ``namespace_prefix``: recall of ``query`` (best first, with scores),
        or every item, newest first. ``filter`` matches the value's top-level fields
        (``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``); its ``valid_at`` and
        ``as_of`` entries, like the keywords, are the clocks."""
        clocks = {"valid_at": valid_at, "as_of": as_of}
        return self._search(SearchOp(namespace_prefix, filter, limit, offset, query), clocks=clocks)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run each operation in order; a put whose value is None is a delete request."""
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self.get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                results.append(self._search(op, clocks={}))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._namespaces(op))
            elif isinstance(op, PutOp):
                if op.value is None:
                    self.request_delete(op.namespace, op.key)
                else:
                    if op.ttl is not None:
                        raise InvalidInput(
                            f"ttl {op.ttl!r} is not kept by doxa; put without ttl, and end "
                            "a value by putting a new one or deleting it."
                        )
                    self.put_item(op.namespace, op.key, op.value)
                results.append(None)
            else:
                raise InvalidInput(f"{op!r} is not a LangGraph store operation.")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread (the store's calls block on disk)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- reading -------------------------------------------------------------------------

    def _live(self, topic: str, subject: str) -> Fact | None:
        found = self.memory.facts(topic=topic, subject=subject, predicate=VALUE)
        return max(found, key=lambda f: f.recorded_at, default=None)

    def _item(
        self,
        topic: str,
        subject: str,
        *,
        valid_at: datetime | date | str | None,
        as_of: datetime | date | str | None,
    ) -> Item | None:
        # the value true at ``valid_at`` as believed at ``as_of`` (both clocks, as search
        # reads them); every version ever recorded only dates the item's creation
        true_then = self.memory.facts(
            topic=topic, subject=subject, predicate=VALUE, valid_at=valid_at, as_of=as_of
        )
        if not true_then:
            return None
        fact = max(true_then, key=lambda f: f.recorded_at)
        versions = self.memory.facts(
            topic=topic, subject=subject, predicate=VALUE, as_of=as_of, include_ended=True
        )
        first = min(f.recorded_at for f in (*versions, fact))
        return Item(
            value=_value(fact),
            key=_key_of(fact),
            namespace=namespace_of(topic),
            created_at=first,
            updated_at=fact.recorded_at,
        )

    def _search(self, op: SearchOp, *, clocks: Mapping[str, Any]) -> list[SearchItem]:
        if not isinstance(op.limit, int) or not isinstance(op.offset, int) or op.offset < 0:
            raise InvalidInput(
                f"limit {op.limit!r} and offset {op.offset!r} must be whole numbers, offset 0 "
                "or more."
            )
        wanted = dict(op.filter or {})
        times = {name: wanted.pop(name, None) for name in CLOCKS}
        times.update({k: v for k, v in clocks.items() if v is not None})
        topics = self._topics(op.namespace_prefix)
        ask = op.offset + op.limit if not wanted else _RECALL_MOST
        facts: list[Fact] = []
        for topic in topics:
            if op.query is not None:
                found = self.memory.recall(
                    op.query, topic=topic, limit=max(1, min(ask, _RECALL_MOST)), **times
                )
            else:
                found = self.memory.facts(topic=topic, predicate=VALUE, **times)
            facts += [f for f in found if str(f.predicate) == VALUE]
        if op.query is not None:
            facts.sort(key=lambda f: (-(f.score or 0.0), f.id))
        else:
            facts.sort(key=lambda f: f.recorded_at, reverse=True)
        items = [
            SearchItem(
                namespace_of(f.topic),
                _key_of(f),
                value,
                f.recorded_at,
                f.recorded_at,
                f.score,
            )
            for f in facts
            if _matches(value := _value(f), wanted)
        ]
        return items[op.offset : op.offset + op.limit]

    def _topics(self, prefix: tuple[str, ...]) -> list[str]:
        if not isinstance(prefix, tuple):
            raise InvalidInput(f"Namespace prefix {prefix!r} is not a tuple of labels.")
        if prefix:
            topic_of_namespace(prefix)  # the same rules: a bad prefix is refused, not empty
        return [t for t in self.memory.topics() if namespace_of(t)[: len(prefix)] == prefix]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = [namespace_of(t) for t in self.memory.topics()]
        for condition in op.match_conditions or ():
            found = [n for n in found if _condition_holds(condition, n)]
        if op.max_depth is not None:
            found = [n[: op.max_depth] for n in found]
        unique = sorted(set(found))
        return unique[op.offset : op.offset + op.limit]


def _value(fact: Fact) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(str(fact.object))
    return loaded


def _key_of(fact: Fact) -> str:
    return unquote(str(fact.subject)[len(KEY_PREFIX) :].split(":", 1)[1])


def _condition_holds(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(p in ("*", n) for p, n in zip(path, part, strict=True))


def _matches(value: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether a value's top-level fields meet a LangGraph filter."""
    for field, condition in wanted.items():
        if (
            isinstance(condition, Mapping)
            and condition
            and all(isinstance(k, str) and k.startswith("$") for k in condition)
        ):
            if not all(_compare(value.get(field), op, v) for op, v in condition.items()):
                return False
        elif field not in value or value[field] != condition:
            return False
    return True


def _compare(have: object, op: str, want: object) -> bool:
    if op not in _ORDER and op not in ("$eq", "$ne"):
        raise InvalidInput(
            f"Filter operator {op!r} is not known; use one of {', '.join(_COMPARE)}."
        )
    if op == "$eq":
        return have == want
    if op == "$ne":
        return have != want
    if isinstance(have, bool) or isinstance(want, bool) or have is None:
        return False
    try:
        return bool(_ORDER[op](have, want))
    except TypeError:
        return False  # a string against a number: no order, so no match


_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}
