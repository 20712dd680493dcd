"""The public surface is deliberate: a short, sorted, pinned __all__."""

from __future__ import annotations

import doxa

EXPECTED = [
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


def test_all_is_pinned() -> None:
    """__all__ matches the reviewed list exactly; adding a name means updating this test."""
    assert doxa.__all__ == EXPECTED


def test_every_public_name_exists() -> None:
    """Each name in __all__ is importable from doxa."""
    missing = [name for name in doxa.__all__ if not hasattr(doxa, name)]
    assert missing == []


def test_errors_share_one_root_and_refine_builtins() -> None:
    """Every doxa error is a DoxaError and also the builtin it refines."""
    assert issubclass(doxa.NotFound, LookupError)
    assert issubclass(doxa.InvalidInput, ValueError)
    assert issubclass(doxa.ShapeViolation, doxa.InvalidInput)
    assert issubclass(doxa.StoreError, OSError)
    assert issubclass(doxa.StoreLocked, doxa.StoreError)
    errors = [getattr(doxa, n) for n in doxa.__all__ if isinstance(getattr(doxa, n), type)]
    errors = [e for e in errors if issubclass(e, Exception)]
    assert errors
    assert all(issubclass(e, doxa.DoxaError) for e in errors)
