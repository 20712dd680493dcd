"""``stats``: what the gate decided per kind of memory, and how the judge stands with the owner.

Counted from the receipts, so the figures are as trustworthy as the hash chain.
"""

from __future__ import annotations

import contextlib
import glob
import os
from dataclasses import dataclass, field
from pathlib import Path

from rdflib import URIRef

from doxa.model import ClosingPolicy, Outcome, Relation, Standing
from doxa.reads.ledger import alarms, standings
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.store.capabilities import OnDisk
from doxa.vocabulary import DOXA

__all__ = ["Footprint", "KindStats", "Stats", "footprint", "resident_bytes", "stats"]

#: outcomes of the gate's own decisions on writes (the rest are the owner's)
_WRITE_OUTCOMES = (
    Outcome.ADMITTED,
    Outcome.MERGED,
    Outcome.HELD,
    Outcome.REJECTED,
    Outcome.QUARANTINED,
)


@dataclass(frozen=True)
class KindStats:
    """Decisions on one kind of memory."""

    kind: str
    outcomes: dict[str, int] = field(default_factory=dict)
    relations: dict[str, int] = field(default_factory=dict)
    needless_holds: int = 0

    @property
    def writes(self) -> int:
        """Writes the gate decided (admitted, merged, held, rejected or quarantined)."""
        return sum(self.outcomes.get(o.value, 0) for o in _WRITE_OUTCOMES)

    @property
    def held(self) -> int:
        return self.outcomes.get(Outcome.HELD.value, 0)

    @property
    def needless_hold_rate(self) -> float:
        """Needless holds per write: held, then approved as the judge had said."""
        return self.needless_holds / self.writes if self.writes else 0.0


@dataclass(frozen=True)
class Footprint:
    """What the memory takes on the machine that holds it, when the figures were read: how a
    person running it for years sees it grow (docs/benchmarks.md has the figures a fact)."""

    #: the scope's claims on record, live or ended (an erased one is gone)
    claims: int
    #: the whole store's files, for a store in a directory; None in memory or on a server
    disk_bytes: int | None
    #: the resident memory of the process that holds the store (this one, or the server's
    #: when read through it); None where the system does not say (no ``/proc``)
    resident_bytes: int | None


@dataclass(frozen=True)
class Stats:
    """Per-kind decision counts, the judge's ledger, the number of open alarms and the
    memory's footprint on its machine."""

    kinds: tuple[KindStats, ...]
    ledger: tuple[Standing, ...]
    open_alarms: int
    footprint: Footprint | None = None

    def kind(self, name: str) -> KindStats:
        for found in self.kinds:
            if found.kind == name:
                return found
        return KindStats(kind=name)


def stats(store: Store, scope: Scope, policy: ClosingPolicy) -> Stats:
    log = Dataset(default=(scope.log,))
    outcomes: dict[str, dict[str, int]] = {}
    relations: dict[str, dict[str, int]] = {}
    for row in store.select(query("receipt_counts"), dataset=log):
        kind, count = str(row["kind"]), int(str(row["receipts"]))
        outcome = Outcome.from_iri(row["outcome"]).value
        outcomes.setdefault(kind, {})
        outcomes[kind][outcome] = outcomes[kind].get(outcome, 0) + count
        relation = row.get("relation")
        if isinstance(relation, URIRef) and Outcome(outcome) in _WRITE_OUTCOMES:
            name = Relation.from_iri(relation).value
            relations.setdefault(kind, {})
            relations[kind][name] = relations[kind].get(name, 0) + count
    needless = {
        str(row["kind"]): int(str(row["needless"]))
        for row in store.select(query("needless_holds"), dataset=log)
        if "kind" in row
    }
    kinds = tuple(
        KindStats(
            kind=kind,
            outcomes=outcomes.get(kind, {}),
            relations=relations.get(kind, {}),
            needless_holds=needless.get(kind, 0),
        )
        for kind in sorted(set(outcomes) | set(needless))
    )
    return Stats(
        kinds=kinds,
        ledger=tuple(standings(store, scope, policy)),
        open_alarms=sum(1 for a in alarms(store, scope) if a.open),
        footprint=footprint(store, scope),
    )


def footprint(store: Store, scope: Scope) -> Footprint:
    """The scope's claims on record, the store's bytes on disk and this process's resident
    memory (see :class:`Footprint`). One count over the scope's search graph and one walk of
    the store's directory."""
    rows = store.select(
        "SELECT (COUNT(?claim) AS ?claims) WHERE { ?claim ?topic ?name }",
        dataset=Dataset(default=(scope.search,)),
        bindings={"topic": DOXA.topic},
    )
    claims = int(str(rows[0]["claims"])) if rows else 0
    disk = _bytes_under(store.path) if isinstance(store, OnDisk) else None
    return Footprint(claims=claims, disk_bytes=disk, resident_bytes=resident_bytes())


def _bytes_under(root: Path) -> int:
    """The sizes of the files under ``root`` (links not followed), and of its sidecar files
    beside it (``NAME.journal`` …), which belong to the store."""
    total = 0
    for folder, _, files in os.walk(root):
        for name in files:
            with contextlib.suppress(OSError):  # a file RocksDB removed meanwhile
                total += os.lstat(os.path.join(folder, name)).st_size
    for sidecar in root.parent.glob(f"{glob.escape(root.name)}.*"):
        if sidecar.is_file() and not sidecar.is_symlink():
            with contextlib.suppress(OSError):
                total += sidecar.stat().st_size
    return total


def resident_bytes() -> int | None:
    """This process's resident memory now, from ``/proc/self/statm`` (Linux); None elsewhere."""
    try:
        pages = int(Path("/proc/self/statm").read_text("ascii").split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")
