"""How the ``doxa`` commands show results to a person: tables and short texts.

With ``--json`` a command prints the JSON form instead (:func:`doxa.interfaces.cli.running.emit`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import click

from doxa.interfaces.cli.running import Settings, emit
from doxa.interfaces.presentation import Match, quotation, table, when, written
from doxa.model import Fact, HeldWrite, History, Outcome, Receipt, Relation, Why

__all__ = [
    "fact_text",
    "facts_table",
    "held_table",
    "history_text",
    "receipt_text",
    "receipts_table",
    "show_facts",
    "show_list",
    "show_receipt",
    "show_written",
    "why_text",
]


def fact_text(fact: Fact) -> str:
    """A fact's cell in a table: its words, led by its quotation mark when it is outside
    or unchecked text (as every read shows it), its rule mode, and what to re-check."""
    text = fact.text
    mark = quotation(fact)
    if mark is not None:
        text = f"[{mark}] {text}"
    if fact.rule_mode is not None:
        text = f"[rule: {fact.rule_mode.value}] {text}"
    if fact.needs_rerun:
        text += f"  (absent: re-run {fact.query!r} before trusting)"
    if fact.needs_recheck:
        text += f"  ({fact.basis_ended[-1].reason})"
    return text


def facts_table(facts: Sequence[Fact], *, scored: bool = False) -> str:
    headers = ["id", "status", "authority", "valid from", "valid until", "text"]
    rows = [
        [
            f.id,
            f.status.value,
            f.authority.value,
            when(f.valid_from),
            when(f.valid_until),
            fact_text(f),
        ]
        for f in facts
    ]
    if scored:
        headers.insert(1, "score")
        for f, row in zip(facts, rows, strict=True):
            row.insert(1, "-" if f.score is None else f"{f.score:.2f}")
    return table(headers, rows)


def receipt_text(receipt: Receipt) -> str:
    parts = [receipt.outcome.value]
    if receipt.fact is not None:
        # every receipt's ``fact`` is a fact id: a retraction's is the fact it retracts, a
        # merge's the fact merged into (the ending event has no id of its own to show)
        parts.append(f"fact {receipt.fact}")
    if receipt.relation is not None:
        closes = f" {' '.join(receipt.targets)}" if receipt.targets else ""
        parts.append(f"{receipt.relation.value}{closes}")
    parts.append(f"receipt {receipt.id}")
    lines = ["  ".join(parts)]
    if receipt.reason:
        lines.append(f"  {receipt.reason}")
    if receipt.outcome is Outcome.HELD and receipt.held is not None:
        # an unclear write may ask "replace or add?", which a plain approve cannot answer
        answer = " --as replaces|new|was_wrong" if receipt.relation is Relation.UNCLEAR else ""
        lines.append(
            f"  waiting for the owner: `doxa approve {receipt.held}{answer}` or "
            f"`doxa reject {receipt.held} --reason TEXT`"
        )
    return "\n".join(lines)


def show_receipt(settings: Settings, receipt: Receipt) -> None:
    """A receipt as JSON or as :func:`receipt_text`."""
    if settings.json:
        emit(receipt)
    else:
        click.echo(receipt_text(receipt))


def show_written(settings: Settings, receipt: Receipt, found: Sequence[Match]) -> None:
    """A write's receipt and each stored fact it matched, refined or would replace: as JSON
    (:func:`doxa.interfaces.presentation.written`) or as text, one line a fact."""
    if settings.json:
        emit(written(receipt, found))
        return
    lines = [receipt_text(receipt)]
    for match in found:
        shown = "(erased)" if match.text is None else repr(match.text)
        lines.append(f"  {match.effect.value.replace('_', ' ')} {match.fact}: {shown}")
    click.echo("\n".join(lines))


T = TypeVar("T")


def show_list(
    settings: Settings, items: Sequence[T], empty: str, render: Callable[[Sequence[T]], str]
) -> None:
    """A list as JSON, as ``render`` draws it, or the ``empty`` line when there is none."""
    if settings.json:
        emit(list(items))
    elif not items:
        click.echo(empty)
    else:
        click.echo(render(items))


def show_facts(settings: Settings, facts: Sequence[Fact], *, scored: bool = False) -> None:
    show_list(settings, facts, "No facts.", lambda found: facts_table(found, scored=scored))


def history_text(history: History) -> str:
    fact = history.fact
    lines = [f"{fact.id}  {fact.status.value}  {fact.text}"]
    rows = [
        [when(e.at), e.kind, e.fact, e.other or "-", when(e.valid_until), e.reason]
        for e in history.events
    ]
    lines.append(table(["at", "event", "fact", "other", "valid until", "reason"], rows))
    if history.successors:
        lines.append(f"successors: {', '.join(history.successors)}")
    return "\n".join(lines)


def why_text(why: Why) -> str:
    fact = why.fact
    pairs = [
        ("fact", f"{fact.id}  {fact.status.value}  {fact.text}"),
        ("topic", f"{fact.topic} (kind {fact.kind})"),
        ("authority", f"{fact.authority.value} ({fact.support.value})"),
        ("standpoint", str(fact.standpoint)),
        ("recorded at", when(fact.recorded_at)),
        ("valid", f"{when(fact.valid_from)} .. {when(fact.valid_until)}"),
        ("sources", ", ".join(str(s) for s in why.sources) or "-"),
        ("attributed to", str(why.attributed_to) if why.attributed_to is not None else "-"),
        ("corroborated by", ", ".join(str(c) for c in why.corroborations) or "-"),
    ]
    if fact.confidence is not None:
        pairs.append(("confidence", str(fact.confidence)))
    if fact.query is not None:
        pairs.append(("query", fact.query))
    receipt = why.receipt
    if receipt is None:
        pairs.append(("receipt", "-"))
    else:
        relation = f" ({receipt.relation.value})" if receipt.relation is not None else ""
        pairs.append(
            (
                "receipt",
                f"{receipt.id} #{receipt.sequence} {receipt.outcome.value}{relation} by "
                f"{receipt.judge} {receipt.judge_version} at {when(receipt.recorded_at)}",
            )
        )
        pairs.append(("reason", receipt.reason or "-"))
    width = max(len(key) for key, _ in pairs)
    return "\n".join(f"{key.ljust(width)}  {value}" for key, value in pairs)


def held_table(items: Sequence[HeldWrite]) -> str:
    rows = [
        [
            h.id,
            h.relation.value if h.relation is not None else "-",
            h.status.value,
            h.authority.value,
            when(h.held_at),
            h.text,
            h.reason,
        ]
        for h in items
    ]
    return table(["id", "relation", "status", "authority", "held at", "text", "reason"], rows)


def receipts_table(receipts: Sequence[Receipt]) -> str:
    rows = [
        [
            str(r.sequence),
            r.id,
            r.outcome.value,
            r.relation.value if r.relation is not None else "-",
            r.judge,
            when(r.recorded_at),
            r.fact or "-",
            r.reason,
        ]
        for r in receipts
    ]
    return table(["#", "id", "outcome", "relation", "judge", "recorded at", "fact", "reason"], rows)
