"""The named-graph layout of one scope (one owner's or agent's memory).

| graph                 | holds                                                      |
| --------------------- | ---------------------------------------------------------- |
| ``<scope>/topic/<t>`` | the claims of topic ``t``                                  |
| ``<scope>/rules``     | the owner's standing rules                                 |
| ``<scope>/log``       | receipts and ending events: the append-only audit record   |
| ``<scope>/pending``   | writes waiting for the owner or for the judge              |
| ``<scope>/quarantine``| outside text that acted as an instruction                  |
| ``<scope>/current``   | derived: live structured facts as plain triples            |
| ``<scope>/search``    | derived: the word index that ``recall`` reads              |
| ``<scope>/vocabulary``| names: minted entities and predicates, learned cardinality |
"""

from __future__ import annotations

import difflib
import enum
import functools
import re
import secrets
import time
from dataclasses import dataclass
from functools import cached_property

from rdflib import RDF, URIRef

from doxa.errors import InvalidInput, UnknownScope
from doxa.store.base import Change, Dataset, Store
from doxa.text import DEFAULT_LANGUAGE, check_language, normal_iri, normalise, unconfused
from doxa.vocabulary import DOXA

__all__ = [
    "SCOPES_GRAPH",
    "Role",
    "Scope",
    "check_name",
    "graph_role",
    "known_scopes",
    "mark_scope",
    "new_id",
    "scope_known",
    "unknown_scope",
]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
# a standpoint's own name inside a scope: no dot, so no "." or ".." segment
_STANDPOINT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def check_name(value: str, what: str) -> str:
    """Check a scope, topic or kind name: lower-case letters, digits, ``_ . -``, 1–64 long.

    >>> check_name("meetings", "topic")
    'meetings'
    """
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise InvalidInput(
            f"{value!r} is not a valid {what} name; use 1-64 lower-case letters, digits, "
            "'_', '.' or '-', starting with a letter or digit (for example 'meetings')."
        )
    return value


class Role(enum.Enum):
    """What one of a scope's graphs holds, read off its IRI by :func:`graph_role`."""

    TOPIC = "topic"
    RULES = "rules"
    LOG = "log"
    PENDING = "pending"
    QUARANTINE = "quarantine"
    SEARCH = "search"
    CURRENT = "current"
    VOCABULARY = "vocabulary"
    #: the audit export's marker graph: in an export file only, never in a store
    EXPORT = "export"


_SCOPE_PREFIX = "urn:doxa:scope:"


def graph_role(graph: object) -> Role | None:
    """The role of a scope graph, parsed from its IRI ``urn:doxa:scope:NAME/LOCAL``: the
    topic graphs are ``topic/TOPIC``, the others one fixed word. None for any other graph.

    Parsed, never matched by suffix: a topic may be named ``current`` or ``pending``.

    >>> graph_role(Scope.named("alice").topic("pending"))
    <Role.TOPIC: 'topic'>
    >>> graph_role(Scope.named("alice").pending), graph_role("urn:doxa:scope:alice/Pending")
    (<Role.PENDING: 'pending'>, None)
    """
    return _role_of(str(graph))


@functools.lru_cache(maxsize=4096)
def _role_of(text: str) -> Role | None:
    """:func:`graph_role` of an IRI's text, remembered: the writer asks it for every quad
    of every write, of the same few graphs (parsed, 2.3 µs; remembered, a lookup)."""
    if not text.startswith(_SCOPE_PREFIX):
        return None
    name, _, local = text[len(_SCOPE_PREFIX) :].partition("/")
    if not _NAME.fullmatch(name):
        return None
    kind, _, topic = local.partition("/")
    if kind == "topic":
        return Role.TOPIC if _NAME.fullmatch(topic) else None
    if topic:
        return None
    try:
        role = Role(kind)
    except ValueError:
        return None
    return None if role is Role.TOPIC else role


def new_id() -> str:
    """A fresh identifier for a fact, receipt or event, ordered by creation time.

    20 hex digits: 12 of the wall clock in milliseconds, then 8 random ones (32 bits). Ids
    sort in the order they were made, so an index walked in id order meets newer claims
    later, which ``recall`` uses to break ties without reading every candidate.

    >>> a, b = new_id(), new_id()
    >>> len(a), a[:12] <= b[:12]
    (20, True)
    """
    return f"{time.time_ns() // 1_000_000:012x}{secrets.randbits(32):08x}"


