"""The ``doxa`` command: a thin skin over :class:`doxa.Memory`.

Every command opens the store named by ``--store`` (default ``$DOXA_STORE``, else
``./memory``; ``:memory:`` keeps it in memory for one command; an ``http(s)://`` URL is a
SPARQL 1.1 server, with ``--update-url`` for its update endpoint: docs/remote.md) in the
scope named by ``--scope``
(default ``$DOXA_SCOPE``, else ``default``), calls one method of :class:`~doxa.Memory`, prints
the result and closes the store. ``--json`` prints one JSON document on stdout instead of
tables. Errors print one line ``error: <message>`` on stderr.

Exit codes:

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

import dataclasses
import enum
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar, cast

import click
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.term import Node

from doxa import __version__
from doxa.audit.chain import verify_export
from doxa.clock import Clock
from doxa.errors import (
    ChainBroken,
    DoxaError,
    InvalidInput,
    NotFound,
    ShapeViolation,
    StoreError,
)
from doxa.interfaces.location import is_url, open_memory
from doxa.interfaces.progress import ProgressBar
from doxa.memory import Memory
from doxa.model import (
    Authority,
    Fact,
    HeldWrite,
    History,
    Outcome,
    Receipt,
    Relation,
    RuleMode,
    Support,
    Why,
)
from doxa.store.convert import ntriples
from doxa.terms import literal

__all__ = ["main"]

MEMORY = ":memory:"

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_STORE = 4
EXIT_CHAIN = 5
EXIT_GATE = 6


@dataclass(frozen=True)
class Settings:
    """What the global options said, handed to every command."""

    store: str
    scope: str
    json: bool
    clock: Clock | None = None
    update_url: str | None = None

    @property
    def path(self) -> Path | None:
        """The store directory, or ``None`` for an in-memory store or a server."""
        return None if self.store == MEMORY or is_url(self.store) else Path(self.store)


class _Rejected(Exception):
    """A write the shapes rejected: its receipt, printed before exiting with code 1."""

    def __init__(self, receipt: Receipt) -> None:
        super().__init__(receipt.reason)
        self.receipt = receipt


# -- running a command ---------------------------------------------------------------


def _exit_code(error: DoxaError) -> int:
    if isinstance(error, ShapeViolation):
        return EXIT_REJECTED
    if isinstance(error, InvalidInput):
        return EXIT_USAGE
    if isinstance(error, NotFound):
        return EXIT_NOT_FOUND
    if isinstance(error, ChainBroken):
        return EXIT_CHAIN
    if isinstance(error, StoreError):
        return EXIT_STORE
    return EXIT_GATE


def _within(settings: Settings, action: Callable[[Memory], None]) -> None:
    # The memory lives only in this frame, so nothing keeps the store open once the
    # command is over (an open store keeps its directory locked).
    with open_memory(
        settings.store, settings.update_url, scope=settings.scope, clock=settings.clock
    ) as memory:
        action(memory)


def _run(settings: Settings, action: Callable[[Memory], None]) -> None:
    """Open the memory, run ``action``, close; turn doxa's errors into a line and a code."""
    code, message, name = EXIT_OK, "", ""
    receipt: Receipt | None = None
    try:
        _within(settings, action)
    except _Rejected as rejected:
        code, receipt = EXIT_REJECTED, rejected.receipt
    except DoxaError as error:
        code, message, name = _exit_code(error), str(error), type(error).__name__
    # exit outside the handlers, so the exception (and the frames holding the store) is gone
    if receipt is not None:
        _print_rejection(settings, receipt)
    elif code:
        _print_error(settings, name, message, code)
    if code:
        raise SystemExit(code)


def _print_error(settings: Settings, name: str, message: str, code: int) -> None:
    if settings.json:
        _emit({"error": {"type": name, "message": message, "exit_code": code}})
    click.echo(f"error: {message}", err=True)


