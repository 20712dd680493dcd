"""The record: how one decision becomes quads, and how they are published with a receipt."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.clock import Clock
from doxa.errors import Listing, NotFound
from doxa.gate.basis import Ended, basis_entries, flag_answers, flag_endings, question
from doxa.gate.believed import front
from doxa.gate.gather import kept_rules, live_by_key
from doxa.gate.index import FRONT, PAST, TERM, front_key, index_entries, past_key
from doxa.gate.receipts import (
    ChainHead,
    ReceiptDraft,
    covered,
    held_nodes,
    name_entry,
    produced_digest,
    quad_digest,
    receipt_triples,
)
from doxa.model import (
    HoldStatus,
    Outcome,
    Receipt,
    Relation,
)
from doxa.ontology import statement_key
from doxa.ontology.closure import property_table
from doxa.reads.receipts import receipt_fact
from doxa.resources import query
from doxa.scope import Scope, new_id
from doxa.store import Change, Dataset, Quad, Store
from doxa.store.cache import CacheKey
from doxa.store.capabilities import Journaled, SoleWriter, cache_of
from doxa.store.journal import JournalEntry
from doxa.terms import dt_literal
from doxa.vocabulary import DOXA, RDF

__all__ = ["Decision", "Record", "statement_of"]

Pair = tuple[URIRef, Node]


@dataclass
class Decision:
    """What one decision writes, gathered before it is published."""

    change: Change = field(default_factory=Change)
    bumped: bool = False  # whether live claims changed (admitted or ended)
    produced: list[URIRef] = field(default_factory=list)  # claims and events written
    topics: set[URIRef] = field(default_factory=set)
    erasure: dict[str, Any] | None = None  # a tombstone's journal record (no content)
    #: the chain head read before the decision's reads, on a store other processes write:
    #: the publish then claims the next place in the chain and fails if another took it
    after: ChainHead | None = None
    #: the facts the decision ends: their dependents are flagged when it is committed
    ended: list[Ended] = field(default_factory=list)
    #: admitted claims and the question each answers: empty search results asking it are
    #: flagged
    answers: list[tuple[URIRef, Literal]] = field(default_factory=list)


@dataclass
class _Memo:
    """What the gate remembers between decisions instead of reading it back every time.

    Kept on the store object (shared by every Memory on it) when the backend allows it; the
    persisted triples stay the truth and are read once.
    """

    head: ChainHead | None = None
    version: int | None = None
    topics: set[URIRef] | None = None
    #: how many topics there were, and the claim graphs then: topics only ever grow, so the
    #: count tells a list built from fewer (by a thread that raced a commit) from a fresh one
    graphs: tuple[int, list[URIRef]] | None = None
    #: whether the scope's names have their baseline receipt (only ever becomes true)
    name_baseline: bool = False


#: the store cache's key of what the gate remembers of one scope (``_GATE.of(scope.name)``)
_GATE: CacheKey[_Memo] = CacheKey("doxa.gate")


class Record:
    """The scope's record as the gate writes it: claims, endings, holds and receipts.

    Builds each decision's quads and publishes them, with the receipt that chains them, as
    one atomic change.
    """

    def __init__(self, store: Store, scope: Scope, clock: Clock) -> None:
        self.store = store
        self.scope = scope
        self.clock = clock
        #: while set (a bulk import), commits gather here instead of being published one by
        #: one; :meth:`publish_batch` publishes them as one change
        self.batch: Batch | None = None

    def _memo(self) -> _Memo:
        cache = cache_of(self.store)
        if cache is None:
            return _Memo()  # a backend shared with other processes: always read the store
        return cache.get_or_make(_GATE.of(self.scope.name), _Memo)

    def claim_graphs(self) -> list[URIRef]:
        """The scope's topic graphs and its rules graph."""
        memo = self._memo()
        topics = memo.topics
        if topics is None:
            # under the store's lock: a decision committed while the list is read would
            # otherwise be missing from it for good (commits add their topics to the list)
            with self.store.lock:
                topics = memo.topics
                if topics is None:
                    # from the scope's own index: listing every graph of a shared server is
                    # slow (Virtuoso scans every quad of every graph to answer it)
                    rows = self.store.select(
                        query("topics"), dataset=Dataset(default=(self.scope.search,))
                    )
                    topics = memo.topics = {self.scope.topic(str(row["topic"])) for row in rows}
        graphs = memo.graphs
        if graphs is None or graphs[0] != len(topics):
            graphs = memo.graphs = (len(topics), [*sorted(topics), self.scope.rules])
        return list(graphs[1])

    def mark(self) -> ChainHead | None:
        """The chain head to guard a decision with, read before its reads; None when this
        process is the store's only writer (the store's lock already serialises decisions)."""
        return None if isinstance(self.store, SoleWriter) else self.head()

    def slot(self, sequence: int) -> URIRef:
        """The slot a publish claims to become receipt number ``sequence`` of the scope."""
        return URIRef(f"urn:doxa:slot:{self.scope.name}:{sequence}")

    def version(self) -> int:
        """The scope's change counter: bumped whenever a claim is admitted or ended."""
        memo = self._memo()
        version = memo.version
        if version is None:
            with self.store.lock:  # as for the topics: a commit meanwhile must not be undone
                version = memo.version
                if version is None:
                    rows = self.store.select(
                        query("graph_version"),
                        dataset=Dataset(default=(self.scope.log,)),
                        bindings={"graph": self.scope.log},
                    )
                    version = memo.version = int(str(rows[0]["version"])) if rows else 0
        return version

    # -- writes ----------------------------------------------------------------------

    def admit(
        self, decision: Decision, iri: URIRef, pairs: list[Pair], graph: URIRef, now: datetime
    ) -> None:
        stamped = [*pairs, (DOXA.recordedAt, dt_literal(now))]
        change = decision.change
        change.insert += [(iri, p, o, graph) for p, o in stamped]
        search = self.scope.search
        table = property_table(self.store)
        change.insert += [
            (iri, p, o, search) for p, o in index_entries(stamped, table, self.scope.language)
        ]
        asked = question(pairs)
        change.insert += [(*entry, search) for entry in basis_entries(iri, pairs, asked)]
        if asked is not None and (DOXA.support, DOXA.Absent) not in pairs:
            decision.answers.append((iri, asked))
        statement = statement_of(pairs)
        if statement is not None and graph != self.scope.rules:
            change.insert.append((*statement, self.scope.current))
        decision.bumped = True
        if graph != self.scope.rules:
            decision.topics.add(graph)
        decision.produced.append(iri)

    def close(
        self,
        decision: Decision,
        relation: Relation,
        targets: tuple[URIRef, ...],
        successor: URIRef | None,
        valid_from: datetime | None,
        reason: str,
        now: datetime,
        *,
        also_ending: tuple[URIRef, ...] = (),
    ) -> list[URIRef]:
        """End ``targets`` (one event each) in ``decision``. A target's statement leaves
        ``current`` unless a claim that stays live states it too; ``also_ending`` names the
        claims the same decision ends in another call (an approval ends some by supersession
        and others by retraction), which do not count as staying."""
        log = self.scope.log
        leaving = {*targets, *also_ending, successor}
        events = []
        for target in targets:
            event = self.scope.event(new_id())
            events.append(event)
            decision.produced.append(event)
            kind = DOXA.Supersession if relation is Relation.REPLACES else DOXA.Retraction
            change = decision.change
            change.insert += [
                (event, RDF.type, kind, log),
                (event, DOXA.ends, target, log),
                (event, DOXA.recordedAt, dt_literal(now), log),
                (event, DOXA.reason, Literal(reason), log),
            ]
            if successor is not None:
                change.insert.append((event, DOXA.by, successor, log))
            if relation is Relation.REPLACES:
                change.insert.append((event, DOXA.validUntil, dt_literal(valid_from or now), log))
            _, statement = self.locate(target)
            if statement is not None and not self.shared(statement, leaving):
                change.delete.append((*statement, self.scope.current))
            self._unkey(decision, relation, target, valid_from or now)
            how = "superseded" if relation is Relation.REPLACES else "retracted"
            decision.ended.append(Ended(target, event, how, successor))
            decision.bumped = True
        return events

    def _unkey(
        self, decision: Decision, relation: Relation, target: URIRef, until: datetime
    ) -> None:
        """Take an ended claim out of the gate's live lookups. A superseded one keeps a past
        key (still believed before ``until``); if no superseded claim of its statement ends
        later, it joins the statement's front, and those of the front ending no later leave
        it. A retraction removes every key but the front one (its end still bounds the
        history's)."""
        change, search = decision.change, self.scope.search
        for key in self.keys(target):
            text = str(key)
            if text.startswith(FRONT) or (text.startswith(PAST) and relation is Relation.REPLACES):
                continue  # superseded again, or a front's end: they stay
            change.delete.append((target, TERM, key, search))
            if not (text.startswith("@") and relation is Relation.REPLACES):
                continue
            change.insert.append((target, TERM, past_key(key), search))
            self._join_front(decision, target, key, until)

    def _join_front(
        self, decision: Decision, target: URIRef, key: Literal, until: datetime
    ) -> None:
        """Put a claim superseded at ``until`` on its statement's front if no superseded claim
        of the statement ends later; those of the front ending no later leave it."""
        change, search = decision.change, self.scope.search
        ends = front(self.store, self.scope, [key])
        if not ends or until >= max(ends.values()):
            change.insert.append((target, TERM, front_key(key), search))
            change.delete += [
                (claim, TERM, front_key(key), search) for claim, end in ends.items() if end <= until
            ]

    def supersede_admitted(
        self,
        decision: Decision,
        target: URIRef,
        successor: URIRef,
        until: datetime,
        reason: str,
        now: datetime,
    ) -> URIRef:
        """End, by a supersession at ``until``, a claim :meth:`admit` put into this same
        ``decision``: an approved value that starts before one already believed holds only
        until that one starts. :meth:`close` reads what it ends from the store; this claim is
        not there yet, so its live statement keys and its line in ``current`` are taken out
        of the decision's inserts (a delete would run before the insert) and replaced by past
        keys, as a supersession leaves them."""
        log, search = self.scope.log, self.scope.search
        event = self.scope.event(new_id())
        change = decision.change
        change.insert += [
            (event, RDF.type, DOXA.Supersession, log),
            (event, DOXA.ends, target, log),
            (event, DOXA.recordedAt, dt_literal(now), log),
            (event, DOXA.reason, Literal(reason), log),
            (event, DOXA.by, successor, log),
            (event, DOXA.validUntil, dt_literal(until), log),
        ]
        decision.produced.append(event)
        mine = [(s, p, o, g) for s, p, o, g in change.insert if s == target]
        keys = [o for _, p, o, g in mine if p == TERM and g == search and str(o).startswith("@")]
        dropped: set[Quad] = {(target, TERM, key, search) for key in keys}
        pairs = [(URIRef(str(p)), o) for _, p, o, g in mine if g not in (search, log)]
        statement = statement_of(pairs)
        if statement is not None and not self.shared(statement, {target, successor}):
            dropped.add((*statement, self.scope.current))
        change.insert = [q for q in change.insert if q not in dropped]
        for key in keys:
            assert isinstance(key, Literal)
            change.insert.append((target, TERM, past_key(key), search))
            self._join_front(decision, target, key, until)
        decision.bumped = True
        return event

    def keys(self, claim: URIRef) -> list[Literal]:
        rows = self.store.select(
            query("keys_of"),
            dataset=Dataset(default=(self.scope.search,)),
            bindings={"claim": claim},
        )
        return [Literal(str(row["key"])) for row in rows]

    def shared(self, statement: tuple[Node, Node, Node], leaving: set[URIRef | None]) -> bool:
        """Whether another live claim states the same triple (so ``current`` keeps it)."""
        subject, predicate, obj = statement
        if not isinstance(predicate, URIRef):
            return False
        canonical_subject, canonical, _ = property_table(self.store).normalise(
            subject, predicate, obj
        )
        others = live_by_key(self.store, self.scope, statement_key(canonical_subject, canonical))
        return any(
            f.iri not in leaving and f.predicate == predicate and f.object == obj for f in others
        )

    def hold(
        self,
        decision: Decision,
        iri: URIRef,
        pairs: list[Pair],
        relation: Relation | None,
        targets: tuple[URIRef, ...],
        reason: str,
        status: HoldStatus,
        now: datetime,
        *,
        judge: str | None = None,
        asks: URIRef | None = None,
        digest: str | None = None,
    ) -> None:
        """Put a write in pending, waiting with ``status`` for ``reason``. ``asks`` is the
        question it waits on (:attr:`~doxa.model.Verdict.asks`); ``digest`` its input digest,
        so the same write sent again finds it waiting (:meth:`waiting_copy`)."""
        pending = self.scope.pending
        held = self.scope.held(self.scope.local_id(iri))
        change = decision.change
        change.insert += [(iri, p, o, pending) for p, o in pairs]
        change.insert.append((iri, DOXA.heldAt, dt_literal(now), pending))
        change.insert += [
            (held, RDF.type, DOXA.HeldWrite, pending),
            (held, DOXA.proposes, iri, pending),
            (held, DOXA.holdStatus, status.iri, pending),
            (held, DOXA.reason, Literal(reason), pending),
            (held, DOXA.heldAt, dt_literal(now), pending),
        ]
        if relation is not None:
            change.insert.append((held, DOXA.relation, relation.iri, pending))
        change.insert += [(held, DOXA.target, t, pending) for t in targets]
        if judge is not None:  # whose verdict the owner's decision will score
            change.insert.append((held, DOXA.scoresJudge, Literal(judge), pending))
        if asks is not None:
            change.insert.append((held, DOXA.asks, asks, pending))
        if digest is not None:
            change.insert.append((held, DOXA.inputDigest, Literal(digest), pending))

    def waiting_copy(self, digest: str, own: str) -> str | None:
        """The id of a write other than ``own`` waiting in pending with this input digest
        (the same writer's same content and fields), or None."""
        rows = self.store.select(
            query("waiting_with_digest"),
            dataset=Dataset(default=(self.scope.pending,)),
            bindings={"digest": Literal(digest)},
        )
        ids = sorted(self.scope.local_id(URIRef(str(r["claim"]))) for r in rows)
        others = [i for i in ids if i != own]
        return others[0] if others else None

    def waiting_on(self, question: URIRef) -> list[str]:
        """Ids of the writes waiting for the owner on ``question``, oldest first."""
        rows = self.store.select(
            query("waiting_on"),
            dataset=Dataset(default=(self.scope.pending,)),
            bindings={"question": question},
        )
        return [self.scope.local_id(URIRef(str(r["claim"]))) for r in rows]

    def retraction_waiting(self, target: URIRef, kind: str) -> bool:
        """Whether a request to retract ``target`` (a ``was_wrong`` hold of ``kind``)
        already waits: one lookup by target, whatever the number of held writes."""
        rows = self.store.select(
            query("retraction_waiting"),
            dataset=Dataset(default=(self.scope.pending,)),
            bindings={
                "target": target,
                "relation": Relation.WAS_WRONG.iri,
                "kind": Literal(kind),
            },
        )
        return bool(rows)

    def held(self, held_id: str) -> tuple[list[Pair], list[Pair]]:
        pending = Dataset(default=(self.scope.pending,))
        held = self.scope.held(held_id)
        rows = self.store.select(query("claim"), dataset=pending, bindings={"claim": [held]})
        if not rows:
            raise NotFound(
                f"There is no held write {held_id!r} in scope {self.scope.name!r}",
                listings=(Listing.HELD,),
                lead="list them with",
            )
        claim_rows = self.store.select(
            query("claim"), dataset=pending, bindings={"claim": [self.scope.fact(held_id)]}
        )
        return (
            [(URIRef(str(r["p"])), r["o"]) for r in rows],
            [(URIRef(str(r["p"])), r["o"]) for r in claim_rows],
        )

    def unchecked(self) -> list[str]:
        """Ids of the writes held because the judge could not answer, oldest first."""
        rows = self.store.select(query("unchecked"), dataset=Dataset(default=(self.scope.pending,)))
        return [self.scope.local_id(row["held"]) for row in rows]

    def unhold(self, decision: Decision, held_id: str, held: list[Pair], claim: list[Pair]) -> None:
        pending = self.scope.pending
        held_iri, claim_iri = self.scope.held(held_id), self.scope.fact(held_id)
        decision.change.delete += [(held_iri, p, o, pending) for p, o in held]
        decision.change.delete += [(claim_iri, p, o, pending) for p, o in claim]

    def is_live(self, iri: URIRef, *, sparql: str | None = None) -> bool:
        try:
            graph, _ = self.locate(iri)
        except NotFound:
            return False
        rows = self.store.select(
            sparql or query("live_claim"),
            dataset=Dataset(default=(graph, self.scope.log)),
            bindings={"claim": iri},
        )
        return bool(rows)

    def locate(self, iri: URIRef) -> tuple[URIRef, tuple[Node, Node, Node] | None]:
        """The graph a stored claim lives in, and its statement if it has one."""
        rows = self.store.select(
            query("claim_graph"),
            dataset=Dataset(default=(), named=tuple(self.claim_graphs())),
            bindings={"claim": iri},
        )
        if not rows:
            raise NotFound(
                f"There is no fact {self.scope.local_id(iri)!r} in scope {self.scope.name!r}."
            )
        row = rows[0]
        graph = URIRef(str(row["graph"]))
        if "s" in row:
            return graph, (row["s"], row["p"], row["o"])
        return graph, None

    # -- publishing ----------------------------------------------------------------------

    def commit(
        self, decision: Decision, draft: ReceiptDraft, now: datetime | None = None
    ) -> Receipt:
        """Number, chain and publish one decision atomically; returns its receipt."""
        now = now or self.clock.now()
        self._flag_dependents(decision, now)
        log = self.scope.log
        head = decision.after or self.head()
        if decision.produced:
            nodes = set(decision.produced)
            written: dict[Node, list[Quad]] = {node: [] for node in decision.produced}
            for q in decision.change.insert:
                if q[0] in nodes and covered(q[3]):
                    written[q[0]].append(q)
            draft = replace(
                draft,
                content_digest=produced_digest(
                    {node: quad_digest(found) for node, found in written.items()}
                ),
                produced=tuple(decision.produced),
            )
        held = held_nodes(decision.change.insert, decision.change.delete)
        if held.nodes:  # what waits in pending or quarantine, as this decision leaves it
            draft = replace(draft, held=held)
        names, baseline = self._names(decision)
        if names:
            draft = replace(draft, names=names, name_baseline=baseline)
        receipt_id = new_id()
        iri = self.scope.receipt(receipt_id)
        triples, receipt_hash = receipt_triples(iri, draft, head, now)
        change = decision.change
        change.insert += [(s, p, o, log) for s, p, o in triples]
        if head.receipt is not None:
            change.delete.append((log, DOXA.head, head.receipt, log))
        change.insert.append((log, DOXA.head, iri, log))
        version = self.version()
        if decision.bumped:
            if version:
                change.delete.append((log, DOXA.version, Literal(version), log))
            change.insert.append((log, DOXA.version, Literal(version + 1), log))
        if decision.after is not None:  # raises WriteConflict if another process was first
            change.slot = self.slot(head.sequence + 1)
        entry = JournalEntry(
            self.scope.name, head.sequence + 1, receipt_id, receipt_hash, decision.erasure
        )
        if self.batch is not None and decision.after is None:
            self.batch.add(change, entry)
        else:
            self.store.apply(change)
            if isinstance(self.store, Journaled):  # fsynced: what is acknowledged survives
                self.store.journal.append(entry)  # a power loss
        memo = self._memo()
        memo.head = ChainHead(receipt=iri, receipt_hash=receipt_hash, sequence=head.sequence + 1)
        if decision.bumped:
            memo.version = version + 1
        if memo.topics is not None:
            memo.topics |= decision.topics
        return Receipt(
            id=receipt_id,
            sequence=head.sequence + 1,
            relation=draft.relation,
            outcome=draft.outcome,
            recorded_at=now,
            judge=draft.judge,
            judge_version=draft.judge_version,
            reason=draft.reason,
            fact=receipt_fact(self.scope, draft.outcome, draft.decides, draft.targets),
            held=(
                self.scope.local_id(draft.decides)
                if draft.outcome is Outcome.HELD and draft.decides is not None
                else None
            ),
            targets=tuple(self.scope.local_id(t) for t in draft.targets),
            consulted=tuple(self.scope.local_id(c) for c in draft.consulted),
            input_digest=draft.input_digest,
            receipt_hash=receipt_hash,
            previous_hash=head.receipt_hash,
        )

    def _names(self, decision: Decision) -> tuple[tuple[str, ...], bool]:
        """One ``doxa:nameDigest`` entry per vocabulary node the decision writes, as it
        leaves it: a minted name, or a predicate the owner taught about (a lesson adds to a
        node other decisions wrote, so its quads there are read first). An erasure's removed
        names get none: the entry would keep the erased name's IRI.

        The scope's first decision that writes names is its baseline (True beside the
        entries): it digests every node of the vocabulary, the names written before digests
        existed included, so that from then on verify can require an entry for every name
        (one read of the vocabulary, once per scope)."""
        vocabulary = self.scope.vocabulary
        change = decision.change
        touched = {q[0] for q in (*change.insert, *change.delete) if q[3] == vocabulary}
        if not touched or decision.erasure is not None:
            return (), False
        baseline = not self._name_baseline()
        if baseline:  # the whole vocabulary, read once: every node's quads as they stand
            before = [(s, p, o, vocabulary) for s, p, o, _ in self.store.quads(vocabulary)]
            touched |= {q[0] for q in before}
        else:  # the touched nodes' quads alone
            rows = self.store.select(
                query("node_quads"),
                dataset=Dataset(default=(), named=(vocabulary,)),
                bindings={"node": sorted(touched, key=str)},
            )
            before = [(row["node"], row["p"], row["o"], vocabulary) for row in rows]
        nodes = sorted(touched, key=str)
        gone = set(change.delete)
        after: dict[Node, set[Quad]] = {node: set() for node in nodes}
        for quad in before:
            if quad not in gone:
                after[quad[0]].add(quad)
        for quad in change.insert:
            if quad[3] == vocabulary:
                after[quad[0]].add(quad)
        entries = tuple(name_entry(node, after[node]) for node in nodes if isinstance(node, URIRef))
        return entries, baseline

    def _name_baseline(self) -> bool:
        """Whether a receipt of the scope is its names' baseline (see :meth:`_names`); a
        positive answer is remembered (a baseline stays)."""
        memo = self._memo()
        if not memo.name_baseline:
            memo.name_baseline = self.store.ask(
                "ASK WHERE { ?receipt ?baseline true }",
                dataset=Dataset(default=(self.scope.log,)),
                bindings={"baseline": DOXA.nameBaseline},
            )
        return memo.name_baseline

    def _flag_dependents(self, decision: Decision, now: datetime) -> None:
        """Flag, in the decision's own change, what rests on the facts it ends and the empty
        search results its admitted claims answer (see :mod:`doxa.gate.basis`)."""
        if not decision.ended and not decision.answers:
            return
        stamp = dt_literal(now)
        change = decision.change
        events = flag_endings(self.store, self.scope, change, decision.ended, stamp)
        leaving = {e.claim for e in decision.ended}
        events += flag_answers(self.store, self.scope, change, decision.answers, leaving, stamp)
        decision.produced += events
        decision.ended, decision.answers = [], []

    def publish_batch(self) -> int:
        """Publish the gathered commits as one change and journal them with one fsync.

        Returns how many decisions were published. If publishing fails, nothing of the batch
        is stored and the remembered chain head is read again from the store.
        """
        batch = self.batch
        if batch is None or not batch.entries:
            return 0
        self.batch = Batch()
        try:
            self.store.apply(batch.change())
        except BaseException:
            self.forget()
            raise
        if isinstance(self.store, Journaled):
            self.store.journal.append_all(batch.entries)
        return len(batch.entries)

    def forget(self) -> None:
        """Drop what the gate remembers of the chain; it is read from the store again."""
        memo = self._memo()
        memo.head, memo.version, memo.topics, memo.graphs = None, None, None, None
        rules = kept_rules(self.store, self.scope)
        if rules is not None:
            rules.forget()

    def head(self) -> ChainHead:
        memo = self._memo()
        if memo.head is not None:
            return memo.head
        rows = self.store.select(
            query("chain_head"),
            dataset=Dataset(default=(self.scope.log,)),
            bindings={"log": self.scope.log},
        )
        if not rows:
            memo.head = ChainHead(receipt=None, receipt_hash="", sequence=0)
        else:
            row = rows[0]
            memo.head = ChainHead(
                receipt=URIRef(str(row["receipt"])),
                receipt_hash=str(row["hash"]),
                sequence=int(str(row["sequence"])),
            )
        return memo.head


