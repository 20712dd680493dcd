"""The rule judge: deterministic, offline, reasoning over structure and the ontology.

It decides structured claims by the domain ontology's ``owl:FunctionalProperty`` (one value
at a time), the authority order (owner > tool > agent > external) and the owner's rules;
text-only claims by normalised duplicates.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from rdflib import URIRef
from rdflib.term import Node

from doxa.errors import InvalidInput
from doxa.judges.base import Cardinality, Evidence, Judge, Needs
from doxa.judges.compare import compare, overlaps, same_term
from doxa.judges.patterns import align, pattern_iri
from doxa.judges.screen import SCREENED, screen, screen_note
from doxa.judges.sentences import frame, revision_shape, says_not, value_words
from doxa.model import Authority, Correction, Fact, Proposal, Relation, RuleMode, Verdict
from doxa.text import normalise, with_article
from doxa.vocabulary import DOXA

__all__ = ["RuleJudge"]


class RuleJudge(Judge):
    """The default judge. Same input, same verdict: it reads nothing but its arguments.

    ``fallback`` (for example an :class:`~doxa.judges.llm.LLMJudge`) is asked about text-only
    claims that structure cannot decide; without one they are ``new``.
    """

    name = "rule"
    # a new version whenever its decisions change: earned closing is earned per version, so
    # a judge that now closes text facts (issue 16), or reads an undated value as a change
    # and sentence patterns (issue 36), or holds the agent's instruction-shaped notes
    # (issue 33), earns the right again
    version = "5"

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
        if proposal.authority in SCREENED and not evidence.released:
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
        if proposal.authority is Authority.AGENT and not evidence.released:
            # (after the rules: a note that clashes with one is held under that reason)
            # the agent's own note that tells later turns what to do: how a tricked agent
            # poisons its memory (issue 33); held with the reason, never quarantined (the
            # words are the agent's) and never admitted unseen
            sign = screen_note(proposal.text)
            if sign is not None:
                return Verdict(
                    Relation.UNCLEAR,
                    (),
                    f"the agent's own note reads as an instruction to later turns: "
                    f"{sign.explain()}; it waits until the owner approves or discards it",
                )
        copied = _copied_outside(proposal, evidence)
        if copied is not None:
            return copied
        if evidence.target is not None:
            return self._judge_revision(proposal, evidence, evidence.target)
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
            return self._text_rule_clash(proposal, evidence)
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

    def _text_rule_clash(self, proposal: Proposal, evidence: Evidence) -> Verdict | None:
        """The owner's rules written as text, compared with a text write as stored texts
        are: a ``requires`` rule that is the same sentence with another value is clashed
        with (held for the owner, never closed); a ``forbids`` rule saying what the write
        says forbids it."""
        wanted = normalise(proposal.text)
        for rule in evidence.rules:
            if rule.subject is not None or rule.predicate is not None:
                continue
            if rule.rule_mode is RuleMode.REQUIRES and align(proposal.text, rule.text):
                return Verdict(
                    Relation.CLASHES_WITH_RULE,
                    (rule.id,),
                    f"the owner's rule {rule.id} requires another value of the same sentence",
                )
            if rule.rule_mode is RuleMode.FORBIDS and normalise(rule.text) == wanted:
                return Verdict(
                    Relation.CLASHES_WITH_RULE,
                    (rule.id,),
                    f"the owner's rule {rule.id} forbids this",
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
        starts = _effective_start(proposal, evidence)
        same_slot, detail, implied, conflicts, second = [], [], [], [], []
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
                fact.valid_from, fact.valid_until, starts, proposal.valid_until
            ):
                conflicts.append(fact)
            elif (
                how == "other"
                and f_predicate == predicate
                and evidence.cardinality is Cardinality.UNKNOWN
                and overlaps(fact.valid_from, fact.valid_until, starts, proposal.valid_until)
            ):
                second.append(fact)
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
            return self._judge_conflict(proposal, evidence, conflicts, predicate=predicate)
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
        if second:
            what = f"a second value of <{predicate}> for this subject, and no ontology says"
            return _replace_or_add(second, what, predicate)
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
        starts = _effective_start(proposal, evidence)
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
                and overlaps(fact.valid_from, fact.valid_until, starts, proposal.valid_until)
            ):
                found.append(fact)
        return found

    def _judge_conflict(
        self,
        proposal: Proposal,
        evidence: Evidence,
        conflicts: list[Fact],
        slot: str = "one value at a time",
        *,
        predicate: URIRef | None = None,
        unchanging: bool = False,
    ) -> Verdict:
        """Two values of one slot: which one stands, by authority, then by the clocks.

        A weaker write never ends a stronger fact (the owner decides). The writer's own word
        (``correction``) comes next: ``was_wrong`` retracts; ``replaces`` is a change, unless
        the property never changes (then the owner decides). A write denying the old value
        by name ("…, not Paris") retracts it. On a property that never changes
        (``predicate`` declared or taught unchanging, or ``unchanging``) a second value
        means the first was wrong. Otherwise the starts decide (:func:`_timing`): an undated
        write starts when it is recorded, so it replaces.
        """
        stronger = [f for f in conflicts if f.authority.rank > proposal.authority.rank]
        if stronger:
            return Verdict(
                Relation.UNCLEAR,
                tuple(f.id for f in stronger),
                f"{with_article(proposal.authority.value)} write contradicts a fact of higher "
                f"authority ({stronger[0].authority.value}); the owner decides",
            )
        targets = tuple(f.id for f in conflicts)
        unchanging = unchanging or (
            predicate is not None and evidence.properties.is_unchanging(predicate)
        )
        if proposal.correction is Correction.WAS_WRONG:
            return Verdict(
                Relation.WAS_WRONG, targets, f"{slot}, and the writer says the old value was wrong"
            )
        if proposal.correction is Correction.REPLACES and unchanging:
            return Verdict(
                Relation.UNCLEAR,
                targets,
                f"{slot}: the writer says the value changed, but it never changes; the owner "
                "decides",
            )
        denied = [f for f in conflicts if says_not(proposal.text, _value_of(f))]
        if denied:
            # ids only: a receipt's reason outlives an erasure of the facts it names
            return Verdict(
                Relation.WAS_WRONG,
                targets,
                f"{slot}, and the write denies {denied[0].id}'s value by name: it was wrong",
            )
        if unchanging:
            return Verdict(
                Relation.WAS_WRONG,
                targets,
                f"{slot}, and it never changes: the old value was wrong",
            )
        relations = {
            _timing(f.valid_from, proposal.valid_from, evidence.now, proposal.valid_until)
            for f in conflicts
        }
        if relations == {Relation.REPLACES}:
            when = (
                "the new value starts after the old one"
                if proposal.valid_from is not None
                else "the new value gives no start, so it starts when it is recorded"
            )
            return Verdict(Relation.REPLACES, targets, f"{slot}, and {when}")
        if relations == {Relation.WAS_WRONG}:
            return Verdict(
                Relation.WAS_WRONG,
                targets,
                f"{slot}, and both values claim the same start: the old one was wrong",
            )
        return Verdict(
            Relation.UNCLEAR,
            targets,
            "the new value starts before the value it would replace; the owner decides",
        )

    def _judge_revision(self, proposal: Proposal, evidence: Evidence, target: Fact) -> Verdict:
        """The write names the fact it revises: decide how it stands to that fact.

        The writer proposes, never forces: a write about another statement is ``unclear``,
        a weaker write never closes a stronger fact, and the clocks decide between
        ``replaces``, ``was_wrong`` and ``unclear`` as for any one-value slot.
        """
        both = proposal.structured and None not in (target.subject, target.predicate, target.object)
        if both:
            how = _structured_revision(proposal, evidence, target)
        else:
            how = revision_shape(proposal.text, target.text)
            if how == "change" and self.fallback is not None:
                return self._fallback_revision(proposal, evidence, target)
        if how == "elsewhere":
            return Verdict(
                Relation.UNCLEAR,
                (target.id,),
                f"the write says it revises {target.id}, but states something about another "
                "subject or property; the owner decides",
            )
        if how in ("same", "implied"):
            bound = _added_bound(proposal, target)
            if bound is None:
                return Verdict(
                    Relation.SAME, (target.id,), f"the write says what {target.id} already says"
                )
            # the same statement with a time bound: a fuller line, not another value
            return self._judge_conflict(
                proposal, evidence, [target], f"the writer names the fact it revises ({bound})"
            )
        if how == "detail":
            # the writer replaced that line with a fuller one: the old line ends (history
            # keeps it) rather than staying live beside its own edit. A refinement is no
            # other value, so it supersedes whatever the clocks or the property say; only a
            # weaker writer cannot end a stronger fact
            if target.authority.rank > proposal.authority.rank:
                return self._judge_conflict(proposal, evidence, [target])
            return Verdict(
                Relation.REPLACES,
                (target.id,),
                f"the writer names the fact it revises ({target.id}) and says more than it "
                "did: the fuller line replaces it",
            )
        return self._judge_conflict(
            proposal,
            evidence,
            [target],
            "the writer names the fact it revises",
            predicate=_canonical_predicate(proposal, evidence),
        )

    def _fallback_revision(self, proposal: Proposal, evidence: Evidence, target: Fact) -> Verdict:
        """A text the rule judge cannot read: the fallback decides, with the target shown."""
        assert self.fallback is not None
        verdict = self.fallback.judge(proposal, evidence)
        verdict = replace(
            verdict,
            judge=verdict.judge or self.fallback.name,
            judge_version=verdict.judge_version or self.fallback.version,
        )
        if verdict.relation is Relation.NEW:  # the writer named a fact; the owner decides
            return replace(
                verdict,
                relation=Relation.UNCLEAR,
                targets=(target.id,),
                reason=f"the write says it revises {target.id}, the judge saw no relation: "
                f"{verdict.reason}",
            )
        return verdict

    def _judge_pattern(
        self, proposal: Proposal, evidence: Evidence, texts: list[Fact]
    ) -> Verdict | None:
        """A text that is a stored text of its topic with another value (one span differs:
        :func:`~doxa.judges.patterns.align`): the owner's lesson on their sentence pattern
        decides. One value: the new value replaces (or, denied by name, was wrong); one that
        never changes: the old one was wrong; many: a second value, ``new``. A pattern
        nobody has answered for asks the owner, once: "replace or add?" (or, with a fallback
        judge that reads meaning, is left to it). None when no text aligns."""
        slots: dict[str, list[Fact]] = {}
        wider: dict[str, tuple[str, ...]] = {}
        for fact in texts:
            found = align(proposal.text, fact.text)
            if found is not None:
                slots.setdefault(found.key, []).append(fact)
                wider[found.key] = found.wider
        for key, facts in sorted(slots.items()):
            pattern = pattern_iri(key)
            taught = evidence.lessons.get(pattern, Cardinality.UNKNOWN)
            for other in wider[key]:  # the same sentence read with a wider value, taught
                if taught is Cardinality.UNKNOWN:
                    taught = evidence.lessons.get(pattern_iri(other), Cardinality.UNKNOWN)
            if taught is Cardinality.MANY:
                return Verdict(
                    Relation.NEW,
                    (),
                    f"the same sentence with another value (pattern {key[:8]}), which the "
                    "owner said holds many values",
                )
            slot = f"the same sentence with another value (pattern {key[:8]})"
            if taught in (Cardinality.ONE, Cardinality.UNCHANGING):
                return self._judge_conflict(
                    proposal, evidence, facts, slot, unchanging=taught is Cardinality.UNCHANGING
                )
            if self.fallback is not None:
                return None  # untaught: a judge that reads meaning decides
            return _replace_or_add(facts, f"{slot}, and the owner has not said", pattern)
        return None

    def _judge_text(self, proposal: Proposal, evidence: Evidence) -> Verdict:
        wanted = normalise(proposal.text)
        texts = [f for f in evidence.same_topic if f.subject is None and f.topic == proposal.topic]
        for fact in texts:
            if normalise(fact.text) == wanted:
                return Verdict(Relation.SAME, (fact.id,), "the same text is already stored")
        said = frame(proposal.text)
        if said is not None:
            framed = [(f, frame(f.text)) for f in texts]
            for fact, other in framed:
                if other == said:
                    return Verdict(
                        Relation.SAME, (fact.id,), "the same value of the same thing is stored"
                    )
            changed = [
                f for f, other in framed if other is not None and other.subject == said.subject
            ]
            if changed:
                # the same sentence word for word with another value: its pattern's lesson
                # decides, and an untaught one asks once (one value that can change, one that
                # never does, or many: the words alone cannot tell); the narrow rule closes
                # only what no pattern lines up (another wording: "moved to", "is now")
                by_pattern = self._judge_pattern(proposal, evidence, changed)
                return by_pattern or self._judge_conflict(
                    proposal, evidence, changed, "the same sentence with another value"
                )
        aligned = self._judge_pattern(proposal, evidence, texts)
        if aligned is not None:
            return aligned
        if self.fallback is not None:
            verdict = self.fallback.judge(proposal, evidence)
            return replace(
                verdict,
                judge=verdict.judge or self.fallback.name,
                judge_version=verdict.judge_version or self.fallback.version,
            )
        return Verdict(Relation.NEW, (), "no stored text in this topic says the same")


def _structured_revision(proposal: Proposal, evidence: Evidence, target: Fact) -> str:
    """How a structured write stands to the structured fact it names: ``same``, ``detail``,
    ``implied``, ``change`` (another value of the same subject and property) or
    ``elsewhere`` (another subject, or an unrelated property)."""
    assert proposal.subject is not None
    assert proposal.predicate is not None
    assert proposal.object is not None
    assert target.subject is not None
    assert target.predicate is not None
    assert target.object is not None
    table = evidence.properties
    subject, predicate, obj = table.normalise(proposal.subject, proposal.predicate, proposal.object)
    t_subject, t_predicate, t_object = table.normalise(
        target.subject, target.predicate, target.object
    )
    if subject != t_subject:
        return "elsewhere"
    how = compare(table, evidence, (predicate, obj), (t_predicate, t_object))
    if how in ("same", "detail", "implied"):
        return how
    if how == "conflict" or predicate == t_predicate:
        return "change"
    return "elsewhere"


def _copied_outside(proposal: Proposal, evidence: Evidence) -> Verdict | None:
    """An agent's note that repeats an outside text of another topic word for word without
    naming its source: held, or the quotation would come back as the agent's own words (and
    rank as them). Naming one of the outside fact's sources keeps it attributed: admitted as
    usual. The same text in the same topic is the same fact (merged), not a copy."""
    if proposal.authority is not Authority.AGENT or evidence.released:
        return None
    named = set(proposal.sources)
    copies = [f for f in evidence.outside if not named & set(f.sources)]
    if not copies:
        return None
    first = copies[0]
    source = f" ({first.sources[0]})" if first.sources else ""
    return Verdict(
        Relation.UNCLEAR,
        tuple(f.id for f in copies),
        f"the agent's own note repeats outside text without naming its source: fact "
        f"{first.id} in topic {first.topic!r}{source}; it waits until the owner approves it "
        "as the agent's words or discards it (naming the source admits it as attributed)",
    )


def _replace_or_add(facts: list[Fact], what: str, question: URIRef) -> Verdict:
    """The one question only the owner can answer, about ``question`` (a predicate or a
    sentence pattern): every write waiting on it follows the one answer."""
    return Verdict(
        Relation.UNCLEAR,
        tuple(f.id for f in facts),
        f"replace or add? {what} whether it holds one value or many; approve it as replaces "
        "(one value at a time), as new (a second value) or as was_wrong (one value that never "
        "changes), and every write waiting on the same question follows that answer",
        asks=str(question),
    )


def _effective_start(proposal: Proposal, evidence: Evidence) -> datetime | None:
    """When a write's value starts, for comparing it with the values of its slot: its own
    start, or, undated, when it is recorded (``evidence.now``): an undated value replaces
    from then, so the values that ended before then are no contradiction of it."""
    return proposal.valid_from if proposal.valid_from is not None else evidence.now


def _value_of(fact: Fact) -> tuple[str, ...]:
    """The words of a stored fact's value, as a writer denying it would write them: its
    object's, or the value its sentence states (empty when neither is known)."""
    if fact.object is not None:
        return value_words(str(fact.object))
    stated = frame(fact.text)
    return stated.value if stated is not None else ()


