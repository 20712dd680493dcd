"""``doxa render`` and ``doxa sync``: memory as a folder of Markdown files (docs/files.md)."""

from __future__ import annotations

from pathlib import Path

import click

from doxa.interfaces.cli import options
from doxa.interfaces.cli.running import Settings, emit, run_store
from doxa.interfaces.git_history import commit_message, commit_render
from doxa.memory import Memory
from doxa.reads.folder import Folder
from doxa.reads.projection import MANIFEST, read_manifest

__all__ = ["render", "sync"]


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@options.valid_at
@options.as_of
@click.option("--include-ended", is_flag=True, help="Also ended facts, struck through (read only).")
@click.option(
    "--git", "commit", is_flag=True, help="Commit the render to a git repository in FOLDER."
)
@click.pass_obj
def render(
    settings: Settings,
    folder: Path,
    valid_at: str | None,
    as_of: str | None,
    include_ended: bool,
    commit: bool,
) -> None:
    """Write the scope into FOLDER: one Markdown file per topic, one fact per line."""

    def action(memory: Memory) -> None:
        previous = None
        if (folder / MANIFEST).exists() or (folder / MANIFEST).is_symlink():
            with Folder(folder) as where:
                previous = read_manifest(where)
        rendered = memory.files.render(
            folder, valid_at=valid_at, as_of=as_of, include_ended=include_ended
        )
        committed = commit and commit_render(folder, commit_message(memory, rendered, previous))
        names = sorted(rendered.files)
        if settings.json:
            emit({"folder": str(folder), "files": names, "committed": committed})
        else:
            click.echo(f"rendered {len(names) - 1} topic file(s) and MEMORY.md into {folder}")
            if commit:
                click.echo("committed" if committed else "nothing to commit: no change")

    run_store(settings, action)


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option(
    "--as",
    "authority",
    type=click.Choice(["owner", "agent"]),
    default="agent",
    show_default=True,
    help="Whose words the edits are.",
)
@click.option(
    "--retract",
    multiple=True,
    metavar="FACT_ID",
    help="A fact a whole-file rewrite drops on purpose (repeatable): asked to be retracted.",
)
@click.pass_obj
def sync(settings: Settings, folder: Path, authority: str, retract: tuple[str, ...]) -> None:
    """Send the edits made in FOLDER through the gate, then render it again."""

    def action(memory: Memory) -> None:
        report = memory.files.sync(folder, authority=authority, retract=retract)
        if settings.json:
            emit(report.to_json())
        else:
            for line in report.lines():
                click.echo(line)

    run_store(settings, action)
