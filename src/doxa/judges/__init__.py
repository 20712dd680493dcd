"""Judges: each names one relation from the closed list for a write."""

from doxa.judges.base import Evidence, Judge
from doxa.judges.llm import LLMConfig, LLMJudge
from doxa.judges.rules import RuleJudge

__all__ = ["Evidence", "Judge", "LLMConfig", "LLMJudge", "RuleJudge"]
