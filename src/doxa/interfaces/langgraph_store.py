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
import hashlib
import json
import logging
import operator
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from typing import Literal as Literal_
from urllib.parse import quote, unquote

from rdflib import Literal

from doxa.errors import InvalidInput
from doxa.memory import Memory
from doxa.model import Fact, Receipt
from doxa.reads.provenance import owner_first, quotation
from doxa.scope import check_name

try:
    from langgraph.store.base import (
        NOT_PROVIDED,
        BaseStore,
        GetOp,
        InvalidNamespaceError,
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

__all__ = [
    "KEY_PREFIX",
    "QUOTATION",
    "VALUE",
    "DoxaStore",
    "NamespaceRefused",
    "namespace_of",
    "topic_of_namespace",
]

_log = logging.getLogger("doxa.langgraph")

#: the IRI every item's key is under (then ``<topic>:<percent-encoded key>``)
KEY_PREFIX = "urn:doxa:langgraph:key:"
#: the predicate of an item's statement: its value, as canonical JSON
VALUE = "urn:doxa:langgraph:value"
#: the key an item of outside text (a store with authority ``external`` or ``tool``) comes
#: back with beside its fields: the quotation mark every read carries (issue 33)
QUOTATION = "doxa:quotation"
#: filter entries that are the clocks, not fields of the value
CLOCKS = ("valid_at", "as_of")
#: the most facts one topic's recall is asked for when a search filters or pages
_RECALL_MOST = 500
_COMPARE = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
#: the root label LangGraph keeps for itself (its own stores refuse it)
RESERVED_ROOT = "langgraph"
#: a topic name's most characters (doxa.scope.check_name)
_TOPIC_MOST = 64
#: hex digits of the digest that names a namespace too long to join into a topic
_DIGEST_HEX = 24


class NamespaceRefused(InvalidInput, InvalidNamespaceError):
    """A namespace the store cannot hold: LangGraph's ``InvalidNamespaceError``, so code
    written for LangGraph's own stores catches it, and doxa's :class:`~doxa.InvalidInput`."""


def checked_namespace(namespace: object, *, prefix: bool = False) -> tuple[str, ...]:
    """A namespace as a tuple of labels, checked: each label 1-64 lower-case letters,
    digits, ``_`` or ``-`` (no dots, so the joined name splits back), not starting with
    LangGraph's reserved root ``langgraph``. A list is read as the tuple it spells; ``()``
    is allowed only as a search ``prefix`` (everything). Raises :class:`NamespaceRefused`.
    """
    if isinstance(namespace, list):
        namespace = tuple(namespace)
    if not isinstance(namespace, tuple) or (not namespace and not prefix):
        raise NamespaceRefused(
            f"Namespace {namespace!r} is not a namespace; use a non-empty tuple of labels "
            "such as ('users', 'alice')."
        )
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label:
            raise NamespaceRefused(
                f"Namespace label {label!r} of {namespace!r} is not valid; use lower-case "
                "letters, digits, '_' or '-' (no dots), for example ('users', 'alice')."
            )
        try:
            check_name(label, "namespace label")
        except InvalidInput as error:
            raise NamespaceRefused(str(error)) from error
    if namespace and namespace[0] == RESERVED_ROOT:
        raise NamespaceRefused(
            f"Namespace {namespace!r} starts with {RESERVED_ROOT!r}, the root label LangGraph "
            "keeps for itself; choose another first label."
        )
    return namespace


def topic_of_namespace(namespace: object) -> str:
    """The topic a namespace names: its labels joined by ``.``; or, when that is longer
    than a topic may be (two UUIDs and a label), the first label cut to fit, ``..`` and a
    digest of the joined labels (no joined namespace holds ``..``, so the two kinds of
    topic never meet). Raises :class:`NamespaceRefused` for a bad namespace.

    >>> topic_of_namespace(("users", "alice"))
    'users.alice'
    >>> topic_of_namespace(("users", "0" * 36, "1" * 36))
    'users..4a5f3c3ce582f96ecadcd546'
    """
    joined = ".".join(checked_namespace(namespace))
    if len(joined) <= _TOPIC_MOST:
        return joined
    digest = hashlib.sha256(joined.encode()).hexdigest()[:_DIGEST_HEX]
    first = joined.split(".", 1)[0][: _TOPIC_MOST - _DIGEST_HEX - 2]
    return f"{first}..{digest}"


def namespace_of(topic: str) -> tuple[str, ...]:
    """The namespace a topic of joined labels stands for: the inverse of
    :func:`topic_of_namespace` for a namespace short enough to join (a digest topic's
    namespace is read from its items' keys).

    >>> namespace_of("users.alice")
    ('users', 'alice')
    """
    return tuple(check_name(topic, "topic").split("."))


def _is_digest(topic: str) -> bool:
    return ".." in topic


def _key_iri(namespace: tuple[str, ...], key: object) -> str:
    """The subject of an item: the whole namespace (joined) and the percent-encoded key, so
    an item names its namespace even under a digest topic."""
    if not isinstance(key, str) or not key or "\x00" in key:
        raise InvalidInput(f"Key {key!r} is not a key; use a non-empty string without NUL.")
    return f"{KEY_PREFIX}{'.'.join(namespace)}:{quote(key, safe='')}"


def _value_text(value: object) -> str:
    """The canonical JSON of a value: sorted keys, no spaces, Unicode kept as it is; the
    :data:`QUOTATION` mark a read added is doxa's, never part of the value, so a value read
    and put back is stored without it."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise InvalidInput(
            f"Value {value!r} is not a dict with string keys; a LangGraph item's value is a "
            'dict such as {"text": "Alice prefers tea"}.'
        )
    fields = {k: v for k, v in value.items() if k != QUOTATION}
    try:
        return json.dumps(
            fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
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
        namespace = checked_namespace(namespace)
        topic = topic_of_namespace(namespace)
        subject = _key_iri(namespace, key)
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
        namespace = checked_namespace(namespace)
        topic = topic_of_namespace(namespace)
        subject = _key_iri(namespace, key)
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
        namespace = checked_namespace(namespace)
        topic = topic_of_namespace(namespace)
        return self._item(topic, _key_iri(namespace, key), valid_at=valid_at, as_of=as_of)

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
        """Run each operation in order; a put whose value is None is a delete request.

        Every operation is checked before the first runs, so a bad one (a namespace,
        key, value or ttl the store cannot take) refuses the whole batch and writes nothing.
        """
        checked = list(ops)
        for op in checked:
            _check_op(op)
        results: list[Result] = []
        for op in checked:
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
                    self.put_item(op.namespace, op.key, op.value)
                results.append(None)
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
        true_then = _entries(
            self.memory.facts(
                topic=topic, subject=subject, predicate=VALUE, valid_at=valid_at, as_of=as_of
            )
        )
        if not true_then:
            return None
        entry = max(true_then, key=lambda e: e.fact.recorded_at)
        versions = self.memory.facts(
            topic=topic, subject=subject, predicate=VALUE, as_of=as_of, include_ended=True
        )
        first = min(f.recorded_at for f in (*versions, entry.fact))
        return Item(
            value=entry.shown,
            key=entry.key,
            namespace=entry.namespace,
            created_at=first,
            updated_at=entry.fact.recorded_at,
        )

    def _search(self, op: SearchOp, *, clocks: Mapping[str, Any]) -> list[SearchItem]:
        _check_paging(op.limit, op.offset)
        prefix = checked_namespace(op.namespace_prefix, prefix=True)
        wanted = dict(op.filter or {})
        times = {name: wanted.pop(name, None) for name in CLOCKS}
        times.update({k: v for k, v in clocks.items() if v is not None})
        query = op.query or None  # LangGraph reads an empty query as no query
        ask = op.offset + op.limit if not wanted else _RECALL_MOST
        entries: list[_Entry] = []
        for topic in self._topics(prefix):
            if query is not None:
                found = self.memory.recall(
                    query, topic=topic, limit=max(1, min(ask, _RECALL_MOST)), **times
                )
            else:  # the newest that may show: a page never reads the whole topic
                found = self.memory.facts(
                    topic=topic, predicate=VALUE, limit=None if wanted else max(ask, 1), **times
                )
            entries += [e for e in _entries(found) if e.namespace[: len(prefix)] == prefix]
        if query is not None:
            entries.sort(key=lambda e: (-(e.fact.score or 0.0), e.fact.id))
            # as recall ranks: on one topic the owner's items first, outside text last
            by_fact = {e.fact.id: e for e in entries}
            entries = [by_fact[f.id] for f in owner_first([e.fact for e in entries])]
        else:
            entries.sort(key=lambda e: e.fact.recorded_at, reverse=True)
        items = [
            SearchItem(
                e.namespace, e.key, e.shown, e.fact.recorded_at, e.fact.recorded_at, e.fact.score
            )
            for e in entries
            if _matches(e.value, wanted)
        ]
        return items[op.offset : op.offset + op.limit]

    def _spaces(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each topic with the namespace it holds: a joined topic splits back; a digest
        topic's namespace is read from one of its items (none: it holds no namespace)."""
        spaces: list[tuple[str, tuple[str, ...]]] = []
        for topic in self.memory.topics():
            if not _is_digest(topic):
                spaces.append((topic, namespace_of(topic)))
                continue
            held = _entries(self.memory.facts(topic=topic, predicate=VALUE, limit=8))
            if held:
                spaces.append((topic, held[0].namespace))
        return spaces

    def _topics(self, prefix: tuple[str, ...]) -> list[str]:
        return [t for t, namespace in self._spaces() if namespace[: len(prefix)] == prefix]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        # only ``batch`` lists namespaces, and it checked the op (``_check_op``) already
        found = [namespace for _, namespace in self._spaces()]
        for condition in op.match_conditions or ():
            found = [n for n in found if _condition_holds(condition, n)]
        if op.max_depth is not None:
            found = [n[: op.max_depth] for n in found]
        unique = sorted(set(found))
        return unique[op.offset : op.offset + op.limit]


@dataclass(frozen=True)
class _Entry:
    """An item as a fact holds it: its namespace and key (from the subject) and value."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    fact: Fact

    @property
    def shown(self) -> dict[str, Any]:
        """The value a read hands back: outside text with its quotation mark under
        :data:`QUOTATION`, so an agent never takes a page's words for its own (filters
        compare :attr:`value`, the fields as put)."""
        mark = quotation(self.fact)
        return self.value if mark is None else {**self.value, QUOTATION: mark}


def _entries(facts: Iterable[Fact]) -> list[_Entry]:
    """The items these facts hold; a fact of the value predicate that this store did not
    write (another subject, another topic's key, a value that is not a JSON object) is
    skipped and reported in the log, so a hand-written fact cannot break a read."""
    entries: list[_Entry] = []
    for fact in facts:
        if str(fact.predicate) != VALUE:
            continue  # recall may hand back the topic's other facts
        entry, problem = _entry(fact)
        if entry is None:
            _log.warning(
                "The LangGraph store skips fact %s in topic %r, which it did not write (%s); "
                "retract it if it is not wanted.",
                fact.id,
                fact.topic,
                problem,
            )
        else:
            entries.append(entry)
    return entries


def _entry(fact: Fact) -> tuple[_Entry | None, str]:
    subject = str(fact.subject)
    joined, colon, encoded = subject[len(KEY_PREFIX) :].partition(":")
    if not subject.startswith(KEY_PREFIX) or not colon or not encoded:
        return None, f"its subject {subject!r} is not an item's key"
    namespace = tuple(joined.split("."))
    try:
        if topic_of_namespace(namespace) != fact.topic:
            return None, f"its key names namespace {namespace!r}, not this topic's"
    except InvalidInput:
        return None, f"its key names no valid namespace ({joined!r})"
    try:
        value = json.loads(str(fact.object))
    except ValueError:
        return None, "its value is not JSON"
    if not isinstance(value, dict):
        return None, "its value is not a JSON object"
    return _Entry(namespace, unquote(encoded), value, fact), ""


def _check_paging(limit: object, offset: object) -> None:
    if (
        not isinstance(limit, int)
        or not isinstance(offset, int)
        or isinstance(limit, bool)
        or isinstance(offset, bool)
        or offset < 0
        or limit < 0
    ):
        raise InvalidInput(
            f"limit {limit!r} and offset {offset!r} must be whole numbers, 0 or more."
        )


def _checked_path(path: object) -> tuple[str, ...]:
    """A match condition's path: labels as in a namespace, each may be the wildcard ``*``."""
    labels = tuple(path) if isinstance(path, list | tuple) else path
    if not isinstance(labels, tuple):
        raise NamespaceRefused(f"Match path {path!r} is not a tuple of labels.")
    checked_namespace(tuple(label for label in labels if label != "*"), prefix=True)
    return labels


def _check_op(op: object) -> None:
    """Refuse an operation the store cannot run, before any operation of its batch runs."""
    if isinstance(op, GetOp):
        _key_iri(checked_namespace(op.namespace), op.key)
    elif isinstance(op, SearchOp):
        checked_namespace(op.namespace_prefix, prefix=True)
        _check_paging(op.limit, op.offset)
    elif isinstance(op, ListNamespacesOp):
        _check_paging(op.limit, op.offset)
        for condition in op.match_conditions or ():
            _checked_path(condition.path)
    elif isinstance(op, PutOp):
        _key_iri(checked_namespace(op.namespace), op.key)
        if op.value is not None:
            _value_text(op.value)
            if op.ttl is not None:
                raise InvalidInput(
                    f"ttl {op.ttl!r} is not kept by doxa; put without ttl, and end a value "
                    "by putting a new one or deleting it."
                )
    else:
        raise InvalidInput(f"{op!r} is not a LangGraph store operation.")


def _condition_holds(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(p in ("*", n) for p, n in zip(path, part, strict=True))


_MISSING = object()


def _field(value: Mapping[str, Any], field: str) -> Any:
    """A filter field's value: the top-level key as written, else a dotted path through
    nested objects (``user.access-level``), as LangGraph's SQL stores read it."""
    if field in value:
        return value[field]
    found: Any = value
    for part in field.split("."):
        if not isinstance(found, Mapping) or part not in found:
            return _MISSING
        found = found[part]
    return found


def _matches(value: Mapping[str, Any], wanted: Mapping[str, Any]) -> bool:
    """Whether a value's fields (top-level keys or dotted paths) meet a LangGraph filter."""
    for field, condition in wanted.items():
        have = _field(value, field)
        if (
            isinstance(condition, Mapping)
            and condition
            and all(isinstance(k, str) and k.startswith("$") for k in condition)
        ):
            present = None if have is _MISSING else have
            if not all(_compare(present, op, v) for op, v in condition.items()):
                return False
        elif have is _MISSING or have != condition:
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
