"""Turn stored claim triples back into :class:`~doxa.model.Fact` values."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.model import Authority, BasisEnd, Fact, FactStatus, RuleMode, Support
from doxa.scope import Scope
from doxa.store import Dataset, Store
from doxa.terms import instant
from doxa.vocabulary import DOXA, PROV, RDF

__all__ = ["basis_flags", "claim_endings", "load_facts", "read_endings"]


class _V:
    """The IRIs read here, built once (an rdflib namespace builds a term on every access)."""

    authority = DOXA.authority
    basis = DOXA.basis
    basis_confirmed = DOXA.BasisConfirmed
    basis_ended = DOXA.BasisEnded
    basis_ending = DOXA.basisEnding
    confirms = DOXA.confirms
    flags = DOXA.flags
    rests_on = DOXA.restsOn
    by = DOXA.by
    confidence = DOXA.confidence
    ends = DOXA.ends
    held_at = DOXA.heldAt
    kind = DOXA.kind
    query = DOXA.query
    rdf_object = RDF.object
    rdf_predicate = RDF.predicate
    rdf_subject = RDF.subject
    reason = DOXA.reason
    recorded_at = DOXA.recordedAt
    refines = DOXA.refines
    retraction = DOXA.Retraction
    rule_mode = DOXA.ruleMode
    standpoint = DOXA.standpoint
    supersession = DOXA.Supersession
    support = DOXA.support
    text = DOXA.text
    topic = DOXA.topic
    type = RDF.type
    valid_from = DOXA.validFrom
    valid_until = DOXA.validUntil
    was_derived_from = PROV.wasDerivedFrom


def load_facts(
    store: Store,
    scope: Scope,
    dataset: Dataset,
    iris: Sequence[URIRef],
    *,
    as_of: datetime | None = None,
    endings: dict[str, list[dict[str, Node]]] | None = None,
    described: dict[str, list[tuple[Node, Node]]] | None = None,
) -> list[Fact]:
    """Read the claims named by ``iris`` (in that order); with ``as_of``, also their status.

    ``endings`` are the claims' endings when the caller has read them already (from
    :func:`claim_endings` for the same ``as_of``), ``described`` their triples in the
    dataset's default graphs (as ``Store.describe`` gives them). Claims that are not in the
    dataset's default graphs are left out.
    """
    if not iris:
        return []
    if described is None:
        described = store.describe(iris, dataset.default)
    if endings is None and as_of is not None:
        endings = claim_endings(store, scope, list(described), as_of)
    endings = endings or {}
    flags = basis_flags(store, scope, list(described), as_of) if as_of is not None else {}
    return [
        _fact(scope, iri, described[str(iri)], endings.get(str(iri), []), flags.get(str(iri), ()))
        for iri in iris
        if str(iri) in described
    ]


def basis_flags(
    store: Store, scope: Scope, claims: Sequence[str], as_of: datetime
) -> dict[str, tuple[BasisEnd, ...]]:
    """The basis-ended flags standing on each claim as of ``as_of``: recorded by then and
    after the owner's last confirmation recorded by then. One index lookup when no claim
    has a flag (the common case); claims without flags are left out."""
    flagged = store.referrers(_V.flags, [URIRef(c) for c in claims], scope.log)
    if not flagged:
        return {}
    confirmed = store.referrers(_V.confirms, [URIRef(c) for c in flagged], scope.log)
    nodes = [n for group in (*flagged.values(), *confirmed.values()) for n in group]
    described = store.describe([URIRef(n) for n in nodes], [scope.log])

    def recorded(node: str, kind: URIRef) -> datetime | None:
        """When ``node`` was recorded, if it is an event of ``kind`` (a stray quad that no
        gate wrote, untyped, neither flags nor confirms)."""
        pairs = described.get(node, ())
        if (_V.type, kind) not in pairs:
            return None
        value = next((o for p, o in pairs if p == _V.recorded_at), None)
        return instant(value) if value is not None else None

    found: dict[str, tuple[BasisEnd, ...]] = {}
    for claim, events in flagged.items():
        confirmations = [
            t for n in confirmed.get(claim, ()) if (t := recorded(n, _V.basis_confirmed))
        ]
        cleared = max((t for t in confirmations if t <= as_of), default=None)
        standing = []
        for event in events:
            at = recorded(event, _V.basis_ended)
            if at is None or at > as_of or (cleared is not None and at <= cleared):
                continue
            values = dict(described[event])
            basis = values.get(_V.basis)
            standing.append(
                BasisEnd(
                    event=scope.local_id(URIRef(event)),
                    basis=scope.local_id(basis) if isinstance(basis, URIRef) else None,
                    ending=scope.local_id(values[_V.basis_ending]),
                    reason=str(values.get(_V.reason, "")),
                    recorded_at=at,
                )
            )
        if standing:
            found[claim] = tuple(sorted(standing, key=lambda f: (f.recorded_at, f.event)))
    return found


_ENDING_FIELDS = (("until", _V.valid_until), ("successor", _V.by), ("reason", _V.reason))


def claim_endings(
    store: Store, scope: Scope, claims: Sequence[str], as_of: datetime
) -> dict[str, list[dict[str, Node]]]:
    """The supersessions and retractions of each claim recorded by ``as_of``, read through
    the log's index: ``type``, ``recorded`` and, when present, ``until``, ``successor`` and
    ``reason`` (what ``queries/endings.rq`` reads for the history)."""
    found: dict[str, list[dict[str, Node]]] = {}
    for claim, endings in read_endings(store, scope, claims).items():
        kept = [e for e in endings if instant(e["recorded"]) <= as_of]
        if kept:
            found[claim] = kept
    return found


def read_endings(
    store: Store, scope: Scope, claims: Sequence[str]
) -> dict[str, list[dict[str, Node]]]:
    """Every supersession and retraction of each claim, whenever recorded (see
    :func:`claim_endings`); claims with none are left out."""
    found: dict[str, list[dict[str, Node]]] = {}
    ending_nodes = store.referrers(_V.ends, [URIRef(c) for c in claims], scope.log)
    if not ending_nodes:
        return found
    described = store.describe(
        [URIRef(n) for nodes in ending_nodes.values() for n in nodes], [scope.log]
    )
    for claim, nodes in ending_nodes.items():
        for pairs in (described[n] for n in nodes if n in described):
            fields: dict[Node, Node] = {}
            types = []
            for p, o in pairs:
                if p == _V.type:
                    types.append(o)
                else:
                    fields.setdefault(p, o)
            recorded = fields.get(_V.recorded_at)
            if recorded is None:
                continue
            extra = {name: fields[p] for name, p in _ENDING_FIELDS if p in fields}
            endings = [
                {"type": t, "recorded": recorded, **extra}
                for t in types
                if t in (_V.supersession, _V.retraction)
            ]
            if endings:
                found.setdefault(claim, []).extend(endings)
    return found


def _fact(
    scope: Scope,
    iri: URIRef,
    pairs: Sequence[tuple[Node, Node]],
    endings: list[dict[str, Node]],
    flags: tuple[BasisEnd, ...] = (),
) -> Fact:
    values: dict[Node, list[Node]] = defaultdict(list)
    for p, o in pairs:
        values[p].append(o)

    def one(p: URIRef) -> Node | None:
        found = values.get(p)
        return found[0] if found else None

    def text(p: URIRef) -> str:
        found = one(p)
        return str(found) if found is not None else ""

    status = FactStatus.LIVE
    valid_until = _instant(one(_V.valid_until))
    successor = None
    for ending in endings:
        if ending["type"] == _V.retraction:
            status = FactStatus.RETRACTED
        elif status is not FactStatus.RETRACTED:
            status = FactStatus.SUPERSEDED
            until = _instant(ending.get("until"))
            if until is not None and (valid_until is None or until < valid_until):
                valid_until = until
            if "successor" in ending:
                successor = scope.local_id(ending["successor"])
    confidence = one(_V.confidence)
    mode = one(_V.rule_mode)
    obj = one(_V.rdf_object)
    return Fact(
        id=scope.local_id(iri),
        iri=iri,
        text=text(_V.text),
        topic=text(_V.topic),
        kind=text(_V.kind),
        authority=Authority.from_iri(one(_V.authority)),
        standpoint=URIRef(str(one(_V.standpoint))),
        support=Support.from_iri(one(_V.support)),
        recorded_at=_instant(one(_V.recorded_at)) or _instant(one(_V.held_at)) or datetime.min,
        status=status,
        subject=_iri(one(_V.rdf_subject)),
        predicate=_iri(one(_V.rdf_predicate)),
        object=obj if isinstance(obj, URIRef | Literal) else None,
        sources=tuple(sorted(URIRef(str(s)) for s in values.get(_V.was_derived_from, []))),
        valid_from=_instant(one(_V.valid_from)),
        valid_until=valid_until,
        confidence=Decimal(str(confidence)) if confidence is not None else None,
        query=text(_V.query) or None,
        rule_mode=RuleMode.from_iri(mode) if mode is not None else None,
        refines=tuple(sorted(scope.local_id(r) for r in values.get(_V.refines, []))),
        successor=successor,
        derived_from=tuple(sorted(scope.local_id(b) for b in values.get(_V.rests_on, []))),
        basis_ended=flags if status is FactStatus.LIVE else (),
    )


def _iri(node: Node | None) -> URIRef | None:
    return URIRef(str(node)) if isinstance(node, URIRef) else None


def _instant(node: Node | None) -> datetime | None:
    return instant(node) if node is not None else None
