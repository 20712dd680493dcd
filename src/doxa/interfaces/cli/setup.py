"""Setting a store up: ``doxa init`` and ``doxa ontology add``."""

from __future__ import annotations

from pathlib import Path

import click

from doxa.interfaces.cli.running import MEMORY, Settings, emit, run
from doxa.interfaces.location import is_url
from doxa.memory import Memory

__all__ = ["init", "ontology"]


@click.command()
@click.pass_obj
def init(settings: Settings) -> None:
    """Create (or open) the store and the scope, and say where they are."""
    where = MEMORY if settings.path is None else str(settings.path.resolve())
    where = settings.store if is_url(settings.store) else where

    def action(memory: Memory) -> None:
        if settings.json:
            emit(
                {
                    "store": where,
                    "scope": memory.scope.name,
                    "in_memory": settings.store == MEMORY,
                }
            )
        elif is_url(settings.store):
            click.echo(f"Connected to the SPARQL server at {where} (scope {memory.scope.name!r}).")
        elif settings.path is None:
            click.echo(
                f"Opened an in-memory store (scope {memory.scope.name!r}); it is gone "
                "when the command ends."
            )
        else:
            click.echo(f"Opened the store at {where} (scope {memory.scope.name!r}).")

    run(settings, action, creates=True)


@click.group()
def ontology() -> None:
    """Manage the domain ontology the judge reads."""


@ontology.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "rdf_format", help="RDF format (default: from the file's suffix).")
@click.pass_obj
def ontology_add(settings: Settings, file: Path, rdf_format: str | None) -> None:
    """Load a domain ontology FILE (e.g. functional properties) into the store."""

    def action(memory: Memory) -> None:
        count = memory.add_ontology(file, format=rdf_format)
        if settings.json:
            emit({"file": str(file), "triples": count})
        else:
            click.echo(f"Added {count} triple(s) from {file} to the ontology.")

    run(settings, action)
