"""Sync: the edits made to a rendered folder, sent back through the gate, none lost.

:func:`plan` compares the files with the manifest of the render they came from and says,
line by line, what each change is; :func:`apply` sends each one through the callbacks
``memory.files.sync`` gives it (``remember`` for writes, ``hold`` for what the owner decides):

- a line whose text changed (its id kept) is a write that ``revises`` its fact: the judge
  decides replaces / was_wrong / adds_detail / same, and every closing rule still applies;
- a line without an id is a new write in its file's topic (a new file is a new topic);
- a deleted line is a retraction request held for the owner, never a delete;
- a line moved to another file is a topic change: held for the owner (approved at once when
  the owner syncs), the fact superseded by the same text in the new topic;
- a whole-file rewrite (fewer than half of a file's old ids left in any file, for a file of
  two facts or more) is held: its new lines wait for the owner and the facts it dropped are
  listed, unless every dropped fact is named in ``retract`` (explicitly retracted);
- a change to a fact no longer live (the store changed since the render) is a conflict:
  reported with its line, not applied.

A sync is idempotent: the caller renders again after applying, so the files then match
their manifest and a second sync finds nothing to do.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as dataclass_replace

from doxa.errors import DoxaError
from doxa.model import Outcome, Receipt, Relation
from doxa.reads.projection import FileLine, Manifest, topic_of

__all__ = [
    "REWRITE_SHARE",
    "Change",
    "Step",
    "SyncItem",
    "SyncReport",
    "apply",
    "as_edited",
    "plan",
]

#: a file keeps "most" of its facts when at least this share of its old ids is still in some
#: file; below it (for a file of two facts or more) the change is a whole-file rewrite
REWRITE_SHARE = 0.5


class Change(enum.Enum):
    """What one line's change is."""

    ADDED = "added"
    REVISED = "revised"
    MOVED = "moved"
    RETRACTION_REQUESTED = "retraction_requested"
    ALREADY_REQUESTED = "already_requested"
    HELD_REWRITE = "held_rewrite"
    CONFLICT = "conflict"
    REFUSED = "refused"


#: the words a model acts on, for each outcome of the gate
_SAID = {
    Outcome.ADMITTED: "admitted",
    Outcome.APPROVED: "admitted (approved by the owner)",
    Outcome.MERGED: "merged: the memory already says this",
    Outcome.HELD: "held for the owner: it is not in memory until the owner approves it",
    Outcome.QUARANTINED: "quarantined: it reads like an instruction and is not used",
    Outcome.REJECTED: "rejected: it breaks the memory's shapes",
}


@dataclass(frozen=True)
class Step:
    """One planned change: what, where, the line's text and the fact it targets."""

    change: Change
    file: str
    topic: str
    text: str
    fact: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class SyncItem:
    """One applied (or refused) change and what the gate decided."""

    change: Change
    file: str
    text: str
    fact: str | None
    outcome: str
    receipt: str | None = None
    new_fact: str | None = None
    #: the gate held it for the owner: the line it revises stays as it was meanwhile
    held: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "change": self.change.value,
            "file": self.file,
            "text": self.text,
            "fact": self.fact,
            "outcome": self.outcome,
            "receipt": self.receipt,
            "new_fact": self.new_fact,
            "held": self.held,
        }