def _print_rejection(settings: Settings, receipt: Receipt) -> None:
    if settings.json:
        _emit(receipt)
    count = len(receipt.failures)
    click.echo(
        f"error: the write was rejected by {count} constraint(s); nothing was stored but "
        f"receipt {receipt.id}. Fix these and write again:",
        err=True,
    )
    for failure in receipt.failures:
        click.echo(f"  {failure}", err=True)


# -- JSON -------------------------------------------------------------------------------


def _plain(value: object) -> object:
    """A JSON-ready copy: dataclasses as objects, enums by value, dates ISO 8601, terms as text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, Fact):
            out["needs_rerun"] = value.needs_rerun
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Node):
        return str(value)
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    return value


def _emit(value: object) -> None:
    click.echo(json.dumps(_plain(value), indent=2, ensure_ascii=False))


def _sparql_term(term: Node) -> dict[str, str]:
    """One term in the SPARQL 1.1 Query Results JSON form."""
    if isinstance(term, URIRef):
        return {"type": "uri", "value": str(term)}
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    if isinstance(term, Literal):
        out = {"type": "literal", "value": str(term)}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype is not None:
            out["datatype"] = str(term.datatype)
        return out
    return {"type": "literal", "value": str(term)}


# -- human output ---------------------------------------------------------------------


def _when(moment: datetime | None) -> str:
    """A date alone when it is midnight UTC, else the instant to the second."""
    if moment is None:
        return "-"
    if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
        return moment.date().isoformat()
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell; the last column runs free."""
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        padded = [cell.ljust(widths[i]) for i, cell in enumerate(cells[:-1])]
        return "  ".join([*padded, cells[-1]]).rstrip()

    return "\n".join([line(headers), *(line(row) for row in rows)])


def _fact_text(fact: Fact) -> str:
    text = fact.text
    if fact.rule_mode is not None:
        text = f"[rule: {fact.rule_mode.value}] {text}"
    if fact.needs_rerun:
        text += f"  (absent: re-run {fact.query!r} before trusting)"
    return text


def _facts_table(facts: Sequence[Fact], *, scored: bool = False) -> str:
    headers = ["id", "status", "authority", "valid from", "valid until", "text"]
    rows = [
        [
            f.id,
            f.status.value,
            f.authority.value,
            _when(f.valid_from),
            _when(f.valid_until),
            _fact_text(f),
        ]
        for f in facts
    ]
    if scored:
        headers.insert(1, "score")
        for f, row in zip(facts, rows, strict=True):
            row.insert(1, "-" if f.score is None else f"{f.score:.2f}")
    return _table(headers, rows)


def _receipt_text(receipt: Receipt) -> str:
    parts = [receipt.outcome.value]
    if receipt.fact is not None:
        # a closing receipt decides an ending event, not a fact
        noun = "event" if receipt.outcome is Outcome.CLOSED else "fact"
        parts.append(f"{noun} {receipt.fact}")
    if receipt.relation is not None:
        closes = f" {' '.join(receipt.targets)}" if receipt.targets else ""
        parts.append(f"{receipt.relation.value}{closes}")
    parts.append(f"receipt {receipt.id}")
    lines = ["  ".join(parts)]
    if receipt.reason:
        lines.append(f"  {receipt.reason}")
    if receipt.outcome is Outcome.HELD and receipt.held is not None:
        lines.append(
            f"  waiting for the owner: `doxa approve {receipt.held}` or "
            f"`doxa reject {receipt.held} --reason TEXT`"
        )
    return "\n".join(lines)


def _show_receipt(settings: Settings, receipt: Receipt) -> None:
    if settings.json:
        _emit(receipt)
    else:
        click.echo(_receipt_text(receipt))


T = TypeVar("T")


def _show_list(
    settings: Settings, items: Sequence[T], empty: str, table: Callable[[Sequence[T]], str]
) -> None:
    if settings.json:
        _emit(list(items))
    elif not items:
        click.echo(empty)
    else:
        click.echo(table(items))


def _show_facts(settings: Settings, facts: Sequence[Fact], *, scored: bool = False) -> None:
    _show_list(settings, facts, "No facts.", lambda found: _facts_table(found, scored=scored))