@dataclass(frozen=True)
class Scope:
    """The IRIs of one scope's graphs and nodes (its graph IRIs built once, on first use).

    >>> Scope.named("alice").topic("meetings")
    rdflib.term.URIRef('urn:doxa:scope:alice/topic/meetings')
    """

    name: str
    #: the Snowball language recall stems the scope's words in (see :func:`doxa.text.stems`)
    language: str = DEFAULT_LANGUAGE

    @classmethod
    def named(cls, name: str, language: str = DEFAULT_LANGUAGE) -> Scope:
        return cls(check_name(name, "scope"), check_language(language))

    @cached_property
    def iri(self) -> URIRef:
        return URIRef(f"urn:doxa:scope:{self.name}")

    def _graph(self, local: str) -> URIRef:
        return URIRef(f"{self.iri}/{local}")

    def topic(self, topic: str) -> URIRef:
        found = self._topics.get(topic)
        if found is None:
            found = self._topics[topic] = self._graph(f"topic/{topic}")
        return found

    @cached_property
    def _topics(self) -> dict[str, URIRef]:
        """Topic graph IRIs built so far: the gate names the same few on every write."""
        return {}

    @property
    def topic_prefix(self) -> str:
        return f"{self.iri}/topic/"

    @cached_property
    def rules(self) -> URIRef:
        return self._graph("rules")

    @cached_property
    def log(self) -> URIRef:
        return self._graph("log")

    @cached_property
    def pending(self) -> URIRef:
        return self._graph("pending")

    @cached_property
    def quarantine(self) -> URIRef:
        return self._graph("quarantine")

    @cached_property
    def current(self) -> URIRef:
        return self._graph("current")

    @cached_property
    def search(self) -> URIRef:
        return self._graph("search")

    @cached_property
    def meaning(self) -> URIRef:
        """Derived: each admitted claim's embedding (or why it has none yet), for recall."""
        return self._graph("meaning")

    @cached_property
    def vocabulary(self) -> URIRef:
        """Names given where IRIs were expected (each minted IRI with its ``rdfs:label``) and
        what the owner taught about predicates (one value or many)."""
        return self._graph("vocabulary")

    @property
    def export(self) -> URIRef:
        """``<scope>/export``: the graph of an audit export's one marker quad (in the file
        only; an import leaves it out)."""
        return self._graph("export")

    def minted(self, role: str, slug: str) -> URIRef:
        """A scope-local IRI minted for a name: ``<scope>/entity/<slug>`` or ``…/property/…``."""
        return self._graph(f"{role}/{slug}")

    def fact(self, fact_id: str) -> URIRef:
        return self._graph(f"fact/{fact_id}")

    def receipt(self, receipt_id: str) -> URIRef:
        return self._graph(f"receipt/{receipt_id}")

    def event(self, event_id: str) -> URIRef:
        return self._graph(f"event/{event_id}")

    def held(self, held_id: str) -> URIRef:
        return self._graph(f"held/{held_id}")

    def alarm(self, alarm_id: str) -> URIRef:
        return self._graph(f"alarm/{alarm_id}")

    def standpoint(self, whose: str) -> URIRef:
        return self._graph(f"standpoint/{whose}")

    def checked_standpoint(self, iri: URIRef) -> URIRef:
        """``iri`` as a write's standpoint: any IRI of the writer's own, or one of this scope's
        standpoints spelt exactly (``<scope>/standpoint/NAME``, NAME of letters, digits, ``-``
        and ``_``). Raises :class:`~doxa.InvalidInput` for any other IRI in doxa's namespace,
        or one that only looks like it once format characters and look-alike letters are
        read (``…/owner/``, ``…/owner#x``, ``…/./owner``, a Cyrillic ``о``, a zero-width
        space, another scope's standpoint): a reader comparing prefixes or glyphs would take
        it for a standpoint of doxa's, the owner's among them.

        >>> alice = Scope.named("alice")
        >>> alice.checked_standpoint(URIRef("urn:doxa:scope:alice/standpoint/agent"))
        rdflib.term.URIRef('urn:doxa:scope:alice/standpoint/agent')
        >>> alice.checked_standpoint(URIRef("urn:doxa:scope:alice/standpoint/owner/"))
        Traceback (most recent call last):
        ...
        doxa.errors.InvalidInput: standpoint 'urn:doxa:scope:alice/standpoint/owner/' is in ...
        """
        text = str(iri)
        if not unconfused(normal_iri(text)).startswith("urn:doxa:"):
            return iri
        prefix = f"{self.iri}/standpoint/"
        name = text[len(prefix) :] if text.startswith(prefix) else ""
        if not _STANDPOINT_NAME.fullmatch(name):
            raise InvalidInput(
                f"standpoint {text!r} is in doxa's namespace but is not one of scope "
                f"{self.name!r}'s standpoints; use {prefix}NAME (NAME of lower-case letters, "
                "digits, - and _) or an IRI of your own."
            )
        return iri

    def is_owners_standpoint(self, iri: object) -> bool:
        """Whether ``iri`` names the owner's standpoint in any spelling (``URN:doxa:…``,
        ``…/%6Fwner``): the one check REST and MCP make before an agent's write, on the
        normal form (:func:`doxa.text.normal_iri`), never the raw text."""
        owners = self.standpoint("owner")
        return normal_iri(str(iri)) == str(owners)

    def local_id(self, iri: object) -> str:
        """The id at the end of a fact, receipt, event or held-write IRI."""
        return str(iri).rsplit("/", 1)[-1]

    def owns(self, graph: URIRef) -> bool:
        return str(graph).startswith(f"{self.iri}/")

    def topic_of(self, graph: URIRef) -> str | None:
        text = str(graph)
        return text[len(self.topic_prefix) :] if text.startswith(self.topic_prefix) else None

    def ordinary(self, topic_graphs: list[URIRef]) -> Dataset:
        """What an ordinary reader sees: topics, rules, log, vocabulary and the derived graphs.

        Never pending or quarantine, never another scope. The word index ``search`` is a
        named graph only: it repeats each claim's ``doxa:topic`` and ``doxa:recordedAt`` for
        recall, and the default graph is the union of its graphs with duplicates kept
        (Oxigraph, like most stores), so with it there every fact counted twice in plain
        SPARQL. Without it each statement of the default graph is there once.
        """
        graphs = (
            *topic_graphs,
            self.rules,
            self.log,
            self.current,
            self.vocabulary,
        )
        return Dataset(default=graphs, named=(*graphs, self.search))