@dataclass(frozen=True)
class SyncReport:
    """What a sync did: each change with the gate's decision, the facts whole-file rewrites
    dropped (still live, listed for the owner), the ``.md`` files it did not read, and the
    files it did not render again because they changed while it ran (``left_alone``)."""

    items: tuple[SyncItem, ...] = ()
    dropped: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()
    left_alone: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the files held any change at all (False: the sync did nothing)."""
        return bool(self.items)

    @property
    def conflicts(self) -> tuple[SyncItem, ...]:
        """The changes not applied: the store changed under them, or the gate refused them."""
        return tuple(i for i in self.items if i.change in (Change.CONFLICT, Change.REFUSED))

    def to_json(self) -> dict[str, object]:
        return {
            "items": [i.to_json() for i in self.items],
            "dropped": {k: list(v) for k, v in sorted(self.dropped.items())},
            "skipped": list(self.skipped),
            "left_alone": list(self.left_alone),
        }

    def lines(self) -> list[str]:
        """The report as lines a person or a model reads."""
        if not self.items and not self.dropped and not self.left_alone:
            out = ["Nothing to sync: the files match their render."]
        else:
            out = [
                f"{i.change.value} {i.file}: {i.text!r}"
                + (f" [{i.fact}]" if i.fact else "")
                + f": {i.outcome}"
                for i in self.items
            ]
        for name, ids in sorted(self.dropped.items()):
            out.append(
                f"{name} was rewritten and drops {len(ids)} fact(s) still in memory: "
                f"{', '.join(ids)}; its new lines wait for the owner (retract them explicitly "
                "to let the rewrite through)."
            )
        out += [
            f"skipped {name}: not a topic file name (use e.g. meetings.md)" for name in self.skipped
        ]
        out += [
            f"left {name} alone: it changed while the sync ran, so it was not rendered again; "
            "sync again to send that change through the gate"
            for name in self.left_alone
        ]
        return out


def plan(
    manifest: Manifest,
    files: Mapping[str, Sequence[FileLine]],
    live: Callable[[str], bool],
    *,
    requested: set[str] = frozenset(),  # type: ignore[assignment]
    retract: Iterable[str] = (),
) -> tuple[list[Step], dict[str, tuple[str, ...]]]:
    """The steps that turn the render into the files, and each rewrite's dropped facts.

    ``live`` says whether a fact is live now (asked only of the facts a change targets; a
    change to any other is a conflict), ``requested`` are the facts with a retraction
    request already held.
    """
    base = manifest.lines()
    explicit = set(retract)
    where: dict[str, list[FileLine]] = {}
    for lines in files.values():
        for line in lines:
            if line.fact is not None and line.fact in base:
                where.setdefault(line.fact, []).append(line)
    rewrites: dict[str, tuple[str, ...]] = {}
    for name, (_, rows) in manifest.files.items():
        ids = [fid for fid, _ in rows]
        kept = sum(1 for fid in ids if fid in where)
        dropped = tuple(fid for fid in ids if fid not in where)
        if len(ids) >= 2 and kept < REWRITE_SHARE * len(ids) and not set(dropped) <= explicit:
            rewrites[name] = dropped
    steps: list[Step] = []
    for fid, (home, text) in sorted(base.items(), key=lambda kv: (kv[1][0], kv[0])):
        topic = manifest.files[home][0]
        seen = where.get(fid, [])
        if not seen:
            if home in rewrites:
                continue  # listed as dropped: the owner sees it with the rewrite
            if fid in requested:
                steps.append(Step(Change.ALREADY_REQUESTED, home, topic, text, fid))
            else:
                steps.append(
                    _checked(Step(Change.RETRACTION_REQUESTED, home, topic, text, fid), live)
                )
            continue
        if any(line.file == home and line.text == text for line in seen):
            extra = [line for line in seen if line.text != text]
        else:
            first = sorted(seen, key=lambda line: (line.file != home, line.file, line.number))[0]
            moved = first.file != home
            change = Change.MOVED if moved else Change.REVISED
            new_topic = topic_of(first.file) or topic
            steps.append(_checked(Step(change, first.file, new_topic, first.text, fid), live))
            extra = [line for line in seen if line is not first and line.text != first.text]
        # a copy of the line carrying the same id with other words: a new line of its own
        steps += [_added(line, manifest, rewrites, fid) for line in extra]
    for _name, lines in sorted(files.items()):
        for line in lines:
            if line.fact is None or line.fact not in base:
                steps.append(_added(line, manifest, rewrites, None))
    return steps, rewrites


def _checked(step: Step, live: Callable[[str], bool]) -> Step:
    """A change to a fact the store no longer holds live is a conflict, not applied."""
    if step.fact is not None and not live(step.fact):
        return Step(
            Change.CONFLICT,
            step.file,
            step.topic,
            step.text,
            step.fact,
            "the fact changed in memory since the render (revised, retracted or ended); "
            "nothing was applied: render again and redo the edit on the new line",
        )
    return step


def _added(
    line: FileLine, manifest: Manifest, rewrites: Mapping[str, object], copied: str | None
) -> Step:
    topic = topic_of(line.file)
    assert topic is not None  # read_files reads topic files only
    if line.file in rewrites:
        reason = (
            f"{line.file} was rewritten and drops facts still in memory; this line waits "
            "for the owner with the rewrite"
        )
        return Step(Change.HELD_REWRITE, line.file, topic, line.text, None, reason)
    return Step(Change.ADDED, line.file, topic, line.text, None, copied or "")


Remember = Callable[[str, str, str | None], Receipt]
Hold = Callable[[str, str, str, Relation | None, str | None], Receipt]


def apply(
    steps: Sequence[Step],
    *,
    remember: Remember,
    hold: Hold,
    approve: Callable[[str], Receipt] | None,
) -> list[SyncItem]:
    """Send each step through the gate: ``remember(text, topic, revises)`` for writes,
    ``hold(text, topic, reason, relation, target)`` for what waits for the owner, and
    ``approve`` (the owner's sync only) for a topic change the owner made.

    A step the gate refuses (a bad value, a target gone meanwhile) becomes a ``refused``
    item with the message; nothing else is attempted for it.
    """
    items: list[SyncItem] = []
    for step in steps:
        if step.change in (Change.CONFLICT, Change.ALREADY_REQUESTED):
            said = step.reason or "a retraction request for it already waits for the owner"
            items.append(SyncItem(step.change, step.file, step.text, step.fact, said))
            continue
        try:
            receipt = _send(step, remember, hold, approve)
        except DoxaError as error:
            items.append(SyncItem(Change.REFUSED, step.file, step.text, step.fact, str(error)))
            continue
        said = _SAID.get(receipt.outcome, receipt.outcome.value)
        if step.change is Change.RETRACTION_REQUESTED and receipt.outcome is Outcome.HELD:
            said = "retraction requested: held for the owner; the fact stays until they decide"
        new = receipt.fact if receipt.fact != step.fact else None
        held = receipt.outcome is Outcome.HELD
        items.append(
            SyncItem(step.change, step.file, step.text, step.fact, said, receipt.id, new, held)
        )
    return items


def _send(
    step: Step, remember: Remember, hold: Hold, approve: Callable[[str], Receipt] | None
) -> Receipt:
    if step.change is Change.RETRACTION_REQUESTED:
        reason = f"the line was deleted from {step.file}: was it never true?"
        return hold(step.text, step.topic, reason, Relation.WAS_WRONG, step.fact)
    if step.change is Change.HELD_REWRITE:
        return hold(step.text, step.topic, step.reason, None, None)
    if step.change is Change.MOVED:
        reason = f"the line moved to {step.file}: a topic change to {step.topic!r}"
        receipt = hold(step.text, step.topic, reason, Relation.REPLACES, step.fact)
        if approve is not None and receipt.fact is not None:
            return approve(receipt.fact)
        return receipt
    return remember(step.text, step.topic, step.fact)


def as_edited(base: Manifest, items: Sequence[SyncItem]) -> Manifest:
    """``base`` as the edited files show it once ``items`` were applied: each revised line
    with its edited text, each line whose retraction was asked for gone (a conflict stays
    as it was: it was not applied).

    The manifest entry of a file a sync left alone (it changed while the sync ran): the next
    sync then sees in it only what changed since this one read it, not the edits this one
    already sent through the gate again."""
    edited = {i.fact: i.text for i in items if i.fact and i.change is Change.REVISED}
    asked = {
        i.fact
        for i in items
        if i.fact and i.change in (Change.RETRACTION_REQUESTED, Change.ALREADY_REQUESTED)
    }
    files = {
        name: (topic, tuple((fid, edited.get(fid, text)) for fid, text in rows if fid not in asked))
        for name, (topic, rows) in base.files.items()
    }
    return dataclass_replace(base, files=files)
