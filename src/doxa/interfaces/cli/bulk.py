"""``doxa import-claims FILE``: a gated bulk import of JSON Lines claims, with a progress bar;
``doxa reindex``: the word entries and vectors facts lack, with progress bars.

Registered on the main ``doxa`` group. Each line is one object of ``remember``'s arguments;
the decisions are the same as writing the lines one by one (see :mod:`doxa.gate.bulk`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from doxa.errors import EmbeddingUnavailable
from doxa.gate.bulk import read_claims
from doxa.interfaces.cli.running import Settings, emit, run_store
from doxa.interfaces.progress import ProgressBar
from doxa.memory import Memory

__all__ = ["import_claims", "reindex"]


@click.command("import-claims")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", default="jsonl", show_default=True, help="Input format.")
@click.option(
    "--batch-size",
    default=2000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Decisions published per atomic change.",
)
@click.pass_obj
def import_claims(settings: Settings, file: Path, fmt: str, batch_size: int) -> None:
    """Write every claim in FILE (JSON Lines) through the gate, in large batches."""

    def action(memory: Memory) -> None:
        rows = read_claims(file, format=fmt)
        with click.progressbar(length=len(rows), label="importing", file=sys.stderr) as bar:
            report = memory.admin.import_claims(rows, batch_size=batch_size, progress=bar.update)
        if settings.json:
            emit(
                {
                    "claims": len(rows),
                    "counts": report.counts,
                    "batches": report.batches,
                    "refused": [{"line": n, "error": m} for n, m in report.refused],
                    "receipts": [r.id for r in report.receipts],
                }
            )
            return
        counts = ", ".join(f"{n} {outcome}" for outcome, n in sorted(report.counts.items()))
        click.echo(
            f"Imported {len(rows)} claim(s) in {report.batches} batch(es): {counts or 'none'}."
        )
        for number, message in report.refused:
            click.echo(f"line {number} refused: {message}", err=True)

    run_store(settings, action)


@click.command()
@click.pass_obj
def reindex(settings: Settings) -> None:
    """Fill in what the derived indexes lack: the word and stem entries of facts written
    before stems existed, then the vectors of facts that have none (the embeddings endpoint,
    DOXA_EMBED_*, was down or slow when they were written, or they predate it)."""

    def action(memory: Memory) -> None:
        report = memory.admin.reindex(
            words_progress=ProgressBar("Indexing words", unit="facts"),
            progress=ProgressBar("Embedding", unit="facts"),
        )
        if report.reason is not None:  # what was filled stays; the rest waits for a rerun
            raise EmbeddingUnavailable(
                f"{report.reason} (filled {report.filled} of {report.lacking}; "
                f"{report.missing} still missing)"
            )
        if settings.json:
            emit(
                {
                    "stemmed": report.stemmed,
                    "vectors": report.vectors,
                    "lacking": report.lacking,
                    "filled": report.filled,
                    "missing": 0,
                }
            )
            return
        if report.stemmed:
            click.echo(f"Indexed the words of {report.stemmed} fact(s) written before stems.")
        if report.vectors:
            click.echo(f"Filled {report.filled} of {report.lacking} missing vector(s).")
        else:
            click.echo(
                "No embeddings endpoint is configured, so no vectors were filled; set "
                "DOXA_EMBED_BASE_URL and DOXA_EMBED_MODEL to fill them."
            )

    run_store(settings, action)
