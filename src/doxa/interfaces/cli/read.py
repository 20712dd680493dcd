"""The ``doxa`` commands that read: facts, recall, history, why, held, receipts, sparql,
vocabulary."""

from __future__ import annotations

import sys
from typing import Any

import click

from doxa.interfaces.cli import options
from doxa.interfaces.cli.running import Settings, emit, run
from doxa.interfaces.cli.show import (
    facts_table,
    held_table,
    history_text,
    receipts_table,
    show_facts,
    show_list,
    why_text,
)
from doxa.interfaces.client import Served
from doxa.interfaces.presentation import sparql_json, table
from doxa.reads.parameters import FACTS, RECALL
from doxa.store.convert import ntriples

__all__ = ["facts", "held", "history", "recall", "receipts", "sparql", "vocabulary", "why"]


@click.command()
@options.read_options(FACTS)
@click.pass_obj
def facts(settings: Settings, /, **given: Any) -> None:
    """List facts true at --valid-at as believed at --as-of."""

    def action(memory: Served) -> None:
        show_facts(settings, memory.facts(**given))

    run(settings, action)


@click.command()
@options.read_options(RECALL)
@click.pass_obj
def recall(settings: Settings, /, **given: Any) -> None:
    """Find facts whose words match TEXT, best first."""
    text = given.pop("text")

    def action(memory: Served) -> None:
        show_facts(settings, memory.recall(text, **given), scored=True)

    run(settings, action)


@click.command()
@click.argument("fact")
@options.as_of
@click.pass_obj
def history(settings: Settings, fact: str, as_of: str | None) -> None:
    """Show a fact and the events that refined, superseded or retracted it."""

    def action(memory: Served) -> None:
        found = memory.history(fact, as_of=as_of)
        if settings.json:
            emit(found)
        else:
            click.echo(history_text(found))

    run(settings, action)


@click.command()
@click.argument("fact")
@click.pass_obj
def why(settings: Settings, fact: str) -> None:
    """Show a fact's evidence and the receipt that let it in."""

    def action(memory: Served) -> None:
        found = memory.why(fact)
        if settings.json:
            emit(found)
        else:
            click.echo(why_text(found))

    run(settings, action)


@click.command()
@click.pass_obj
def held(settings: Settings) -> None:
    """List writes waiting for the owner (or for the judge), oldest first."""
    run(settings, lambda m: show_list(settings, m.held(), "Nothing is held.", held_table))


@click.command()
@click.option("--as-of", help="Belief time (default now).")
@click.pass_obj
def flagged(settings: Settings, as_of: str | None) -> None:
    """List live facts whose basis ended (re-check: confirm, revise or retract them)."""
    run(
        settings,
        lambda m: show_list(settings, m.flagged(as_of=as_of), "Nothing is flagged.", facts_table),
    )


@click.command()
@click.pass_obj
def receipts(settings: Settings) -> None:
    """List every receipt of the scope, in chain order."""
    run(settings, lambda m: show_list(settings, m.receipts(), "No receipts.", receipts_table))


@click.command()
@click.argument("query")
@click.pass_obj
def sparql(settings: Settings, query: str) -> None:
    """Run a read-only SPARQL QUERY over the scope ('-' reads it from stdin)."""
    text = sys.stdin.read() if query == "-" else query

    def action(memory: Served) -> None:
        result = memory.rdf.sparql(text)
        if settings.json:
            emit(sparql_json(result))
        elif result.form == "ask":
            click.echo("true" if result.boolean else "false")
        elif result.form == "construct":
            for s, p, o in result.triples:
                click.echo(f"{ntriples(s)} {ntriples(p)} {ntriples(o)} .")
        else:
            rows = [["" if t is None else ntriples(t) for t in row] for row in result.rows]
            click.echo(table(list(result.variables), rows))

    run(settings, action)  # through a running server too: its SPARQL endpoint


@click.command()
@click.argument("search", required=False)
@click.option("--limit", type=int, default=50, show_default=True, help="At most this many of each.")
@click.pass_obj
def vocabulary(settings: Settings, search: str | None, limit: int) -> None:
    """List the scope's predicates (one or many values) and entities, most used first,
    optionally only those whose name matches SEARCH."""

    def action(memory: Served) -> None:
        found = memory.vocabulary(search, limit=limit)
        if settings.json:
            emit(found)
            return
        rows = [[p.label, p.values, p.source, str(p.uses), p.iri] for p in found.predicates]
        click.echo(table(["predicate", "values", "said by", "uses", "iri"], rows))
        rows = [[e.label, str(e.uses), e.iri] for e in found.entities]
        click.echo(table(["entity", "uses", "iri"], rows))

    run(settings, action)
