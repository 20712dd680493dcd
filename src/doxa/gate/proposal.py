"""Build a write's proposal and its own RDF graph from what the caller passed."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.clock import parse_instant
from doxa.errors import InvalidInput
from doxa.gate.receipts import content_digest
from doxa.judges.patterns import PATTERN
from doxa.model import Authority, Correction, Proposal, RuleMode, Support
from doxa.scope import Scope, check_name, new_id
from doxa.store.convert import canonical
from doxa.terms import (
    as_confidence,
    as_iri,
    as_object,
    as_text,
    decimal_literal,
    dt_literal,
    instant,
)
from doxa.text import normal_iri
from doxa.vocabulary import DOXA, PROV, RDF
from doxa.writes import FACT_ID_PATTERN, refuse_respelt_standpoint

__all__ = [
    "build_proposal",
    "claim_pairs",
    "input_digest",
    "proposal_from_pairs",
    "write_triples",
]

_DEFAULT_SUPPORT = {
    Authority.OWNER: Support.STATED,
    Authority.TOOL: Support.OBSERVED,
    Authority.AGENT: Support.INFERRED,
    Authority.EXTERNAL: Support.QUOTED,
}

Pair = tuple[URIRef, Node]
#: a fact id as doxa makes them (:func:`doxa.scope.new_id`) or an import kept them; the one
#: pattern the write's schema shows too
_ID = re.compile(FACT_ID_PATTERN)


def build_proposal(
    scope: Scope,
    text: str,
    *,
    topic: str,
    kind: str | None = None,
    subject: object = None,
    predicate: object = None,
    object: object = None,
    authority: object = Authority.AGENT,
    support: object = None,
    standpoint: object = None,
    sources: Iterable[object] = (),
    attributed_to: object = None,
    valid_from: datetime | date | str | None = None,
    valid_until: datetime | date | str | None = None,
    confidence: object = None,
    query: str | None = None,
    turn: object = None,
    rule: object = None,
    revises: object = None,
    correction: object = None,
    derived_from: Iterable[object] | str = (),
) -> Proposal:
    """Read the caller's values; raises :class:`~doxa.InvalidInput` for values of the wrong type.

    Constraints between values (external content names its source, validUntil after
    validFrom, confidence in [0, 1] …) are the shapes' job, so they are all reported at once.
    """
    if not isinstance(text, str):
        raise InvalidInput(
            f"text {text!r} is not a string; pass the fact as a person would read it."
        )
    as_text(text, "text")
    if query is not None:
        as_text(query, "query")
    if sources is None or not isinstance(sources, str | list | tuple | set | frozenset):
        raise InvalidInput(
            f"sources {sources!r} is not a list of IRIs; pass a list such as "
            "['https://example.org/page']."
        )
    check_name(topic, "topic")
    mode = RuleMode.parse(rule) if rule is not None else None
    kind = check_name(kind, "kind") if kind is not None else ("rule" if mode else "general")
    who = Authority.parse(authority)
    # each source once: the store keeps a set of triples
    source_iris = tuple(
        dict.fromkeys(
            as_iri(s, "source") for s in ([sources] if isinstance(sources, str) else sources)
        )
    )
    if standpoint is not None:
        point = as_iri(standpoint, "standpoint")
        refuse_respelt_standpoint(point)
        point = scope.checked_standpoint(point)
    elif who is Authority.EXTERNAL and source_iris:
        point = source_iris[0]
    else:
        point = scope.standpoint(who.value)
    if predicate is not None:
        _refuse_pattern(as_iri(predicate, "predicate"))
    fact_id = new_id()
    return Proposal(
        id=fact_id,
        iri=scope.fact(fact_id),
        text=text,
        topic=topic,
        kind=kind,
        authority=who,
        standpoint=point,
        support=Support.parse(support) if support is not None else _DEFAULT_SUPPORT[who],
        subject=as_iri(subject, "subject") if subject is not None else None,
        predicate=as_iri(predicate, "predicate") if predicate is not None else None,
        object=canonical([as_object(object)])[0] if object is not None else None,  # type: ignore[arg-type]
        sources=source_iris,
        attributed_to=as_iri(attributed_to, "attributed_to") if attributed_to is not None else None,
        valid_from=parse_instant(valid_from) if valid_from is not None else None,
        valid_until=parse_instant(valid_until) if valid_until is not None else None,
        confidence=as_confidence(confidence) if confidence is not None else None,
        query=query,
        turn=as_iri(turn, "turn") if turn is not None else None,
        rule_mode=mode,
        revises=scope.fact(_fact_id(revises)) if revises is not None else None,
        derived_from=_bases(scope, derived_from),
        correction=Correction.parse(correction) if correction is not None else None,
    )


def _refuse_pattern(predicate: URIRef) -> None:
    """A sentence pattern's IRI is doxa's own (its lessons are the owner's answers about
    texts): a writer using one as a predicate could have the owner's answer about its
    structured "replace or add?" taught to every text of the pattern."""
    if normal_iri(str(predicate)).startswith(PATTERN):
        raise InvalidInput(
            f"predicate <{predicate}> names one of doxa's sentence patterns; name the property "
            "with an IRI of your own vocabulary."
        )


def _bases(scope: Scope, given: object) -> tuple[URIRef, ...]:
    """The facts a write rests on, each once, in the caller's order."""
    if given is None or not isinstance(given, str | list | tuple | set | frozenset):
        raise InvalidInput(
            f"derived_from {given!r} is not a list of fact ids; pass a list such as "
            "['019ac4f2b0e3a1b2c3d4']."
        )
    ids = [given] if isinstance(given, str) else list(given)
    return tuple(dict.fromkeys(scope.fact(_fact_id(i, "derived_from")) for i in ids))