# -- which scopes a store knows ----------------------------------------------------------

#: The store-level graph naming the scopes created on purpose (``doxa init``,
#: ``memory.admin.create_scope``): ``<urn:doxa:scope:NAME> a doxa:Scope``.
SCOPES_GRAPH = URIRef("urn:doxa:scopes")

_SCOPE_PREFIX = "urn:doxa:scope:"


def _marker(scope: Scope) -> tuple[URIRef, URIRef, URIRef, URIRef]:
    return (scope.iri, RDF.type, DOXA.Scope, SCOPES_GRAPH)


def _fold(name: str) -> str:
    """A name as compared for a suggestion: case, width, accents and separators folded."""
    return normalise(name).replace(" ", "")


def scope_known(store: Store, scope: Scope) -> bool:
    """Whether ``scope`` was created in ``store``: marked in :data:`SCOPES_GRAPH`, or holding
    a receipt (every decision writes one, so a scope written before markers existed counts).

    Two index lookups, whatever the store holds: the check costs the same in a big store.
    """
    return store.ask(
        "ASK WHERE { { GRAPH ?scopes { ?scope a ?kind } } UNION { GRAPH ?log { ?s ?p ?o } } }",
        dataset=Dataset(default=(), named=(SCOPES_GRAPH, scope.log)),
        bindings={
            "scopes": SCOPES_GRAPH,
            "scope": scope.iri,
            "kind": DOXA.Scope,
            "log": scope.log,
        },
    )


def known_scopes(store: Store) -> list[str]:
    """Every scope ``store`` knows, sorted: the marked ones and every scope with a graph.

    Reads the list of graphs, so it is for error messages and listings, not for each write.
    """
    names = {
        str(s)[len(_SCOPE_PREFIX) :]
        for s, _, _, _ in store.quads(SCOPES_GRAPH)
        if str(s).startswith(_SCOPE_PREFIX)
    }
    for graph in store.graphs():
        text = str(graph)
        if text.startswith(_SCOPE_PREFIX) and "/" in text:
            names.add(text[len(_SCOPE_PREFIX) :].split("/", 1)[0])
    return sorted(names)


def mark_scope(store: Store, scope: Scope) -> bool:
    """Record ``scope`` as created; True if it was not known before."""
    if scope_known(store, scope):
        return False
    store.apply(Change(insert=[_marker(scope)]))
    return True


def unknown_scope(name: str, known: list[str]) -> UnknownScope:
    """The error for a command on a scope nobody created, naming the closest known scope.

    Names are compared normalised (:func:`doxa.text.normalise`: case, width, accents
    folded, separators dropped), then by spelling distance, so ``shop_v2`` points at
    ``shop-v2`` and ``alcie`` at ``alice``. A scope that holds graphs but no receipt log
    (an import an older doxa let a crash cut off) is named as such, not as a typo.
    """
    if name in known:  # graphs of the scope, yet no receipt and no marker
        return UnknownScope(
            f"Scope {name!r} holds graphs in this store but no receipt log, so it is no "
            "memory doxa can use: an import into it was cut off before its receipts were "
            f"written. Import the export again into a fresh store "
            f"(`doxa --store NEW --scope {name} import FILE`).",
            name=name,
            suggestion=None,
        )
    folded = {_fold(k): k for k in known}
    guess = folded.get(_fold(name))
    if guess is None:
        close = difflib.get_close_matches(_fold(name), list(folded), n=1, cutoff=0.75)
        guess = folded[close[0]] if close else None
    hint = f" Did you mean {guess!r}?" if guess is not None and guess != name else ""
    listed = ", ".join(repr(k) for k in known) if known else "none yet"
    return UnknownScope(
        f"There is no scope {name!r} in this store.{hint} Scopes here: {listed}. "
        f"To start a new memory named {name!r}, run `doxa --scope {name} init` first.",
        name=name,
        suggestion=guess,
    )
