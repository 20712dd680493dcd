"""Operations on a memory's store: backups, restores, the purge, exports, imports, audits.

``memory.admin`` (an :class:`Admin`) is what an operator runs beside the agent's traffic:
none of it is a decision about one fact, and each works on the store the memory holds.
Scoring the judge on labelled cases (``evaluate``, ``calibrate``) is here too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace as dataclass_replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rdflib import Graph, URIRef
from rdflib.term import Node

from doxa.audit.backups import (
    backups_folder,
)
from doxa.audit.exports import (
    Progress,
    export_scope,
    format_of,
    import_scope,
    read_export,
    scope_quads,
)
from doxa.audit.purge import PurgeStatus, purge_of
from doxa.audit.shape_sources import (
    domain_shapes,
)
from doxa.audit.validation import AuditReport, validate_scope
from doxa.audit.validation import infer as infer_triples
from doxa.clock import FixedClock
from doxa.errors import (
    StoreError,
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
from doxa.gate.embedding import Reindexed
from doxa.gate.embedding import reindex as reindex_vectors
from doxa.gate.restemming import fill_words
from doxa.memory.opening import check_journal
from doxa.reads.ledger import judge_key
from doxa.scope import known_scopes, mark_scope, scope_known
from doxa.store import Quad
from doxa.store.capabilities import Cloneable, Compactable, OnDisk
from doxa.store.convert import ntriples
from doxa.vocabulary import ONTOLOGY_GRAPH

if TYPE_CHECKING:
    from doxa.memory.memory import Memory

__all__ = ["Admin"]


class Admin:
    """An operator's commands on one memory's store and scope (``memory.admin``)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self.store = memory.store
        self.scope = memory.scope
        self.gate = memory.gate
        self.clock = memory.clock

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
        self.gate.embed_admitted(self._memory.embedder, report.receipts)
        return report

    def purge(self, *, timeout: float | None = None) -> PurgeStatus:
        """Wait until every erasure of the store has left its files and backups.

        Returns the purge's status; raises :class:`~doxa.StoreError` when it failed (it is
        retried in the background). A store on a SPARQL server has no purge doxa can make:
        the server's own files keep what it was sent until its tools purge them
        (docs/remote.md).
        """
        purge = purge_of(self.store, self.clock)
        if purge is None:
            return self.purge_status()
        return purge.wait(timeout)

    @property
    def store_purges_files(self) -> bool:
        """Whether erasure reaches the store's files: true on disk and in memory; false on a
        SPARQL server, whose own files (log, journal, checkpoints) only its tools can purge."""
        return isinstance(self.store, Compactable)

    def purge_status(self) -> PurgeStatus:
        """Where the background purge of erased content stands."""
        purge = purge_of(self.store, self.clock)
        if purge is not None:
            return purge.status()
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

    def backups(self) -> list[Path]:
        """The store's backups, oldest first."""
        try:
            folder = backups_folder(self.store)
        except StoreError:
            return []
        if not folder.is_dir():
            return []
        return sorted(p for p in folder.iterdir() if p.is_dir())

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

    def _export_quads(self, *, audit: bool) -> Iterable[Quad]:
        return scope_quads(self.store, self.scope, audit=audit)

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
            # journal the restored receipts, as after a crash
            check_journal(self.store, self.scope, self.gate)
        return count

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
        if self._memory.embedder is None:
            return Reindexed(0, 0, 0, stemmed=stemmed, vectors=False)
        found = reindex_vectors(self.store, self.scope, self._memory.embedder, progress=progress)
        return dataclass_replace(found, stemmed=stemmed)

    def audit(self, *, infer: bool = False) -> AuditReport:
        """Validate the whole scope with pySHACL: doxa's own shapes and the owner's domain
        shapes (``memory.schema.add_shapes``) over the scope's rdflib view
        (``memory.rdf.dataset``), read in place. Every result names the facts involved.

        ``infer`` first runs owlrl (OWL 2 RL) over a copy of the view and the ontology and
        keeps the triples it adds in a derived graph (``urn:doxa:inferred:SCOPE``, rebuilt by
        each inferring audit, cleared by an erasure, never in claims or exports); the audit
        then validates the view with them. Raises :class:`~doxa.ShapeCheckFailed` when
        pySHACL itself fails.
        """
        shapes = Graph()
        shapes += self._memory.shape_check.graph
        shapes += domain_shapes(self.store)
        view = self._memory.rdf.dataset().default_graph
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
        found = self._memory.facts(subject=focus, predicate=path, include_ended=True)
        return tuple(sorted({f.id for f in found}))

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
        judge, policy = self._memory.judge, self.gate.policy
        # every case starts from a copy of one prepared store: the ontology is loaded and
        # closed once, not once per case
        kind = type(self._memory)  # scratch memories of the same class as this one
        with kind.open(None, scope="eval", judge=judge, policy=policy) as template:
            for data in ontology:
                template.schema.add_ontology(data, format=ontology_format)
            prepared = template.store
            assert isinstance(prepared, Cloneable)  # Memory.open(None): an embedded store

            def open_case(case: Case) -> Memory:
                clock = FixedClock(case.at or DEFAULT_AT)
                return kind(
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
        key = judge_key(self._memory.judge.name, self._memory.judge.version)
        self.gate.owner.calibrate(
            key,
            report.scores(),
            digest=digest,
            reason=f"calibrated on {len(loaded)} labelled cases",
        )
        return report

    # -- scopes ------------------------------------------------------------------------

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
