"""Attacks on ``JudgeName.parse`` (src/doxa/judges/named.py) not in tests/judges/test_named.py."""

from __future__ import annotations

import pytest

import doxa
from doxa.judges import JudgeName


@pytest.mark.parametrize(
    "value",
    [
        b"rule",
        bytearray(b"llm"),
        memoryview(b"llm"),
        "rule\u200b",
        "r\u0443le",
        "rule\x00",
        "rule+llm\n",
        "RULE+LLM",
        "rule\uff0bllm",
        JudgeName,
    ],
    ids=[
        "bytes",
        "bytearray",
        "memoryview",
        "zero-width",
        "cyrillic-u",
        "nul",
        "newline",
        "upper",
        "fullwidth-plus",
        "the-enum-class",
    ],
)
def test_more_look_alikes_are_refused(value: object) -> None:
    with pytest.raises(doxa.InvalidInput, match="not a valid judge name"):
        JudgeName.parse(value)
    assert JudgeName.parse("rule+llm") is JudgeName.RULE_WITH_LLM  # control
