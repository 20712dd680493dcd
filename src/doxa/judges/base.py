"""What a judge is given and what it must answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from doxa.model import Fact, Proposal, Verdict

__all__ = ["Evidence", "Judge"]


@dataclass(frozen=True)
class Evidence:
    """What the gate gathered for one write, through the SPARQL files in ``queries/``.

    ``versions`` records the change counter of each graph read, so the gate can tell whether
    the judge's view went stale before publishing.
    """

    same_topic: tuple[Fact, ...]
    rules: tuple[Fact, ...]
    observations: tuple[Fact, ...]
    functional: bool
    versions: tuple[int, int]

    @property
    def consulted(self) -> tuple[Fact, ...]:
        seen: dict[str, Fact] = {}
        for fact in (*self.same_topic, *self.rules, *self.observations):
            seen.setdefault(fact.id, fact)
        return tuple(seen.values())


class Judge(Protocol):
    """Names exactly one relation from the closed list for a write.

    A judge that cannot answer raises :class:`doxa.JudgeUnavailable`; the write then waits
    in pending, unchecked. A judge holds no state of its own between calls.
    """

    name: str
    version: str

    def judge(self, proposal: Proposal, evidence: Evidence) -> Verdict: ...