def _fact_id(value: object, name: str = "revises") -> str:
    """A fact id as ``revises`` (or ``derived_from``) takes it: exactly as doxa returned it,
    never folded (another case or surrounding space is another id, refused here or not found
    by the gate)."""
    if not isinstance(value, str) or not _ID.fullmatch(str.__str__(value)):
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise InvalidInput(
            f"{name} {shown} is not a fact id; pass one id exactly as remember, recall or "
            "facts returned it (like '019ac4f2b0e3a1b2c3d4')."
        )
    return str.__str__(value)


def claim_pairs(proposal: Proposal) -> list[Pair]:
    """The claim's own (predicate, object) pairs, without its time stamp."""
    pairs: list[Pair] = [(RDF.type, DOXA.Claim)]
    if proposal.rule_mode is not None:
        pairs += [(RDF.type, DOXA.Rule), (DOXA.ruleMode, proposal.rule_mode.iri)]
    pairs += [
        (DOXA.text, Literal(proposal.text)),
        (DOXA.topic, Literal(proposal.topic)),
        (DOXA.kind, Literal(proposal.kind)),
        (DOXA.authority, proposal.authority.iri),
        (DOXA.standpoint, proposal.standpoint),
        (DOXA.support, proposal.support.iri),
    ]
    if proposal.subject is not None:
        pairs.append((RDF.subject, proposal.subject))
    if proposal.predicate is not None:
        pairs.append((RDF.predicate, proposal.predicate))
    if proposal.object is not None:
        pairs.append((RDF.object, proposal.object))
    pairs += [(PROV.wasDerivedFrom, s) for s in proposal.sources]
    if proposal.attributed_to is not None:
        pairs.append((PROV.wasAttributedTo, proposal.attributed_to))
    if proposal.valid_from is not None:
        pairs.append((DOXA.validFrom, dt_literal(proposal.valid_from)))
    if proposal.valid_until is not None:
        pairs.append((DOXA.validUntil, dt_literal(proposal.valid_until)))
    if proposal.confidence is not None:
        pairs.append((DOXA.confidence, decimal_literal(proposal.confidence)))
    if proposal.query is not None:
        pairs.append((DOXA.query, Literal(proposal.query)))
    if proposal.turn is not None:
        pairs.append((DOXA.turn, proposal.turn))
    if proposal.revises is not None:
        pairs.append((DOXA.revises, proposal.revises))
    if proposal.correction is not None:
        pairs.append((DOXA.correction, proposal.correction.iri))
    pairs += [(DOXA.restsOn, b) for b in proposal.derived_from]
    # as the store will keep them, so receipts' digests and the judge compare like with like
    return list(zip((p for p, _ in pairs), canonical([o for _, o in pairs]), strict=True))


def write_triples(
    iri: URIRef, pairs: list[Pair], recorded_at: datetime
) -> list[tuple[Node, Node, Node]]:
    """The triples of the write's own graph, as the shapes see them."""
    return [*((iri, p, o) for p, o in pairs), (iri, DOXA.recordedAt, dt_literal(recorded_at))]


def input_digest(pairs: list[Pair]) -> str:
    """A digest of what was asked, independent of ids and times."""
    anonymous = URIRef("urn:doxa:input")
    return content_digest((anonymous, p, o) for p, o in pairs)


def proposal_from_pairs(scope: Scope, iri: URIRef, pairs: list[Pair]) -> Proposal:
    """Read a held claim back into the proposal it was, so a judge can look at it again."""
    one: dict[URIRef, Node] = {}
    many: dict[URIRef, list[Node]] = {}
    for p, o in pairs:
        one.setdefault(p, o)
        many.setdefault(p, []).append(o)
    mode = one.get(DOXA.ruleMode)

    def iri_of(key: URIRef) -> URIRef | None:
        value = one.get(key)
        return URIRef(str(value)) if value is not None else None

    def when(key: URIRef) -> datetime | None:
        value = one.get(key)
        return instant(value) if value is not None else None

    confidence = one.get(DOXA.confidence)
    correction = one.get(DOXA.correction)
    return Proposal(
        id=scope.local_id(iri),
        iri=iri,
        text=str(one[DOXA.text]),
        topic=str(one[DOXA.topic]),
        kind=str(one[DOXA.kind]),
        authority=Authority.from_iri(one[DOXA.authority]),
        standpoint=URIRef(str(one[DOXA.standpoint])),
        support=Support.from_iri(one[DOXA.support]),
        subject=iri_of(RDF.subject),
        predicate=iri_of(RDF.predicate),
        object=one.get(RDF.object),  # type: ignore[arg-type]
        sources=tuple(URIRef(str(s)) for s in many.get(PROV.wasDerivedFrom, ())),
        attributed_to=iri_of(PROV.wasAttributedTo),
        valid_from=when(DOXA.validFrom),
        valid_until=when(DOXA.validUntil),
        confidence=Decimal(str(confidence)) if confidence is not None else None,
        query=str(one[DOXA.query]) if DOXA.query in one else None,
        turn=iri_of(DOXA.turn),
        rule_mode=RuleMode.from_iri(mode) if mode is not None else None,
        revises=iri_of(DOXA.revises),
        derived_from=tuple(URIRef(str(b)) for b in many.get(DOXA.restsOn, ())),
        correction=Correction.from_iri(correction) if correction is not None else None,
    )
