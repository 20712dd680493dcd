"""Judges: each names one relation from the closed list for a write."""

from doxa.judges.base import Cardinality, Evidence, Judge, Needs
from doxa.judges.llm import LLMConfig, LLMJudge
from doxa.judges.named import JudgeName, configured_judge, judge_named
from doxa.judges.rules import RuleJudge

__all__ = [
    "Cardinality",
    "Evidence",
    "Judge",
    "JudgeName",
    "LLMConfig",
    "LLMJudge",
    "Needs",
    "RuleJudge",
    "configured_judge",
    "judge_named",
]
