"""doxa: an agent memory you can trust.

Every write passes one gate (SHACL shapes, then a judge naming one relation); every fact says
where it came from and keeps two clocks; corrections end old facts with new triples.
"""

from rdflib import Literal

from doxa.clock import Clock, FixedClock, SystemClock
from doxa.errors import (
    ChainBroken,
    ConstraintFailure,
    DoxaError,
    ErasedContent,
    InvalidInput,
    JudgeUnavailable,
    NotFound,
    ScopeViolation,
    ShapeCheckFailed,
    ShapeViolation,
    StoreError,
    StoreLocked,
    WriteConflict,
)
from doxa.judges import Evidence, Judge, RuleJudge
from doxa.memory import Memory
from doxa.model import (
    Authority,
    Fact,
    FactStatus,
    HeldWrite,
    History,
    HistoryEvent,
    HoldStatus,
    Outcome,
    Proposal,
    Receipt,
    Relation,
    RuleMode,
    Support,
    Verdict,
    Why,
)
from doxa.terms import IRI

__version__ = "0.1.0"

__all__ = [
    "IRI",
    "Authority",
    "ChainBroken",
    "Clock",
    "ConstraintFailure",
    "DoxaError",
    "ErasedContent",
    "Evidence",
    "Fact",
    "FactStatus",
    "FixedClock",
    "HeldWrite",
    "History",
    "HistoryEvent",
    "HoldStatus",
    "InvalidInput",
    "Judge",
    "JudgeUnavailable",
    "Literal",
    "Memory",
    "NotFound",
    "Outcome",
    "Proposal",
    "Receipt",
    "Relation",
    "RuleJudge",
    "RuleMode",
    "ScopeViolation",
    "ShapeCheckFailed",
    "ShapeViolation",
    "StoreError",
    "StoreLocked",
    "Support",
    "SystemClock",
    "Verdict",
    "Why",
    "WriteConflict",
]
