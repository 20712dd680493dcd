"""``Memory``: the one object agents and their developers hold.

It binds a store, a scope, a judge and a clock; every write goes through its gate and every
read stays inside its scope. The agent's verbs (remember, recall, facts, history …) are its
methods; each other audience has its own object beside them, as a sqlite-utils database
hands out tables: ``memory.owner`` (the owner's decisions, :mod:`doxa.memory.owner`),
``memory.admin`` (backups, purge, exports, imports, audits, :mod:`doxa.memory.admin`),
``memory.schema`` (ontologies and shapes, :mod:`doxa.memory.schema`), ``memory.files``
(render and sync, :mod:`doxa.memory.files`) and ``memory.rdf`` (SPARQL and an rdflib
``Dataset``, :mod:`doxa.memory.rdf`). Restoring a backup needs the store closed, so it is a
function, :func:`doxa.restore_backup`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from datetime import date, datetime
from functools import cached_property
from typing import Any
from typing import Literal as Literal_

from doxa.audit.chain import verify_chain
from doxa.audit.exports import (
    scope_quads,
)
from doxa.audit.purge import purge_of
from doxa.audit.shape_sources import (
    domain_shapes,
)
from doxa.clock import Clock, SystemClock
from doxa.errors import (
    InvalidInput,
    NotFound,
)
from doxa.gate.gate import Gate
from doxa.gate.names import Role
from doxa.gate.proposal import build_proposal
from doxa.gate.shapes import ShapeCheck, default_shape_check
from doxa.judges.base import Judge
from doxa.judges.rules import RuleJudge
from doxa.memory.admin import Admin
from doxa.memory.arguments import (
    UNNAMED,
    fact_id_of,
    missing_fact,
    required_reason,
)
from doxa.memory.files import Files
from doxa.memory.opening import Opening, check_journal, ensure_ontology
from doxa.memory.owner import Owner
from doxa.memory.rdf import Rdf
from doxa.memory.reading import Reads, recall_mode
from doxa.memory.schema import Schema
from doxa.model import (
    Authority,
    ClosingPolicy,
    Fact,
    FactStatus,
    HeldWrite,
    History,
    Receipt,
    Relation,
    Verdict,
    Why,
)
from doxa.reads import facts as fact_reads
from doxa.reads.embeddings import Embedder, OpenAIEmbedder
from doxa.reads.held import held as held_reads
from doxa.reads.history import history as history_read
from doxa.reads.history import why as why_read
from doxa.reads.parameters import RECALL_LIMIT, newest
from doxa.reads.projection import (
    RETRACTION_KIND,
)
from doxa.reads.provenance import authorities, owner_first, said_by
from doxa.reads.receipts import receipts as receipt_reads
from doxa.reads.stats import Stats
from doxa.reads.stats import stats as stats_read
from doxa.reads.vocabulary import Vocabulary, vocabulary
from doxa.scope import Scope, check_name, known_scopes, scope_known, unknown_scope
from doxa.store import Store
from doxa.store.capabilities import Journaled
from doxa.terms import as_text
from doxa.text import DEFAULT_LANGUAGE, stems

__all__ = ["Memory"]

_log = logging.getLogger(__name__)


class Memory(Opening):
    """An agent's memory in one scope of a store.

    >>> mem = Memory.open(None, scope="alice")
    >>> r = mem.remember("Alice prefers tea", topic="drinks", authority="owner")
    >>> r.outcome.value, r.relation.value
    ('admitted', 'new')
    >>> [f.text for f in mem.recall("tea")]
    ['Alice prefers tea']

    ``language`` (every constructor) names the Snowball language recall stems the scope's
    words in (:data:`doxa.text.LANGUAGES`; default ``"english"``); a fact is indexed with
    the language of the memory that wrote it, so open a scope with the same one each time.
    The owner's decisions, operations, schema and files are on :attr:`owner`, :attr:`admin`,
    :attr:`schema` and :attr:`files`.
    """

    def __init__(
        self,
        store: Store,
        *,
        scope: str,
        judge: Judge | None = None,
        clock: Clock | None = None,
        shapes: ShapeCheck | None = None,
        policy: ClosingPolicy | None = None,
        owns_store: bool = False,
        language: str = DEFAULT_LANGUAGE,
        embedder: Embedder | None = None,
    ) -> None:
        self.store = store
        # recall stems the scope's words in its language: open it with the same one each time
        self.scope = Scope.named(scope, language)
        self.clock: Clock = clock or SystemClock()
        self.judge: Judge = judge or RuleJudge()
        self._owns_store = owns_store
        #: where recall gets vectors (None: words only); see :attr:`recall_mode`
        self.embedder = embedder
        #: doxa's own shapes; the owner's domain shapes are added to them (``schema``)
        self.shape_check = shapes or default_shape_check()
        self.gate = Gate(
            store,
            self.scope,
            shapes=self.shape_check.with_domain(domain_shapes(store)),
            judge=self.judge,
            clock=self.clock,
            lock=store.lock,
            policy=policy,
        )
        self._reads = Reads(self.gate, self.clock)
        ensure_ontology(store)
        check_journal(store, self.scope, self.gate)
        purge = purge_of(store, self.clock)  # None unless the store is Purgeable
        if purge is not None:
            purge.rescan()  # erasures a stopped process still owed, this scope's too
            purge.start()

    def close(self) -> None:
        """Flush and close the store if this memory opened it, and the embeddings client's
        connections (it reconnects if used again)."""
        if isinstance(self.embedder, OpenAIEmbedder):
            self.embedder.close()
        if self._owns_store:
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def remember(
        self,
        text: str,
        *,
        topic: str,
        kind: str | None = None,
        subject: object = None,
        predicate: object = None,
        object: object = None,
        authority: object = "agent",
        support: object = None,
        standpoint: object = None,
        sources: Iterable[object] | str = (),
        attributed_to: object = None,
        valid_from: datetime | date | str | None = None,
        valid_until: datetime | date | str | None = None,
        confidence: object = None,
        query: str | None = None,
        turn: object = None,
        rule: object = None,
        revises: str | None = None,
        correction: object = None,
        derived_from: Iterable[str] | str = (),
        strict: bool = False,
    ) -> Receipt:
        """Write one fact through the gate and return the receipt of the decision.

        The gate checks the shapes, gathers what is stored on the same statement and topic,
        asks the judge for one relation and publishes its outcome atomically. A write that
        breaks the shapes comes back as a receipt with outcome ``rejected`` and its
        ``failures`` (``strict=True`` raises :class:`~doxa.ShapeViolation` instead); values of
        the wrong type raise :class:`~doxa.InvalidInput` before anything is written.

        ``revises`` names one live fact of this scope the write corrects or updates; the
        judge decides the relation with it in hand, and every closing rule still applies. A
        target that is unknown, ended, erased, held or quarantined raises
        :class:`~doxa.NotFound` or :class:`~doxa.InvalidInput`, and nothing is stored.
        ``correction`` says what the writer knows of the value it corrects: ``"replaces"``
        (the world changed) or ``"was_wrong"`` (it was never true); without it the judge
        decides, and an undated new value is a change.

        ``derived_from`` names the live facts of this scope the write rests on (an
        inference, a summary), checked the same way; when one of them later ends, this fact
        gets a basis-ended flag (``Fact.basis_ended``) until the owner confirms, revises or
        retracts it.
        """
        names = self.gate.names.resolve(subject, predicate, object)
        proposal = build_proposal(
            self.scope,
            text,
            topic=topic,
            kind=kind,
            subject=names.subject,
            predicate=names.predicate,
            object=names.object,
            authority=authority,
            support=support,
            standpoint=standpoint,
            sources=sources,
            attributed_to=attributed_to,
            valid_from=valid_from,
            valid_until=valid_until,
            confidence=confidence,
            query=query,
            turn=turn,
            rule=rule,
            revises=revises,
            correction=correction,
            derived_from=derived_from,
        )
        with self._acknowledged():
            # the embedder is asked once, inside, before the gate locks: its vector gathers
            # the close facts and is stored with the admitted claim, in the same change
            receipt = self.gate.remember(
                proposal, strict=strict, minted=names.minted, embedder=self.embedder
            )
        return receipt

    def _acknowledged(self) -> AbstractContextManager[None]:
        """Writers in several threads share journal fsyncs: each write's line is fsynced
        after the store's lock is released, before the write returns (group commit)."""
        if isinstance(self.store, Journaled):
            return self.store.journal.grouped()
        return nullcontext()

    def preview(self, text: str, **fields: Any) -> Verdict:
        """What the judge would say about a write, without writing anything.

        Takes the same arguments as :meth:`remember`. Raises :class:`~doxa.ShapeViolation`
        when the write breaks the shapes and :class:`~doxa.JudgeUnavailable` when the judge
        cannot answer.
        """
        fields.pop("strict", None)
        names = self.gate.names.resolve(
            fields.pop("subject", None), fields.pop("predicate", None), fields.pop("object", None)
        )
        return self.gate.preview(
            build_proposal(
                self.scope,
                text,
                subject=names.subject,
                predicate=names.predicate,
                object=names.object,
                **fields,
            ),
            embedder=self.embedder,
        )

    def facts(
        self,
        *,
        valid_at: datetime | date | str | None = None,
        as_of: datetime | date | str | None = None,
        topic: str | None = None,
        subject: object = None,
        predicate: object = None,
        authority: object = None,
        include_ended: bool = False,
        include_unchecked: bool = False,
        limit: int | None = None,
    ) -> list[Fact]:
        """Facts true at ``valid_at`` as believed at ``as_of`` (both default to now).

        A bare date for ``as_of`` means "by the end of that day". ``authority`` keeps the
        facts in those speakers' words (``"owner"``, ``"owner,tool"`` or a list). With
        ``include_ended`` every fact recorded by ``as_of`` comes back, each with its status.
        With ``include_unchecked``, writes waiting for a judge that could not answer come
        last, flagged with status ``unchecked``. ``limit`` keeps the newest that many
        (1-1000).
        """
        wanted = authorities(authority)
        valid, believed = self._reads.times(valid_at, as_of)
        subject_iri = self._reads.filter_term(subject, Role.ENTITY, "subject")
        predicate_iri = self._reads.filter_term(predicate, Role.PROPERTY, "predicate")
        if UNNAMED in (subject_iri, predicate_iri):
            return []  # a name nothing in this scope is called: no fact can match it
        waiting = (
            [
                f
                for f in self._reads.unchecked()
                if (topic is None or f.topic == topic)
                and subject_iri in (None, f.subject)
                and predicate_iri in (None, f.predicate)
            ]
            if include_unchecked
            else []
        )
        found = [
            *fact_reads.facts(
                self.store,
                self.scope,
                self._reads.topic_graphs(topic),
                valid_at=valid,
                as_of=believed,
                subject=subject_iri,
                predicate=predicate_iri,
                include_ended=include_ended,
                topic=topic,
            ),
            *waiting,
        ]
        return newest(said_by(found, wanted), limit)

    def recall(
        self,
        text: str,
        *,
        valid_at: datetime | date | str | None = None,
        as_of: datetime | date | str | None = None,
        topic: str | None = None,
        authority: object = None,
        include_ended: bool = False,
        include_unchecked: bool = False,
        limit: int = 10,
    ) -> list[Fact]:
        """Facts whose words match ``text``, best first, each with a ``score`` in (0, 1].

        Ranked by BM25 over the Snowball stems (in the scope's ``language``) of each fact's
        text and of its subject's, predicate's and object's labels, so "where does alice
        live" finds "Alice lives in Lyon"; then the clocks, scope, status and quarantine
        rules decide what may come back, as for :meth:`facts` (docs/concepts.md).

        ``include_unchecked`` adds matching writes that wait for the judge, last and flagged.
        ``authority`` keeps the facts in those speakers' words (``"owner"``: the owner's
        only). On one topic a stronger speaker's fact is never ranked below a weaker one's
        (owner, tool, agent, then outside text; :mod:`doxa.reads.provenance`), so a planted
        line cannot outrank the owner's words.

        With an ``embedder`` (:attr:`recall_mode` ``"hybrid"``) the words' list and the list
        of facts nearest the query's vector are fused by reciprocal rank before those rules
        apply, so "nut allergy" finds "Alice is allergic to peanuts"; when the endpoint cannot
        embed the query, this recall is by words alone (and a warning is logged).
        """
        if not isinstance(limit, int) or not 1 <= limit <= 500:
            raise InvalidInput(
                f"limit {limit!r} is out of range; use a whole number from 1 to 500."
            )
        as_text(text, "query text")
        wanted = authorities(authority)
        valid, believed = self._reads.times(valid_at, as_of)
        meaning = self._reads.query_meaning(text, self.embedder)
        found = fact_reads.recall(
            self.store,
            self.scope,
            None if topic is None else {check_name(topic, "topic")},
            text,
            valid_at=valid,
            as_of=believed,
            include_ended=include_ended,
            # filtered by speaker after ranking: ask for the most a recall returns, so the
            # filter does not leave fewer than ``limit`` where more match
            limit=limit if wanted is None else RECALL_LIMIT,
            meaning=meaning,
        )
        # the unchecked writes below stay last, whoever wrote them
        found = owner_first(said_by(found, wanted)[:limit])
        if include_unchecked:
            language = self.scope.language
            asked = set(stems(text, language))
            found += [
                f
                for f in self._reads.unchecked()
                if (topic is None or f.topic == topic)
                and asked & set(stems(f.text, language))
                and (wanted is None or f.authority in wanted)
            ]
        return found[:limit]

    def get(self, fact: str | Fact) -> Fact:
        """One fact by id, with its status now. Raises :class:`~doxa.NotFound`."""
        found = self.history(fact)
        return found.fact

    def history(self, fact: str | Fact, *, as_of: datetime | date | str | None = None) -> History:
        """The fact and every event that refined, corroborated, superseded or retracted it."""
        _, believed = self._reads.times(None, as_of)
        iri = self.scope.fact(fact_id_of(fact))
        result = history_read(self.store, self.scope, self._reads.claims(), iri, as_of=believed)
        if result is None:
            later = None
            if as_of is not None:
                now = self.clock.now()
                later = history_read(self.store, self.scope, self._reads.claims(), iri, as_of=now)
            if later is not None:
                # it exists, only not yet then: say so rather than "there is no fact"
                raise NotFound(
                    f"Fact {fact_id_of(fact)!r} was not yet recorded at {believed.isoformat()}: "
                    f"it was recorded at {later.fact.recorded_at.isoformat()}; ask as of that "
                    "time or later."
                )
            raise missing_fact(self.scope, fact_id_of(fact))
        return result

    def why(self, fact: str | Fact) -> Why:
        """The fact's evidence, sources and the receipt that admitted it."""
        result = why_read(
            self.store,
            self.scope,
            self._reads.claims(),
            self.scope.fact(fact_id_of(fact)),
            as_of=self.clock.now(),
        )
        if result is None:
            raise missing_fact(self.scope, fact_id_of(fact))
        return result

    def held(self) -> list[HeldWrite]:
        """Writes waiting for the owner (or for the judge), oldest first."""
        return held_reads(self.store, self.scope)

    def receipts(self) -> list[Receipt]:
        """Every receipt of this scope, in chain order."""
        return receipt_reads(self.store, self.scope)

    def verify(self) -> int:
        """Verify this scope's receipt chain; returns the number of receipts checked.

        Raises :class:`~doxa.ChainBroken` when a receipt or an admitted claim was altered.
        """
        counts = verify_chain(scope_quads(self.store, self.scope, audit=True))
        return counts.get(str(self.scope.log), 0)

    def flagged(self, *, as_of: datetime | date | str | None = None) -> list[Fact]:
        """Live facts with a basis-ended flag as believed at ``as_of`` (default now), most
        recently flagged first: something they rest on was superseded, retracted or erased,
        or (an empty search result) a later write answered it. Each fact's
        ``basis_ended`` says what ended; ``memory.owner.confirm``, a revising
        :meth:`remember` or ``memory.owner.retract`` answers the flag, each with a receipt.
        """
        _, believed = self._reads.times(None, as_of)
        return fact_reads.flagged(
            self.store, self.scope, self._reads.topic_graphs(), as_of=believed
        )

    def stats(self) -> Stats:
        """Decisions per kind of memory: outcomes, needless holds and the judge's ledger."""
        return stats_read(self.store, self.scope, self.gate.policy)

    def vocabulary(self, search: str | None = None, *, limit: int = 50) -> Vocabulary:
        """The predicates and entities this scope speaks of, most used first.

        Each predicate comes with its label, comment and how many values it holds for one
        subject (``one``, ``many`` or ``unknown``: the domain ontology's axioms, else what the
        owner taught when asked "replace or add?"); each entity with its label and IRI. Use
        counts are the live statements naming them. ``search`` keeps those whose name
        matches (as names resolve: case, spacing and punctuation folded) or whose IRI holds
        it; ``limit`` (1-1000) caps each list. Raises :class:`~doxa.InvalidInput` for a bad
        limit.

        >>> mem = Memory.open(None, scope="alice")
        >>> _ = mem.remember("Bob's phone is 555", topic="contacts", subject="Bob",
        ...                  predicate="phone number", object="555")
        >>> [(p.label, p.values, p.uses) for p in mem.vocabulary("phone").predicates]
        [('phone number', 'unknown', 1)]
        """
        return vocabulary(self.store, self.scope, search=search, limit=limit)

    def topics(self) -> list[str]:
        """The names of this scope's topics that hold claims, sorted: what a caller lists
        before it knows any fact (the LangGraph store's namespaces). Reads the scope's list
        of graphs, never its facts."""
        prefix = self.scope.topic_prefix
        found = {
            str(g)[len(prefix) :]
            for g in self.gate.record.claim_graphs()
            if g != self.scope.rules and str(g).startswith(prefix)
        }
        return sorted(found)

    def request_retraction(
        self, fact: str | Fact, *, reason: str, authority: object = "agent"
    ) -> Receipt | None:
        """Ask the owner to retract a live fact: a ``was_wrong`` request held for the owner,
        exactly what ``memory.files.sync`` holds for a deleted line; nothing ends until the
        owner approves it (``memory.owner.approve`` retracts the fact, ``memory.owner.reject``
        keeps it).

        Returns the ``held`` receipt, or None when a request for this fact already waits
        (nothing new is held: asking twice is asking once). Raises :class:`~doxa.NotFound`
        for a fact that is not live and :class:`~doxa.InvalidInput` for an empty reason.
        """
        fact_id = fact_id_of(fact)
        required_reason(reason, "A retraction request needs a reason; say why it is wrong.")
        who = Authority.parse(authority)
        with self.store.lock:
            if self.gate.record.retraction_waiting(self.scope.fact(fact_id), RETRACTION_KIND):
                return None
            target = self.get(fact_id)
            if target.status is not FactStatus.LIVE:
                raise NotFound(
                    f"Fact {fact_id!r} is {target.status.value}, not live; only a live fact can "
                    "be retracted."
                )
            proposal = build_proposal(
                self.scope,
                target.text,
                topic=target.topic,
                kind=RETRACTION_KIND,
                authority=who,
                revises=fact_id,
            )
            return self.gate.hold_for_owner(
                proposal, reason=reason, relation=Relation.WAS_WRONG, targets=(fact_id,)
            )

    def require_scope(self) -> None:
        """Raise :class:`~doxa.UnknownScope` (with the closest known name) unless this scope
        exists: how the CLI refuses a mistyped ``--scope`` instead of starting an empty memory.
        """
        if not scope_known(self.store, self.scope):
            raise unknown_scope(self.scope.name, known_scopes(self.store))

    @property
    def recall_mode(self) -> Literal_["words", "hybrid"]:
        """``"hybrid"`` when recall fuses words with meaning, else ``"words"``.

        Hybrid needs an ``embedder`` (``DOXA_EMBED_*`` for the CLI and servers), numpy (the
        ``meaning`` extra) and a store this process is the only writer of (the vectors are
        searched in memory, kept current by the store's change notices).

        >>> Memory.open(None, scope="alice").recall_mode
        'words'
        """
        return recall_mode(self.store, self.embedder)

    @cached_property
    def owner(self) -> Owner:
        """The owner's decisions: approve, reject, retract, erase, grant … (each a receipt)."""
        return Owner(self)

    @cached_property
    def rdf(self) -> Rdf:
        """The scope for RDF tools: read-only SPARQL and an rdflib ``Dataset``."""
        return Rdf(self._reads)

    @cached_property
    def admin(self) -> Admin:
        """The operator's commands: backups, restores, the purge, exports, imports, audits."""
        return Admin(self)

    @cached_property
    def schema(self) -> Schema:
        """The domain ontologies and the owner's SHACL shapes the store keeps."""
        return Schema(self)

    @cached_property
    def files(self) -> Files:
        """The scope as Markdown files: render, and sync edits back through the gate."""
        return Files(self)
