"""The ledger and the alarm: whether the judge may close facts on its own right now.

The ledger is not a separate table: it is summed from receipts, which the hash chain already
protects. An owner decision on a held closing scores the judge that held it (approved as
judged: agreement; rejected or approved as something else: disagreement), and a calibration
receipt scores it on an owner-labelled set. Closing of a kind is earned once the policy's
minimum of decisions is met at the policy's agreement.

The alarm stops automatic closing in a scope when a closing looks like an attack or a bug;
it needs no warm-up, so the first burst already trips it. A burst is counted per origin of
the write: each source, the turn, and the writer (:func:`writer`), so a writer that names no
source and no turn (the REST and MCP default) is counted all the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from rdflib import Literal, URIRef

from doxa.judges.compare import same_term
from doxa.model import Alarm, Authority, ClosingPolicy, Fact, Proposal, RuleMode, Standing
from doxa.ontology import PropertyTable
from doxa.resources import query
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import dt_literal, instant
from doxa.text import with_article
from doxa.vocabulary import DOXA

__all__ = [
    "alarm_open",
    "alarms",
    "closing_minute",
    "judge_key",
    "origins",
    "recent_closings",
    "standing",
    "standings",
    "suspicion",
    "writer",
]


def judge_key(name: str, version: str) -> str:
    """How the ledger names a judge: a new version starts a new record."""
    return f"{name}/{version}"


def _log(scope: Scope) -> Dataset:
    return Dataset(default=(scope.log,))


def standings(
    store: Store,
    scope: Scope,
    policy: ClosingPolicy,
    *,
    judge: str | None = None,
    kind: str | None = None,
) -> list[Standing]:
    """Every (judge, kind) record in the scope's ledger, or the one asked for."""
    bindings = {
        "judge": Literal(judge) if judge is not None else None,
        "kind": Literal(kind) if kind is not None else None,
    }
    rows = store.select(query("ledger"), dataset=_log(scope), bindings=bindings)
    found = []
    for row in rows:
        if "judge" not in row:  # an aggregate over nothing
            continue
        agreements, decisions = int(str(row["agreements"])), int(str(row["decisions"]))
        found.append(
            Standing(
                judge=str(row["judge"]),
                kind=str(row["kind"]),
                agreements=agreements,
                decisions=decisions,
                earned=decisions >= policy.min_decisions
                and agreements >= policy.min_agreement * decisions,
            )
        )
    return found


def standing(store: Store, scope: Scope, policy: ClosingPolicy, judge: str, kind: str) -> Standing:
    """The judge's record for one kind (zero decisions when it has none)."""
    found = standings(store, scope, policy, judge=judge, kind=kind)
    return found[0] if found else Standing(judge, kind, 0, 0, earned=False)


def alarm_open(store: Store, scope: Scope) -> bool:
    return store.ask(query("open_alarm"), dataset=_log(scope))


def alarms(store: Store, scope: Scope, *, alarm: URIRef | None = None) -> list[Alarm]:
    rows = store.select(query("alarms"), dataset=_log(scope), bindings={"alarm": alarm})
    return [
        Alarm(
            id=scope.local_id(row["alarm"]),
            raised_at=instant(row["raised"]),
            reason=str(row["reason"]),
            fact=scope.local_id(row["claim"]) if "claim" in row else None,
            cleared_at=instant(row["cleared"]) if "cleared" in row else None,
            cleared_reason=str(row["clearReason"]) if "clearReason" in row else None,
        )
        for row in rows
    ]


def closing_minute(at: datetime) -> Literal:
    """The minute an automatic closing was recorded in (``doxa:closingMinute``), in UTC.

    An exact key, so the burst count finds the closings of its window by index lookups,
    one per minute of the window, and never scans the receipts of a busy source or writer:
    its cost follows the closings of the last minutes, not the size of the store. A plain
    string, not an ``xsd:dateTime``: an exact match on it means the same on every server.

    >>> closing_minute(datetime(2026, 3, 1, 9, 14, 59, tzinfo=UTC))
    rdflib.term.Literal('2026-03-01T09:14Z')
    """
    return Literal(at.astimezone(UTC).strftime("%Y-%m-%dT%H:%MZ"))


def _minutes(since: datetime, until: datetime) -> list[Literal]:
    """Every minute key from the one ``since`` falls in to the one ``until`` falls in."""
    first = since.astimezone(UTC).replace(second=0, microsecond=0)
    last = until.astimezone(UTC)
    found = []
    while first <= last:
        found.append(closing_minute(first))
        first += timedelta(minutes=1)
    return found


