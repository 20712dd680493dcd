"""Memory as files: the scope rendered as Markdown, and edits synced back through the gate.

``memory.files`` (a :class:`Files`) renders a topic file per topic and syncs a folder's (or
a virtual projection's) edits back: each changed line becomes a write, a deleted line a
retraction request held for the owner (docs/files.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace as dataclass_replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from doxa.audit.render_repos import record_render
from doxa.errors import (
    InvalidInput,
    NotFound,
    UnsafeFile,
)
from doxa.gate.proposal import build_proposal
from doxa.gate.sync import SyncItem, SyncReport, as_edited
from doxa.gate.sync import apply as apply_sync
from doxa.gate.sync import plan as plan_sync
from doxa.memory.arguments import (
    checked_id,
)
from doxa.model import (
    Authority,
    FactStatus,
    Receipt,
    Relation,
)
from doxa.reads.folder import Folder
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
from doxa.reads.provenance import quotation

if TYPE_CHECKING:
    from doxa.memory.memory import Memory

__all__ = ["Files"]


class Files:
    """One memory's scope as Markdown files (``memory.files``)."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory
        self.store = memory.store
        self.scope = memory.scope
        self.gate = memory.gate

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

        >>> from doxa import Memory
        >>> mem = Memory.open(None, scope="alice")
        >>> r = mem.remember("Alice prefers tea", topic="drinks", authority="owner")
        >>> line = mem.files.render().files["drinks.md"].splitlines()[2]
        >>> line == f"- Alice prefers tea <!-- doxa:{r.fact} -->"
        True
        """
        stamp = {name: _stamp(value) for name, value in (("valid_at", valid_at), ("as_of", as_of))}
        found = self._memory.facts(valid_at=valid_at, as_of=as_of, include_ended=include_ended)
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
            lines, skipped, read = read_files(where, base.marks)
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
        lines = {
            name: parse_lines(name, text, base.marks)
            for name, text in texts.items()
            if topic_of(name)
        }
        skipped = tuple(sorted(n for n in texts if topic_of(n) is None and n not in (INDEX,)))
        report = self._sync_lines(base, lines, authority=authority, retract=retract, limit=limit)
        return dataclass_replace(report, skipped=skipped)

    def _confirm(self, base: Manifest, where: Path) -> None:
        """Trust a folder's manifest only as far as the store confirms it: each id it lists
        is a fact of this scope (live or ended) with the line text it gives, and each
        quotation mark it records is the one that fact's line is rendered with. A made-up id
        would turn a writer's chosen text into a "conflict" in the owner's files."""
        self._check_base(base)
        listed = base.lines()
        if not listed and not base.marks:
            return
        found = self._memory.facts(include_ended=True)
        known = {f.id: one_line(f.text) for f in found}
        quoted = {f.id: mark for f in found if (mark := quotation(f)) is not None}
        for fact, mark in sorted(base.marks.items()):
            if quoted.get(fact) != mark:
                raise UnsafeFile(
                    f"{where / MANIFEST} gives {fact} a quotation mark the store does not: "
                    "the manifest was not written by a render of this scope. Nothing was "
                    f"applied; render the folder again (`doxa render {where}`) and redo the edits."
                )
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
            checked_id(r, "fact") for r in ([retract] if isinstance(retract, str) else retract)
        ]

        def live(fact: str) -> bool:
            # asked only of the facts a change targets: a lookup each, never a scope read
            return self.gate.record.is_live(self.scope.fact(fact))

        def remember(text: str, topic: str, revises: str | None) -> Receipt:
            if revises is not None and self._revised_to(revises, text):
                # the memory says it already (another render's sync made the same edit):
                # judged as a plain write, so it merges instead of revising a second time
                revises = None
            return self._memory.remember(text, topic=topic, authority=who, revises=revises)

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

        approve = self._memory.owner.approve if who is Authority.OWNER else None
        # one sync at a time with this store's other writers in this process: what the plan
        # reads (liveness, requests held) is still true when its steps are applied
        with self.store.lock:
            requested = {
                t
                for h in self._memory.held()
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
        found = self._memory.history(fact)
        related = {e.other for e in found.events if e.other} | set(found.successors)
        return any(_live_line(self._memory, other) == text for other in related - {fact})


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
