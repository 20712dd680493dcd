"""Judges chosen by name: the one place an interface turns ``--judge`` into a judge.

Every entry point (the CLI, ``doxa serve``, the MCP server) builds its judge here from a
name and the ``DOXA_LLM_*`` configuration, so each offers the same judges under the same
names and refuses the same mistakes with the same message.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping

from doxa.errors import InvalidInput
from doxa.judges.base import Judge
from doxa.judges.llm import LLMConfig, LLMJudge, llm_judge_from_config
from doxa.judges.rules import RuleJudge

__all__ = ["JudgeName", "configured_judge", "judge_named"]


class JudgeName(enum.Enum):
    """The judges an interface can be told to use."""

    #: the rule judge alone: deterministic, offline; text it cannot decide is ``new``
    RULE = "rule"
    #: the LLM judge alone, for every write
    LLM = "llm"
    #: the rule judge, handing the text-only writes it cannot decide to the LLM judge
    RULE_WITH_LLM = "rule+llm"

    @classmethod
    def parse(cls, value: object) -> JudgeName:
        """The judge ``value`` names: the member itself or its exact value.

        Anything else is refused, never folded into a member: another case (``"Rule"``),
        the member's Python name (``"RULE"``), surrounding space, look-alike letters, and
        values that are not strings (a subclass of ``str`` is read as its plain value).

        >>> JudgeName.parse("rule+llm") is JudgeName.RULE_WITH_LLM
        True
        >>> JudgeName.parse("LLM")
        Traceback (most recent call last):
        ...
        doxa.errors.InvalidInput: 'LLM' is not a valid judge name; use one of: rule, llm, rule+llm.
        """
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            text = str.__str__(value)  # a plain str: a subclass's __eq__ decides nothing
            for member in cls:
                if member.value == text:
                    return member
        allowed = ", ".join(m.value for m in cls)
        shown = repr(value)
        if len(shown) > 80:  # a message names the value, it does not echo a megabyte back
            shown = shown[:77] + "..."
        raise InvalidInput(f"{shown} is not a valid judge name; use one of: {allowed}.")


def judge_named(name: JudgeName | str, config: LLMConfig | None) -> Judge:
    """The judge ``name`` names, asking the LLM endpoint ``config`` describes if it uses one.

    Raises :class:`~doxa.InvalidInput` for an unknown name, or for a judge that uses the
    LLM when no endpoint is configured.

    >>> judge_named("rule", None).name
    'rule'
    """
    chosen = JudgeName.parse(name)
    if chosen is JudgeName.RULE:
        return RuleJudge()
    if config is None:
        raise InvalidInput(
            f"The {chosen.value!r} judge asks an LLM, but none is configured: set "
            "DOXA_LLM_MODEL (and DOXA_LLM_BASE_URL for an endpoint other than OpenAI's, "
            "DOXA_LLM_API_KEY if it needs a key), or choose the 'rule' judge."
        )
    if chosen is JudgeName.LLM:
        return LLMJudge(config)
    return RuleJudge(fallback=LLMJudge(config))


def configured_judge(
    environ: Mapping[str, str] | None = None, name: JudgeName | str | None = None
) -> Judge:
    """The judge ``name`` names, its LLM configured by ``DOXA_LLM_*`` in ``environ``.

    Without a name: the rule judge, with the LLM judge as its fallback for text when
    ``DOXA_LLM_*`` configures one. ``rule`` reads no ``DOXA_LLM_*`` at all.

    >>> configured_judge({}).needs.similar_texts
    False
    >>> configured_judge({"DOXA_LLM_MODEL": "m"}, name="rule").needs.similar_texts
    False
    """
    chosen = None if name is None else JudgeName.parse(name)
    if chosen is JudgeName.RULE:
        return RuleJudge()  # asks no LLM: a DOXA_LLM_* set for another use is not read
    config = LLMConfig.from_env(environ)
    if chosen is None:
        return RuleJudge(fallback=llm_judge_from_config(config))
    return judge_named(chosen, config)
