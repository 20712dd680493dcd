"""Usage errors (an unknown option or command, a missing argument) under ``--json``.

click prints a usage error on stderr and exits 2 before any doxa code runs, so ``--json``
would leave stdout empty, while docs/cli.md promises one JSON document for every error. The
group below lets click report the error as ever and, when ``--json`` was given, also prints
doxa's error document on stdout first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from doxa.interfaces.cli.running import Settings, emit

__all__ = ["JsonUsageGroup"]

#: the exit code click gives a usage error, the same as docs/cli.md's row for it
USAGE_EXIT = 2


def _wants_json(ctx: click.Context | None, args: Sequence[str]) -> bool:
    """Whether ``--json`` was asked for: from the parsed settings, or, when the error came
    while the global options were still being parsed, from the global options given."""
    settings = ctx.obj if ctx is not None else None
    if isinstance(settings, Settings):
        return settings.json
    if ctx is not None and "as_json" in ctx.params:  # parsed, the callback not yet run
        return bool(ctx.params["as_json"])
    for arg in args:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


def _document(error: click.UsageError) -> dict[str, Any]:
    command = error.ctx.command_path if error.ctx is not None else "doxa"
    message = f"{error.format_message()} See '{command} --help' for what it takes."
    return {"error": {"type": "UsageError", "message": message, "exit_code": USAGE_EXIT}}


class JsonUsageGroup(click.Group):
    """The ``doxa`` group: a usage error anywhere below it also gives the JSON document."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        given = list(args)
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as error:
            if _wants_json(None, given):
                emit(_document(error))
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            if _wants_json(ctx, ()):
                emit(_document(error))
            raise
