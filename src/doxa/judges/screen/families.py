"""The attack families the screen knows, each a few explainable patterns.

The families follow the published taxonomies of indirect prompt injection (Greshake et al.
2023; BIPIA; InjecAgent; AgentDojo; OWASP LLM01). Each pattern reads a lower-cased view
(:mod:`doxa.judges.screen.normalise`) and looks for text that addresses the assistant, not
a human reader: ordinary imperatives ("preheat the oven", "delete the logs older than 30
days", "forward the agenda to the team") are not signs. A pattern runs only when one of its
cue words occurs, so a long benign text costs a few substring searches.

The screen is a classifier of outside text, not a permission: a sign sends the write to
quarantine, where the owner reads the family and the span and releases or discards it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

__all__ = ["FAMILIES", "Family", "Pattern"]


class Family(Enum):
    """An attack family, named as the literature names it; the value is what receipts say."""

    OVERRIDE = "override"
    FORGED_TURN = "forged turn"
    FAKE_AUTHORITY = "fake authority"
    TOOL_REDIRECT = "tool redirection"
    EXFILTRATION = "exfiltration"
    ACTION = "action on the owner's behalf"
    ENCODED = "encoded payload"
    ROLE_PLAY = "role-play framing"
    HIJACK = "conversation hijack"
    ADDRESSED = "addressed to the assistant"

    @property
    def meaning(self) -> str:
        """What a sign of this family means, in one clause (for receipts and the review)."""
        return _MEANING[self]


_MEANING = {
    Family.OVERRIDE: "it tries to change the assistant's rules, instructions or memory",
    Family.FORGED_TURN: "it forges a chat turn or the end of the quoted text",
    Family.FAKE_AUTHORITY: "it claims an authority or an approval it cannot show",
    Family.TOOL_REDIRECT: "it tells the assistant to call a tool or reach an internal address",
    Family.EXFILTRATION: "it asks for the owner's data or secrets to be sent or revealed",
    Family.ACTION: "it asks for an action on the owner's behalf (money, deletion or access)",
    Family.ENCODED: "it asks for an encoded payload to be decoded and followed",
    Family.ROLE_PLAY: "it frames an instruction as role-play or a test",
    Family.HIJACK: "it tries to make an instruction hold for the rest of the conversation",
    Family.ADDRESSED: "it addresses the assistant directly",
}


@dataclass(frozen=True)
class Pattern:
    """One sign of a family: ``cues`` gate the regular expression. A cue of letters must occur
    as a word of the view; any other cue (``<|``, ``169.254``) as a substring."""

    family: Family
    words: frozenset[str]
    marks: tuple[str, ...]
    regex: re.Pattern[str]

    def cued(self, text: str, words: frozenset[str]) -> bool:
        """Whether ``text`` (whose words are ``words``) holds one of the cues."""
        return not self.words.isdisjoint(words) or any(mark in text for mark in self.marks)


def _p(family: Family, cues: str, regex: str) -> Pattern:
    split = cues.split()
    words = frozenset(c for c in split if c.isalnum())
    marks = tuple(c for c in split if not c.isalnum())
    return Pattern(family, words, marks, re.compile(regex, re.MULTILINE))


_AI = r"(?:ai|assistant|agent|model|llm|bot|chatbot|copilot|gpt|chatgpt|claude|gemini)"
_AIS = _AI + r"s?"
_RULES = (
    r"(?:instructions?|rules?|prompts?|guidelines?|directions?|directives?|constraints?|"
    r"memor(?:y|ies)|polic(?:y|ies)|requests?|orders|programming|guardrails)"
)
_SENSITIVE = (
    r"(?:passwords?|pass ?codes?|pins?\b|api[ -_]?keys?|access[ -_]?tokens?|tokens?\b|credentials|"
    r"secrets?\b|secret_access_key|aws_secret\w*|private keys?|ssh keys?|\.env\b|"
    r"credit card(?: numbers?)?|bank details|account numbers?|social security numbers?|"
    r"(?:(?:the |your |my )?(?:user|owner)'?s? |my |your )(?:\w+ )?(?:data|details|information|"
    r"address|e-?mails?|messages|files|documents|contacts?|contact list|calendar|location|"
    r"notes|phone numbers?|records)|personal (?:data|details|information)|"
    r"(?:(?:the )?full )?(?:contents of )?(?:your |the )?(?:memory|memories|conversation|"
    r"chat history|system prompt|hidden configuration|configuration|instructions))"
)
_SEND = r"(?:send|e-?mail|mail|forward|upload|post|transmit|leak|share|paste|copy|submit|cc)"
_SHOW = (
    r"(?:reveal|disclose|exfiltrate|print|output|dump|display|read out|reply with|"
    r"respond with|answers? with|list)"
)
_DANGER = (
    r"(?:delete|remove|erase|wipe|send|e?mail|fetch|http|browse|browser|open_url|url|request|"
    r"transfer|pay|payment|shell|exec|terminal|bash|write|post|upload|curl|wget|download|"
    r"forward|share)"
)
_METADATA = r"(?:169\.254\.169\.254|metadata\.google\.internal|100\.100\.100\.200|fd00:ec2::254)"

FAMILIES: tuple[Pattern, ...] = (
    _p(
        Family.FORGED_TURN,
        "<| [inst] [/inst] <<sys>> _of_turn> </",
        r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|"
        r"end_header_id|begin_of_text)\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>"
        r"|</(?:document|context|data|tool_output|tool_result|search_results|email|input|"
        r"untrusted|user_input|quote|instructions)>",
    ),
    _p(
        Family.FORGED_TURN,
        "end system assistant developer",
        r"(?:-{3,}|#{2,}|={3,})\s*end of (?:the )?(?:e-?mail|document|context|data|input|"
        r"tool output|tool result|results?|page|message)\b"
        r"|^\s*(?:system|assistant|developer)\s*:\s*\S",
    ),
    _p(
        Family.OVERRIDE,
        "ignore disregard forget override bypass skip drop abandon discard",
        r"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard)\s+"
        r"(?:(?:all|any|the|your|its|their|my|these|those|of|every)\s+)*"
        r"(?:(?:previous|prior|above|earlier|preceding|existing|original|initial|system|safety|"
        r"owner'?s?|user'?s?|current)\s+)*" + _RULES + r"\b",
    ),
    _p(
        Family.OVERRIDE,
        "stop void lifted cancelled canceled revoked suspended longer obsolete overridden "
        "override invalid apply",
        r"\bstop (?:what|everything) you(?:'re| are| were) (?:doing|asked|told)"
        r"|\b(?:previous|prior|earlier|above|old|original|current)\s+(?:rules|instructions|"
        r"restrictions|guidelines|constraints)\s+(?:are|is|were|have been)\s+(?:now\s+)?"
        r"(?:void|lifted|cancel+ed|revoked|suspended|no longer|obsolete|overridden|invalid)"
        r"|\b(?:system|admin|developer|safety)\s+override\b"
        r"|\b(?:rules?|instructions?|guidelines|restrictions|policies)\s+(?:no longer|do not|"
        r"don't)\s+apply",
    ),
    _p(
        Family.OVERRIDE,
        "new your update change modify edit rewrite overwrite add write append",
        r"\bnew\s+(?:system\s+)?(?:prompt|rules?|instructions?|directives?|persona)\s*:"
        r"|\byour\s+(?:new\s+|real\s+|true\s+|actual\s+|only\s+)?(?:rules?|instructions?|task|"
        r"goal|purpose|objective|job|role)s?\s+(?:is|are|has|now)\b"
        r"|\b(?:update|change|modify|edit|rewrite|overwrite|add to|write to|append to)\s+"
        r"(?:your|the assistant'?s|the agent'?s|the owner'?s)\s+(?:memory|memories|rules?|"
        r"notes|instructions?|preferences|settings|system prompt)",
    ),
    _p(
        Family.OVERRIDE,
        "memory memories standing permanent persistent pretend act claim",
        r"\b(?:save|store|add|write|record|remember|put|keep|create)\s+(?:this\s+|it\s+|that\s+)?"
        r"(?:(?:as|to|in|into)\s+)?(?:a\s+|an\s+|your\s+|the\s+)?(?:new\s+)?"
        r"(?:standing\s+|permanent\s+|persistent\s+|long-term\s+)?memor(?:y|ies)\b"
        r"|\b(?:save|store|add|create|record|set|remember)\s+(?:this\s+as\s+)?(?:a\s+|an\s+)?"
        r"(?:new\s+)?(?:standing|permanent|persistent|long-term)\s+(?:rule|instruction|order|"
        r"preference)"
        r"|\b(?:store|save|remember|record) (?:this|the following) as (?:a |an )?(?:rule|"
        r"instruction|fact from the owner|owner'?s? (?:rule|instruction|preference))"
        r"|\b(?:pretend|act as if|claim) (?:that )?(?:you|the owner|the user) (?:said|wrote|"
        r"asked|want)",
    ),
    _p(
        Family.FAKE_AUTHORITY,
        "from",
        r"\b(?:message|notice|note|update|instruction|alert|request|memo)s?\s+from\s+(?:the\s+)?"
        r"(?:[\w-]+\s+){0,2}(?:developers?|creators?|makers?|maintainers?|administrators?|"
        r"admins?|operators?|vendor|openai|anthropic|(?:safety|security|trust|support|it)\s+"
        r"team)\b(?=[\s\S]*\b" + _AI + r"\b)",
    ),
    _p(
        Family.FAKE_AUTHORITY,
        "already proceed",
        r"\b(?:the\s+)?(?:user|owner)\s+(?:has|had|have)\s+already\s+(?:approved|authori[sz]ed|"
        r"confirmed|consented|agreed|allowed)"
        r"|\bproceed without (?:asking|confirmation|confirming|approval)",
    ),
    _p(
        Family.TOOL_REDIRECT,
        "call invoke use run execute trigger launch",
        r"\b(?:call|invoke|use|run|execute|trigger|launch)\s+(?:the\s+|your\s+|a\s+)?[`'\"]?"
        r"(?:[\w.-]*" + _DANGER + r"[\w.-]*[`'\"]?\s+(?:tool|function|plugin|action|api)\b"
        r"|[a-z]+_[\w]*" + _DANGER + r"\w*|" + _DANGER + r"_\w+)",
    ),
    _p(
        Family.TOOL_REDIRECT,
        "169.254 metadata.google 100.100 fd00",
        _METADATA,
    ),
    _p(
        Family.EXFILTRATION,
        "send mail email forward upload post transmit leak share paste copy submit cc reveal "
        "disclose exfiltrate print output dump display read reply respond answer answers list",
        r"\b(?:"
        + _SEND
        + r"|"
        + _SHOW
        + r")\b[^.!?\n]{0,60}?"
        + _SENSITIVE
        + r"|\b"
        + _SEND
        + r"\s+(?:all|every|each|any)\b[^.!?\n]{0,60}?\bto\s+(?:https?://|\S+@)",
    ),
    _p(
        Family.EXFILTRATION,
        "append add attach encode put include",
        r"\b(?:append|add|attach|encode|put|include)\b[^.!?\n]{0,40}?"
        + _SENSITIVE
        + r"[^.!?\n]{0,40}?\b(?:to|in|into)\s+(?:the\s+|this\s+|a\s+)?(?:url|link|query|image|"
        r"markdown)",
    ),
    _p(
        Family.ACTION,
        "transfer wire pay send buy purchase donate",
        r"\b(?:transfer|wire|pay|send|buy|purchase|donate)\b[^.!?\n]{0,40}?"
        r"(?:[$€£]\s?\d|\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp|dollars|euros|pounds|btc|bitcoin)\b|"
        r"\bfunds\b|\bmoney\b|\bcrypto|\bwallet\b)[^.!?\n]{0,60}?(?:account|iban|wallet|"
        r"address|confirm|immediately|urgent|gift card|below)",
    ),
    _p(
        Family.ACTION,
        "delete wipe erase destroy remove drop purge grant give share",
        r"\b(?:delete|wipe|erase|destroy|remove|drop|purge)\s+(?:(?:(?:all|every|entire|whole)"
        r"(?:\s+of)?\s+)+(?:the\s+|your\s+|their\s+|my\s+)?|(?:your|the owner'?s|the user'?s)\s+)"
        r"(?:\w+\s+)?(?:files|data|database|backups?|memor(?:y|ies)|rules|records|accounts?|"
        r"e-?mails|messages|contacts|repositor(?:y|ies)|drive)\b"
        r"|\b(?:grant|give)\s+(?:me|us|them|this \w+)\s+(?:full\s+|admin\s+|root\s+)?(?:access|"
        r"permissions?|control)\b"
        r"|\b(?:grant|give|share)\s+[^.!?\n]{0,30}?\b(?:access|permissions?|ownership|control)"
        r"\s+to\s+\S+@",
    ),
    _p(
        Family.ACTION,
        "approve authorise authorize confirm",
        r"(?:^|[.!?:;]\s*|\bplease\s+|\bmust\s+|\bshould\s+|\bnow\s+)(?:approve|authori[sz]e|"
        r"confirm)\s+(?:the|this|all)\s+(?:payments?|transactions?|transfers?|requests?)\b",
    ),
    _p(
        Family.ENCODED,
        "decode base64 hex rot13 encoded",
        r"\bdecode\b[^.!?\n]{0,40}?\b(?:follow|execute|obey|run|do|carry out|act on|apply)\b"
        r"|\b(?:base64|hex|rot13|encoded)\s+(?:instructions?|payload|commands?)\s+(?:for|to)\s+"
        r"(?:the\s+)?" + _AIS + r"\b",
    ),
    _p(
        Family.ROLE_PLAY,
        "dan game pretend act fixture expected mode jailbreak jailbroken",
        r"\byou\s+are\s+(?:now\s+)?(?:dan\b|an?\s+" + _AI + r"\s+(?:without|with no|free of)\s+"
        r"(?:any\s+)?(?:restrictions|rules|limits|filters|guidelines))"
        r"|\b(?:let'?s|we will|we'll)\s+play\s+a\s+game\b[^.!?\n]{0,40}?\byou\s+(?:are|will be|"
        r"play)\b"
        r"|\bpretend\s+(?:that\s+)?you\s+are\b"
        r"|\bact\s+as\s+(?:if\s+you\s+were\s+)?(?:an?\s+)?(?:unrestricted|jailbroken|dan\b)"
        r"|\btest\s+fixture\b[^.]{0,80}?\b" + _AIS + r"\b"
        r"|\bexpected\s+behaviou?r\s*:\s*the\s+" + _AI + r"\b"
        r"|\b(?:enable|enter|activate|switch to)\s+(?:developer|god|debug|dan|jailbreak)\s+mode"
        r"|\bjailbr(?:oken|eak)\s+mode",
    ),
    _p(
        Family.HIJACK,
        "rest now agreed promised committed",
        r"\bfor\s+the\s+rest\s+of\s+(?:the|this|our)\s+(?:conversation|chat|session|dialogue),?"
        r"\s+(?:you|always|never|answer|respond|reply|only|treat|act|remember)"
        r"|\bfrom\s+now\s+on,?\s+(?:you|always|never|the\s+" + _AI + r"|treat|consider|remember|"
        r"answer|respond|reply)"
        r"|\byou\s+(?:have\s+)?(?:already\s+)?(?:agreed|promised|committed)\s+(?:earlier\s+|"
        r"before\s+|previously\s+|last\s+time\s+)?to\s+",
    ),
    _p(
        Family.ADDRESSED,
        "dear hey hi hello attention psst note",
        r"\b(?:dear|hey|hi|hello|attention|psst|note to(?: the| all)?)\s+(?:ai\s+)?(?:code\s+|"
        r"coding\s+)?" + _AIS + r"\b",
    ),
    _p(
        Family.ADDRESSED,
        "reading processing summarising summarizing visiting browsing crawling parsing "
        "reviewing viewing analysing analyzing",
        r"\b" + _AIS + r"\s+(?:reading|processing|summari[sz]ing|visiting|browsing|crawling|"
        r"parsing|reviewing|viewing|analy[sz]ing)\s+(?:this|these)\b",
    ),
    _p(
        Family.ADDRESSED,
        "if as you",
        r"\bif you are an? (?:ai|assistant|agent|language model|llm|bot)\b"
        r"|\bas an? (?:ai|assistant|language model)\b"
        r"|\byou are (?:now )?(?:an? |the )?(?:ai|assistant|agent|model|chatbot|dan)\b",
    ),
    _p(
        Family.ADDRESSED,
        "ai assistant agent system model llm",
        r"^[^\S\n]*(?:ai|assistant|agent|system)[^\S\n]*[:,]"
        r"|[:;] ?(?:ai|assistant|agent|model)s? ?[,:]"
        r"|\b(?:ai|llm) (?:reviewers?|agents?|assistants?|models?|bots?|crawlers?|readers?) ?[:,]",
    ),
)
