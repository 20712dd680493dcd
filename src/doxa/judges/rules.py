"""The rule judge: deterministic, offline, reasoning over structure and the ontology.

It decides structured claims by the domain ontology's ``owl:FunctionalProperty`` (one value
at a time), the authority order (owner > tool > agent > external) and the owner's rules;
text-only claims by normalised duplicates.
"""

from __future__ import annotations

from datetime import datetime

from rdflib import Literal

from doxa.judges.base import Evidence
from doxa.model import Fact, Proposal, Relation, RuleMode, Verdict
from doxa.text import normalise
from doxa.vocabulary import DOXA

__all__ = ["RuleJudge"]


class RuleJudge:
    """The default judge. Same input, same verdict: it reads nothing but its arguments."""

    name = "rule"
    version = "1"

    def judge(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        if proposal.is_rule:
            return self._judge_rule(proposal, evidence)
        clash = self._rule_clash(proposal, evidence)
        if clash is not None:
            return clash
        if proposal.structured:
            return self._judge_structured(proposal, evidence)
        return self._judge_text(proposal, evidence)

    def _judge_rule(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        for rule in evidence.rules:
            if _same_statement(rule, proposal) and rule.rule_mode is proposal.rule_mode:
                return Verdict(Relation.SAME, (rule.id,), "the owner already has this rule")
        return Verdict(Relation.NEW, (), "a new standing rule from the owner")

    def _rule_clash(self, proposal: Proposal, evidence: Evidence) -> Verdict | None:
        if not proposal.structured:
            return None
        for rule in evidence.rules:
            if rule.predicate != proposal.predicate or rule.subject not in (
                proposal.subject,
                DOXA.Anything,
            ):
                continue
            if rule.rule_mode is RuleMode.FORBIDS and same_term(rule.object, proposal.object):
                return Verdict(
                    Relation.CLASHES_WITH_RULE,
                    (rule.id,),
                    f"the owner's rule forbids this: {rule.text!r}",
                )
            if (
                rule.rule_mode is RuleMode.REQUIRES
                and evidence.functional
                and not same_term(rule.object, proposal.object)
            ):
                return Verdict(
                    Relation.CLASHES_WITH_RULE,
                    (rule.id,),
                    f"the owner's rule requires another value: {rule.text!r}",
                )
        return None

    def _judge_structured(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        candidates = [
            f
            for f in (*evidence.same_topic, *evidence.observations)
            if f.subject == proposal.subject and f.predicate == proposal.predicate
        ]
        candidates = list({f.id: f for f in candidates}.values())
        same = [f for f in candidates if same_term(f.object, proposal.object)]
        if same:
            target = same[0]
            if proposal.valid_until is not None and target.valid_until is None:
                return Verdict(
                    Relation.ADDS_DETAIL,
                    (target.id,),
                    "the same statement, with an end the stored fact lacked",
                )
            return Verdict(Relation.SAME, (target.id,), "the same statement is already stored")
        # values whose valid times do not overlap do not contradict each other
        candidates = [
            f
            for f in candidates
            if overlaps(f.valid_from, f.valid_until, proposal.valid_from, proposal.valid_until)
        ]
        if not evidence.functional or not candidates:
            return Verdict(Relation.NEW, (), "nothing stored says otherwise")
        stronger = [f for f in candidates if f.authority.rank > proposal.authority.rank]
        if stronger:
            return Verdict(
                Relation.UNCLEAR,
                tuple(f.id for f in stronger),
                f"a {proposal.authority.value} write contradicts a fact of higher authority "
                f"({stronger[0].authority.value}); the owner decides",
            )
        relations = {_timing(f.valid_from, proposal.valid_from) for f in candidates}
        targets = tuple(f.id for f in candidates)
        if relations == {Relation.REPLACES}:
            return Verdict(
                Relation.REPLACES,
                targets,
                "one value at a time, and the new value starts after the old one",
            )
        if relations == {Relation.WAS_WRONG}:
            return Verdict(
                Relation.WAS_WRONG,
                targets,
                "one value at a time, and both values claim the same time: the old one was wrong",
            )
        return Verdict(
            Relation.UNCLEAR,
            targets,
            "the new value starts before the value it would replace; the owner decides",
        )

    def _judge_text(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        wanted = normalise(proposal.text)
        for fact in evidence.same_topic:
            if fact.subject is None and normalise(fact.text) == wanted:
                return Verdict(Relation.SAME, (fact.id,), "the same text is already stored")
        return Verdict(Relation.NEW, (), "no stored text in this topic says the same")


def _same_statement(fact: Fact, proposal: Proposal) -> bool:
    return (
        fact.subject == proposal.subject
        and fact.predicate == proposal.predicate
        and same_term(fact.object, proposal.object)
        and (proposal.structured or normalise(fact.text) == normalise(proposal.text))
    )


def same_term(a: object, b: object) -> bool:
    """Equal as RDF values: literals compare by value (``"0.0"`` and ``"0"`` decimals agree).

    >>> from rdflib import Literal
    >>> from decimal import Decimal
    >>> same_term(Literal(Decimal("0.000")), Literal(Decimal("0")))
    True
    """
    if isinstance(a, Literal) and isinstance(b, Literal):
        try:
            return bool(a.eq(b)) and a.datatype == b.datatype
        except TypeError:
            return a == b
    return a == b


def overlaps(
    a_from: datetime | None,
    a_until: datetime | None,
    b_from: datetime | None,
    b_until: datetime | None,
) -> bool:
    """Whether two valid-time intervals share a moment (None: unbounded on that side).

    >>> from datetime import datetime
    >>> overlaps(datetime(2025, 1, 1), datetime(2025, 6, 1), datetime(2025, 6, 1), None)
    False
    """
    if a_until is not None and b_from is not None and a_until <= b_from:
        return False
    return not (b_until is not None and a_from is not None and b_until <= a_from)


def _timing(old: datetime | None, new: datetime | None) -> Relation:
    """Replaces when the new value starts later; was_wrong when both claim the same time.

    A new value with no start against an old one that has a start is unclear: it may be a
    correction, or a change whose date nobody said.
    """
    if new is None:
        return Relation.WAS_WRONG if old is None else Relation.UNCLEAR
    if old is None or new > old:
        return Relation.REPLACES
    if new == old:
        return Relation.WAS_WRONG
    return Relation.UNCLEAR