_CLOSINGS = frozenset({DOXA.Supersession, DOXA.Retraction, DOXA.Alarm})
_RESTING = frozenset({DOXA.restsOn, DOXA.refines, DOXA.awaitsAnswer})
_RDF_TYPE = str(RDF.type).__eq__  # a plain string compare: rdflib's term equality is slower


class Batch:
    """Decisions committed but not yet published: their changes composed in order."""

    def __init__(self) -> None:
        self.insert: dict[Quad, None] = {}
        self.delete: dict[Quad, None] = {}
        self.entries: list[JournalEntry] = []
        #: whether a decision in it ended a fact or raised an alarm (what later closings read)
        self.closing = False
        #: whether a decision in it wrote a fact resting on another, or an empty search
        #: result (what later endings and answers look up)
        self.resting = False

    def add(self, change: Change, entry: JournalEntry) -> None:
        for quad in change.delete:  # a quad the batch wrote itself is simply not written
            if quad in self.insert:
                del self.insert[quad]
            else:
                self.delete[quad] = None
        rdf_type = _RDF_TYPE
        for quad in change.insert:
            self.delete.pop(quad, None)
            self.insert[quad] = None
            if rdf_type(quad[1]) and quad[2] in _CLOSINGS:
                self.closing = True
            elif quad[1] in _RESTING:
                self.resting = True
        self.entries.append(entry)

    def change(self) -> Change:
        return Change(delete=list(self.delete), insert=list(self.insert))


_STATEMENT = (RDF.subject, RDF.predicate, RDF.object)
_IN_STATEMENT = frozenset(_STATEMENT)  # a set: its lookups hash, a tuple's compare each


def statement_of(pairs: list[Pair]) -> tuple[Node, Node, Node] | None:
    found = {p: o for p, o in pairs if p in _IN_STATEMENT}
    if len(found) != 3:
        return None
    subject, predicate, obj = _STATEMENT
    return (found[subject], found[predicate], found[obj])
