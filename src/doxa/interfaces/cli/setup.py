"""Setting a store up: ``doxa init``, ``doxa ontology add`` and ``doxa shapes add``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from doxa.interfaces.cli.running import MEMORY, Settings, emit, run, run_store
from doxa.interfaces.client import Served
from doxa.interfaces.location import is_url
from doxa.memory import Memory
from doxa.ontology.sources import source_name
from doxa.store.convert import ntriples

__all__ = ["init", "ontology", "shapes"]


@click.command()
@click.pass_obj
def init(settings: Settings) -> None:
    """Create (or open) the store and the scope, and say where they are."""
    where = MEMORY if settings.path is None else str(settings.path.resolve())
    where = settings.store if is_url(settings.store) else where

    def action(memory: Served) -> None:
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
@click.option("--name", help="The source's name (default: the file's name, lower-cased).")
@click.pass_obj
def ontology_add(settings: Settings, file: Path, rdf_format: str | None, name: str | None) -> None:
    """Load a domain ontology FILE (e.g. functional properties) into the store; adding a
    file of the same name again replaces what it added before."""

    def action(memory: Memory) -> None:
        count = memory.schema.add_ontology(file, format=rdf_format, name=name)
        source = source_name(name or file.name)
        if settings.json:
            emit({"file": str(file), "source": source, "triples": count})
        else:
            click.echo(f"Added {count} triple(s) from {file} to the ontology (source {source!r}).")

    run_store(settings, action)


@ontology.command("list")
@click.pass_obj
def ontology_list(settings: Settings) -> None:
    """List the ontology sources this store was given, with their triple counts."""

    def action(memory: Memory) -> None:
        _list_sources(
            settings,
            memory.schema.ontology_sources(),
            "No ontology source was added; doxa's own ontology only.",
        )

    run_store(settings, action)


@ontology.command("show")
@click.argument("name")
@click.pass_obj
def ontology_show(settings: Settings, name: str) -> None:
    """Print the triples ontology source NAME added, as N-Triples."""

    def action(memory: Memory) -> None:
        triples = memory.schema.ontology_source(name)
        lines = [f"{ntriples(s)} {ntriples(p)} {ntriples(o)} ." for s, p, o in triples]
        if settings.json:
            emit({"name": source_name(name), "triples": lines})
        else:
            for line in lines:
                click.echo(line)

    run_store(settings, action)


@ontology.command("remove")
@click.argument("name")
@click.pass_obj
def ontology_remove(settings: Settings, name: str) -> None:
    """Remove ontology source NAME; the closure is rebuilt at once (a triple another source
    also states stays)."""

    def action(memory: Memory) -> None:
        gone = memory.schema.remove_ontology(name)
        if settings.json:
            emit({"name": source_name(name), "removed": gone})
        else:
            click.echo(
                f"Removed source {source_name(name)!r}: {gone} triple(s) left the ontology; "
                "the closure was rebuilt."
            )

    run_store(settings, action)


@click.group()
def shapes() -> None:
    """Manage the owner's domain shapes (SHACL) that `doxa audit` applies."""


@shapes.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "rdf_format", help="RDF format (default: from the file's suffix).")
@click.option("--name", help="The source's name (default: the file's name, lower-cased).")
@click.pass_obj
def shapes_add(settings: Settings, file: Path, rdf_format: str | None, name: str | None) -> None:
    """Keep a SHACL shapes FILE for audits; adding a file of the same name again replaces it."""

    def action(memory: Memory) -> None:
        count = memory.schema.add_shapes(file, format=rdf_format, name=name)
        source = source_name(name or file.name)
        if settings.json:
            emit({"file": str(file), "source": source, "triples": count})
        else:
            click.echo(f"Added {count} triple(s) of shapes from {file} (source {source!r}).")

    run_store(settings, action)


@shapes.command("list")
@click.pass_obj
def shapes_list(settings: Settings) -> None:
    """List the shapes files added, with their triple counts."""

    def action(memory: Memory) -> None:
        _list_sources(
            settings,
            memory.schema.shapes_sources(),
            "No shapes were added; audits apply doxa's own shapes only.",
        )

    run_store(settings, action)


@shapes.command("remove")
@click.argument("name")
@click.pass_obj
def shapes_remove(settings: Settings, name: str) -> None:
    """Remove shapes source NAME."""

    def action(memory: Memory) -> None:
        gone = memory.schema.remove_shapes(name)
        if settings.json:
            emit({"name": source_name(name), "removed": gone})
        else:
            click.echo(f"Removed shapes source {source_name(name)!r} ({gone} triple(s)).")

    run_store(settings, action)


def _list_sources(settings: Settings, sources: Sequence[Any], empty: str) -> None:
    """Print named sources (ontology or shapes files) with their triple counts, one way."""
    if settings.json:
        emit([{"name": s.name, "triples": s.triples} for s in sources])
    elif not sources:
        click.echo(empty)
    else:
        for source in sources:
            click.echo(f"{source.name}\t{source.triples} triple(s)")
