"""What a judge is given and what it must answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from doxa.model import Fact, Proposal, Verdict

__all__ = ["Evidence", "Judge"]


@dataclass(frozen=True)
class Evidence:
    """What the gate gathered for one write, through the SPARQL files in ``queries/``.

    ``same_topic`` holds the live facts on the write's subject and predicate (anywhere in the
    scope) or, for a text-only write, with the same normalised text in its topic.
    """

    same_topic: tuple[Fact, ...]
    rules: tuple[Fact, ...]
    observations: tuple[Fact, ...]
    functional: bool

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
