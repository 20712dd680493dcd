"""Judges: each names one relation from the closed list for a write."""

from collections.abc import Mapping

from doxa.judges.base import Evidence, Judge, Needs
from doxa.judges.llm import LLMConfig, LLMJudge, llm_judge_from_config
from doxa.judges.rules import RuleJudge

__all__ = ["Evidence", "Judge", "LLMConfig", "LLMJudge", "Needs", "RuleJudge", "configured_judge"]


def configured_judge(environ: Mapping[str, str] | None = None) -> RuleJudge:
    """The rule judge, with the LLM judge as its fallback for text when ``DOXA_LLM_*`` says so.

    >>> configured_judge({}).fallback is None
    True
    """
    return RuleJudge(fallback=llm_judge_from_config(LLMConfig.from_env(environ)))
