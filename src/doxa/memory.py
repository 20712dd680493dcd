"""``Memory``: the one object agents and their developers hold.

It binds a store, a scope, a judge and a clock; every write goes through its gate and every
read stays inside its scope.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace as dataclass_replace
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any
from typing import Literal as Literal_

import httpx
from rdflib import Dataset as RdflibDataset
from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from doxa.audit.backups import (
    backups_folder,
    begin_restore,
    discard_stale_copy,
    erasure_present,
    swap_staged,
)
from doxa.audit.chain import verify_chain
from doxa.audit.exports import (
    Progress,
    export_scope,
    format_of,
    import_scope,
    read_export,
    scope_quads,
)
from doxa.audit.purge import PurgeStatus, purge_of
from doxa.audit.render_repos import record_render
from doxa.audit.shape_sources import (
    ShapesSource,
    add_shapes,
    domain_shapes,
    list_shapes,
    remove_shapes,
)
from doxa.audit.validation import AuditReport, clear_inferred, validate_scope
from doxa.audit.validation import infer as infer_triples
from doxa.clock import Clock, FixedClock, SystemClock, parse_instant
from doxa.errors import (
    ChainBroken,
    EmbeddingUnavailable,
    InvalidInput,
    Listing,
    NotFound,
    StoreBehindJournal,
    StoreError,
    UnsafeFile,
)
from doxa.evaluation import (
    DEFAULT_AT,
    Case,
    CaseResult,
    EvalReport,
    load_cases_with_digest,
    run_cases,
)
from doxa.gate.bulk import ImportReport, import_claims, read_claims
from doxa.gate.embedding import Reindexed, embed_facts
from doxa.gate.embedding import reindex as reindex_vectors
from doxa.gate.erasure import erasure_record, salt, subject_hash
from doxa.gate.gate import Gate
from doxa.gate.names import Role, is_name
from doxa.gate.proposal import build_proposal
from doxa.gate.restemming import fill_words
from doxa.gate.shapes import ShapeCheck, default_shape_check
from doxa.gate.sync import SyncItem, SyncReport, as_edited
from doxa.gate.sync import apply as apply_sync
from doxa.gate.sync import plan as plan_sync
from doxa.judges.base import Judge
from doxa.judges.rules import RuleJudge
from doxa.model import (
    Alarm,
    Authority,
    ClosingPolicy,
    Fact,
    FactStatus,
    HeldWrite,
    History,
    Outcome,
    Receipt,
    Relation,
    Standing,
    Verdict,
    Why,
)
from doxa.ontology.closure import close_ontology, next_digest, ontology_digest
from doxa.ontology.sources import (
    OntologySource,
    add_source,
    list_sources,
    remove_source,
    source_name,
    source_triples,
)
from doxa.reads import facts as fact_reads
from doxa.reads.claims import load_facts
from doxa.reads.embeddings import Embedder, OpenAIEmbedder, embed_checked
from doxa.reads.folder import Folder
from doxa.reads.held import held as held_reads
from doxa.reads.history import history as history_read
from doxa.reads.history import why as why_read
from doxa.reads.ledger import alarms, judge_key, standings
from doxa.reads.projection import (
    INDEX,
    MANIFEST,
    RETRACTION_KIND,
    FileLine,
    Manifest,
    Rendered,
    fact_line,
    one_line,
    parse_lines,
    read_files,
    read_manifest,
    topic_of,
    write_conflicts,
    write_rendered,
)
from doxa.reads.projection import render as render_projection
from doxa.reads.receipts import receipts as receipt_reads
from doxa.reads.sparql import CheckedQuery, narrow, run_sparql
from doxa.reads.stats import Stats
from doxa.reads.stats import stats as stats_read
from doxa.reads.vectors import Meaning, numpy_or_none
from doxa.reads.view import scope_graphs, scope_view
from doxa.reads.vocabulary import Vocabulary, vocabulary
from doxa.resources import data_file, query
from doxa.scope import Scope, check_name, known_scopes, mark_scope, scope_known, unknown_scope
from doxa.store import Dataset, EmbeddedStore, Quad, QueryResult, Store
from doxa.store.capabilities import Cloneable, Compactable, Journaled, OnDisk, cache_of
from doxa.store.convert import forget_terms, ntriples
from doxa.store.intents import RestoreIntent, read_restore, restore_path
from doxa.store.intents import remove as remove_intent
from doxa.store.journal import JournalEntry
from doxa.store.location import Location, is_server_url, open_store, parse_location
from doxa.terms import as_iri, as_text
from doxa.text import DEFAULT_LANGUAGE, stems, visible
from doxa.vocabulary import DOXA, ONTOLOGY_GRAPH

__all__ = ["SERVER_FILES_NOT_PURGED", "Memory"]

_log = logging.getLogger(__name__)

#: what an erasure's receipt adds on a SPARQL server: the server's files are its own business
SERVER_FILES_NOT_PURGED = (
    "the SPARQL server's own files (log, journal, checkpoints, backups) still hold the "
    "content until the server's tools purge them; see docs/remote.md, Erasure on a server"
)


def _finish_restore(path: Path, intent: RestoreIntent) -> dict[str, int]:
    """Finish a restore from its recorded intent: swap the staged copy in, apply again each
    erasure recorded since the backup (once: one already re-applied has its tombstones), let
    the purge take them out of the files, and only then drop the intent."""
    if intent.phase != "erase":
        intent = swap_staged(path, intent)
    since = [JournalEntry.from_json(line) for line in intent.erasures]
    counts: dict[str, int] = {}
    if since:
        store = EmbeddedStore(path)  # one store for every re-applied erasure: one purge for all
        try:
            memories = {
                scope: Memory(store, scope=scope, owns_store=False)
                for scope in {e.scope for e in since}
            }
            reapplied: dict[str, list[Receipt]] = {}
            for entry in since:
                assert entry.erasure is not None
                memory = memories[entry.scope]
                counts[entry.scope] = counts.get(entry.scope, 0) + 1
                if erasure_present(store, memory.scope, entry.erasure):
                    continue  # re-applied before a crash; the open's rescan owes its purge
                receipt = memory.gate.reapply_erasure(entry.erasure)
                reapplied.setdefault(entry.scope, []).append(receipt)
            for scope, receipts in reapplied.items():
                memories[scope].purge_later(receipts, start=False)
            memories[since[0].scope].purge_later([])  # one purge for all of them: start it
        finally:
            store.close()  # the purge finishes first: the files forget what was erased again
    remove_intent(restore_path(path))
    return counts


def finish_pending_restore(directory: Path) -> None:
    """Finish a restore a crash cut off in the store at ``directory`` (none: do nothing)."""
    pending = read_restore(directory)
    if pending is not None:
        _log.warning("Finishing the restore of %s that was interrupted.", pending.backup)
        _finish_restore(directory, pending)


class Memory:
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
        self._doxa_shapes = shapes or default_shape_check()
        self.gate = Gate(
            store,
            self.scope,
            shapes=self._doxa_shapes.with_domain(domain_shapes(store)),
            judge=self.judge,
            clock=self.clock,
            lock=store.lock,
            policy=policy,
        )
        self._ensure_ontology()
        self._check_journal()
        self._purge = purge_of(store, self.clock)  # None unless the store is Purgeable
        if self._purge is not None:
            self._purge.rescan()  # erasures a stopped process still owed, this scope's too
            self._purge.start()

    @classmethod
    def open(
        cls,
        path: str | Path | None,
        *,
        scope: str,
        judge: Judge | None = None,
        clock: Clock | None = None,
        policy: ClosingPolicy | None = None,
        durable: bool = True,
        language: str = DEFAULT_LANGUAGE,
        embedder: Embedder | None = None,
    ) -> Memory:
        """Open (creating if needed) an embedded store at ``path``; ``None`` keeps it in memory.

        Every decision is journaled beside the store and, with ``durable`` (the default),
        fsynced before the call returns, so a power loss cannot take an acknowledged decision
        unnoticed; ``durable=False`` skips the fsync (bulk loads, benchmarks, throwaway
        stores). Raises :class:`~doxa.StoreLocked` when another process has the directory
        open.
        """
        directory = Path(path) if path is not None else None  # a path, never a URL
        return cls.open_at(
            directory,
            scope=scope,
            judge=judge,
            clock=clock,
            policy=policy,
            durable=durable,
            language=language,
            embedder=embedder,
        )

    @classmethod
    def open_at(
        cls,
        location: str | Path | Location | None,
        *,
        scope: str,
        update_url: str | None = None,
        environ: Mapping[str, str] = os.environ,
        judge: Judge | None = None,
        clock: Clock | None = None,
        policy: ClosingPolicy | None = None,
        durable: bool = True,
        language: str = DEFAULT_LANGUAGE,
        embedder: Embedder | None = None,
    ) -> Memory:
        """Open the memory at any store location: a directory, ``":memory:"`` (or None), or a
        SPARQL server's URL (:func:`doxa.store.open_store`: credentials from
        ``$DOXA_STORE_USER`` / ``$DOXA_STORE_PASSWORD`` in ``environ``). The memory owns the
        store and closes it. Raises :class:`~doxa.InvalidInput` for a location that names no
        store.
        """
        where = (
            location
            if isinstance(location, Location)
            else parse_location(location, update_url=update_url)
        )
        if where.directory is not None:
            finish_pending_restore(where.directory)  # a restore a kill cut off: finish it
        store = open_store(where, environ=environ, durable=durable)
        if where.directory is not None:
            discard_stale_copy(where.directory)  # the store's lock is held now
        return cls._owning(
            store,
            scope=scope,
            judge=judge,
            clock=clock,
            policy=policy,
            language=language,
            embedder=embedder,
        )

    @classmethod
    def _owning(
        cls,
        store: Store,
        *,
        scope: str,
        judge: Judge | None,
        clock: Clock | None,
        policy: ClosingPolicy | None,
        language: str,
        embedder: Embedder | None = None,
    ) -> Memory:
        """A memory that owns the ``store`` just opened for it, or the store closed again: a
        bad scope or a refused journal check must not leave the directory held."""
        try:
            return cls(
                store,
                scope=scope,
                judge=judge,
                clock=clock,
                policy=policy,
                owns_store=True,
                language=language,
                embedder=embedder,
            )
        except BaseException:
            store.close()
            raise

    @classmethod
    def connect(
        cls,
        query_url: str,
        update_url: str | None = None,
        *,
        scope: str,
        auth: tuple[str, str] | httpx.Auth | None = None,
        judge: Judge | None = None,
        clock: Clock | None = None,
        policy: ClosingPolicy | None = None,
        language: str = DEFAULT_LANGUAGE,
        embedder: Embedder | None = None,
    ) -> Memory:
        """Use a SPARQL 1.1 server (Oxigraph server, Virtuoso, Fuseki, GraphDB, Neptune).

        ``update_url`` defaults to ``query_url`` (one endpoint for both, as on Virtuoso).
        Several processes may write the same scope through one server: each decision is one
        Update request that applies only if no other process published since the gate read,
        else the judge runs again (docs/remote.md). Raises :class:`~doxa.StoreError` when the
        server cannot be reached.
        """
        if not is_server_url(query_url):
            raise InvalidInput(
                f"{query_url!r} is not an HTTP(S) URL; give the server's SPARQL endpoint, "
                "for example http://localhost:7878/query."
            )
        where = parse_location(query_url, update_url=update_url)
        store = open_store(where, auth=auth, environ={})  # credentials only from auth=
        return cls._owning(
            store,
            scope=scope,
            judge=judge,
            clock=clock,
            policy=policy,
            language=language,
            embedder=embedder,
        )

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

    def _ensure_ontology(self) -> None:
        if not self.store.select(
            "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1",
            dataset=_only(ONTOLOGY_GRAPH),
        ):
            data = data_file("ontology", "doxa.ttl").read_bytes()
            self.store.load(data, format="turtle", graph=ONTOLOGY_GRAPH)
            close_ontology(self.store, next_digest(None, data))
        elif ontology_digest(self.store) is None:  # a closing was interrupted: close again
            lines = sorted(
                f"{ntriples(s)} {ntriples(p)} {ntriples(o)}"
                for s, p, o, _ in self.store.quads(ONTOLOGY_GRAPH)
            )
            close_ontology(self.store, next_digest(None, "\n".join(lines).encode()))

    def _check_journal(self) -> None:
        """Compare the store's receipt chain with doxa's fsynced journal of decisions."""
        if not isinstance(self.store, Journaled):
            return
        journal = self.store.journal
        head = self.gate.record.head()
        entry = journal.heads.get(self.scope.name)
        known = entry.sequence if entry is not None else 0
        if known > head.sequence:
            lost = known - head.sequence
            raise StoreBehindJournal(
                f"The store at {self._where} is missing {lost} decision(s) "
                f"of scope {self.scope.name!r} that were acknowledged (the journal has receipts "
                f"up to #{known}, the store ends at #{head.sequence}): its write-ahead log lost "
                "them in a crash. Restore the latest backup with `doxa restore`, or accept the "
                "loss with `doxa recover --accept-loss`."
            )
        if entry is not None and known == head.sequence and entry.hash != head.receipt_hash:
            raise ChainBroken(
                f"The store's latest receipt #{known} of scope {self.scope.name!r} is not the "
                "one the journal acknowledged: the store was replaced or altered. Restore a "
                "backup with `doxa restore`."
            )
        if known < head.sequence:  # stored, then a crash before the journal line: repair
            for receipt in self.receipts()[known:]:
                record = None
                if receipt.outcome is Outcome.ERASED:  # the purge's intent, from the tombstones
                    record = erasure_record(
                        self.store,
                        self.scope,
                        self.scope.receipt(receipt.id),
                        [self.scope.fact(t) for t in receipt.targets],
                    )
                journal.append(
                    JournalEntry(
                        self.scope.name,
                        receipt.sequence,
                        receipt.id,
                        receipt.receipt_hash,
                        record,
                    )
                )

    # -- writes ----------------------------------------------------------------------

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

    def _embed(self, receipts: Iterable[Receipt]) -> None:
        """The vectors of the facts ``receipts`` admitted (in bulk, or by the owner), asked
        after the gate published (outside its lock), in one call; a fact the endpoint gives
        none is recorded as missing one."""
        if self.embedder is None:
            return
        claims = [self.scope.fact(r.fact) for r in receipts if r.admitted and r.fact]
        if not claims:
            return
        graphs = [*self._topic_graphs(), self.scope.rules]
        texts = self.store.describe(claims, graphs, (DOXA.text,))
        facts = [(c, str(pairs[0][1])) for c in claims if (pairs := texts.get(str(c)))]
        embed_facts(self.store, self.scope, self.embedder, facts)

    def _acknowledged(self) -> AbstractContextManager[None]:
        """Writers in several threads share journal fsyncs: each write's line is fsynced
        after the store's lock is released, before the write returns (group commit)."""
        if isinstance(self.store, Journaled):
            return self.store.journal.grouped()
        return nullcontext()

    @property
    def _where(self) -> str:
        """The store's directory, for messages (``?`` for a store that has none)."""
        return str(self.store.path) if isinstance(self.store, OnDisk) else "?"

    def import_claims(
        self,
        source: str | Path | IO[str] | list[dict[str, Any]],
        *,
        format: str = "jsonl",
        batch_size: int = 2000,
        progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Write many claims through the gate: the same decisions as ``remember`` one by one.

        ``source`` is a JSON Lines file (one object of :meth:`remember`'s arguments per line)
        or a list of such dicts. Decisions are published in atomic batches of up to
        ``batch_size``; ``progress`` is called with 1 after each claim. See
        :mod:`doxa.gate.bulk`.
        """
        rows = source if isinstance(source, list) else read_claims(source, format=format)
        report = import_claims(self.gate, rows, batch_size=batch_size, progress=progress)
        self._embed(report.receipts)
        return report

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

    def rejudge(self) -> list[Receipt]:
        """Judge again every write held because the judge could not answer.

        Returns the new receipts; writes the judge still cannot answer for stay held. The
        facts it admits get their vectors afterwards, in one call (with an ``embedder``).
        """
        receipts = self.gate.rejudge()
        self._embed(receipts)
        return receipts

    def unchecked(self) -> list[str]:
        """Ids of the writes held because the judge could not answer, oldest first: what
        :meth:`rejudge` would judge again (the HTTP server asks before it does)."""
        return self.gate.record.unchecked()

    def approve(
        self, item: str | HeldWrite, *, as_relation: str | Relation | None = None
    ) -> Receipt:
        """Apply a held write's outcome (the owner's decision); leaves a receipt."""
        relation = Relation.parse(as_relation) if as_relation is not None else None
        receipt = self.gate.approve(_held_id(item), as_relation=relation)
        self._embed([receipt])
        return receipt

    def reject(self, item: str | HeldWrite, *, reason: str = "") -> Receipt:
        """Discard a held write (the owner's decision); leaves a receipt."""
        return self.gate.reject(_held_id(item), reason=as_text(reason, "reason"))

    def retract(self, fact: str | Fact, *, reason: str) -> Receipt:
        """Say a fact was never true; belief in it ends now, nothing is deleted."""
        _required_reason(reason, "A retraction needs a reason; say why the fact was never true.")
        return self.gate.retract(_fact_id(fact), reason=reason)

    def erase(self, target: str | Fact, *, reason: str, wait: bool = False) -> Receipt:
        """Erase a fact (an id or a :class:`Fact`), or everything about a subject (an IRI).

        When this returns, the content has left every graph, read and export, a tombstone
        keeps the id, time, who, why and a salted hash (so the same content written again
        raises :class:`~doxa.ErasedContent`), and the erasure is journaled. Its bytes leave
        the store's files and backups in the background, while reads and writes go on
        (:meth:`purge` waits for that; :meth:`close` does too). With ``wait``, this call
        waits for it. Erasing a target again finishes an interrupted purge and returns the
        first erasure's receipt. Erasure is final.
        """
        return self.erase_many([target], reason=reason, wait=wait)[0]

    def erase_many(
        self, targets: Sequence[str | Fact], *, reason: str, wait: bool = False
    ) -> list[Receipt]:
        """Erase several facts and subjects, one receipt each; one purge makes them all real.

        Targets are erased in order; if one is not found, :class:`~doxa.NotFound` names it
        after the erasures before it have been made (a fact an earlier target already took is
        skipped). A target erased before (a retry) gives back its first receipt.
        """
        _required_reason(reason, "An erasure needs a reason; say why the content must go.")
        if isinstance(targets, str | Fact):
            raise InvalidInput("erase_many takes a list of targets; erase takes one.")
        if not self.store_purges_files:  # the receipt says what doxa could not do
            reason = f"{reason} ({SERVER_FILES_NOT_PURGED})"
        receipts: list[Receipt] = []
        claims: list[URIRef] = []
        erased: list[Receipt] = []
        try:
            for target in targets:
                fact_id: str | None = None
                subject: URIRef | None = None
                if isinstance(target, Fact) or (isinstance(target, str) and _ID.match(target)):
                    fact_id = _fact_id(target)
                    key = self.scope.fact(fact_id)
                    if key in claims:
                        continue
                else:
                    key = subject = as_iri(target, "subject")
                try:
                    receipt = self.gate.erase(
                        fact_id=fact_id, subject=subject, reason=reason, actor=self._owner
                    )
                except NotFound:  # erased before: a retry, or another thread just now
                    earlier = self._erased_before(key)
                    if earlier is None:
                        raise
                    receipt = earlier
                receipts.append(receipt)
                if receipt not in erased and receipt.outcome is Outcome.ERASED:
                    erased.append(receipt)
                claims += [self.scope.fact(t) for t in receipt.targets]
        finally:
            if receipts:
                # no cache keeps the erased words: the scope's word index is read afresh (the
                # erasure's change alone would only reach it at the next recall)
                cache = cache_of(self.store)
                if cache is not None:
                    cache.reset(self.scope.search)
                with self.store.lock:  # an audit's inferences may restate what was erased
                    clear_inferred(self.store, self.scope)
                self.purge_later(erased, wait=wait)
                forget_terms()  # nor in this process's caches of converted terms
        return receipts

    @property
    def _owner(self) -> URIRef:
        return self.scope.standpoint("owner")

    def _erased_before(self, key: URIRef) -> Receipt | None:
        """The erasure receipt whose tombstone ends ``key`` (a node) or keeps its subject
        hash; None when it was never erased."""
        keys: list[object] = [key]
        salt_value = salt(self.store, self.scope)
        if salt_value is not None:
            keys.append(Literal(subject_hash(salt_value, key)))
        for value in keys:
            rows = self.store.select(
                query("erasure_receipt"),
                dataset=_only(self.scope.log),
                bindings={"key": value},  # type: ignore[dict-item]
            )
            if rows:
                local = self.scope.local_id(URIRef(str(rows[0]["receipt"])))
                for receipt in self.receipts():
                    if receipt.id == local:
                        return receipt
        return None

    def purge_later(
        self, receipts: Sequence[Receipt], *, wait: bool = False, start: bool = True
    ) -> None:
        """Hand erasure receipts to the store's background purge (in memory: purge now)."""
        purge = self._purge
        if purge is None:
            if isinstance(self.store, Compactable):
                self.store.compact()  # in memory: no files, no backups, nothing to wait for
            return
        for receipt in receipts:
            purge.owe(self.scope.name, receipt.id, [self.scope.fact(t) for t in receipt.targets])
        if start:
            purge.start()  # a retry finishes what an interrupted purge left
        if wait:
            purge.wait()

    def purge(self, *, timeout: float | None = None) -> PurgeStatus:
        """Wait until every erasure of the store has left its files and backups.

        Returns the purge's status; raises :class:`~doxa.StoreError` when it failed (it is
        retried in the background). A store on a SPARQL server has no purge doxa can make:
        the server's own files keep what it was sent until its tools purge them
        (docs/remote.md).
        """
        if self._purge is None:
            return self.purge_status()
        return self._purge.wait(timeout)

    @property
    def store_purges_files(self) -> bool:
        """Whether erasure reaches the store's files: true on disk and in memory; false on a
        SPARQL server, whose own files (log, journal, checkpoints) only its tools can purge."""
        return isinstance(self.store, Compactable)

    def purge_status(self) -> PurgeStatus:
        """Where the background purge of erased content stands."""
        if self._purge is not None:
            return self._purge.status()
        return PurgeStatus(owed=0, running=False, phase=None, purged=0, error=None)

    def backup(self) -> Path:
        """Back the store up into ``<store>.backups/<time>``; returns the backup's folder."""
        folder = backups_folder(self.store)
        target = folder / self.clock.now().strftime("%Y%m%dT%H%M%S%fZ")
        folder.mkdir(parents=True, exist_ok=True)
        if not isinstance(self.store, OnDisk):  # backups_folder refused it already
            raise StoreError("This store cannot be backed up by doxa; use the server's own tools.")
        self.store.backup(target)
        return target

    @staticmethod
    def restore_backup(path: str | Path, backup: str | Path) -> dict[str, int]:
        """Put ``backup`` in place of the closed store at ``path``; returns erasures per scope.

        The replaced store is kept as a backup (``<time>-replaced``), so nothing is lost.
        Every erasure recorded since the backup is applied again, tombstones included, and
        purged from the files before this returns: erased content stays erased. The restore
        is recorded (``<store>.restore``) before anything is touched, so a restore a crash
        cut off is finished by the next open, or by running this again; a pending restore of
        another backup is finished first.
        """
        path, backup = Path(path), Path(backup)
        pending = read_restore(path)
        if pending is not None:
            counts = _finish_restore(path, pending)
            if Path(pending.backup) == backup.resolve():
                return counts  # the interrupted restore was this one: it is done now
        return _finish_restore(path, begin_restore(path, backup))

    def backups(self) -> list[Path]:
        """The store's backups, oldest first."""
        try:
            folder = backups_folder(self.store)
        except StoreError:
            return []
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if p.is_dir())

    def quarantined(self) -> list[Fact]:
        """Writes judged to be outside text acting as an instruction, oldest first.

        Only the owner's review sees them: no ordinary read, export or SPARQL query does.
        """
        rows = self.store.select(
            query("quarantined"), dataset=Dataset(default=(self.scope.quarantine,))
        )
        iris = [URIRef(str(row["claim"])) for row in rows]
        found = load_facts(self.store, self.scope, Dataset(default=(self.scope.quarantine,)), iris)
        return [dataclass_replace(f, status=FactStatus.QUARANTINED) for f in found]

    def release(self, fact: str | Fact, *, reason: str) -> Receipt:
        """The owner says a quarantined write is no instruction: it is judged as a quotation.

        It keeps its authority and source; the receipt records the owner's release.
        """
        _required_reason(reason, "Releasing needs a reason; say why the text is harmless.")
        receipt = self.gate.release(_fact_id(fact), reason=reason)
        self._embed([receipt])
        return receipt

    def discard(self, fact: str | Fact, *, reason: str = "") -> Receipt:
        """The owner throws a quarantined write away; its receipt stays."""
        as_text(reason, "reason")
        return self.gate.discard(_fact_id(fact), reason=reason)

    def rescreen(self, *, reason: str = "") -> list[Receipt]:
        """Screen every live outside fact (external, tool) again with the current
        instruction screen; those it now calls instructions move into quarantine.

        Each move leaves an owner's receipt (outcome ``quarantined``) naming the attack
        family and the span; nothing is deleted, and :meth:`release` brings a fact back
        (judged again as a quotation). The owner's and the agent's own words are never
        screened. Idempotent: a second run returns ``[]``.
        """
        as_text(reason, "reason")
        return self.gate.rescreen(reason=reason)

    def grant(self, kind: str, *, reason: str = "granted by the owner") -> Receipt:
        """Let the judge close facts of ``kind`` without asking (recorded as a receipt)."""
        as_text(reason, "reason")
        return self.gate.grant(check_name(kind, "kind"), granted=True, reason=reason)

    def revoke(self, kind: str, *, reason: str = "revoked by the owner") -> Receipt:
        """Take back a grant: closings of ``kind`` wait for the owner again."""
        as_text(reason, "reason")
        return self.gate.grant(check_name(kind, "kind"), granted=False, reason=reason)

    def closing_earned(self, kind: str) -> bool:
        """Whether the judge may close facts of ``kind`` on its own right now."""
        return self.gate.closing_earned(check_name(kind, "kind"))

    def closing_refusal(self, kind: str) -> str | None:
        """Why the judge may not close facts of ``kind`` on its own, or None if it may."""
        return self.gate.closing_refusal(check_name(kind, "kind"))

    def evaluate(self, cases: str | Path | Sequence[Case], **options: Any) -> EvalReport:
        """Score the judge on labelled cases without recording anything.

        Each case runs in a scratch in-memory store that starts from this memory's ontology
        (or from ``ontology=[...]`` Turtle documents). Other ``options`` go to
        the scorer: ``ontology_format`` and ``progress`` (called with each case's result).
        """
        loaded, _ = load_cases_with_digest(cases)
        return self._evaluate(loaded, options)

    def _evaluate(self, cases: Sequence[Case], options: dict[str, Any]) -> EvalReport:
        ontology: Sequence[bytes] | None = options.pop("ontology", None)
        ontology_format: str = options.pop("ontology_format", "turtle")
        progress: Callable[[CaseResult], None] | None = options.pop("progress", None)
        if options:
            raise TypeError(f"evaluate() got unexpected options {sorted(options)}")
        if ontology is None:
            ontology, ontology_format = [self._ontology_ntriples()], "nt"
        judge, policy = self.judge, self.gate.policy
        # every case starts from a copy of one prepared store: the ontology is loaded and
        # closed once, not once per case
        with Memory.open(None, scope="eval", judge=judge, policy=policy) as template:
            for data in ontology:
                template.add_ontology(data, format=ontology_format)
            prepared = template.store
            assert isinstance(prepared, Cloneable)  # Memory.open(None): an embedded store

            def open_case(case: Case) -> Memory:
                clock = FixedClock(case.at or DEFAULT_AT)
                return Memory(
                    prepared.clone(),
                    scope="eval",
                    judge=judge,
                    clock=clock,
                    policy=policy,
                    owns_store=True,
                )

            return run_cases(cases, open_case, progress=progress)

    def _ontology_ntriples(self) -> bytes:
        return "".join(
            f"{ntriples(s)} {ntriples(p)} {ntriples(o)} .\n"
            for s, p, o, _ in self.store.quads(ONTOLOGY_GRAPH)
        ).encode("utf-8")

    def calibrate(self, cases: str | Path | Sequence[Case], **options: Any) -> EvalReport:
        """Score the judge on an owner-labelled set and record it in the ledger.

        Each case runs in a scratch memory, never in this one (see :meth:`evaluate`). The
        scores count towards earned closing, one receipt per kind; the same set is counted
        once per judge.
        """
        loaded, digest = load_cases_with_digest(cases)
        report = self._evaluate(loaded, options)
        key = judge_key(self.judge.name, self.judge.version)
        self.gate.calibrate(
            key,
            report.scores(),
            digest=digest,
            reason=f"calibrated on {len(loaded)} labelled cases",
        )
        return report

    def ledger(self) -> list[Standing]:
        """The judge's record with the owner per kind (see :class:`~doxa.Standing`)."""
        return standings(self.store, self.scope, self.gate.policy)

    def alarms(self, *, include_cleared: bool = False) -> list[Alarm]:
        """Alarms raised in this scope, oldest first; open ones only unless asked."""
        found = alarms(self.store, self.scope)
        return found if include_cleared else [a for a in found if a.open]

    def clear_alarm(self, alarm: str | Alarm, *, reason: str) -> Receipt:
        """The owner clears an alarm so automatic closing may resume; leaves a receipt."""
        _required_reason(reason, "Clearing an alarm needs a reason; say what you checked.")
        alarm_id = _checked_id(alarm.id if isinstance(alarm, Alarm) else alarm, "alarm")
        return self.gate.clear_alarm(alarm_id, reason=reason)

    def stats(self) -> Stats:
        """Decisions per kind of memory: outcomes, needless holds and the judge's ledger."""
        return stats_read(self.store, self.scope, self.gate.policy)

    def add_ontology(
        self, source: str | Path | bytes, *, format: str | None = None, name: str | None = None
    ) -> int:
        """Load a domain ontology (e.g. functional properties) that the judge then uses.

        Returns the number of triples the source holds. It is recorded as a source named
        ``name`` (default: the file's name; bytes need a name or get one from their digest),
        so :meth:`ontology_sources` lists it and :meth:`remove_ontology` can take it out;
        adding a name again replaces that source. The ontology is closed with owlrl at once,
        so equivalent and inverse properties, sub-properties and part-of hierarchies take
        effect for the next write; facts written before keep the index keys they were
        written with.
        """
        if isinstance(source, bytes):
            data, fmt = source, format or "turtle"
            label = name or "bytes-" + hashlib.sha256(data).hexdigest()[:12]
        else:
            path = Path(source)
            if not path.is_file():
                raise NotFound(f"There is no ontology file at {path}; check the path.")
            data, fmt = path.read_bytes(), format or path.suffix or "turtle"
            label = name or path.name
        label = source_name(label)
        with self.store.lock:
            previous = ontology_digest(self.store)
            added = add_source(self.store, label, data, fmt)
            seed = label.encode() + b"\n" + fmt.encode() + b"\n" + data
            close_ontology(self.store, next_digest(previous, seed))
        return added

    def ontology_sources(self) -> list[OntologySource]:
        """The ontology sources loaded into this store, by name, with their triple counts;
        triples loaded before sources were recorded are counted under ``(unrecorded)``."""
        return list_sources(self.store)

    def ontology_source(self, name: str) -> list[tuple[Node, Node, Node]]:
        """The triples source ``name`` added (blank nodes as IRIs under the source)."""
        return list(source_triples(self.store, name))

    def remove_ontology(self, name: str) -> int:
        """Remove ontology source ``name`` and close the ontology again; returns how many
        triples left the ontology (a triple another source also states stays)."""
        with self.store.lock:
            gone = remove_source(self.store, name)
            lines = sorted(
                f"{ntriples(s)} {ntriples(p)} {ntriples(o)}"
                for s, p, o, _ in self.store.quads(ONTOLOGY_GRAPH)
            )
            close_ontology(self.store, next_digest(None, "\n".join(lines).encode()))
        return gone

    # -- reads -----------------------------------------------------------------------

    def _topic_graphs(self, topic: str | None = None) -> list[URIRef]:
        if topic is not None:
            return [self.scope.topic(check_name(topic, "topic"))]
        return [g for g in self.gate.record.claim_graphs() if g != self.scope.rules]

    def _times(
        self, valid_at: datetime | date | str | None, as_of: datetime | date | str | None
    ) -> tuple[datetime, datetime]:
        now = self.clock.now()
        believed = parse_instant(as_of) if as_of is not None else now
        # a bare date asks about the whole day: belief at its end, truth at its start
        if (isinstance(as_of, str) and len(as_of.strip()) == 10) or (
            isinstance(as_of, date) and not isinstance(as_of, datetime)
        ):
            believed = believed.replace(hour=23, minute=59, second=59, microsecond=999999)
        return (parse_instant(valid_at) if valid_at is not None else now), believed

    def facts(
        self,
        *,
        valid_at: datetime | date | str | None = None,
        as_of: datetime | date | str | None = None,
        topic: str | None = None,
        subject: object = None,
        predicate: object = None,
        include_ended: bool = False,
        include_unchecked: bool = False,
    ) -> list[Fact]:
        """Facts true at ``valid_at`` as believed at ``as_of`` (both default to now).

        A bare date for ``as_of`` means "by the end of that day". With ``include_ended``
        every fact recorded by ``as_of`` comes back, each with its status. With
        ``include_unchecked``, writes waiting for a judge that could not answer come last,
        flagged with status ``unchecked``.
        """
        valid, believed = self._times(valid_at, as_of)
        subject_iri = self._filter_term(subject, Role.ENTITY, "subject")
        predicate_iri = self._filter_term(predicate, Role.PROPERTY, "predicate")
        if _UNNAMED in (subject_iri, predicate_iri):
            return []  # a name nothing in this scope is called: no fact can match it
        waiting = (
            [
                f
                for f in self._unchecked()
                if (topic is None or f.topic == topic)
                and subject_iri in (None, f.subject)
                and predicate_iri in (None, f.predicate)
            ]
            if include_unchecked
            else []
        )
        return [
            *fact_reads.facts(
                self.store,
                self.scope,
                self._topic_graphs(topic),
                valid_at=valid,
                as_of=believed,
                subject=subject_iri,
                predicate=predicate_iri,
                include_ended=include_ended,
                topic=topic,
            ),
            *waiting,
        ]

    def _filter_term(self, value: object, role: Role, what: str) -> URIRef | None:
        """A read filter's IRI: an absolute IRI as it is, a name as :meth:`remember` would
        resolve it (never minting; ``_UNNAMED`` when nothing is called that)."""
        if value is None:
            return None
        if not is_name(value):
            return as_iri(value, what)
        found = self.gate.names.find(str(value), role, what)
        return _UNNAMED if found is None else found

    def _unchecked(self) -> list[Fact]:
        iris = [self.scope.fact(held) for held in self.unchecked()]
        found = load_facts(self.store, self.scope, Dataset(default=(self.scope.pending,)), iris)
        return [dataclass_replace(f, status=FactStatus.UNCHECKED) for f in found]

    def recall(
        self,
        text: str,
        *,
        valid_at: datetime | date | str | None = None,
        as_of: datetime | date | str | None = None,
        topic: str | None = None,
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
        valid, believed = self._times(valid_at, as_of)
        meaning = self._query_meaning(text)
        found = fact_reads.recall(
            self.store,
            self.scope,
            None if topic is None else {check_name(topic, "topic")},
            text,
            valid_at=valid,
            as_of=believed,
            include_ended=include_ended,
            limit=limit,
            meaning=meaning,
        )
        if include_unchecked:
            language = self.scope.language
            asked = set(stems(text, language))
            found += [
                f
                for f in self._unchecked()
                if (topic is None or f.topic == topic) and asked & set(stems(f.text, language))
            ]
        return found[:limit]

    def get(self, fact: str | Fact) -> Fact:
        """One fact by id, with its status now. Raises :class:`~doxa.NotFound`."""
        found = self.history(fact)
        return found.fact

    def history(self, fact: str | Fact, *, as_of: datetime | date | str | None = None) -> History:
        """The fact and every event that refined, corroborated, superseded or retracted it."""
        _, believed = self._times(None, as_of)
        iri = self.scope.fact(_fact_id(fact))
        result = history_read(self.store, self.scope, self._claims(), iri, as_of=believed)
        if result is None:
            later = None
            if as_of is not None:
                now = self.clock.now()
                later = history_read(self.store, self.scope, self._claims(), iri, as_of=now)
            if later is not None:
                # it exists, only not yet then: say so rather than "there is no fact"
                raise NotFound(
                    f"Fact {_fact_id(fact)!r} was not yet recorded at {believed.isoformat()}: "
                    f"it was recorded at {later.fact.recorded_at.isoformat()}; ask as of that "
                    "time or later."
                )
            raise _missing(self.scope, _fact_id(fact))
        return result

    def why(self, fact: str | Fact) -> Why:
        """The fact's evidence, sources and the receipt that admitted it."""
        result = why_read(
            self.store,
            self.scope,
            self._claims(),
            self.scope.fact(_fact_id(fact)),
            as_of=self.clock.now(),
        )
        if result is None:
            raise _missing(self.scope, _fact_id(fact))
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
        counts = verify_chain(self._export_quads(audit=True))
        return counts.get(str(self.scope.log), 0)

    def sparql(
        self,
        query: str | CheckedQuery,
        *,
        default_graphs: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        max_rows: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> QueryResult:
        """Run read-only SPARQL over this scope's ordinary graphs only.

        FROM / FROM NAMED cannot reach other scopes, pending or quarantine; SERVICE and
        updates are refused with :class:`~doxa.ScopeViolation`. ``default_graphs`` and
        ``named_graphs`` (the SPARQL Protocol's dataset) may only narrow the scope's graphs;
        ``max_rows`` caps the rows read and ``stop`` ends reading early (both mark the
        result ``truncated``).
        """
        if not isinstance(query, CheckedQuery):  # a checked query was read as text already
            as_text(query, "query")
        ordinary = self.scope.ordinary(self._topic_graphs())
        dataset = narrow(
            ordinary,
            default_graphs,
            named_graphs,
            allowed=lambda g: g in ordinary.default or self.scope.topic_of(g) is not None,
        )
        return run_sparql(self.store, query, dataset, max_rows=max_rows, stop=stop)

    def dataset(self) -> RdflibDataset:
        """This scope as a read-only rdflib ``Dataset`` over the live store (nothing copied).

        It sees what :meth:`sparql` sees (the scope's ordinary graphs, their union as the
        default graph; never pending, quarantine or another scope, whose graphs read as
        empty), so rdflib, pySHACL, owlrl and other rdflib tools can read the memory in place.
        Every write through it (``add``, ``remove``, ``addN``, ``update``, ``parse``, ``set``)
        raises :class:`~doxa.ReadOnly`: write through :meth:`remember`. The embedded store's
        view is oxrdflib's store; a remote one asks the server through doxa's SPARQL client.
        """
        return scope_view(self.store, scope_graphs(self.scope, self._topic_graphs))

    def _claims(self) -> Dataset:
        graphs = (*self._topic_graphs(), self.scope.rules, self.scope.log)
        return Dataset(default=graphs)

    # -- export ----------------------------------------------------------------------

    def _export_quads(self, *, audit: bool) -> Iterable[Quad]:
        return scope_quads(self.store, self.scope, audit=audit)

    def export(
        self,
        target: str | Path | IO[str],
        *,
        audit: bool = False,
        format: str | None = None,
        progress: Progress | None = None,
    ) -> int:
        """Write this scope as canonical N-Quads (RDFC-1.0) or TriG; returns the quads written.

        The ordinary export leaves out the quarantine; ``audit=True`` includes everything and
        adds one marker quad (``<scope>/export a doxa:AuditExport``). ``format`` is
        ``"nquads"``, ``"trig"`` or ``"turtle"`` (graph names dropped, for Protégé; it cannot
        be verified or imported), by default from the file suffix, else N-Quads. The same
        memory always gives the same bytes. ``progress(done, total)`` is called as it goes.
        """
        where = Path(target) if isinstance(target, str | Path) else Path("export.nq")
        return export_scope(
            self.store,
            self.scope,
            target,
            audit=audit,
            format=format_of(where, format),
            progress=progress,
        )

    def load_export(
        self, source: str | Path, *, format: str | None = None, progress: Progress | None = None
    ) -> int:
        """Restore an export of this scope into a store where the scope is still empty.

        The receipt chain is verified first: a broken chain raises :class:`~doxa.ChainBroken`
        and nothing is written. Exporting again gives the same bytes, and every read the same
        answers. Returns the number of quads restored.
        """
        quads = read_export(Path(source), format)
        with self.store.lock:
            count = import_scope(self.store, self.scope, quads, progress=progress)
            self._check_journal()  # journal the restored receipts, as after a crash
        return count

    # -- resting on facts --------------------------------------------------------------

    def flagged(self, *, as_of: datetime | date | str | None = None) -> list[Fact]:
        """Live facts with a basis-ended flag as believed at ``as_of`` (default now), most
        recently flagged first: something they rest on was superseded, retracted or erased,
        or (an empty search result) a later write answered it. Each fact's
        ``basis_ended`` says what ended; :meth:`confirm`, a revising :meth:`remember` or
        :meth:`retract` answers the flag, each with a receipt.
        """
        _, believed = self._times(None, as_of)
        return fact_reads.flagged(self.store, self.scope, self._topic_graphs(), as_of=believed)

    def confirm(self, fact: str | Fact, *, reason: str) -> Receipt:
        """The owner says a flagged fact stands on its own: its basis-ended flags no longer
        count from now on (a read as of an earlier time still shows them). Leaves a receipt
        (outcome ``cleared``); raises :class:`~doxa.NotFound` for a fact that is not live
        and flagged, :class:`~doxa.InvalidInput` without a reason."""
        _required_reason(reason, "Confirming a fact needs a reason; say what you checked.")
        fact_id = _fact_id(fact)
        if not _ID.fullmatch(fact_id):  # exactly an id: no trailing newline slips through
            raise NotFound(f"There is no fact {fact_id!r}; ids are like '019ac4f2b0e3a1b2c3d4'.")
        return self.gate.confirm(fact_id, reason=reason)

    def create_scope(self) -> bool:
        """Record this memory's scope as created in the store (``doxa init`` calls it).

        Commands that must not start a new memory by accident check
        :meth:`require_scope`; True if the scope was new.
        """
        with self.store.lock:
            return mark_scope(self.store, self.scope)

    def scope_exists(self) -> bool:
        """Whether this scope was created (:meth:`create_scope`) or has ever been written."""
        return scope_known(self.store, self.scope)

    def scopes(self) -> list[str]:
        """Every scope this store knows, sorted (reads the list of graphs: not for a hot path)."""
        return known_scopes(self.store)

    def require_scope(self) -> None:
        """Raise :class:`~doxa.UnknownScope` (with the closest known name) unless this scope
        exists: how the CLI refuses a mistyped ``--scope`` instead of starting an empty memory.
        """
        if not self.scope_exists():
            raise unknown_scope(self.scope.name, self.scopes())

    # -- names -------------------------------------------------------------------------

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

    # -- memory as files (docs/files.md) ---------------------------------------------------

    def render(
        self,
        folder: str | Path | None = None,
        *,
        valid_at: datetime | date | str | None = None,
        as_of: datetime | date | str | None = None,
        include_ended: bool = False,
    ) -> Rendered:
        """The scope as Markdown: one file per topic, one fact per line with its id in a
        trailing comment, ``MEMORY.md`` of pointers, and the manifest sync compares with.

        The same facts and clocks give the same bytes (no timestamp unless a clock is
        asked for). With ``folder`` each file is written atomically, the manifest last, and
        topic files of the previous render that have no facts now are removed. Ended facts
        (``include_ended``) are struck through with their status. Retraction requests are
        not shown (``held`` lists them).

        >>> mem = Memory.open(None, scope="alice")
        >>> r = mem.remember("Alice prefers tea", topic="drinks", authority="owner")
        >>> line = mem.render().files["drinks.md"].splitlines()[2]
        >>> line == f"- Alice prefers tea <!-- doxa:{r.fact} -->"
        True
        """
        stamp = {name: _stamp(value) for name, value in (("valid_at", valid_at), ("as_of", as_of))}
        found = self.facts(valid_at=valid_at, as_of=as_of, include_ended=include_ended)
        rendered = render_projection(
            found, scope=self.scope.name, include_ended=include_ended, **stamp
        )
        if folder is not None:
            with Folder(Path(folder), create=True) as where:
                previous = read_manifest(where) if where.kind(MANIFEST) is not None else None
                write_rendered(where, rendered, previous)
            record_render(self.store, Path(folder))  # an erasure reaches the folder later
        return rendered

    def sync(
        self,
        folder: str | Path,
        *,
        authority: str = "agent",
        retract: Iterable[str] = (),
    ) -> SyncReport:
        """Send the edits made to a rendered ``folder`` through the gate, then render again.

        Each changed line becomes a write in ``authority``'s words (``owner`` or ``agent``):
        an edited line revises its fact, a new line is a new write in its file's topic, a
        deleted line is a retraction request held for the owner, a moved line a topic
        change; a whole-file rewrite that drops facts is held unless every dropped id is in
        ``retract``; a change to a fact the store changed since the render is a conflict,
        kept in ``CONFLICTS.md`` and the report (docs/files.md has the rules). Idempotent:
        a second sync of the same files does nothing. Raises :class:`~doxa.InvalidInput`
        for a folder without a manifest, another scope's render or a render of the past,
        and :class:`~doxa.UnsafeFile` (nothing applied) when a file there is a link, a hard
        link, a device, another user's or too large, or the manifest lists what the store
        does not confirm. A file edited while the sync ran is left alone (``left_alone``).
        """
        with Folder(Path(folder)) as where:
            base = read_manifest(where)
            lines, skipped, read = read_files(where)
            self._confirm(base, where.path)
            report = self._sync_lines(base, lines, authority=authority, retract=retract)
            rendered = self.render()
            shown = as_edited(base, report.items)
            left = write_rendered(where, rendered, base, read=read, shown=shown)
            record_render(self.store, where.path)
            report = dataclass_replace(report, skipped=tuple(skipped), left_alone=left)
            if report.conflicts:
                write_conflicts(where, "".join(_conflict_line(i) for i in report.conflicts))
        return report

    def sync_texts(
        self,
        base: Manifest,
        texts: Mapping[str, str],
        *,
        authority: str = "agent",
        retract: Iterable[str] = (),
    ) -> tuple[SyncReport, Rendered]:
        """:meth:`sync` over file texts held in memory (file name → text) instead of a
        folder: what a virtual projection uses. Returns the report and the render after
        applying it (the next base)."""
        report = self.apply_texts(base, texts, authority=authority, retract=retract)
        return report, self.render()

    def apply_texts(
        self,
        base: Manifest,
        texts: Mapping[str, str],
        *,
        authority: str = "agent",
        retract: Iterable[str] = (),
        limit: int | None = None,
    ) -> SyncReport:
        """:meth:`sync_texts` without the render after: what the memory-tool backend uses,
        so a command reads the store once (``base`` and ``texts`` from one render). With
        ``limit``, more changes than that are refused (:class:`~doxa.InvalidInput`) before
        any is applied."""
        lines = {name: parse_lines(name, text) for name, text in texts.items() if topic_of(name)}
        skipped = tuple(sorted(n for n in texts if topic_of(n) is None and n not in (INDEX,)))
        report = self._sync_lines(base, lines, authority=authority, retract=retract, limit=limit)
        return dataclass_replace(report, skipped=skipped)

    def _confirm(self, base: Manifest, where: Path) -> None:
        """Trust a folder's manifest only as far as the store confirms it: each id it lists
        is a fact of this scope (live or ended) with the line text it gives. A made-up id
        would turn a writer's chosen text into a "conflict" in the owner's files."""
        self._check_base(base)
        listed = base.lines()
        if not listed:
            return
        known = {f.id: one_line(f.text) for f in self.facts(include_ended=True)}
        for fact, (name, text) in sorted(listed.items()):
            if known.get(fact) != text and not (fact in known and self._revised_to(fact, text)):
                # (a file an earlier sync left alone lists its revised line's edited text,
                # which a live successor of the fact holds)
                raise UnsafeFile(
                    f"{where / MANIFEST} lists {fact} in {name} with text the store does not "
                    f"hold for scope {self.scope.name!r}: the manifest was not written by a "
                    "render of this scope. Nothing was applied; save your edits elsewhere, "
                    f"render the folder again (`doxa render {where}`) and redo them."
                )

    def _check_base(self, base: Manifest) -> None:
        if base.scope != self.scope.name:
            raise InvalidInput(
                f"The files were rendered from scope {base.scope!r}, not {self.scope.name!r}; "
                "sync them with that scope, or render this one into another folder."
            )
        if not base.editable:
            raise InvalidInput(
                "The files are a render of the past (--valid-at, --as-of or --include-ended): "
                "read only; render without those options to edit and sync."
            )

    def _sync_lines(
        self,
        base: Manifest,
        lines: Mapping[str, Sequence[FileLine]],
        *,
        authority: str,
        retract: Iterable[str],
        limit: int | None = None,
    ) -> SyncReport:
        who = Authority.parse(authority)
        if who not in (Authority.OWNER, Authority.AGENT):
            raise InvalidInput(
                f"A sync writes as the owner or the agent, not {who.value!r}; use "
                "authority='owner' or 'agent'."
            )
        self._check_base(base)
        retracting = [
            _checked_id(r, "fact") for r in ([retract] if isinstance(retract, str) else retract)
        ]

        def live(fact: str) -> bool:
            # asked only of the facts a change targets: a lookup each, never a scope read
            return self.gate.record.is_live(self.scope.fact(fact))

        def remember(text: str, topic: str, revises: str | None) -> Receipt:
            if revises is not None and self._revised_to(revises, text):
                # the memory says it already (another render's sync made the same edit):
                # judged as a plain write, so it merges instead of revising a second time
                revises = None
            return self.remember(text, topic=topic, authority=who, revises=revises)

        def hold(
            text: str, topic: str, reason: str, relation: Relation | None, target: str | None
        ) -> Receipt:
            kind = RETRACTION_KIND if relation is Relation.WAS_WRONG else None
            proposal = build_proposal(
                self.scope, text, topic=topic, kind=kind, authority=who, revises=target
            )
            targets = (target,) if target is not None else ()
            return self.gate.hold_for_owner(
                proposal, reason=reason, relation=relation, targets=targets
            )

        approve = self.approve if who is Authority.OWNER else None
        # one sync at a time with this store's other writers in this process: what the plan
        # reads (liveness, requests held) is still true when its steps are applied
        with self.store.lock:
            requested = {
                t
                for h in self.held()
                if h.kind == RETRACTION_KIND and h.relation is Relation.WAS_WRONG
                for t in h.targets
            }
            steps, dropped = plan_sync(base, lines, live, requested=requested, retract=retracting)
            if limit is not None and len(steps) > limit:
                raise InvalidInput(
                    f"The edit makes {len(steps)} changes, more than {limit} at once; nothing "
                    f"was applied: split it into edits of at most {limit} lines each."
                )
            items = apply_sync(steps, remember=remember, hold=hold, approve=approve)
        return SyncReport(tuple(items), dropped)

    def _revised_to(self, fact: str, text: str) -> bool:
        """Whether a live fact that refines or succeeds ``fact`` already reads ``text``: a
        look at the fact's own events, never at its topic, so it costs the same at any size."""
        found = self.history(fact)
        related = {e.other for e in found.events if e.other} | set(found.successors)
        return any(_live_line(self, other) == text for other in related - {fact})

    # -- meaning ---------------------------------------------------------------------

    @property
    def recall_mode(self) -> Literal_["words", "hybrid"]:
        """``"hybrid"`` when recall fuses words with meaning, else ``"words"``.

        Hybrid needs an ``embedder`` (``DOXA_EMBED_*`` for the CLI and servers), numpy (the
        ``meaning`` extra) and a store this process is the only writer of (the vectors are
        searched in memory, kept current by the store's change notices).

        >>> Memory.open(None, scope="alice").recall_mode
        'words'
        """
        if self.embedder is None or cache_of(self.store) is None or numpy_or_none() is None:
            return "words"
        return "hybrid"

    def _query_meaning(self, text: str) -> Meaning | None:
        if self.recall_mode == "words":
            return None
        assert self.embedder is not None
        try:
            vector = embed_checked(self.embedder, [text])[0]
        except EmbeddingUnavailable as error:
            _log.warning("recall by words only: %s", error)
            return None
        return Meaning(vector, self.embedder.model)

    def reindex(
        self,
        *,
        progress: Callable[[int, int], None] | None = None,
        words_progress: Callable[[int, int], None] | None = None,
    ) -> Reindexed:
        """Bring the derived indexes up to date with the facts: first the word and stem
        entries of facts written before stems existed (so stemmed recall finds them; no
        embedder needed), then, with an ``embedder``, the vector of every admitted fact that
        has none (the endpoint was down or slow when it was written, or it predates the
        embedder), in batches. ``words_progress`` and ``progress`` hear (done, total) of each
        pass. Idempotent and safe to run again; what was filled stays when the endpoint fails
        midway, and the result says how many are still missing and why. With no embedder
        the result has ``vectors=False``: only the words were filled.
        """
        stemmed = fill_words(self.store, self.scope, progress=words_progress)
        if self.embedder is None:
            return Reindexed(0, 0, 0, stemmed=stemmed, vectors=False)
        found = reindex_vectors(self.store, self.scope, self.embedder, progress=progress)
        return dataclass_replace(found, stemmed=stemmed)

    # -- whole-scope audits ------------------------------------------------------------

    def add_shapes(
        self, source: str | Path | bytes, *, format: str | None = None, name: str | None = None
    ) -> int:
        """Keep a SHACL shapes file (the owner's domain shapes) that :meth:`audit` applies.

        Returns the number of triples it holds. It is kept as a source named ``name``
        (default: the file's name; bytes need a name or get one from their digest) in its own
        graph, for every scope of the store, as ontology sources are; adding a name again
        replaces it. A file that is not RDF, or not shapes pySHACL can read, raises
        :class:`~doxa.InvalidInput` and leaves the store as it was. From the next write on,
        the gate also applies the constraints one write decides (``sh:datatype``,
        ``sh:pattern``, ``sh:in`` …) to the triple it states (:mod:`doxa.gate.domain_shapes`);
        the rest wait for :meth:`audit`. A memory opened later on the store reads them too.
        """
        if isinstance(source, bytes):
            data, fmt = source, format or "turtle"
            label = name or "bytes-" + hashlib.sha256(data).hexdigest()[:12]
        else:
            path = Path(source)
            if not path.is_file():
                raise NotFound(f"There is no shapes file at {path}; check the path.")
            data, fmt = path.read_bytes(), format or path.suffix.lstrip(".") or "turtle"
            label = name or path.name
        fmt = fmt.strip().casefold()
        fmt = {"ttl": "turtle", "jsonld": "json-ld", "rdf": "xml", "owl": "xml"}.get(fmt, fmt)
        with self.store.lock:
            count = add_shapes(self.store, source_name(label), data, fmt)
            self.gate.shapes = self._doxa_shapes.with_domain(domain_shapes(self.store))
        return count

    def shapes_sources(self) -> list[ShapesSource]:
        """The shapes files the owner added, by name, with their triple counts."""
        return list_shapes(self.store)

    def remove_shapes(self, name: str) -> int:
        """Remove shapes source ``name``; returns how many triples it held. Raises
        :class:`~doxa.NotFound` for a name never added."""
        with self.store.lock:
            count = remove_shapes(self.store, name)
            self.gate.shapes = self._doxa_shapes.with_domain(domain_shapes(self.store))
        return count

    def audit(self, *, infer: bool = False) -> AuditReport:
        """Validate the whole scope with pySHACL: doxa's own shapes and the owner's domain
        shapes (:meth:`add_shapes`) over the scope's rdflib view (:meth:`dataset`), read in
        place. Every result names the facts involved.

        ``infer`` first runs owlrl (OWL 2 RL) over a copy of the view and the ontology and
        keeps the triples it adds in a derived graph (``urn:doxa:inferred:SCOPE``, rebuilt by
        each inferring audit, cleared by an erasure, never in claims or exports); the audit
        then validates the view with them. Raises :class:`~doxa.ShapeCheckFailed` when
        pySHACL itself fails.
        """
        shapes = Graph()
        shapes += self._doxa_shapes.graph
        shapes += domain_shapes(self.store)
        view = self.dataset().default_graph
        data: Graph = view
        added = 0
        if infer:
            copy = Graph()
            copy += view
            ontology = [(s, p, o) for s, p, o, _ in self.store.quads(ONTOLOGY_GRAPH)]
            with self.store.lock:
                inferred = infer_triples(self.store, self.scope, copy, ontology)
            copy += inferred
            data, added = copy, len(inferred)
        return validate_scope(
            data, shapes, facts_of=self._facts_of, triples=len(data), inferred=added
        )

    def _facts_of(self, focus: Node, path: Node | None) -> tuple[str, ...]:
        """The facts a SHACL result concerns: the claim itself, or the facts about ``focus``."""
        if isinstance(focus, URIRef) and str(focus).startswith(str(self.scope.fact(""))):
            return (self.scope.local_id(focus),)
        if not isinstance(focus, URIRef):
            return ()
        found = self.facts(subject=focus, predicate=path, include_ended=True)
        return tuple(sorted({f.id for f in found}))

    # -- requests and topics (issue 22: the LangGraph store) ----------------------------

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
        exactly what :meth:`sync` holds for a deleted line; nothing ends until the owner
        approves it (:meth:`approve` retracts the fact, :meth:`reject` keeps it).

        Returns the ``held`` receipt, or None when a request for this fact already waits
        (nothing new is held: asking twice is asking once). Raises :class:`~doxa.NotFound`
        for a fact that is not live and :class:`~doxa.InvalidInput` for an empty reason.
        """
        fact_id = _fact_id(fact)
        _required_reason(reason, "A retraction request needs a reason; say why it is wrong.")
        who = Authority.parse(authority)
        with self.store.lock:
            if any(
                h.kind == RETRACTION_KIND
                and h.relation is Relation.WAS_WRONG
                and fact_id in h.targets
                for h in self.held()
            ):
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


def _live_line(memory: Memory, fact: str) -> str | None:
    """A fact's line as rendered, while it is live (None once ended or gone)."""
    try:
        found = memory.get(fact)
    except NotFound:
        return None
    return fact_line(found) if found.status is FactStatus.LIVE else None


def _conflict_line(item: SyncItem) -> str:
    """A conflict as ``CONFLICTS.md`` lists it: the file, the edited text, the fact it
    targeted (so an erasure of that fact finds the line) and why it was not applied."""
    fact = f" [{item.fact}]" if item.fact else ""
    return f"- {item.file}: {item.text}{fact} ({item.outcome})\n"


def _stamp(value: datetime | date | str | None) -> str | None:
    """A clock as the manifest records it: the caller's text, or an ISO 8601 instant."""
    return value.isoformat() if isinstance(value, date) else value


def _only(graph: URIRef) -> Dataset:
    return Dataset(default=(graph,))


_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
#: what a read filter's name resolves to when nothing in the scope is called that
_UNNAMED = URIRef("urn:doxa:unnamed")


def _held_id(item: str | HeldWrite) -> str:
    return _checked_id(item.id if isinstance(item, HeldWrite) else item, "held write")


def _fact_id(fact: str | Fact) -> str:
    return _checked_id(fact.id if isinstance(fact, Fact) else fact, "fact")


def _checked_id(value: object, what: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise NotFound(f"There is no {what} {value!r}; ids are like '019ac4f2b0e3a1b2c3d4'.")
    return value


def _missing(scope: Scope, fact_id: str) -> NotFound:
    return NotFound(
        f"There is no fact {fact_id!r} in scope {scope.name!r}", listings=(Listing.FACTS,)
    )


def _required_reason(reason: object, missing: str) -> None:
    """The one check of a reason an owner's action requires: something visible, else
    ``missing`` (spaces, a newline or a zero-width character alone are no reason), and text
    (else :func:`~doxa.terms.as_text`'s error)."""
    if not reason or (isinstance(reason, str) and not visible(reason).strip()):
        raise InvalidInput(missing)
    as_text(reason, "reason")
