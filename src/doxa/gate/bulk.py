"""Gated bulk import: many writes, decided exactly as one by one, published in large changes.

Each claim goes through the same gate as :meth:`doxa.Memory.remember` — shapes, gather,
judge, receipt — in input order. What changes is the publishing: decisions gather in a batch
and are published as one atomic change, journaled with one fsync. A claim is judged against
the store as it stands plus what the batch already decided, and the batch is published
before any claim that could read what it holds:

- a claim that looks up (or would write) an index key the batch already wrote: the same
  statement, or the same text;
- a rule, or a claim of a turn the batch already wrote in (its tool observations);
- a claim after a closing (a supersession or a retraction) or an alarm: burst and alarm
  checks read earlier closings;
- a claim resting on facts (``derived_from``), and any claim after one resting on facts or
  after an empty search result: basis checks and basis-ended flags read those links.

So every claim reads what sequential ``remember`` calls would have read, and gets the same
decision. The shape check runs once over a union of many writes' graphs; only when that
union fails is each write of the chunk checked alone, for its exact failures.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from rdflib import URIRef
from rdflib.term import Node

from doxa.errors import ConstraintFailure, ErasedContent, InvalidInput, NotFound
from doxa.gate.gate import Gate
from doxa.gate.index import live_keys
from doxa.gate.proposal import build_proposal, claim_pairs, write_triples
from doxa.gate.record import Batch
from doxa.model import Outcome, Proposal, Receipt
from doxa.ontology.closure import property_table
from doxa.terms import dt_literal
from doxa.vocabulary import DOXA
from doxa.wire import parse_json
from doxa.writes import PYTHON_FIELDS

__all__ = ["ImportReport", "import_claims", "read_claims"]

#: a line's keys: the arguments of ``Memory.remember`` (doxa.writes lists them once)
FIELDS = frozenset(f.name for f in PYTHON_FIELDS)
Pair = tuple[URIRef, Node]
SHAPE_CHUNK = 500  # writes whose graphs are checked together


@dataclass(frozen=True)
class ImportReport:
    """What a bulk import decided: a receipt per accepted line, refused lines with why."""

    receipts: tuple[Receipt, ...]
    #: (line number, message) of lines that brought back erased content: nothing was written
    refused: tuple[tuple[int, str], ...] = ()
    #: how many changes were published (each an atomic batch of decisions)
    batches: int = 0
    counts: dict[str, int] = field(default_factory=dict)


def read_claims(source: str | Path | IO[str], *, format: str = "jsonl") -> list[dict[str, Any]]:
    """The claims of a JSON Lines file: one object of ``remember``'s arguments per line.

    Blank lines are skipped. Raises :class:`~doxa.InvalidInput` naming the first bad line.
    """
    if format not in ("jsonl", "json-lines", "ndjson"):
        raise InvalidInput(
            f"Cannot import claims from format {format!r}; give JSON Lines ('jsonl'): one "
            "object of remember's arguments per line."
        )
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise NotFound(f"There is no claims file at {path}; check the path.")
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise InvalidInput(f"{path} is not UTF-8 text: {error.reason}.") from None
        lines: Iterable[str] = text.splitlines()
    else:
        lines = source
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        # the strict parse every interface uses: a repeated key ("authority" twice) would
        # otherwise keep its last value, and a deep nest raise RecursionError
        try:
            row = parse_json(line, what=f"Line {number}")
        except InvalidInput as error:
            said = str(error)
            raise InvalidInput(
                said if said.startswith("Line ") else f"Line {number}: {said}"
            ) from None
        if not isinstance(row, dict):
            raise InvalidInput(f"Line {number} is not a JSON object of remember's arguments.")
        row["__line__"] = number
        rows.append(row)
    return rows


def _proposals(gate: Gate, rows: Iterable[Mapping[str, Any]]) -> list[tuple[int, Proposal]]:
    found = []
    for index, row in enumerate(rows, start=1):
        number = int(row.get("__line__", index))
        fields = {k: v for k, v in row.items() if k != "__line__"}
        unknown = sorted(set(fields) - FIELDS)
        if unknown:
            raise InvalidInput(
                f"Line {number} has unknown field(s) {', '.join(unknown)}; the fields are "
                f"remember's arguments: {', '.join(sorted(FIELDS))}."
            )
        if "text" not in fields or "topic" not in fields:
            raise InvalidInput(f"Line {number} needs at least 'text' and 'topic'.")
        text = fields.pop("text")
        try:
            found.append((number, build_proposal(gate.scope, text, **fields)))
        except InvalidInput as error:
            raise InvalidInput(f"Line {number}: {error}") from None
    return found


def _shape_failures(
    gate: Gate, proposals: list[Proposal], pairs: list[list[Pair]]
) -> list[tuple[ConstraintFailure, ...]]:
    """Each write's shape failures; one check over all of them when they all conform."""
    now = gate.clock.now()
    stamp = dt_literal(now)
    union: list[tuple[Node, Node, Node]] = []
    for proposal, claim in zip(proposals, pairs, strict=True):
        union += [(proposal.iri, p, o) for p, o in claim]
        union.append((proposal.iri, DOXA.recordedAt, stamp))
    if not gate.shapes.check(union):
        return [() for _ in proposals]
    return [
        gate.shapes.check(write_triples(p.iri, claim, now))
        for p, claim in zip(proposals, pairs, strict=True)
    ]


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def import_claims(
    gate: Gate,
    rows: Iterable[Mapping[str, Any]],
    *,
    batch_size: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Decide every row as ``remember`` would, in order; publish in batches.

    Every row is validated first (types, names, IRIs): one bad row refuses the whole import
    with :class:`~doxa.InvalidInput` and nothing is written. A row that brings back erased
    content is refused on its own (listed in ``refused``). If the store fails part way,
    the batches published before stay (each complete); the error is raised.
    """
    if not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidInput(f"batch_size {batch_size!r} must be a whole number of at least 1.")
    numbered = _proposals(gate, rows)
    table = property_table(gate.store)
    reads_text = gate.judge.needs.similar_texts
    record = gate.record
    receipts: list[Receipt] = []
    refused: list[tuple[int, str]] = []
    batches = 0
    with gate.lock:
        record.batch = Batch()
        written: set[str] = set()

        def publish() -> None:
            nonlocal batches
            if record.publish_batch():
                batches += 1
            written.clear()

        try:
            for chunk in _chunks(numbered, SHAPE_CHUNK):
                pairs = [claim_pairs(p) for _, p in chunk]  # worked out once per write
                failures = _shape_failures(gate, [p for _, p in chunk], pairs)
                for (number, proposal), claim, failed in zip(chunk, pairs, failures, strict=True):
                    reads = _reads(proposal, claim, table, reads_text)
                    # a write resting on facts reads their liveness from the store
                    if proposal.is_rule or proposal.derived_from or reads & written:
                        publish()
                    try:
                        receipt = gate.remember(proposal, failures=failed, pairs=claim)
                    except ErasedContent as error:
                        refused.append((number, str(error)))
                    else:
                        receipts.append(receipt)
                        written |= reads
                    assert record.batch is not None
                    batch = record.batch
                    if proposal.is_rule or batch.closing or batch.resting:
                        publish()
                    if len(record.batch.entries) >= batch_size:
                        publish()
                    if progress is not None:
                        progress(1)
            publish()
        except BaseException:
            if record.batch is not None and record.batch.entries:
                record.forget()  # the unpublished decisions never happened
            raise
        finally:
            record.batch = None
    counts: dict[str, int] = {o.value: 0 for o in Outcome}
    for receipt in receipts:
        counts[receipt.outcome.value] += 1
    return ImportReport(
        receipts=tuple(receipts),
        refused=tuple(refused),
        batches=batches,
        counts={k: v for k, v in counts.items() if v},
    )


def _reads(proposal: Proposal, pairs: list[Pair], table: Any, reads_text: bool) -> set[str]:
    """The index keys a write looks up and would write, as plain strings."""
    keys = {str(k) for k in live_keys(pairs, table)}
    if proposal.turn is not None:
        keys.add(f"turn {proposal.topic} {proposal.turn}")
    if reads_text and not proposal.structured:
        keys.add(f"topic {proposal.topic}")  # the text judge reads similar facts of the topic
    return keys