def _history_text(history: History) -> str:
    fact = history.fact
    lines = [f"{fact.id}  {fact.status.value}  {fact.text}"]
    rows = [
        [_when(e.at), e.kind, e.fact, e.other or "-", _when(e.valid_until), e.reason]
        for e in history.events
    ]
    lines.append(_table(["at", "event", "fact", "other", "valid until", "reason"], rows))
    if history.successors:
        lines.append(f"successors: {', '.join(history.successors)}")
    return "\n".join(lines)


def _why_text(why: Why) -> str:
    fact = why.fact
    pairs = [
        ("fact", f"{fact.id}  {fact.status.value}  {fact.text}"),
        ("topic", f"{fact.topic} (kind {fact.kind})"),
        ("authority", f"{fact.authority.value} ({fact.support.value})"),
        ("standpoint", str(fact.standpoint)),
        ("recorded at", _when(fact.recorded_at)),
        ("valid", f"{_when(fact.valid_from)} .. {_when(fact.valid_until)}"),
        ("sources", ", ".join(str(s) for s in why.sources) or "-"),
        ("attributed to", str(why.attributed_to) if why.attributed_to is not None else "-"),
        ("corroborated by", ", ".join(str(c) for c in why.corroborations) or "-"),
    ]
    if fact.confidence is not None:
        pairs.append(("confidence", str(fact.confidence)))
    if fact.query is not None:
        pairs.append(("query", fact.query))
    receipt = why.receipt
    if receipt is None:
        pairs.append(("receipt", "-"))
    else:
        relation = f" ({receipt.relation.value})" if receipt.relation is not None else ""
        pairs.append(
            (
                "receipt",
                f"{receipt.id} #{receipt.sequence} {receipt.outcome.value}{relation} by "
                f"{receipt.judge} {receipt.judge_version} at {_when(receipt.recorded_at)}",
            )
        )
        pairs.append(("reason", receipt.reason or "-"))
    width = max(len(key) for key, _ in pairs)
    return "\n".join(f"{key.ljust(width)}  {value}" for key, value in pairs)


def _held_table(items: Sequence[HeldWrite]) -> str:
    rows = [
        [
            h.id,
            h.relation.value if h.relation is not None else "-",
            h.status.value,
            h.authority.value,
            _when(h.held_at),
            h.text,
            h.reason,
        ]
        for h in items
    ]
    return _table(["id", "relation", "status", "authority", "held at", "text", "reason"], rows)


def _receipts_table(receipts: Sequence[Receipt]) -> str:
    rows = [
        [
            str(r.sequence),
            r.id,
            r.outcome.value,
            r.relation.value if r.relation is not None else "-",
            r.judge,
            _when(r.recorded_at),
            r.fact or "-",
            r.reason,
        ]
        for r in receipts
    ]
    return _table(
        ["#", "id", "outcome", "relation", "judge", "recorded at", "fact", "reason"], rows
    )


# -- option types ---------------------------------------------------------------------


class _Member(click.Choice[str]):
    """An enum option: ``--help`` lists the values, and the enum's own ``parse`` (the one the
    Python API, REST and MCP share) reads what was typed, so the command gets the member."""

    def __init__(self, members: type[enum.Enum], parse: Callable[[object], enum.Enum]) -> None:
        super().__init__([str(m.value) for m in members])
        self._parse = parse

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> Any:
        try:
            return self._parse(value)
        except InvalidInput as error:
            self.fail(str(error), param, ctx)


def _choice(members: type[enum.Enum], parse: Callable[[object], enum.Enum]) -> _Member:
    return _Member(members, parse)


def _datatype(value: str) -> URIRef:
    if value.startswith("xsd:"):
        named = URIRef("http://www.w3.org/2001/XMLSchema#" + value[4:])
        if named not in XSD:  # XSD[name] only warns for a name XSD does not define
            raise click.BadParameter(
                f"{value!r} is not an XSD datatype; use one such as xsd:gYear or xsd:integer, "
                "or a full IRI.",
                param_hint="'--datatype'",
            )
        return named
    if value.startswith(("http://", "https://", "urn:")):
        return URIRef(value)
    raise click.BadParameter(
        f"{value!r} is not a datatype; use xsd:NAME (such as xsd:gYear) or a full IRI.",
        param_hint="'--datatype'",
    )


