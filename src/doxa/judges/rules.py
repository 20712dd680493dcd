"""The rule judge: deterministic, offline, reasoning over structure and the ontology.

It decides structured claims by the domain ontology's ``owl:FunctionalProperty`` (one value
at a time), the authority order (owner > tool > agent > external) and the owner's rules;
text-only claims by normalised duplicates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime

from rdflib import Literal, URIRef
from rdflib.term import Node

from doxa.judges.base import Evidence, Judge
from doxa.judges.instruction import instruction_sign
from doxa.model import Authority, Fact, Proposal, Relation, RuleMode, Verdict
from doxa.ontology import PropertyTable
from doxa.text import normalise
from doxa.vocabulary import DOXA

__all__ = ["RuleJudge", "contradicts", "overlaps", "same_term"]

_OUTSIDE = (Authority.EXTERNAL, Authority.TOOL)


class RuleJudge:
    """The default judge. Same input, same verdict: it reads nothing but its arguments.

    ``fallback`` (for example an :class:`~doxa.judges.llm.LLMJudge`) is asked about text-only
    claims that structure cannot decide; without one they are ``new``.
    """

    name = "rule"
    version = "2"

    def __init__(self, fallback: Judge | None = None) -> None:
        self.fallback = fallback

    def judge(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        if proposal.is_rule:
            return self._judge_rule(proposal, evidence)
        if proposal.authority in _OUTSIDE:
            sign = instruction_sign(proposal.text)
            if sign is not None:
                return Verdict(
                    Relation.INSTRUCTION,
                    (),
                    f"outside text acting as an instruction: {sign}; it stays in quarantine "
                    "until the owner releases or discards it",
                )
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
        assert proposal.subject is not None
        assert proposal.predicate is not None
        table = evidence.properties
        canonical, turned = table.canonical(proposal.predicate)
        subject = proposal.object if turned else proposal.subject
        stated = table.family(canonical)
        for rule in evidence.rules:
            if rule.predicate is None or rule.object is None:
                continue
            rule_canonical, rule_turned = table.canonical(rule.predicate)
            if rule_canonical not in stated:
                continue
            if rule.subject == DOXA.Anything:
                # a wildcard rule matches statements made the same way round
                if rule_turned != turned:
                    continue
                rule_object, obj = rule.object, proposal.object
            else:
                rule_subject: Node | None = rule.object if rule_turned else rule.subject
                rule_object = (rule.subject if rule_turned else rule.object) or rule.object
                obj = proposal.subject if turned else proposal.object
                if rule_subject != subject:
                    continue
            within = obj is not None and (
                same_term(rule_object, obj) or rule_object in evidence.broader.get(obj, frozenset())
            )
            if rule.rule_mode is RuleMode.FORBIDS and within:
                return Verdict(
                    Relation.CLASHES_WITH_RULE,
                    (rule.id,),
                    f"the owner's rule {rule.id} forbids this",
                )
            if (
                rule.rule_mode is RuleMode.REQUIRES
                and table.is_functional(rule_canonical)
                and not within
            ):
                return Verdict(
                    Relation.CLASHES_WITH_RULE,
                    (rule.id,),
                    f"the owner's rule {rule.id} requires another value",
                )
        return None

    def _judge_structured(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        assert proposal.subject is not None
        assert proposal.predicate is not None
        assert proposal.object is not None
        table = evidence.properties
        subject, predicate, obj = table.normalise(
            proposal.subject, proposal.predicate, proposal.object
        )
        same_slot, detail, implied, conflicts = [], [], [], []
        seen: set[str] = set()
        for fact in (*evidence.same_topic, *evidence.observations):
            if fact.id in seen or None in (fact.subject, fact.predicate, fact.object):
                continue
            assert fact.subject is not None
            assert fact.predicate is not None
            assert fact.object is not None
            seen.add(fact.id)
            f_subject, f_predicate, f_object = table.normalise(
                fact.subject, fact.predicate, fact.object
            )
            if f_subject != subject:
                continue
            how = _compare(table, evidence, (predicate, obj), (f_predicate, f_object))
            if how == "same":
                same_slot.append(fact)
            elif how == "detail":
                detail.append(fact)
            elif how == "implied":
                implied.append(fact)
            elif how == "conflict" and overlaps(
                fact.valid_from, fact.valid_until, proposal.valid_from, proposal.valid_until
            ):
                conflicts.append(fact)
        conflicts += self._believed_conflicts(proposal, evidence, seen)
        if same_slot:
            target = same_slot[0]
            if proposal.valid_until is not None and target.valid_until is None:
                return Verdict(
                    Relation.ADDS_DETAIL,
                    (target.id,),
                    "the same statement, with an end the stored fact lacked",
                )
            if proposal.valid_from is not None and target.valid_from is None:
                return Verdict(
                    Relation.ADDS_DETAIL,
                    (target.id,),
                    "the same statement, with a start the stored fact lacked",
                )
            return Verdict(Relation.SAME, (target.id,), "the same statement is already stored")
        if conflicts:
            return self._judge_conflict(proposal, conflicts)
        if detail:
            return Verdict(
                Relation.ADDS_DETAIL,
                tuple(f.id for f in detail),
                "a more specific statement of what is stored (the ontology says so)",
            )
        if implied:
            return Verdict(
                Relation.SAME,
                (implied[0].id,),
                "a more general statement of a stored fact (the ontology says so)",
            )
        return Verdict(Relation.NEW, (), "nothing stored says otherwise")

    def _believed_conflicts(
        self, proposal: Proposal, evidence: Evidence, seen: set[str]
    ) -> list[Fact]:
        """Superseded facts a write contradicts in the valid time they are still believed
        for. Only contradictions count: the same value as a superseded fact is no evidence
        for or against the write (whatever now holds the slot decides that)."""
        assert proposal.subject is not None
        assert proposal.predicate is not None
        assert proposal.object is not None
        table = evidence.properties
        subject, predicate, obj = table.normalise(
            proposal.subject, proposal.predicate, proposal.object
        )
        found = []
        for fact in evidence.superseded:
            if fact.id in seen or None in (fact.subject, fact.predicate, fact.object):
                continue
            assert fact.subject is not None
            assert fact.predicate is not None
            assert fact.object is not None
            f_subject, f_predicate, f_object = table.normalise(
                fact.subject, fact.predicate, fact.object
            )
            if (
                f_subject == subject
                and _compare(table, evidence, (predicate, obj), (f_predicate, f_object))
                == "conflict"
                and overlaps(
                    fact.valid_from, fact.valid_until, proposal.valid_from, proposal.valid_until
                )
            ):
                found.append(fact)
        return found

    def _judge_conflict(self, proposal: Proposal, conflicts: list[Fact]) -> Verdict:
        stronger = [f for f in conflicts if f.authority.rank > proposal.authority.rank]
        if stronger:
            return Verdict(
                Relation.UNCLEAR,
                tuple(f.id for f in stronger),
                f"a {proposal.authority.value} write contradicts a fact of higher authority "
                f"({stronger[0].authority.value}); the owner decides",
            )
        relations = {_timing(f.valid_from, proposal.valid_from) for f in conflicts}
        targets = tuple(f.id for f in conflicts)
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
        if self.fallback is not None:
            verdict = self.fallback.judge(proposal, evidence)
            return replace(
                verdict,
                judge=verdict.judge or self.fallback.name,
                judge_version=verdict.judge_version or self.fallback.version,
            )
        return Verdict(Relation.NEW, (), "no stored text in this topic says the same")


def _compare(
    table: PropertyTable,
    evidence: Evidence,
    new: tuple[URIRef, Node | None],
    old: tuple[URIRef, Node | None],
) -> str:
    """How a new (predicate, object) stands to a stored one about the same subject.

    ``same``: the same statement; ``detail``: the new one is more specific (a sub-property,
    or a narrower object); ``implied``: the stored one is more specific; ``conflict``: both
    fill one functional slot with values that do not agree; ``other``: unrelated.
    """
    new_p, new_o = new
    old_p, old_o = old
    same_value = same_term(new_o, old_o)
    narrower = old_o in evidence.broader.get(new_o, frozenset()) if new_o is not None else False
    wider = new_o in evidence.broader.get(old_o, frozenset()) if old_o is not None else False
    if new_p == old_p:
        if same_value:
            return "same"
        if narrower:
            return "detail"
        if wider:
            return "implied"
    elif old_p in table.family(new_p) and (same_value or narrower):
        return "detail"  # stated with a sub-property of the stored one
    elif new_p in table.family(old_p) and (same_value or wider):
        return "implied"  # stated with a super-property of the stored one
    if table.shared_functional(new_p, old_p) and not (same_value or narrower or wider):
        return "conflict"
    return "other"


def contradicts(
    table: PropertyTable,
    broader: Mapping[Node, frozenset[Node]],
    new: tuple[URIRef, Node | None],
    old: tuple[URIRef, Node | None],
) -> bool:
    """Whether two values of one subject compete for a functional slot and disagree."""
    evidence = Evidence(same_topic=(), rules=(), observations=(), broader=broader, properties=table)
    return _compare(table, evidence, new, old) == "conflict"


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