def recent_closings(
    store: Store, scope: Scope, origins: Sequence[URIRef], since: datetime, now: datetime
) -> int:
    """Facts closed automatically between ``since`` and ``now`` by writes from any of
    ``origins``: looked up by the minute keys of the window, then by origin."""
    if not origins:
        return 0
    rows = store.select(
        query("recent_closings"),
        dataset=_log(scope),
        bindings={
            "minute": _minutes(since, now),
            "origin": list(origins),
            "since": dt_literal(since),
        },
    )
    return int(str(rows[0]["closed"])) if rows else 0


#: the writer IRIs: they carry no content and no claim names them, so no erasure strips them
_OTHERS = URIRef("urn:doxa:writer:others")


def writer(authority: Authority) -> URIRef | None:
    """Who wrote, for counting bursts: everyone but the owner is one writer of the scope
    (``urn:doxa:writer:others``), and the owner's writes name none.

    An agent key may write as ``agent``, ``tool`` or ``external``, so counting each
    authority apart would let one caller spread a burst over three writers.

    The authority is the one part of a write that every interface checks against the
    caller (REST and MCP let only the owner key write as the owner, and a value is parsed
    strictly, never folded from another spelling). The standpoint, the attribution and the
    turn are the writer's own word: a writer that changed one of them on every write would
    split its burst into bursts of one, so none of them names the writer. The owner's writes
    are the owner's: an alarm on them would ask the owner's leave for the owner's own
    writes; their sources and turn are still counted. The receipt is in the scope's log, so
    the count is per scope.

    >>> writer(Authority.TOOL) == writer(Authority.AGENT) == writer(Authority.EXTERNAL)
    True
    >>> writer(Authority.OWNER) is None
    True
    """
    if authority is Authority.OWNER:
        return None
    return _OTHERS


def origins(proposal: Proposal) -> tuple[URIRef, ...]:
    """Where a write came from, for counting bursts: its sources, its turn and its writer
    (:func:`writer`), each once."""
    found = list(proposal.sources)
    if proposal.turn is not None:
        found.append(proposal.turn)
    who = writer(proposal.authority)
    if who is not None:
        found.append(who)
    return tuple(dict.fromkeys(found))


def suspicion(
    proposal: Proposal,
    targets: Iterable[Fact],
    rules: Iterable[Fact],
    table: PropertyTable,
    *,
    closed_recently: int,
    policy: ClosingPolicy,
) -> str | None:
    """Why closing ``targets`` automatically would be suspicious, or None.

    Three signs: a lower authority closing a higher one's fact; closing a fact an owner's
    ``requires`` rule stands behind; ``burst_size`` or more closings by one writer or from
    one source or turn within the burst window (this one included).
    """
    targets = list(targets)
    for fact in targets:
        if fact.authority.rank > proposal.authority.rank:
            return (
                f"{with_article(proposal.authority.value)} write would close "
                f"{with_article(fact.authority.value)} "
                f"fact ({fact.id})"
            )
    for fact in targets:
        rule = _backing_rule(fact, rules, table)
        if rule is not None:
            return f"it would close fact {fact.id}, which the owner's rule {rule.id} requires"
    if closed_recently + len(targets) >= policy.burst_size:
        window = int(policy.burst_window.total_seconds() // 60)
        return (
            f"{closed_recently + len(targets)} closings within {window} minutes by one "
            "writer or from one source or turn"
        )
    return None


def _backing_rule(fact: Fact, rules: Iterable[Fact], table: PropertyTable) -> Fact | None:
    if fact.subject is None or fact.predicate is None or fact.object is None:
        return None
    subject, predicate, obj = table.normalise(fact.subject, fact.predicate, fact.object)
    for rule in rules:
        if rule.rule_mode is not RuleMode.REQUIRES or rule.predicate is None:
            continue
        if rule.subject == DOXA.Anything:
            if rule.predicate == fact.predicate and same_term(rule.object, fact.object):
                return rule
            continue
        if rule.subject is None or rule.object is None:
            continue
        r_subject, r_predicate, r_object = table.normalise(
            rule.subject, rule.predicate, rule.object
        )
        if (r_subject, r_predicate) == (subject, predicate) and same_term(r_object, obj):
            return rule
    return None
