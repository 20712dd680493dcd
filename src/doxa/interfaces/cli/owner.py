"""The owner's commands on what is stored: quarantine review, erasure, backups, recovery.

``doxa quarantine [release|discard]``, ``doxa erase``, ``doxa backup``, ``doxa backups``,
``doxa restore`` and ``doxa recover``. Registered on the main ``doxa`` group.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import click

from doxa.audit.backups import accept_loss as give_up_lost
from doxa.audit.purge import PurgeStatus
from doxa.errors import InvalidInput, StoreError
from doxa.interfaces.cli.running import Settings, attempt, emit, print_error, run, run_store
from doxa.interfaces.cli.show import facts_table, show_list, show_receipt
from doxa.memory import Memory
from doxa.memory.opening import restore_backup
from doxa.model import Fact

__all__ = ["backup", "backups", "erase", "quarantine", "recover", "restore"]


@click.group(invoke_without_command=True)
@click.pass_context
def quarantine(ctx: click.Context) -> None:
    """List writes held in quarantine (outside text acting as an instruction)."""
    if ctx.invoked_subcommand is not None:
        return
    settings: Settings = ctx.obj

    def table(items: Sequence[Fact]) -> str:
        return facts_table(items)

    run(
        settings,
        lambda m: show_list(settings, m.owner.quarantined(), "Nothing is quarantined.", table),
    )


@click.command()
@click.argument("targets", metavar="TARGET...", nargs=-1)
@click.option("--reason", default="", help="Why the content must go (kept on the tombstone).")
@click.option("--status", is_flag=True, help="Say where the purge of erased content stands.")
@click.pass_obj
def erase(settings: Settings, targets: tuple[str, ...], reason: str, status: bool) -> None:
    """Erase facts (their ids) or everything about subjects (their IRIs), from every file.

    The content leaves every read at once and a tombstone keeps the id, time, who, why and a
    salted hash, so the same content cannot come back. The store's files are then rebuilt
    without it and every backup is purged, once for all the targets; the command waits for
    that (a `purged` receipt says it is done). Erasing a target again finishes a purge a
    crash interrupted. `--status` says what is still owed.
    """
    if status:
        if targets:
            raise click.UsageError("--status takes no TARGET; run it on its own.")
        run_store(settings, lambda m: _show_purge(settings, m.admin.purge_status()))
        return
    if not targets:
        raise click.UsageError("Name at least one TARGET (a fact id or a subject IRI).")
    if not reason:
        raise click.UsageError("Missing option '--reason': say why the content must go.")

    def action(memory: Memory) -> None:
        receipts = memory.owner.erase_many(list(targets), reason=reason, wait=True)
        if settings.json and len(targets) > 1:
            emit(receipts)  # one JSON document: the list of receipts
            return
        for receipt in receipts:
            show_receipt(settings, receipt)
        if not settings.json and not memory.admin.store_purges_files:
            click.echo(REMOTE_ERASURE, err=True)

    run_store(settings, action)


REMOTE_ERASURE = (
    "The content is gone from every graph, but doxa cannot purge a SPARQL server's own files "
    "(its write-ahead log, journal or checkpoints): purge them with the server's tools "
    '(docs/remote.md, "Erasure on a server").'
)


def _show_purge(settings: Settings, status: PurgeStatus) -> None:
    if settings.json:
        emit(status.as_json())
        return
    state = "running" if status.running else "idle"
    line = f"Purge {state}: {status.owed} erasure(s) owed, {status.purged} purged by this process"
    if status.phase:
        line += f", now at {status.phase}"
    click.echo(line + ".")
    if status.error:
        click.echo(f"Last attempt failed: {status.error}", err=True)


@click.command()
@click.pass_obj
def backup(settings: Settings) -> None:
    """Back the store up into <store>.backups/<time>."""

    def action(memory: Memory) -> None:
        where = memory.admin.backup()
        if settings.json:
            emit({"backup": str(where)})
        else:
            click.echo(f"Backed up to {where}.")

    run_store(settings, action)


@click.command()
@click.pass_obj
def backups(settings: Settings) -> None:
    """List the store's backups, oldest first."""

    def action(memory: Memory) -> None:
        found = memory.admin.backups()
        if settings.json:
            emit([str(p) for p in found])
        elif not found:
            click.echo("No backups.")
        else:
            for path in found:
                click.echo(str(path))

    run_store(settings, action)


def _offline(settings: Settings, action: str) -> Path:
    if settings.server is not None:
        raise InvalidInput(
            f"`doxa {action}` works on the store's files, not through the server at "
            f"{settings.server}; stop the server and run it on the store directory."
        )
    if settings.path is None:
        raise StoreError(f"`doxa {action}` works on a store directory, not {settings.store}.")
    return settings.path


@click.command()
@click.argument("backup_dir", metavar="BACKUP", type=click.Path(path_type=Path))
@click.pass_obj
def restore(settings: Settings, backup_dir: Path) -> None:
    """Put BACKUP in place of the store; erasures recorded since are applied again.

    The replaced store is kept as a backup (<time>-replaced), so nothing is lost.
    """
    _offlinerun(settings, "restore", lambda path: restore_backup(path, backup_dir), "restored")


@click.command()
@click.option(
    "--accept-loss", "accept", is_flag=True, help="Say you accept losing those decisions."
)
@click.pass_obj
def recover(settings: Settings, accept: bool) -> None:
    """Accept that a crash lost acknowledged decisions, when no backup holds them.

    Cuts doxa's journal back to what the store has; prefer `doxa restore` when a backup
    holds the lost decisions.
    """
    if not accept:
        print_error(
            settings,
            "InvalidInput",
            "Nothing was changed; run `doxa recover --accept-loss` to give up the lost "
            "decisions, or `doxa restore BACKUP` to get them back.",
            2,
        )
        raise SystemExit(2)
    _offlinerun(settings, "recover", give_up_lost, "gave up")


def _offlinerun(
    settings: Settings, name: str, work: Callable[[Path], dict[str, int]], verb: str
) -> None:
    result = attempt(settings, lambda: work(_offline(settings, name)))
    if settings.json:
        emit({"scopes": result})
    elif name == "restore":
        again = sum(result.values())
        click.echo(f"Restored; {again} erasure(s) recorded since the backup were applied again.")
    else:
        lost = ", ".join(f"{scope}: {n}" for scope, n in sorted(result.items())) or "nothing"
        click.echo(f"The journal now matches the store ({verb} {lost}).")
