"""``stats``: what the gate decided per kind of memory, and how the judge stands with the owner.

Counted from the receipts, so the figures are as trustworthy as the hash chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rdflib import URIRef

from doxa.model import ClosingPolicy, Outcome, Relation, Standing
from doxa.reads.ledger import alarms, standings
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store

__all__ = ["KindStats", "Stats", "stats"]

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
class Stats:
    """Per-kind decision counts, the judge's ledger and the number of open alarms."""

    kinds: tuple[KindStats, ...]
    ledger: tuple[Standing, ...]
    open_alarms: int

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
    )
