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
    EmbeddingUnavailable,
    ErasedContent,
    Forbidden,
    InvalidInput,
    JudgeUnavailable,
    NotFound,
    ReadOnly,
    ScopeViolation,
    ShapeCheckFailed,
    ShapeViolation,
    StoreBehindJournal,
    StoreError,
    StoreLocked,
    UnknownScope,
    UnsafeFile,
    WriteConflict,
)
from doxa.evaluation import Case, EvalReport
from doxa.gate.bulk import ImportReport
from doxa.gate.embedding import Reindexed
from doxa.judges import Evidence, Judge, RuleJudge
from doxa.judges.llm import LLMConfig, LLMJudge
from doxa.memory import Admin, Files, Memory, Owner, Schema
from doxa.memory.opening import restore_backup
from doxa.model import (
    Alarm,
    Authority,
    BasisEnd,
    ClosingPolicy,
    Correction,
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
    Standing,
    Support,
    Verdict,
    Why,
)
from doxa.reads.embeddings import EmbedConfig, Embedder, OpenAIEmbedder
from doxa.reads.stats import Footprint, KindStats, Stats
from doxa.terms import IRI

__version__ = "0.1.0"

__all__ = [
    "IRI",
    "Admin",
    "Alarm",
    "Authority",
    "BasisEnd",
    "Case",
    "ChainBroken",
    "Clock",
    "ClosingPolicy",
    "ConstraintFailure",
    "Correction",
    "DoxaError",
    "EmbedConfig",
    "Embedder",
    "EmbeddingUnavailable",
    "ErasedContent",
    "EvalReport",
    "Evidence",
    "Fact",
    "FactStatus",
    "Files",
    "FixedClock",
    "Footprint",
    "Forbidden",
    "HeldWrite",
    "History",
    "HistoryEvent",
    "HoldStatus",
    "ImportReport",
    "InvalidInput",
    "Judge",
    "JudgeUnavailable",
    "KindStats",
    "LLMConfig",
    "LLMJudge",
    "Literal",
    "Memory",
    "NotFound",
    "OpenAIEmbedder",
    "Outcome",
    "Owner",
    "Proposal",
    "ReadOnly",
    "Receipt",
    "Reindexed",
    "Relation",
    "RuleJudge",
    "RuleMode",
    "Schema",
    "ScopeViolation",
    "ShapeCheckFailed",
    "ShapeViolation",
    "Standing",
    "Stats",
    "StoreBehindJournal",
    "StoreError",
    "StoreLocked",
    "Support",
    "SystemClock",
    "UnknownScope",
    "UnsafeFile",
    "Verdict",
    "Why",
    "WriteConflict",
    "restore_backup",
]
