"""``doxa judge eval|calibrate``, ``doxa rejudge``, ``doxa stats`` and ``doxa alarms``.

The commands about the judge's standing: how it scores on labelled cases, what it has earned,
what it held, and the alarms that stopped it. Registered on the main ``doxa`` group.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

from doxa.errors import NotFound
from doxa.evaluation import CaseResult, EvalReport, load_cases
from doxa.interfaces.cli.running import Settings, emit, run, run_store
from doxa.interfaces.cli.show import show_list
from doxa.interfaces.client import Served
from doxa.interfaces.presentation import plain, table, when
from doxa.memory import Memory
from doxa.model import Alarm, Standing
from doxa.reads.stats import Footprint, Stats

__all__ = ["alarms", "judge", "stats"]

_CASES = click.Path(exists=False, dir_okay=False, path_type=Path)
_ONTOLOGY = click.option(
    "--ontology",
    "ontologies",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Turtle domain ontology each case starts from (repeatable).",
)


@click.group()
def judge() -> None:
    """Score the judge on labelled cases, and record the owner's calibration."""


def _report(settings: Settings, report: EvalReport) -> None:
    if settings.json:
        emit(
            {
                "cases": len(report.results),
                "accuracy": report.accuracy(),
                "kinds": {k: report.accuracy(k) for k in report.kinds()},
                "wrong_closings": [r.case.id for r in report.wrong_closings],
                "mistakes": [
                    {
                        "id": r.case.id,
                        "expected": r.case.expect.value,
                        "judged": r.got.value if r.got else None,
                        "reason": r.reason,
                    }
                    for r in report.mistakes
                ],
                "confusion": [
                    {"expected": e, "judged": j, "count": n}
                    for (e, j), n in sorted(report.confusion().items())
                ],
            }
        )
    else:
        click.echo(report.render())


def _scoring(memory: Memory, file: Path, ontologies: Sequence[Path], record: bool) -> EvalReport:
    ontology = [path.read_bytes() for path in ontologies if _readable(path)] or None
    cases = load_cases(file)
    with click.progressbar(length=len(cases), label="judging", file=sys.stderr) as bar:

        def advance(_: CaseResult) -> None:
            bar.update(1)

        if record:
            return memory.admin.calibrate(file, ontology=ontology, progress=advance)
        return memory.admin.evaluate(file, ontology=ontology, progress=advance)


def _readable(path: Path) -> bool:
    if not path.is_file():
        raise NotFound(f"There is no ontology file at {path}; check the path.")
    return True


@judge.command("eval")
@click.argument("file", type=_CASES)
@_ONTOLOGY
@click.pass_obj
def judge_eval(settings: Settings, file: Path, ontologies: tuple[Path, ...]) -> None:
    """Score the judge on the labelled cases in FILE (JSON Lines); nothing is recorded.

    Prints per-kind accuracy, wrong closings and the confusion matrix.
    """
    run_store(settings, lambda m: _report(settings, _scoring(m, file, ontologies, record=False)))


@judge.command("calibrate")
@click.argument("file", type=_CASES)
@_ONTOLOGY
@click.pass_obj
def judge_calibrate(settings: Settings, file: Path, ontologies: tuple[Path, ...]) -> None:
    """Score the judge on the owner's labelled FILE and count it towards earned closing."""
    run_store(settings, lambda m: _report(settings, _scoring(m, file, ontologies, record=True)))


def _stats_text(stats: Stats) -> str:
    rows = [
        [
            k.kind,
            str(k.writes),
            str(k.outcomes.get("admitted", 0)),
            str(k.outcomes.get("merged", 0)),
            str(k.held),
            str(k.outcomes.get("quarantined", 0)),
            str(k.outcomes.get("rejected", 0)),
            str(k.needless_holds),
        ]
        for k in stats.kinds
    ]
    parts = [
        table(
            ["kind", "writes", "admitted", "merged", "held", "quarantined", "rejected", "needless"],
            rows,
        )
        if rows
        else "No decisions yet."
    ]
    if stats.ledger:
        parts += ["", _ledger_table(stats.ledger)]
    parts += ["", f"open alarms: {stats.open_alarms}"]
    if stats.footprint is not None:
        parts.append(_footprint_text(stats.footprint))
    return "\n".join(parts)


def _footprint_text(found: Footprint) -> str:
    """One line: the scope's claims, the store's bytes on disk (and a claim's share, when
    the scope has claims) and the resident memory of the process holding the store."""
    line = f"claims on record: {found.claims:,}"
    if found.disk_bytes is not None:
        line += f"; store on disk: {_mib(found.disk_bytes)}"
        if found.claims:
            line += f" ({found.disk_bytes // found.claims:,} bytes a claim, all scopes' files)"
    if found.resident_bytes is not None:
        line += f"; resident memory: {_mib(found.resident_bytes)}"
    return line


def _mib(count: int) -> str:
    """Bytes in mebibytes, one decimal (``12.5 MiB``)."""
    return f"{count / 2**20:,.1f} MiB"


def _ledger_table(ledger: Sequence[Standing]) -> str:
    return table(
        ["judge", "kind", "agreed", "decisions", "agreement", "closing"],
        [
            [
                s.judge,
                s.kind,
                str(s.agreements),
                str(s.decisions),
                "-" if s.agreement is None else f"{s.agreement:.1%}",
                "earned" if s.earned else "not earned",
            ]
            for s in ledger
        ],
    )


@click.command()
@click.pass_obj
def stats(settings: Settings) -> None:
    """Decisions per kind of memory, needless holds, the judge's ledger and open alarms."""

    def action(memory: Served) -> None:
        found = memory.stats()
        if settings.json:
            emit(plain(found))
        else:
            click.echo(_stats_text(found))

    run(settings, action)


def _alarms_table(items: Sequence[Alarm]) -> str:
    return table(
        ["alarm", "raised", "fact", "cleared", "reason"],
        [[a.id, when(a.raised_at), a.fact or "-", when(a.cleared_at), a.reason] for a in items],
    )


@click.group(invoke_without_command=True)
@click.option("--all", "include_cleared", is_flag=True, help="Include cleared alarms.")
@click.pass_context
def alarms(ctx: click.Context, include_cleared: bool) -> None:
    """List open alarms (suspicious closings that stopped automatic closing)."""
    if ctx.invoked_subcommand is not None:
        return
    settings: Settings = ctx.obj
    run(
        settings,
        lambda m: show_list(
            settings,
            m.owner.alarms(include_cleared=include_cleared),
            "No alarms." if include_cleared else "No open alarms.",
            _alarms_table,
        ),
    )
