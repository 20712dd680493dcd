"""The ``doxa`` command: a thin skin over :class:`doxa.Memory`, one module per family of commands.

Every command opens the store named by ``--store`` (default ``$DOXA_STORE``, else
``./memory``; ``:memory:`` keeps it in memory for one command; an ``http(s)://`` URL is a
SPARQL 1.1 server, with ``--update-url`` for its update endpoint: docs/remote.md) in the
scope named by ``--scope``
(default ``$DOXA_SCOPE``, else ``default``), calls one method of :class:`~doxa.Memory`, prints
the result and closes the store. ``--json`` prints one JSON document on stdout instead of
tables. ``--server URL`` (or a local ``doxa serve`` found holding the store) sends the same
commands to a running server's REST API (:mod:`doxa.interfaces.client`). Errors print one
line ``error: <message>`` on stderr.

Exit codes (the table is :mod:`doxa.interfaces.failures`):

=====  ===============================================================================
code   meaning
=====  ===============================================================================
0      success; a held write is a success too (its receipt says ``held``)
1      the write was rejected by the shapes; each failed constraint is printed
2      usage error, or a value doxa cannot take (:class:`~doxa.InvalidInput`)
3      an id or a file that does not exist (:class:`~doxa.NotFound`)
4      the store or a file cannot be opened, read or written (:class:`~doxa.StoreError`,
       including :class:`~doxa.StoreLocked`)
5      the receipt hash chain does not verify (:class:`~doxa.ChainBroken`)
6      the gate itself failed (:class:`~doxa.ShapeCheckFailed` and other doxa errors)
=====  ===============================================================================

A program that embeds the command may pass a :class:`doxa.Clock` as click's ``obj``
(``main(args, obj=clock)``); the memory then reads the time from it. Tests use this to say
"it is 9 March 2026"; the command line itself always uses the system clock.
"""

from __future__ import annotations

import os
from typing import cast

import click
from click.core import ParameterSource

from doxa import __version__
from doxa.clock import Clock
from doxa.interfaces.cli import (
    audit,
    bulk,
    decide,
    files,
    judge,
    owner,
    read,
    serving,
    setup,
    write,
)
from doxa.interfaces.cli.running import Settings
from doxa.interfaces.cli.usage import JsonUsageGroup
from doxa.interfaces.logs import quiet_libraries
from doxa.text import DEFAULT_LANGUAGE

__all__ = ["main"]


@click.group(cls=JsonUsageGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="doxa")
@click.option(
    "--store",
    envvar="DOXA_STORE",
    default="./memory",
    show_default=True,
    metavar="PATH|URL",
    help="Store directory (env DOXA_STORE); ':memory:' keeps it in memory for one command; "
    "an http(s) URL is a SPARQL 1.1 server's query endpoint.",
)
@click.option(
    "--update-url",
    envvar="DOXA_UPDATE_URL",
    default=None,
    metavar="URL",
    help="The server's SPARQL update endpoint (env DOXA_UPDATE_URL); default: the --store URL.",
)
@click.option(
    "--scope",
    envvar="DOXA_SCOPE",
    default="default",
    show_default=True,
    metavar="NAME",
    help="Scope: whose memory (env DOXA_SCOPE).",
)
@click.option(
    "--judge",
    envvar="DOXA_JUDGE",
    default=None,
    metavar="NAME",
    help="Which judge decides writes (env DOXA_JUDGE): rule, llm or rule+llm. Default: the "
    "rule judge, with the LLM judge as its fallback when DOXA_LLM_* configures one.",
)
@click.option(
    "--language",
    envvar="DOXA_LANGUAGE",
    default=DEFAULT_LANGUAGE,
    show_default=True,
    metavar="NAME",
    help="The Snowball language recall stems the scope's words in (env DOXA_LANGUAGE): "
    "english, french, german, spanish …; open a scope with the same one each time.",
)
@click.option(
    "--server",
    envvar="DOXA_SERVER",
    default=None,
    metavar="URL",
    help="A running doxa server (env DOXA_SERVER), e.g. http://127.0.0.1:8000: commands go "
    "through its REST API with the key in $DOXA_KEY, not to the store. Without it, a command "
    "whose store a local `doxa serve` holds goes through that server by itself.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.pass_context
def main(
    ctx: click.Context,
    store: str,
    update_url: str | None,
    scope: str,
    judge: str | None,
    language: str,
    server: str | None,
    as_json: bool,
) -> None:
    """doxa: an agent memory with one gated way in.

    Exit codes: 0 success (a held write too), 1 rejected by the shapes, 2 usage error or
    invalid input, 3 not found, 4 store error (or locked), 5 receipt chain broken,
    6 the gate itself failed.
    """
    quiet_libraries()
    given = ctx.obj
    clock = cast(Clock, given) if callable(getattr(given, "now", None)) else None
    ctx.obj = Settings(
        store=store,
        scope=scope,
        json=as_json,
        clock=clock,
        update_url=update_url,
        judge=judge,
        scope_named=ctx.get_parameter_source("scope") is not ParameterSource.DEFAULT,
        language=language,
        server=server,
        key=os.environ.get("DOXA_KEY") or None,  # never an option: `ps` would show it
    )


for _command in (
    setup.init,
    setup.ontology,
    setup.shapes,
    write.remember,
    bulk.import_claims,
    bulk.reindex,
    read.facts,
    read.recall,
    read.history,
    read.why,
    read.held,
    read.flagged,
    read.receipts,
    read.sparql,
    read.vocabulary,
    audit.verify,
    audit.audit,
    audit.export,
    audit.import_,
    judge.judge,
    judge.stats,
    judge.alarms,
    owner.quarantine,
    owner.erase,
    owner.backup,
    owner.backups,
    owner.restore,
    owner.recover,
    serving.mcp,
    serving.serve,
    files.render,
    files.sync,
):
    main.add_command(_command)

# the owner's decisions, one command per row of doxa.memory.decisions.DECISIONS
for _words, _decision in decide.commands():
    _group: click.Group = main
    for _word in _words[:-1]:
        _found = _group.commands[_word]
        assert isinstance(_found, click.Group), _word
        _group = _found
    _group.add_command(_decision, _words[-1])
