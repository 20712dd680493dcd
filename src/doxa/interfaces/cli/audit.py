"""The record as a whole: ``doxa verify`` (the receipt chain), ``doxa audit`` (the whole scope
against the shapes), ``doxa export``, ``doxa import``."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import click

from doxa.audit.chain import LogHead, check_heads, export_heads
from doxa.audit.validation import REPORT_FORMATS
from doxa.interfaces.cli import options
from doxa.interfaces.cli.running import Settings, attempt, emit, run, run_store
from doxa.interfaces.client import Served
from doxa.interfaces.failures import EXIT_REJECTED
from doxa.interfaces.presentation import audit_json, audit_table
from doxa.interfaces.progress import ProgressBar
from doxa.memory import Memory

__all__ = ["audit", "export", "import_", "verify"]


@click.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--head",
    "heads",
    multiple=True,
    metavar="HASH",
    help="A log head you kept (as verify printed it): fail unless each log ends there.",
)
@click.pass_obj
def verify(settings: Settings, file: Path | None, heads: tuple[str, ...]) -> None:
    """Verify the receipt hash chain: of the open store, or of an export FILE (N-Quads, TriG).

    Prints each log's head (its receipt count and last receipt hash). Keep it: a later
    export verified with `--head HASH` then fails if its newest receipts were cut off, which
    a chain alone cannot tell from a shorter log."""

    def report(logs: dict[str, LogHead], where: str) -> None:
        total = sum(head.receipts for head in logs.values())
        if settings.json:
            emit(
                {
                    "verified": True,
                    "receipts": total,
                    "logs": {log: head.receipts for log, head in logs.items()},
                    "heads": {log: head.hash for log, head in logs.items()},
                }
            )
        else:
            click.echo(f"Verified {total} receipt(s) in {len(logs)} log(s) of {where}.")
            for log, head in sorted(logs.items()):
                click.echo(f"  {log}  {head.receipts}  head {head.hash or '(none)'}")

    if file is None:

        def action(memory: Served) -> None:
            count = memory.verify()
            chain = memory.receipts()
            head = LogHead(count, chain[count - 1].receipt_hash if count else "")
            logs = {str(memory.scope.log): head}
            check_heads(logs, heads)
            report(logs, f"scope {memory.scope.name!r}")

        run(settings, action)
        return
    report(attempt(settings, lambda: export_heads(file, expected=heads)), str(file))


@click.command("audit")
@click.option(
    "--format",
    "report_format",
    type=click.Choice(["table", *REPORT_FORMATS], case_sensitive=False),
    default="table",
    show_default=True,
    help="A table for people, or the SHACL validation report as Turtle or JSON-LD.",
)
@click.option(
    "--infer",
    is_flag=True,
    help="Run owlrl first; its triples go to a derived graph, never into claims.",
)
@click.pass_obj
def audit(settings: Settings, report_format: str, infer: bool) -> None:
    """Validate the whole scope with doxa's shapes and the owner's (`doxa shapes add`); every
    violation with the facts involved. Exits 1 when the scope does not conform."""
    conforms = True

    def action(memory: Served) -> None:
        nonlocal conforms
        report = memory.admin.audit(infer=infer)
        conforms = report.conforms
        if report_format.casefold() != "table":
            click.echo(report.serialize(report_format), nl=False)
        elif settings.json:
            emit(audit_json(report))
        else:
            click.echo(audit_table(report))

    run(settings, action)
    if not conforms:
        raise SystemExit(EXIT_REJECTED)


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--audit", is_flag=True, help="Include the quarantine (everything in the scope).")
@options.export_format
@options.progress
@click.pass_obj
def export(
    settings: Settings, file: Path, audit: bool, rdf_format: str | None, progress: bool
) -> None:
    """Write the scope as canonical N-Quads (RDFC-1.0) or TriG to FILE."""
    bar = ProgressBar("Exporting", force=progress)

    def action(memory: Served) -> None:
        count = memory.admin.export(file, audit=audit, format=rdf_format, progress=bar)
        if settings.json:
            emit({"file": str(file), "quads": count, "audit": audit})
        else:
            click.echo(f"Wrote {count} quad(s) to {file}.")

    run(settings, action)  # through a running server too: GET /export, written here


@click.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@options.rdf_format
@options.progress
@click.pass_obj
def import_(settings: Settings, file: Path, rdf_format: str | None, progress: bool) -> None:
    """Restore an export FILE of the scope into a store where the scope is empty."""
    bar = ProgressBar("Importing", force=progress)

    def action(memory: Memory) -> None:
        count = memory.admin.load_export(file, format=rdf_format, progress=bar)
        if settings.json:
            emit({"file": str(file), "quads": count, "scope": memory.scope.name})
        else:
            click.echo(f"Restored {count} quad(s) from {file} into scope {memory.scope.name!r}.")

    fresh = _absent_store_files(settings.path)
    try:
        run_store(settings, action, creates=True)
    except SystemExit:
        # a failed import into a store it created leaves no empty store behind
        _remove(fresh)
        raise


def _store_files(path: Path) -> set[Path]:
    """The store directory and its siblings (``NAME.journal``, ``NAME.lock`` ...)."""
    if not path.parent.is_dir():
        return set()
    name = path.name
    return {p for p in path.parent.iterdir() if p.name == name or p.name.startswith(name + ".")}


def _absent_store_files(path: Path | None) -> Callable[[], set[Path]]:
    """What the command will have created, asked after it ran: the store's files that do not
    exist yet (nothing, when the store is already there, in memory or on a server)."""
    if path is None or path.exists():
        return set
    before = _store_files(path)
    return lambda: _store_files(path) - before


def _remove(created: Callable[[], set[Path]]) -> None:
    for found in sorted(created(), reverse=True):
        if found.is_dir() and not found.is_symlink():
            shutil.rmtree(found, ignore_errors=True)
        else:
            found.unlink(missing_ok=True)
