"""When a fact ends, are the facts resting on it flagged, only they, and at what cost?

    python bench/bench_basis.py --sizes 10000,100000
    python bench/bench_basis.py --sizes 2000 --fanout 1,10,100     # a quick look

Per store size, in one process and side by side:

- **recall of flags**: generated scenarios whose bases end — chains of inference (each link
  ``derived_from`` the one before), refinements (admitted as ``adds_detail``), summaries
  (resting on five facts) and empty search results later answered — beside controls built
  the same way whose bases do not end. ``flagged %`` is the share of the expected
  dependents flagged (target 100%), ``unrelated`` the number of facts flagged that rest on
  nothing that ended (target 0).
- **cost per ending**: the p50 of retracting a basis with 0, 1, 10, 100 … dependents
  (``--fanout``), and its ratio to retracting one with none; the walk is an index lookup per
  level, so it grows with the dependents, not with the store.
- **gated write p50**: ``remember`` of a plain fact, of a fact resting on two others, and of
  a plain fact with the feature switched off (no flag read per fact loaded, no link index, no
  walk at commit: the gate as before), on the same store, interleaved one of each in turn so
  drift hits all three alike: what the feature costs a write.

The filler is text facts written through the gated bulk import (``memory.admin.import_claims``).
With ``--plot`` (and matplotlib installed) the cost per ending is drawn against the number
of dependents, one line per size, into ``bench/basis.png``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import timedelta

import click

import doxa
from doxa.gate import record
from doxa.reads import claims

EX = "http://example.org/"
ONTOLOGY = b"""
@prefix ex: <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:likes a owl:ObjectProperty .
"""
TRIALS = 5


def _log(message: str) -> None:
    click.echo(message, err=True)


def _memory() -> tuple[doxa.Memory, doxa.FixedClock]:
    clock = doxa.FixedClock("2026-01-01T00:00:00Z", step=timedelta(milliseconds=1))
    memory = doxa.Memory.open(None, scope="bench", clock=clock)
    memory.schema.add_ontology(ONTOLOGY)
    return memory, clock


def _fill(memory: doxa.Memory, size: int, tag: str) -> None:
    rows = [
        {"text": f"Filler note {tag} {n} about item{n} and batch{n % 97}", "topic": "filler"}
        for n in range(size)
    ]
    report = memory.admin.import_claims(rows, batch_size=5000)
    assert report.counts.get("admitted", 0) == size, report.counts


def _fact(memory: doxa.Memory, text: str, **fields: object) -> str:
    receipt = memory.remember(text, topic=str(fields.pop("topic", "work")), **fields)  # type: ignore[arg-type]
    assert receipt.outcome is doxa.Outcome.ADMITTED, (text, receipt.reason)
    assert receipt.fact is not None
    return receipt.fact


def _scenarios(memory: doxa.Memory, count: int) -> tuple[set[str], set[str], set[str]]:
    """Build ``count`` of each scenario, half of them to end; returns (expected dependents,
    control facts, bases ended). The bases are ended by the caller."""
    expected: set[str] = set()
    controls: set[str] = set()
    ending: list[str] = []
    for n in range(count):
        ends = n % 2 == 0
        into = expected if ends else controls
        # a chain of inference, three links deep
        base = _fact(memory, f"Chain base {n} holds", authority="owner")
        link = base
        for depth in range(3):
            link = _fact(memory, f"Chain {n} inference {depth}", derived_from=[link])
            into.add(link)
        # a refinement
        broad = _fact(memory, f"Offsite {n} is in spring", authority="owner")
        receipt = memory.remember(
            f"Offsite {n} is in spring, in April", topic="work", revises=broad
        )
        assert receipt.relation is doxa.Relation.ADDS_DETAIL, receipt.reason
        assert receipt.fact is not None
        into.add(receipt.fact)
        # a summary of five facts, one of which ends
        parts = [_fact(memory, f"Meeting {n} point {k}", authority="owner") for k in range(5)]
        into.add(_fact(memory, f"Summary of meeting {n}", derived_from=parts))
        # an empty search result, answered (or, for a control, answered about someone else)
        subject = f"{EX}person{n}"
        absent = _fact(
            memory,
            f"Nothing found on what person {n} likes",
            subject=subject,
            predicate=f"{EX}likes",
            object=f"{EX}unknown",
            support="absent",
            query=f"what does person {n} like",
        )
        into.add(absent)
        if ends:
            ending += [base, broad, parts[0]]
            _fact(
                memory,
                f"Person {n} likes tea",
                subject=subject,
                predicate=f"{EX}likes",
                object=f"{EX}tea",
                authority="owner",
            )
        else:
            _fact(
                memory,
                f"Person {n} twin likes tea",
                subject=f"{EX}twin{n}",
                predicate=f"{EX}likes",
                object=f"{EX}tea",
                authority="owner",
            )
    for basis in ending:
        memory.owner.retract(basis, reason="the basis ended")
    return expected, controls, set(ending)


def _p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _ending_cost(memory: doxa.Memory, fanouts: list[int]) -> dict[int, float]:
    """p50 seconds of retracting a basis with each number of dependents."""
    cost: dict[int, float] = {}
    for fanout in [0, *fanouts]:
        samples = []
        for trial in range(TRIALS if fanout <= 100 else 2):
            basis = _fact(memory, f"Fan basis {fanout} {trial}", authority="owner")
            for k in range(fanout):
                _fact(memory, f"Fan {fanout} {trial} dependent {k}", derived_from=[basis])
            samples.append(_timed(lambda b=basis: memory.owner.retract(b, reason="ended")))
        cost[fanout] = statistics.median(samples)
    return cost


@contextmanager
def _feature_off() -> Iterator[None]:
    """The gate as it was before basis flags: no flag read per fact loaded, no link index
    entries, no flag walk at commit. Only for the side-by-side write p50."""
    saved = (claims.basis_flags, record.basis_entries, record.Record._flag_dependents)
    claims.basis_flags = lambda *args, **kwargs: {}  # type: ignore[assignment]
    record.basis_entries = lambda *args, **kwargs: []  # type: ignore[assignment]
    record.Record._flag_dependents = lambda *args, **kwargs: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        claims.basis_flags, record.basis_entries, record.Record._flag_dependents = saved  # type: ignore[method-assign]


def _write_p50s(stores: list[tuple[doxa.Memory, bool, bool]], writes: int) -> list[float]:
    """p50 ms of ``writes`` gated writes on each (store, resting on two facts?, feature
    off?), the stores' writes interleaved so drift (another process, the machine) hits all
    alike."""
    bases = [
        [_fact(memory, f"Write base {n} {k}", authority="owner") for k in range(2)]
        for n, (memory, _, _) in enumerate(stores)
    ]
    samples: list[list[float]] = [[] for _ in stores]
    for k in range(writes):
        for n, (memory, derived, off) in enumerate(stores):
            fields: dict[str, object] = {"derived_from": bases[n]} if derived else {}
            text = f"Write sample {n} {k} about item{k}"
            with _feature_off() if off else nullcontext():
                samples[n].append(_timed(lambda m=memory, f=fields, t=text: _fact(m, t, **f)))
    return [_p50_ms(s) for s in samples]


@click.command()
@click.option("--sizes", default="10000,100000", show_default=True, help="Store sizes (facts).")
@click.option("--fanout", default="1,10,100,1000", show_default=True, help="Dependents per ending.")
@click.option("--scenarios", default=40, show_default=True, help="Scenarios of each kind.")
@click.option("--writes", default=300, show_default=True, help="Writes per write p50.")
@click.option("--plot/--no-plot", default=True, help="Draw bench/basis.png (needs matplotlib).")
def main(sizes: str, fanout: str, scenarios: int, writes: int, plot: bool) -> None:
    fanouts = [int(f) for f in fanout.split(",") if f]
    curves: dict[int, dict[int, float]] = {}
    click.echo(
        "size     flagged%  expected  unrelated  "
        "write p50 ms (plain | resting on 2 | plain, feature off)"
    )
    for size in (int(s) for s in sizes.split(",") if s):
        _log(f"filling {size} facts …")
        memory, _ = _memory()
        _fill(memory, size, "a")
        expected, controls, _ = _scenarios(memory, scenarios)
        flagged = {f.id for f in memory.flagged()}
        found = len(flagged & expected) / len(expected) * 100
        unrelated = len(flagged - expected)
        assert not flagged & controls or unrelated  # a flagged control counts as unrelated
        plain, resting, off = _write_p50s(
            [(memory, False, False), (memory, True, False), (memory, False, True)], writes
        )
        click.echo(
            f"{size:<8} {found:8.1f}  {len(expected):8}  {unrelated:9}  "
            f"{plain:8.2f} | {resting:7.2f} | {off:7.2f}  ({plain / off:.2f}x)"
        )
        cost = _ending_cost(memory, fanouts)
        curves[size] = cost
        none = cost[0]
        click.echo("         dependents  ending p50 ms  ratio to none  ms per dependent")
        for count, seconds in cost.items():
            per = (seconds - none) * 1000 / count if count else 0.0
            click.echo(
                f"         {count:10}  {seconds * 1000:13.2f}  {seconds / none:13.2f}  {per:16.3f}"
            )
        memory.verify()
        memory.close()
    if plot:
        _plot(curves)


def _plot(curves: dict[int, dict[int, float]]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _log("matplotlib is not installed: no plot")
        return
    figure, axes = plt.subplots(figsize=(6, 4))
    for size, cost in curves.items():
        counts = [c for c in cost if c]
        axes.plot(counts, [cost[c] * 1000 for c in counts], marker="o", label=f"{size} facts")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("dependents of the ended fact")
    axes.set_ylabel("ending p50 (ms)")
    axes.set_title("Cost of an ending: flags written per dependent")
    axes.legend()
    figure.tight_layout()
    figure.savefig("bench/basis.png", dpi=120)
    _log("wrote bench/basis.png")


if __name__ == "__main__":
    main()
