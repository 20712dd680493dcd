"""The rule judge: deterministic, offline, reasoning over structure and the ontology.

It decides structured claims by the domain ontology's ``owl:FunctionalProperty`` (one value
at a time), the authority order (owner > tool > agent > external) and the owner's rules;
text-only claims by normalised duplicates.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from rdflib.term import Node

from doxa.errors import InvalidInput
from doxa.judges.base import Evidence, Judge, Needs
from doxa.judges.compare import compare, overlaps, same_term
from doxa.judges.screen import SCREENED, screen
from doxa.model import Fact, Proposal, Relation, RuleMode, Verdict
from doxa.text import normalise
from doxa.vocabulary import DOXA

__all__ = ["RuleJudge"]

_OUTSIDE = SCREENED


class RuleJudge(Judge):
    """The default judge. Same input, same verdict: it reads nothing but its arguments.

    ``fallback`` (for example an :class:`~doxa.judges.llm.LLMJudge`) is asked about text-only
    claims that structure cannot decide; without one they are ``new``.
    """

    name = "rule"
    version = "2"

    def __init__(self, fallback: Judge | None = None) -> None:
        if fallback is not None and not isinstance(fallback, Judge):
            raise InvalidInput(
                f"The rule judge's fallback {type(fallback).__name__} is not a doxa.Judge; "
                "subclass doxa.Judge (or declare needs), so the gate knows what to gather."
            )
        self.fallback = fallback

    @property
    def needs(self) -> Needs:
        """Structure only, unless its fallback reads text: then what the fallback needs.

        >>> RuleJudge().needs.similar_texts
        False
        """
        return Needs() if self.fallback is None else self.fallback.needs

    def judge(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        if proposal.is_rule:
            return self._judge_rule(proposal, evidence)
        if proposal.authority in _OUTSIDE:
            sign = screen(proposal.text)
            if sign is not None:
                return Verdict(
                    Relation.INSTRUCTION,
                    (),
                    f"outside text acting as an instruction: {sign.explain()}; it stays in "
                    "quarantine until the owner releases or discards it",
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
            how = compare(table, evidence, (predicate, obj), (f_predicate, f_object))
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
                and compare(table, evidence, (predicate, obj), (f_predicate, f_object))
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


def _same_statement(fact: Fact, proposal: Proposal) -> bool:
    return (
        fact.subject == proposal.subject
        and fact.predicate == proposal.predicate
        and same_term(fact.object, proposal.object)
        and (proposal.structured or normalise(fact.text) == normalise(proposal.text))
    )


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
