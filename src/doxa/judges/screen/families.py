"""The attack families the screen knows, each a few explainable patterns.

The families follow the published taxonomies of indirect prompt injection (Greshake et al.
2023; BIPIA; InjecAgent; AgentDojo; OWASP LLM01). Each pattern reads a lower-cased view
(:mod:`doxa.judges.screen.normalise`) and looks for text that addresses the assistant, not
a human reader: ordinary imperatives ("preheat the oven", "delete the logs older than 30
days", "forward the agenda to the team") are not signs. A pattern runs only when a word of
each of its cue groups occurs in the text (a verb and its object: "ignore" and
"instructions"), so a long benign text mostly costs one pass to collect its words.

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
    """One sign of a family, gated by cue groups: each group must have a member in the text
    (a cue of letters as a word of the view; any other cue, such as ``<|``, as a substring)
    before the regular expression runs."""

    family: Family
    cues: tuple[tuple[frozenset[str], tuple[str, ...]], ...]
    regex: re.Pattern[str]

    def cued(self, text: str, words: frozenset[str]) -> bool:
        """Whether ``text`` (whose words are ``words``) holds a cue of every group."""
        return all(
            not names.isdisjoint(words) or any(mark in text for mark in marks)
            for names, marks in self.cues
        )

    def search(self, text: str, words: frozenset[str]) -> re.Match[str] | None:
        """The first match in ``text``, or None; the expression runs only around the places
        where a cue of the first group occurs (a sign starts near its first cue and is
        shorter than the window), so a long text is not scanned once per pattern."""
        if not self.cued(text, words):
            return None
        names, marks = self.cues[0]
        starts: list[int] = []
        for cue in (*(names & words), *marks):
            at = text.find(cue)
            while at >= 0:
                starts.append(at)
                at = text.find(cue, at + 1)
        scanned = -1
        for at in sorted(starts):
            high = at + _AFTER
            if high <= scanned:
                continue  # a sign starting near this cue lies inside the window just read
            match = self.regex.search(text, max(at - _BEFORE, 0), high)
            if match is not None:
                return match
            scanned = high
        return None


#: how far before its first cue a sign may start, and after it end (characters)
_BEFORE, _AFTER = 80, 320


def _p(family: Family, regex: str, *groups: str) -> Pattern:
    cues = []
    for group in groups:
        split = group.split()
        names = frozenset(c for c in split if c.isalnum())
        cues.append((names, tuple(c for c in split if not c.isalnum())))
    return Pattern(family, tuple(cues), re.compile(regex, re.MULTILINE))


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

# cue groups: the words a pattern cannot match without
_C_AI = "ai assistant assistants agent agents model models llm llms bot bots chatbot copilot gpt"
_C_AI += " chatgpt claude gemini"
_C_RULES = "instruction instructions rule rules prompt prompts guideline guidelines directions"
_C_RULES += " directive directives constraint constraints memory memories policy policies"
_C_RULES += " request requests orders programming guardrails"
_C_SENSITIVE = "password passwords passcode passcodes pin pins api key keys token tokens access"
_C_SENSITIVE += " credentials secret secrets env private ssh credit bank account social data"
_C_SENSITIVE += " details information address email emails mails messages files documents"
_C_SENSITIVE += " contacts contact calendar location notes phone records personal memory"
_C_SENSITIVE += " memories conversation chat history prompt configuration instructions"
_C_DANGER = "delete remove erase wipe send email mail fetch http browse browser url request"
_C_DANGER += " transfer pay payment shell exec terminal bash write post upload curl wget"
_C_DANGER += " download forward share"

FAMILIES: tuple[Pattern, ...] = (
    _p(
        Family.FORGED_TURN,
        r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|"
        r"end_header_id|begin_of_text)\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>"
        r"|</(?:document|context|data|tool_output|tool_result|search_results|email|input|"
        r"untrusted|user_input|quote|instructions)>",
        "<| [inst] [/inst] <<sys>> _of_turn> </",
    ),
    _p(
        Family.FORGED_TURN,
        r"(?:-{3,}|#{2,}|={3,})\s*end of (?:the )?(?:e-?mail|document|context|data|input|"
        r"tool output|tool result|results?|page|message)\b",
        "end",
        "--- ## ===",
    ),
    _p(
        Family.FORGED_TURN,
        r"^\s*(?:system|assistant|developer)\s*:\s*\S",
        "system assistant developer",
        ":",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard)\s+"
        r"(?:(?:all|any|the|your|its|their|my|these|those|of|every)\s+)*"
        r"(?:(?:previous|prior|above|earlier|preceding|existing|original|initial|system|safety|"
        r"owner'?s?|user'?s?|current)\s+)*" + _RULES + r"\b",
        "ignore disregard forget override bypass skip drop abandon discard",
        _C_RULES,
    ),
    _p(
        Family.OVERRIDE,
        r"\bstop (?:what|everything) you(?:'re| are| were) (?:doing|asked|told)",
        "stop",
        "doing asked told",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:previous|prior|earlier|above|old|original|current)\s+(?:rules|instructions|"
        r"restrictions|guidelines|constraints)\s+(?:are|is|were|have been)\s+(?:now\s+)?"
        r"(?:void|lifted|cancel+ed|revoked|suspended|no longer|obsolete|overridden|invalid)"
        r"|\b(?:rules?|instructions?|guidelines|restrictions|policies)\s+(?:no longer|do not|"
        r"don't)\s+apply",
        "void lifted cancelled canceled revoked suspended longer obsolete overridden invalid apply",
        "rules rule instructions instruction restrictions guidelines constraints policies",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:system|admin|developer|safety)\s+override\b",
        "override",
    ),
    _p(
        Family.OVERRIDE,
        r"\bnew\s+(?:system\s+)?(?:prompt|rules?|instructions?|directives?|persona)\s*:",
        "new",
        "prompt rule rules instruction instructions directive directives persona",
    ),
    _p(
        Family.OVERRIDE,
        r"\byour\s+(?:new\s+|real\s+|true\s+|actual\s+|only\s+)?(?:rules?|instructions?|task|"
        r"goal|purpose|objective|job|role)s?\s+(?:is|are|has|now)\b",
        "your",
        "rule rules instruction instructions task tasks goal goals purpose objective job role",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:update|change|modify|edit|rewrite|overwrite|add to|write to|append to)\s+"
        r"(?:your|the assistant'?s|the agent'?s|the owner'?s)\s+(?:memory|memories|rules?|"
        r"notes|instructions?|preferences|settings|system prompt)",
        "update change modify edit rewrite overwrite add write append",
        "memory memories rule rules notes instruction instructions preferences settings prompt",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:save|store|add|write|record|remember|put|keep|create)\s+(?:this\s+|it\s+|that\s+)?"
        r"(?:(?:as|to|in|into)\s+)?(?:a\s+|an\s+|your\s+|the\s+)?(?:new\s+)?"
        r"(?:standing\s+|permanent\s+|persistent\s+|long-term\s+)?memor(?:y|ies)\b",
        "memory memories",
        "save store add write record remember put keep create",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:save|store|add|create|record|set|remember)\s+(?:this\s+as\s+)?(?:a\s+|an\s+)?"
        r"(?:new\s+)?(?:standing|permanent|persistent|long-term)\s+(?:rule|instruction|order|"
        r"preference)",
        "standing permanent persistent term",
        "rule instruction order preference",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:store|save|remember|record) (?:this|the following) as (?:a |an )?(?:rule|"
        r"instruction|fact from the owner|owner'?s? (?:rule|instruction|preference))",
        "store save remember record",
        "rule instruction owner",
    ),
    _p(
        Family.OVERRIDE,
        r"\b(?:pretend|act as if|claim) (?:that )?(?:you|the owner|the user) (?:said|wrote|"
        r"asked|want)",
        "pretend act claim",
        "said wrote asked want",
    ),
    _p(
        Family.FAKE_AUTHORITY,
        r"\b(?:message|notice|note|update|instruction|alert|request|memo)s?\s+from\s+(?:the\s+)?"
        r"(?:[\w-]+\s+){0,2}(?:developers?|creators?|makers?|maintainers?|administrators?|"
        r"admins?|operators?|vendor|openai|anthropic|(?:safety|security|trust|support|it)\s+"
        r"team)\b",
        "from",
        "developer developers creator creators maker makers maintainer maintainers administrator"
        " administrators admin admins operator operators vendor openai anthropic team",
        _C_AI,
    ),
    _p(
        Family.FAKE_AUTHORITY,
        r"\b(?:the\s+)?(?:user|owner)\s+(?:has|had|have)\s+already\s+(?:approved|authori[sz]ed|"
        r"confirmed|consented|agreed|allowed)",
        "already",
        "approved authorised authorized confirmed consented agreed allowed",
    ),
    _p(
        Family.FAKE_AUTHORITY,
        r"\bproceed without (?:asking|confirmation|confirming|approval)",
        "proceed",
        "asking confirmation confirming approval",
    ),
    _p(
        Family.TOOL_REDIRECT,
        r"\b(?:call|invoke|use|run|execute|trigger|launch)\s+(?:the\s+|your\s+|a\s+)?[`'\"]?"
        r"(?:[\w.-]*" + _DANGER + r"[\w.-]*[`'\"]?\s+(?:tool|function|plugin|action|api)\b"
        r"|[a-z]+_[\w]*" + _DANGER + r"\w*|" + _DANGER + r"_\w+)",
        "call invoke use run execute trigger launch",
        _C_DANGER,
    ),
    _p(Family.TOOL_REDIRECT, _METADATA, "169.254 metadata.google 100.100 fd00"),
    _p(
        Family.EXFILTRATION,
        r"\b(?:" + _SEND + r"|" + _SHOW + r")\b[^.!?\n]{0,60}?" + _SENSITIVE,
        "send mail email forward upload post transmit leak share paste copy submit cc reveal"
        " disclose exfiltrate print output dump display read reply respond answer answers list",
        _C_SENSITIVE,
    ),
    _p(
        Family.EXFILTRATION,
        r"\b" + _SEND + r"\s+(?:all|every|each|any)\b[^.!?\n]{0,60}?\bto\s+(?:https?://|\S+@)",
        "send mail email forward upload post transmit share copy submit cc",
        "all every each any",
        ": @",
    ),
    _p(
        Family.EXFILTRATION,
        r"\b(?:append|add|attach|encode|put|include)\b[^.!?\n]{0,40}?"
        + _SENSITIVE
        + r"[^.!?\n]{0,40}?\b(?:to|in|into)\s+(?:the\s+|this\s+|a\s+)?(?:url|link|query|image|"
        r"markdown)",
        "append add attach encode put include",
        "url link query image markdown",
    ),
    _p(
        Family.ACTION,
        r"\b(?:transfer|wire|pay|send|buy|purchase|donate)\b[^.!?\n]{0,40}?"
        r"(?:[$€£]\s?\d|\d+(?:[.,]\d+)?\s?(?:usd|eur|gbp|dollars|euros|pounds|btc|bitcoin)\b|"
        r"\bfunds\b|\bmoney\b|\bcrypto|\bwallet\b)[^.!?\n]{0,60}?(?:account|iban|wallet|"
        r"address|confirm|immediately|urgent|gift card|below)",
        "transfer wire pay send buy purchase donate",
        "usd eur gbp dollars euros pounds btc bitcoin funds money crypto wallet $ € £",
    ),
    _p(
        Family.ACTION,
        r"\b(?:delete|wipe|erase|destroy|remove|drop|purge)\s+(?:(?:(?:all|every|entire|whole)"
        r"(?:\s+of)?\s+)+(?:the\s+|your\s+|their\s+|my\s+)?|(?:your|the owner'?s|the user'?s)\s+)"
        r"(?:\w+\s+)?(?:files|data|database|backups?|memor(?:y|ies)|rules|records|accounts?|"
        r"e-?mails|messages|contacts|repositor(?:y|ies)|drive)\b",
        "delete wipe erase destroy remove drop purge",
        "all every entire whole your owner user",
    ),
    _p(
        Family.ACTION,
        r"\b(?:grant|give)\s+(?:me|us|them|this \w+)\s+(?:full\s+|admin\s+|root\s+)?(?:access|"
        r"permissions?|control)\b"
        r"|\b(?:grant|give|share)\s+[^.!?\n]{0,30}?\b(?:access|permissions?|ownership|control)"
        r"\s+to\s+\S+@",
        "grant give share",
        "access permission permissions ownership control",
    ),
    _p(
        Family.ACTION,
        r"(?:^|[.!?:;]\s*|\bplease\s+|\bmust\s+|\bshould\s+|\bnow\s+)(?:approve|authori[sz]e|"
        r"confirm)\s+(?:the|this|all)\s+(?:payments?|transactions?|transfers?|requests?)\b",
        "approve authorise authorize confirm",
        "payment payments transaction transactions transfer transfers request requests",
    ),
    _p(
        Family.ENCODED,
        r"\bdecode\b[^.!?\n]{0,40}?\b(?:follow|execute|obey|run|do|carry out|act on|apply)\b",
        "decode",
        "follow execute obey run do carry act apply",
    ),
    _p(
        Family.ENCODED,
        r"\b(?:base64|hex|rot13|encoded)\s+(?:instructions?|payload|commands?)\s+(?:for|to)\s+"
        r"(?:the\s+)?" + _AIS + r"\b",
        "base64 hex rot13 encoded",
        _C_AI,
    ),
    _p(
        Family.ROLE_PLAY,
        r"\byou\s+are\s+(?:now\s+)?(?:dan\b|an?\s+" + _AI + r"\s+(?:without|with no|free of)\s+"
        r"(?:any\s+)?(?:restrictions|rules|limits|filters|guidelines))",
        "you",
        "dan restrictions rules limits filters guidelines",
    ),
    _p(
        Family.ROLE_PLAY,
        r"\b(?:let'?s|we will|we'll)\s+play\s+a\s+game\b[^.!?\n]{0,40}?\byou\s+(?:are|will be|"
        r"play)\b",
        "game",
        "you",
    ),
    _p(Family.ROLE_PLAY, r"\bpretend\s+(?:that\s+)?you\s+are\b", "pretend", "you"),
    _p(
        Family.ROLE_PLAY,
        r"\bact\s+as\s+(?:if\s+you\s+were\s+)?(?:an?\s+)?(?:unrestricted|jailbroken|dan\b)",
        "act",
        "unrestricted jailbroken dan",
    ),
    _p(Family.ROLE_PLAY, r"\btest\s+fixture\b[^.]{0,80}?\b" + _AIS + r"\b", "fixture", _C_AI),
    _p(
        Family.ROLE_PLAY,
        r"\bexpected\s+behaviou?r\s*:\s*the\s+" + _AI + r"\b",
        "expected",
        "behaviour behavior",
    ),
    _p(
        Family.ROLE_PLAY,
        r"\b(?:enable|enter|activate|switch to)\s+(?:developer|god|debug|dan|jailbreak)\s+mode"
        r"|\bjailbr(?:oken|eak)\s+mode",
        "mode",
        "developer god debug dan jailbreak jailbroken",
    ),
    _p(
        Family.HIJACK,
        r"\bfor\s+the\s+rest\s+of\s+(?:the|this|our)\s+(?:conversation|chat|session|dialogue),?"
        r"\s+(?:you|always|never|answer|respond|reply|only|treat|act|remember)",
        "rest",
        "conversation chat session dialogue",
    ),
    _p(
        Family.HIJACK,
        r"\bfrom\s+now\s+on,?\s+(?:you|always|never|the\s+" + _AI + r"|treat|consider|remember|"
        r"answer|respond|reply)",
        "now",
        "from",
    ),
    _p(
        Family.HIJACK,
        r"\byou\s+(?:have\s+)?(?:already\s+)?(?:agreed|promised|committed)\s+(?:earlier\s+|"
        r"before\s+|previously\s+|last\s+time\s+)?to\s+",
        "agreed promised committed",
        "you",
    ),
    _p(
        Family.ADDRESSED,
        r"\b(?:dear|hey|hi|hello|attention|psst|note to(?: the| all)?)\s+(?:ai\s+)?(?:code\s+|"
        r"coding\s+)?" + _AIS + r"\b",
        "dear hey hi hello attention psst note",
        _C_AI,
    ),
    _p(
        Family.ADDRESSED,
        r"\b" + _AIS + r"\s+(?:reading|processing|summari[sz]ing|visiting|browsing|crawling|"
        r"parsing|reviewing|viewing|analy[sz]ing)\s+(?:this|these)\b",
        "reading processing summarising summarizing visiting browsing crawling parsing"
        " reviewing viewing analysing analyzing",
        _C_AI,
    ),
    _p(
        Family.ADDRESSED,
        r"\bif you are an? (?:ai|assistant|agent|language model|llm|bot)\b"
        r"|\bas an? (?:ai|assistant|language model)\b"
        r"|\byou are (?:now )?(?:an? |the )?(?:ai|assistant|agent|model|chatbot|dan)\b",
        "if as you",
        "ai assistant agent model llm bot chatbot dan",
    ),
    _p(
        Family.ADDRESSED,
        r"^[^\S\n]*(?:ai|assistant|agent|system)[^\S\n]*[:,]"
        r"|[:;] ?(?:ai|assistant|agent|model)s? ?[,:]"
        r"|\b(?:ai|llm) (?:reviewers?|agents?|assistants?|models?|bots?|crawlers?|readers?) ?[:,]",
        "ai assistant assistants agent agents system model models llm",
        ": ,",
    ),
)