def _literal(lexical: str, datatype: URIRef | None) -> Literal:
    """A literal as given; a bad one is reported as the gate reports it."""
    return literal(lexical, datatype=str(datatype) if datatype is not None else None)


# -- the commands ---------------------------------------------------------------------


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.pass_context
def main(ctx: click.Context, store: str, update_url: str | None, scope: str, as_json: bool) -> None:
    """doxa: an agent memory with one gated way in.

    Exit codes: 0 success (a held write too), 1 rejected by the shapes, 2 usage error or
    invalid input, 3 not found, 4 store error (or locked), 5 receipt chain broken,
    6 the gate itself failed.
    """
    given = ctx.obj
    clock = cast(Clock, given) if callable(getattr(given, "now", None)) else None
    ctx.obj = Settings(store=store, scope=scope, json=as_json, clock=clock, update_url=update_url)


@main.command()
@click.pass_obj
def init(settings: Settings) -> None:
    """Create (or open) the store and say where it is."""
    where = MEMORY if settings.path is None else str(settings.path.resolve())
    where = settings.store if is_url(settings.store) else where

    def action(memory: Memory) -> None:
        if settings.json:
            _emit(
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

    _run(settings, action)


@main.command()
@click.argument("text")
@click.option("--topic", required=True, help="Topic the fact belongs to, e.g. 'meetings'.")
@click.option("--kind", help="Kind of memory (schedule, preference …); default 'general'.")
@click.option("--subject", metavar="IRI", help="Subject IRI of a structured fact.")
@click.option("--predicate", metavar="IRI", help="Predicate IRI of a structured fact.")
@click.option(
    "--object",
    "object_",
    metavar="VALUE",
    help="Object: an absolute IRI becomes an IRI, anything else a string literal.",
)
@click.option("--literal", metavar="VALUE", help="Object as a literal, whatever it looks like.")
@click.option("--datatype", metavar="TYPE", help="Datatype of --literal: xsd:NAME or a full IRI.")
@click.option(
    "--authority",
    type=_choice(Authority, Authority.parse),
    default="agent",
    show_default=True,
    help="Who stands behind the fact.",
)
@click.option(
    "--support",
    type=_choice(Support, Support.parse),
    help="How it is supported (default: by authority).",
)
@click.option("--standpoint", metavar="IRI", help="Whose perspective it holds in.")
@click.option("--source", "sources", multiple=True, metavar="IRI", help="Evidence (repeatable).")
@click.option("--attributed-to", metavar="IRI", help="Who said it (prov:wasAttributedTo).")
@click.option("--valid-from", metavar="WHEN", help="Start of valid time (ISO 8601).")
@click.option("--valid-until", metavar="WHEN", help="End of valid time, if known (ISO 8601).")
@click.option("--confidence", metavar="NUMBER", help="Confidence from 0 to 1 (omit: not rated).")
@click.option("--query", help="The search that found nothing (with --support absent).")
@click.option("--turn", metavar="IRI", help="The conversation turn or tool call.")
@click.option(
    "--rule", type=_choice(RuleMode, RuleMode.parse), help="Make it a standing rule of the owner."
)
@click.pass_obj
def remember(
    settings: Settings,
    text: str,
    topic: str,
    kind: str | None,
    subject: str | None,
    predicate: str | None,
    object_: str | None,
    literal: str | None,
    datatype: str | None,
    authority: Authority,
    support: Support | None,
    standpoint: str | None,
    sources: tuple[str, ...],
    attributed_to: str | None,
    valid_from: str | None,
    valid_until: str | None,
    confidence: str | None,
    query: str | None,
    turn: str | None,
    rule: RuleMode | None,
) -> None:
    """Write one fact through the gate and print the receipt."""
    if object_ is not None and literal is not None:
        raise click.UsageError("Give the object once: --object or --literal, not both.")
    if datatype is not None and literal is None:
        raise click.UsageError("--datatype types a --literal; add --literal VALUE.")
    typed = _datatype(datatype) if datatype is not None else None

    def action(memory: Memory) -> None:
        # read here, so a bad literal is reported as every library error is
        value = _literal(literal, typed) if literal is not None else object_
        receipt = memory.remember(
            text,
            topic=topic,
            kind=kind,
            subject=subject,
            predicate=predicate,
            object=value,
            authority=authority,
            support=support,
            standpoint=standpoint,
            sources=sources,
            attributed_to=attributed_to,
            valid_from=valid_from,
            valid_until=valid_until,
            confidence=confidence,
            query=query,
            turn=turn,
            rule=rule,
            strict=False,
        )
        if receipt.outcome is Outcome.REJECTED:
            raise _Rejected(receipt)
        _show_receipt(settings, receipt)

    _run(settings, action)


_valid_at = click.option("--valid-at", metavar="WHEN", help="True at this time (default now).")
_as_of = click.option("--as-of", metavar="WHEN", help="As believed at this time (default now).")
_include_ended = click.option(
    "--include-ended", is_flag=True, help="Also superseded and retracted facts."
)


@main.command()
@_valid_at
@_as_of
@click.option("--topic", help="Only this topic.")
@click.option("--subject", metavar="IRI", help="Only facts about this subject.")
@click.option("--predicate", metavar="IRI", help="Only facts with this predicate.")
@_include_ended
@click.pass_obj
def facts(
    settings: Settings,
    valid_at: str | None,
    as_of: str | None,
    topic: str | None,
    subject: str | None,
    predicate: str | None,
    include_ended: bool,
) -> None:
    """List facts true at --valid-at as believed at --as-of."""

    def action(memory: Memory) -> None:
        found = memory.facts(
            valid_at=valid_at,
            as_of=as_of,
            topic=topic,
            subject=subject,
            predicate=predicate,
            include_ended=include_ended,
        )
        _show_facts(settings, found)

    _run(settings, action)


@main.command()
@click.argument("text")
@click.option("--topic", help="Only this topic.")
@_valid_at
@_as_of
@_include_ended
@click.option("--limit", type=int, default=10, show_default=True, help="At most this many.")
@click.pass_obj
def recall(
    settings: Settings,
    text: str,
    topic: str | None,
    valid_at: str | None,
    as_of: str | None,
    include_ended: bool,
    limit: int,
) -> None:
    """Find facts whose words match TEXT, best first."""

    def action(memory: Memory) -> None:
        found = memory.recall(
            text,
            topic=topic,
            valid_at=valid_at,
            as_of=as_of,
            include_ended=include_ended,
            limit=limit,
        )
        _show_facts(settings, found, scored=True)

    _run(settings, action)


@main.command()
@click.argument("fact")
@_as_of
@click.pass_obj
def history(settings: Settings, fact: str, as_of: str | None) -> None:
    """Show a fact and the events that refined, superseded or retracted it."""

    def action(memory: Memory) -> None:
        found = memory.history(fact, as_of=as_of)
        if settings.json:
            _emit(found)
        else:
            click.echo(_history_text(found))

    _run(settings, action)


@main.command()
@click.argument("fact")
@click.pass_obj
def why(settings: Settings, fact: str) -> None:
    """Show a fact's evidence and the receipt that let it in."""

    def action(memory: Memory) -> None:
        found = memory.why(fact)
        if settings.json:
            _emit(found)
        else:
            click.echo(_why_text(found))

    _run(settings, action)


@main.command()
@click.pass_obj
def held(settings: Settings) -> None:
    """List writes waiting for the owner (or for the judge), oldest first."""
    _run(settings, lambda m: _show_list(settings, m.held(), "Nothing is held.", _held_table))


@main.command()
@click.argument("held_id", metavar="ID")
@click.option(
    "--as",
    "as_relation",
    type=_choice(Relation, Relation.parse),
    help="Apply this relation instead of the judge's.",
)
@click.pass_obj
def approve(settings: Settings, held_id: str, as_relation: Relation | None) -> None:
    """Approve a held write (the owner's decision)."""
    _run(settings, lambda m: _show_receipt(settings, m.approve(held_id, as_relation=as_relation)))


@main.command()
@click.argument("held_id", metavar="ID")
@click.option("--reason", default="", help="Why the write is discarded.")
@click.pass_obj
def reject(settings: Settings, held_id: str, reason: str) -> None:
    """Discard a held write (the owner's decision)."""
    _run(settings, lambda m: _show_receipt(settings, m.reject(held_id, reason=reason)))


@main.command()
@click.argument("fact")
@click.option("--reason", required=True, help="Why the fact was never true.")
@click.pass_obj
def retract(settings: Settings, fact: str, reason: str) -> None:
    """Say a fact was never true; belief in it ends now, nothing is deleted."""
    _run(settings, lambda m: _show_receipt(settings, m.retract(fact, reason=reason)))


@main.command()
@click.argument("kind")
@click.option("--reason", default="granted by the owner", show_default=True)
@click.pass_obj
def grant(settings: Settings, kind: str, reason: str) -> None:
    """Let the judge close facts of KIND without asking."""
    _run(settings, lambda m: _show_receipt(settings, m.grant(kind, reason=reason)))


@main.command()
@click.argument("kind")
@click.option("--reason", default="revoked by the owner", show_default=True)
@click.pass_obj
def revoke(settings: Settings, kind: str, reason: str) -> None:
    """Take back a grant: closings of KIND wait for the owner again."""
    _run(settings, lambda m: _show_receipt(settings, m.revoke(kind, reason=reason)))


@main.command()
@click.pass_obj
def receipts(settings: Settings) -> None:
    """List every receipt of the scope, in chain order."""
    _run(settings, lambda m: _show_list(settings, m.receipts(), "No receipts.", _receipts_table))


@main.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.pass_obj
def verify(settings: Settings, file: Path | None) -> None:
    """Verify the receipt hash chain: of the open store, or of an export FILE (N-Quads, TriG)."""

    def report(logs: dict[str, int], where: str) -> None:
        total = sum(logs.values())
        if settings.json:
            _emit({"verified": True, "receipts": total, "logs": logs})
        else:
            click.echo(f"Verified {total} receipt(s) in {len(logs)} log(s) of {where}.")
            for log, count in sorted(logs.items()):
                click.echo(f"  {log}  {count}")

    if file is None:

        def action(memory: Memory) -> None:
            count = memory.verify()
            report({str(memory.scope.log): count}, f"scope {settings.scope!r}")

        _run(settings, action)
        return
    code, message, name = EXIT_OK, "", ""
    try:
        logs = verify_export(file)
    except DoxaError as error:
        code, message, name = _exit_code(error), str(error), type(error).__name__
    if code:
        _print_error(settings, name, message, code)
        raise SystemExit(code)
    report(logs, str(file))


@main.command()
@click.argument("query")
@click.pass_obj
def sparql(settings: Settings, query: str) -> None:
    """Run a read-only SPARQL QUERY over the scope ('-' reads it from stdin)."""
    text = sys.stdin.read() if query == "-" else query

    def action(memory: Memory) -> None:
        result = memory.sparql(text)
        if result.form == "ask":
            if settings.json:
                _emit({"head": {}, "boolean": bool(result.boolean)})
            else:
                click.echo("true" if result.boolean else "false")
        elif result.form == "construct":
            if settings.json:
                _emit(
                    {
                        "head": {},
                        "triples": [
                            {
                                "subject": _sparql_term(s),
                                "predicate": _sparql_term(p),
                                "object": _sparql_term(o),
                            }
                            for s, p, o in result.triples
                        ],
                    }
                )
            else:
                for s, p, o in result.triples:
                    click.echo(f"{ntriples(s)} {ntriples(p)} {ntriples(o)} .")
        elif settings.json:
            bindings = [
                {
                    name: _sparql_term(term)
                    for name, term in zip(result.variables, row, strict=True)
                    if term is not None
                }
                for row in result.rows
            ]
            _emit({"head": {"vars": list(result.variables)}, "results": {"bindings": bindings}})
        else:
            rows = [["" if t is None else ntriples(t) for t in row] for row in result.rows]
            click.echo(_table(list(result.variables), rows))

    _run(settings, action)


_format = click.option(
    "--format",
    "rdf_format",
    type=click.Choice(["nquads", "trig"]),
    help="N-Quads or TriG (default: from the file suffix, .trig, else N-Quads).",
)
_export_format = click.option(
    "--format",
    "rdf_format",
    type=click.Choice(["nquads", "trig", "turtle"]),
    help="N-Quads, TriG, or Turtle for Protégé (default: from the suffix, else N-Quads).",
)
_progress = click.option(
    "--progress", is_flag=True, help="Draw a progress bar on stderr even when it is not a terminal."
)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--audit", is_flag=True, help="Include the quarantine (everything in the scope).")
@_export_format
@_progress
@click.pass_obj
def export(
    settings: Settings, file: Path, audit: bool, rdf_format: str | None, progress: bool
) -> None:
    """Write the scope as canonical N-Quads (RDFC-1.0) or TriG to FILE."""
    bar = ProgressBar("Exporting", force=progress)

    def action(memory: Memory) -> None:
        count = memory.export(file, audit=audit, format=rdf_format, progress=bar)
        if settings.json:
            _emit({"file": str(file), "quads": count, "audit": audit})
        else:
            click.echo(f"Wrote {count} quad(s) to {file}.")

    _run(settings, action)


@main.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@_format
@_progress
@click.pass_obj
def import_(settings: Settings, file: Path, rdf_format: str | None, progress: bool) -> None:
    """Restore an export FILE of the scope into a store where the scope is empty."""
    bar = ProgressBar("Importing", force=progress)

    def action(memory: Memory) -> None:
        count = memory.load_export(file, format=rdf_format, progress=bar)
        if settings.json:
            _emit({"file": str(file), "quads": count, "scope": memory.scope.name})
        else:
            click.echo(f"Restored {count} quad(s) from {file} into scope {memory.scope.name!r}.")

    _run(settings, action)


@main.group()
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
            _emit({"file": str(file), "triples": count})
        else:
            click.echo(f"Added {count} triple(s) from {file} to the ontology.")

    _run(settings, action)


@main.command()
@click.option("--path", metavar="DIR", help="Store directory (default: the global --store).")
@click.option("--scope", "scope_name", metavar="NAME", help="Scope (default: the global --scope).")
@click.pass_obj
def mcp(settings: Settings, path: str | None, scope_name: str | None) -> None:
    """Serve the agent's tools over MCP (stdio), bound to one scope."""
    try:
        from doxa.interfaces.mcp_server import serve_memory  # the SDK loads for this command only
    except ImportError as error:
        raise click.ClickException(
            f"doxa mcp needs the MCP SDK ({error}); install it with: pip install 'doxa[mcp]'."
        ) from None
    bound = dataclasses.replace(
        settings, store=path or settings.store, scope=scope_name or settings.scope
    )
    _run(bound, serve_memory)


def _register() -> None:
    # commands kept in their own modules; imported last, since they build on this one
    from doxa.interfaces import cli_bulk, cli_judge, cli_owner
    from doxa.interfaces.http.command import serve

    for command in (cli_judge.judge, cli_judge.rejudge, cli_judge.stats, cli_judge.alarms):
        main.add_command(command)
    for command in (
        cli_owner.quarantine,
        cli_owner.erase,
        cli_owner.backup,
        cli_owner.backups,
        cli_owner.restore,
        cli_owner.recover,
        cli_bulk.import_claims,
    ):
        main.add_command(command)
    main.add_command(serve)


_register()
