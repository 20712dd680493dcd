"""Score a judge on labelled cases: the development set, and the owner's calibration sets.

A case is one JSON object per line::

    {"id": "schedule-017", "kind": "schedule",
     "given": [{"text": "...", "topic": "...", "subject": "...", ...}],
     "write": {"text": "...", "topic": "...", ...},
     "expect": "replaces", "note": "why this label"}

``given`` writes are stored first (closing granted, held ones approved), then the judge is
asked about ``write`` through :meth:`doxa.Memory.preview`, in a scratch in-memory store, so
nothing reaches the caller's memory. ``ontology`` (Turtle) and ``at`` (the clock) are
optional per case. A *wrong closing* is a case where the judge would close a fact (replaces,
was_wrong) and the label says otherwise: the mistake earned closing must never make.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from doxa.errors import DoxaError, InvalidInput, JudgeUnavailable, NotFound
from doxa.model import Outcome, Receipt, Relation, Verdict

__all__ = [
    "DEFAULT_AT",
    "Case",
    "CaseMemory",
    "CaseOwner",
    "CaseResult",
    "CaseSchema",
    "EvalReport",
    "load_cases",
    "load_cases_with_digest",
    "run_cases",
]

DEFAULT_AT = "2026-03-01T09:00:00Z"
_FIELDS = {"id", "kind", "given", "write", "expect", "note", "ontology", "at"}


@dataclass(frozen=True)
class Case:
    """One labelled decision: what is stored, what is written, and the right relation."""

    id: str
    kind: str
    write: Mapping[str, Any]
    expect: Relation
    given: tuple[Mapping[str, Any], ...] = ()
    ontology: str | None = None
    at: str | None = None
    note: str = ""

    @classmethod
    def from_json(cls, data: object, where: str) -> Case:
        if not isinstance(data, dict):
            raise InvalidInput(f"{where}: a case must be a JSON object.")
        unknown = set(data) - _FIELDS
        missing = {"id", "kind", "write", "expect"} - set(data)
        if unknown or missing:
            raise InvalidInput(
                f"{where}: "
                + "; ".join(
                    part
                    for part in (
                        f"unknown fields {sorted(unknown)}" if unknown else "",
                        f"missing fields {sorted(missing)}" if missing else "",
                    )
                    if part
                )
                + f". A case has the fields {sorted(_FIELDS)}."
            )
        write, given = data["write"], data.get("given", [])
        if not isinstance(write, dict) or "text" not in write:
            raise InvalidInput(f"{where}: 'write' must be an object with at least 'text'.")
        if not isinstance(given, list) or not all(isinstance(g, dict) for g in given):
            raise InvalidInput(f"{where}: 'given' must be a list of objects.")
        try:
            expect = Relation.parse(data["expect"])
        except InvalidInput as error:
            raise InvalidInput(f"{where}: {error}") from None
        return cls(
            id=str(data["id"]),
            kind=str(data["kind"]),
            write=write,
            expect=expect,
            given=tuple(given),
            ontology=data.get("ontology"),
            at=data.get("at"),
            note=str(data.get("note", "")),
        )


def load_cases_with_digest(source: str | Path | Sequence[Case]) -> tuple[list[Case], str]:
    """Cases from a JSON Lines file (or as given), with a digest naming the labelled set."""
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise NotFound(f"There is no case file at {path}; check the path.")
        data = path.read_bytes()
        cases = []
        for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                parsed = json.loads(line)
            except json.JSONDecodeError as error:
                raise InvalidInput(f"{path}:{number}: not JSON ({error.msg}).") from None
            cases.append(Case.from_json(parsed, f"{path}:{number}"))
        digest = hashlib.sha256(data).hexdigest()
    else:
        cases = list(source)
        digest = hashlib.sha256("\n".join(repr(case) for case in cases).encode("utf-8")).hexdigest()
    if not cases:
        raise InvalidInput("The labelled set has no cases; add one JSON object per line.")
    seen = Counter(case.id for case in cases)
    doubled = sorted(case for case, n in seen.items() if n > 1)
    if doubled:
        raise InvalidInput(f"Case ids must be unique; repeated: {', '.join(doubled[:5])}.")
    return cases, digest


def load_cases(source: str | Path | Sequence[Case]) -> list[Case]:
    return load_cases_with_digest(source)[0]


@dataclass(frozen=True)
class CaseResult:
    case: Case
    got: Relation | None  # None: the judge could not answer
    reason: str

    @property
    def correct(self) -> bool:
        return self.got is self.case.expect

    @property
    def wrong_closing(self) -> bool:
        return self.got is not None and self.got.closes and not self.correct


@dataclass
class EvalReport:
    """Per-kind accuracy, the confusion matrix and wrong closings of one run."""

    results: list[CaseResult] = field(default_factory=list)

    def kinds(self) -> list[str]:
        return sorted({r.case.kind for r in self.results})

    def accuracy(self, kind: str | None = None) -> float:
        chosen = [r for r in self.results if kind is None or r.case.kind == kind]
        return sum(r.correct for r in chosen) / len(chosen) if chosen else 0.0

    def scores(self) -> dict[str, tuple[int, int]]:
        """Per kind: (agreements, decisions), as the ledger records them."""
        found: dict[str, tuple[int, int]] = {}
        for r in self.results:
            agreed, total = found.get(r.case.kind, (0, 0))
            found[r.case.kind] = (agreed + r.correct, total + 1)
        return found

    def confusion(self) -> Counter[tuple[str, str]]:
        """(expected, judged) relation pairs; ``unavailable`` when the judge did not answer."""
        return Counter(
            (r.case.expect.value, r.got.value if r.got else "unavailable") for r in self.results
        )

    @property
    def wrong_closings(self) -> list[CaseResult]:
        return [r for r in self.results if r.wrong_closing]

    @property
    def mistakes(self) -> list[CaseResult]:
        return [r for r in self.results if not r.correct]

    def render(self) -> str:
        """The report as text: per-kind accuracy, the confusion matrix, the mistakes."""
        lines = [f"{'kind':<14} {'cases':>5} {'accuracy':>9}"]
        for kind in self.kinds():
            count = sum(1 for r in self.results if r.case.kind == kind)
            lines.append(f"{kind:<14} {count:>5} {self.accuracy(kind):>9.1%}")
        lines.append(f"{'all':<14} {len(self.results):>5} {self.accuracy():>9.1%}")
        lines.append(f"wrong closings: {len(self.wrong_closings)}")
        labels = [r.value for r in Relation]
        judged = [*labels, "unavailable"]
        confusion = self.confusion()
        short = {name: name[:9] for name in judged}
        lines.append("")
        lines.append("confusion (rows: expected, columns: judged)")
        lines.append(" " * 18 + " ".join(f"{short[j]:>9}" for j in judged))
        for expected in labels:
            cells = " ".join(f"{confusion.get((expected, j), 0):>9}" for j in judged)
            lines.append(f"{expected:<18}{cells}")
        if self.mistakes:
            lines.append("")
            lines.append("mistakes")
            for r in self.mistakes:
                got = r.got.value if r.got else "unavailable"
                lines.append(f"  {r.case.id}: expected {r.case.expect.value}, judged {got}")
        return "\n".join(lines)


class CaseOwner(Protocol):
    """The owner's decisions a case's set-up makes (``memory.owner``)."""

    def grant(self, kind: str, *, reason: str = ...) -> Receipt: ...

    def approve(self, item: str, *, as_relation: Relation | str | None = ...) -> Receipt: ...


class CaseSchema(Protocol):
    """The schema a case may add to (``memory.schema``)."""

    def add_ontology(self, source: str | Path | bytes, *, format: str | None = ...) -> int: ...


class CaseMemory(Protocol):
    """What scoring needs of the scratch memory a case runs in (:class:`doxa.Memory` is one)."""

    # a case's ``given`` and ``write`` objects are passed as keywords: any signature taking
    # the write's fields will do
    @property
    def remember(self) -> Callable[..., Receipt]: ...

    @property
    def preview(self) -> Callable[..., Verdict]: ...

    @property
    def owner(self) -> CaseOwner: ...

    @property
    def schema(self) -> CaseSchema: ...


def run_cases(
    cases: Iterable[Case],
    open_case: Callable[[Case], AbstractContextManager[CaseMemory]],
    *,
    progress: Callable[[CaseResult], None] | None = None,
) -> EvalReport:
    """Run every case in the scratch memory ``open_case`` gives it, and compare the judge's
    relation with the label.

    The caller decides what a scratch memory is (``memory.admin.evaluate`` clones one
    prepared store per case, so the ontology is closed once, not once per case); this module
    only stores the case's ``given`` writes, asks about its ``write`` and scores the answer.
    """
    report = EvalReport()
    for case in cases:
        with open_case(case) as memory:
            if case.ontology:
                memory.schema.add_ontology(case.ontology.encode("utf-8"))
            _store_given(memory, case)
            try:
                verdict = memory.preview(**dict(case.write))
                result = CaseResult(case, verdict.relation, verdict.reason)
            except JudgeUnavailable as error:
                result = CaseResult(case, None, str(error))
            except (DoxaError, TypeError) as error:
                raise InvalidInput(f"case {case.id}: the write is not valid: {error}") from None
        report.results.append(result)
        if progress is not None:
            progress(result)
    return report


def _store_given(memory: CaseMemory, case: Case) -> None:
    kinds = {str(g.get("kind", "general")) for g in case.given}
    for kind in sorted(kinds):
        memory.owner.grant(kind, reason="evaluation set-up")
    for number, given in enumerate(case.given, 1):
        try:
            receipt = memory.remember(**dict(given))
        except (DoxaError, TypeError) as error:
            raise InvalidInput(
                f"case {case.id}: given write {number} is not valid: {error}"
            ) from None
        if receipt.outcome is Outcome.REJECTED:
            raise InvalidInput(
                f"case {case.id}: given write {number} was rejected: {receipt.reason}"
            )
        if receipt.outcome is Outcome.HELD and receipt.held is not None:
            try:  # a given write asking "replace or add?" needs an answer nobody gave
                memory.owner.approve(receipt.held)
            except InvalidInput as error:
                raise InvalidInput(
                    f"case {case.id}: given write {number} waits for the owner: {error}"
                ) from None