def _canonical_predicate(proposal: Proposal, evidence: Evidence) -> URIRef | None:
    """The canonical form of a structured write's predicate (None for a text write)."""
    if proposal.predicate is None:
        return None
    return evidence.properties.canonical(proposal.predicate)[0]


def _added_bound(proposal: Proposal, target: Fact) -> str | None:
    """Why a write that says what ``target`` says adds detail (a time bound it lacked)."""
    if proposal.valid_until is not None and target.valid_until is None:
        return "the same statement, with an end the stored fact lacked"
    if proposal.valid_from is not None and target.valid_from is None:
        return "the same statement, with a start the stored fact lacked"
    return None


def _same_statement(fact: Fact, proposal: Proposal) -> bool:
    return (
        fact.subject == proposal.subject
        and fact.predicate == proposal.predicate
        and same_term(fact.object, proposal.object)
        and (proposal.structured or normalise(fact.text) == normalise(proposal.text))
    )


def _timing(
    old: datetime | None,
    new: datetime | None,
    now: datetime | None,
    new_until: datetime | None = None,
) -> Relation:
    """How a new value of a one-value slot stands to an old one, by their starts.

    Replaces when the new value starts later; was_wrong when both claim the same explicit
    start (two values at one time: one of them was never true). A new value with no start
    starts when it is recorded (``now``, docs/decisions.md "Undated corrections"): it
    replaces an old value that started before then or whose start is unknown, and is unclear
    against one that starts later (a change planned ahead, then an undated value: the
    owner decides) or when it ended by then (a past value with no start cannot say whether
    it came before the current one).

    >>> from datetime import UTC, datetime as t
    >>> jan, mar = t(2026, 1, 1, tzinfo=UTC), t(2026, 3, 1, tzinfo=UTC)
    >>> [_timing(None, None, mar).value, _timing(jan, None, mar).value]
    ['replaces', 'replaces']
    >>> [_timing(mar, jan, mar).value, _timing(jan, jan, mar).value, _timing(mar, None, jan).value]
    ['unclear', 'was_wrong', 'unclear']
    >>> _timing(None, None, mar, new_until=jan).value
    'unclear'
    """
    if new is None:
        if now is not None and (
            (old is not None and old > now) or (new_until is not None and new_until <= now)
        ):
            return Relation.UNCLEAR
        return Relation.REPLACES
    if old is None or new > old:
        return Relation.REPLACES
    if new == old:
        return Relation.WAS_WRONG
    return Relation.UNCLEAR
