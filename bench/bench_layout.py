"""What one fact costs in the store: quads and bytes per part of its layout (issue 35).

Fills an on-disk store with the seeded write stream of ``bench_gate.py`` (``workload.py``:
structured facts, repeats, replacements, contradictions, rule clashes, plain sentences)
through ``Memory.remember``, then reads every quad back and sorts it into the part of the
layout it belongs to:

| part | what |
| --- | --- |
| ``claim:statement`` | a claim's ``rdf:subject``/``predicate``/``object`` in its topic graph |
| ``claim:text`` | its words (``doxa:text``) |
| ``claim:clocks`` | ``recordedAt``, ``validFrom``, ``validUntil`` on the claim |
| ``claim:provenance`` | type, topic, kind, authority, standpoint, support, sources, turn … |
| ``search:words`` / ``search:stems`` / ``search:keys`` | index literals (``doxa:term``) |
| ``search:copies`` | the search graph's copy of the claim's topic and clocks, its links |
| ``current`` | the live statement as a plain triple |
| ``log:receipt`` / ``log:ending`` | receipts (by field below) and ending events |
| ``vocabulary`` / ``pending`` / ``quarantine`` / ``rules`` / ``other`` | the rest |

For each part: quads, quads per admitted fact, and N-Quads bytes per admitted fact (the
export's size); the receipt's quads are broken down by field too. The store's bytes on disk
(every file under its directory after ``close``, RocksDB's compaction as it stands) per
fact are printed beside them. No timing: this counts.

    python bench/bench_layout.py                 # 2,000 writes (about 10 s)
    python bench/bench_layout.py --writes 20000  # the shares settle; disk figures grow

Results go to stdout as tables and to ``--out``/bench_layout-<UTC time>.json.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from rdflib import URIRef
from rdflib.term import Node

import doxa
from doxa.gate.index import COPIED, TERM
from doxa.scope import Role, graph_role
from doxa.store.convert import ntriples
from doxa.vocabulary import DOXA, RDF
from workload import Stream, ontology_turtle

SCOPE = "bench"
_STATEMENT = frozenset((RDF.subject, RDF.predicate, RDF.object))
_CLOCKS = frozenset((DOXA.recordedAt, DOXA.validFrom, DOXA.validUntil))
_LINKS = frozenset((DOXA.restsOn, DOXA.refines, DOXA.awaitsAnswer))
_KEY_MARKS = ("@", "=", "~@", "^@")


def part_of(subject: Node, predicate: Node, obj: Node, graph: Node, receipts: set[Node]) -> str:
    """The part of the layout one quad belongs to (the table in the module's docstring)."""
    role = graph_role(URIRef(str(graph)))
    if role is Role.TOPIC:
        if predicate in _STATEMENT:
            return "claim:statement"
        if predicate == DOXA.text:
            return "claim:text"
        if predicate in _CLOCKS:
            return "claim:clocks"
        return "claim:provenance"
    if role is Role.SEARCH:
        if predicate != TERM:
            return "search:copies" if predicate in COPIED | _LINKS else "search:other"
        text = str(obj)
        if text.startswith("%"):
            return "search:stems"
        if text.startswith(_KEY_MARKS):
            return "search:keys"
        return "search:words"
    if role is Role.LOG:
        return "log:receipt" if subject in receipts else "log:ending"
    if role is None:
        return "other"
    return role.value


def count(mem: doxa.Memory) -> dict[str, Any]:
    """Quads and N-Quads bytes per part, and the receipt's quads per field."""
    quads = list(mem.store.quads())
    receipts = {s for s, p, o, _ in quads if p == RDF.type and o == DOXA.Receipt}
    facts = sum(
        1
        for s, p, o, g in quads
        if p == RDF.type and o == DOXA.Claim and graph_role(URIRef(str(g))) is Role.TOPIC
    )
    parts: Counter[str] = Counter()
    size: Counter[str] = Counter()
    fields: Counter[str] = Counter()
    for s, p, o, g in quads:
        part = part_of(s, p, o, g, receipts)
        parts[part] += 1
        size[part] += len(f"{ntriples(s)} {ntriples(p)} {ntriples(o)} {ntriples(g)} .\n")
        if part == "log:receipt":
            fields[str(p).rsplit("#", 1)[-1].rsplit("/", 1)[-1]] += 1
    return {
        "facts": facts,
        "receipts": len(receipts),
        "quads": len(quads),
        "parts": dict(parts),
        "bytes": dict(size),
        "receipt_fields": dict(fields),
    }


def disk_bytes(path: Path) -> int:
    """Every file's size under ``path``."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def table(found: dict[str, Any], disk: int) -> str:
    facts = max(found["facts"], 1)
    lines = [
        f"{found['facts']:,} admitted facts, {found['receipts']:,} receipts, "
        f"{found['quads']:,} quads ({found['quads'] / facts:.1f} a fact), "
        f"{disk / facts:,.0f} disk bytes a fact",
        "",
        f"{'part':<20} {'quads':>10} {'per fact':>9} {'share':>6} {'bytes/fact':>11}",
    ]
    for part, n in sorted(found["parts"].items(), key=lambda kv: -kv[1]):
        lines.append(
            f"{part:<20} {n:>10,} {n / facts:>9.2f} {n / found['quads']:>6.1%} "
            f"{found['bytes'][part] / facts:>11,.0f}"
        )
    total = sum(found["bytes"].values())
    lines.append(
        f"{'all':<20} {found['quads']:>10,} {found['quads'] / facts:>9.2f} "
        f"{'':>6} {total / facts:>11,.0f}"
    )
    lines += ["", "receipt fields (quads per receipt):"]
    receipts = max(found["receipts"], 1)
    for field, n in sorted(found["receipt_fields"].items(), key=lambda kv: -kv[1]):
        lines.append(f"  {field:<18} {n / receipts:.2f}")
    return "\n".join(lines)


@click.command()
@click.option("--writes", default=2000, show_default=True, help="Writes of the stream.")
@click.option("--seed", default=7, show_default=True, help="Seed of the write stream.")
@click.option("--out", default="bench/results", show_default=True, type=click.Path(path_type=Path))
def main(writes: int, seed: int, out: Path) -> None:
    """Count what each part of a fact's layout costs in quads and bytes."""
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "doxa"
        mem = doxa.Memory.open(path, scope=SCOPE)
        mem.schema.add_ontology(ontology_turtle())
        stream = Stream(seed)
        for rule in stream.rules():
            mem.remember(rule.text, **rule.kwargs())
        with click.progressbar(length=writes, label="filling", file=sys.stderr) as bar:
            for _ in range(writes):
                write = stream.next()
                stream.observe(write, mem.remember(write.text, **write.kwargs()).outcome.value)
                bar.update(1)
        found = count(mem)
        mem.close()
        disk = disk_bytes(path)
    click.echo(table(found, disk))
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    report = {"writes": writes, "seed": seed, "disk_bytes": disk, **found}
    target = out / f"bench_layout-{stamp}.json"
    target.write_text(json.dumps(report, indent=2), encoding="utf-8")
    click.echo(f"wrote {target}", err=True)


if __name__ == "__main__":
    main()
