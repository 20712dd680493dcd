"""The owner's decisions as commands, built from :data:`doxa.memory.decisions.DECISIONS`.

``doxa approve``, ``reject``, ``retract``, ``confirm``, ``grant``, ``revoke``, ``rescreen``,
``rejudge``, ``alarms clear``, ``quarantine release`` and ``quarantine discard``: one command
per row, its argument the row's target and its options the row's arguments, so the CLI takes
exactly what the Python API, REST, MCP and the review page take (``doxa erase``, which takes
many targets at once, is written by hand in :mod:`doxa.interfaces.cli.owner`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from doxa.interfaces.cli import options
from doxa.interfaces.cli.running import Settings, run
from doxa.interfaces.cli.show import receipt_text, show_list, show_receipt
from doxa.interfaces.client import Served
from doxa.memory.decisions import DECISIONS, Argument, Decision, Returns
from doxa.model import Receipt

__all__ = ["command", "commands"]


def _option(argument: Argument) -> click.Option:
    kind: options.Member | type[str] = str
    if argument.choices is not None and argument.parse is not None:
        kind = options.Member(argument.choices, argument.parse)
    if argument.required:  # no default at all: click then says the option is missing
        return click.Option(
            [argument.flag, argument.name], required=True, type=kind, help=argument.doc
        )
    return click.Option(
        [argument.flag, argument.name],
        default=argument.default,
        show_default=bool(argument.default),
        type=kind,
        help=argument.doc,
    )


def _receipts(items: Sequence[Receipt]) -> str:
    return "\n".join(receipt_text(r) for r in items)


def command(decision: Decision[Any, Any]) -> click.Command:
    """The command of one decision: the target as its argument, each argument an option."""
    target = decision.target

    def act(settings: Settings, **given: Any) -> None:
        named = given.pop(target.parameter) if target is not None else None

        def action(memory: Served) -> None:
            answer = decision.call(memory.owner, named, given)
            if decision.returns is Returns.RECEIPT:
                show_receipt(settings, answer)
            else:
                show_list(settings, answer, decision.empty, _receipts)

        run(settings, action)

    params: list[click.Parameter] = [_option(a) for a in decision.arguments]
    if target is not None:
        params.insert(0, click.Argument([target.parameter], metavar=target.metavar))
    return click.Command(
        decision.cli[-1],
        params=params,
        callback=click.pass_obj(act),
        help=decision.doc,
    )


def commands() -> list[tuple[tuple[str, ...], click.Command]]:
    """Each decision's command with the words it is reached by (``("quarantine",
    "release")`` is ``release`` in the ``quarantine`` group)."""
    return [(d.cli, command(d)) for d in DECISIONS if not d.cli_by_hand]
