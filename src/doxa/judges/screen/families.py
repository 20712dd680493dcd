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

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from doxa.judges.screen.readings import corrected, invoiced, warned

__all__ = ["FAMILIES", "STANDING", "CueIndex", "Family", "Pattern"]


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
    STEERING = "answer steering"
    CODE = "code insertion"
    CONCEALMENT = "concealment"
    STANDING = "standing instruction"

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
    Family.STEERING: "it tells the assistant what to put in its answer or how to write it",
    Family.CODE: "it asks for code to be put into the answer or the owner's code, or carries a"
    " destructive or remote-shell command",
    Family.CONCEALMENT: "it asks the assistant to hide something from the user",
    Family.STANDING: "it tells the assistant what to do in later turns, where a note says what"
    " is so",
}


@dataclass(frozen=True)
class Pattern:
    """One sign of a family, gated by cue groups: each group must have a member in the text
    (a cue of letters as a word of the view; any other cue, such as ``<|``, as a substring)
    before the regular expression runs."""

    family: Family
    cues: tuple[tuple[frozenset[str], tuple[str, ...]], ...]
    regex: re.Pattern[str]
    #: the cue group every match starts with a word of (see :func:`_leads_with_cue`), or
    #: None: the expression is tried only where such a word starts, not across a window
    anchor: int | None = None
    #: what makes a match no sign, or None: a runbook forbids what an injection asks for in
    #: the same words, a person corrects their own instructions, an invoice asks to be paid
    #: (the readings of :mod:`doxa.judges.screen.readings`)
    excuse: Callable[[str, re.Match[str]], bool] | None = None

    @property
    def anchored(self) -> bool:
        """Whether the expression is tried at its leading cues alone."""
        return self.anchor is not None

    def cued(self, text: str, words: frozenset[str]) -> bool:
        """Whether ``text`` (whose words are ``words``) holds a cue of every group."""
        # plain loops: about seventy patterns are asked per view, and generator expressions
        # here cost more than the checks themselves
        # the groups of words first (set operations); a group that needs its marks looked
        # for in the text (a scan of it each) only once every group of words has passed
        for names, marks in self.cues:
            if not marks and names.isdisjoint(words):
                return False
        for names, marks in self.cues:
            if marks and names.isdisjoint(words) and not holds(text, marks):
                return False
        return True

    def search(self, text: str, words: frozenset[str]) -> re.Match[str] | None:
        """The first match in ``text``, or None; the expression runs only around the places
        where a cue of the first group occurs (a sign starts near its first cue and is
        shorter than the window), so a long text is not scanned once per pattern."""
        if not self.cued(text, words):
            return None
        if self.anchor is not None:
            return self._anchored(text, tuple(self.cues[self.anchor][0] & words))
        names, marks = self.cues[0]
        starts = _starts(text, (*(names & words), *marks), _BEFORE + _AFTER)
        if starts is None:
            # cues so dense (every closing tag of a page for ``</``) that the windows would
            # read the text several times over: one search of the whole text costs less
            return self._first(text, 0, len(text))
        scanned = -1
        for at in starts:
            high = at + _AFTER
            if high <= scanned:
                continue  # a sign starting near this cue lies inside the window just read
            match = self._first(text, max(at - _BEFORE, 0), high)
            if match is not None:
                return match
            scanned = high
        return None

    def _first(self, text: str, start: int, end: int) -> re.Match[str] | None:
        """The first match between ``start`` and ``end`` that is a sign (one its excuse, if
        the pattern has one, does not excuse)."""
        excuse = self.excuse
        if excuse is None:
            return self.regex.search(text, start, end)
        for match in self.regex.finditer(text, start, end):
            if not excuse(text, match):
                return match
        return None

    def _anchored(self, text: str, cues: tuple[str, ...]) -> re.Match[str] | None:
        """The first match starting where a cue starts: one attempt per occurrence of a cue,
        each failing at once where no sign begins, instead of a scan of every position of a
        window; the earliest occurrence that matches is the match a search would find."""
        for at in _starts(text, cues) or ():
            match = self.regex.match(text, at)
            if match is not None and not (self.excuse is not None and self.excuse(text, match)):
                return match
        return None


def holds(text: str, marks: tuple[str, ...]) -> bool:
    """Whether a mark of ``marks`` (cues that are not words, such as ``<|``) occurs in
    ``text``: the answer ``any(mark in text for mark in marks)`` gives, at less cost.

    A scan for a string of two or more characters reads the whole text at about a
    nanosecond a character, and some twenty marks are looked for per view; a scan for one
    character (``memchr``) costs a fraction of that. So the characters of a mark that are
    not letters, the rare ones in prose, are looked for first: where one is missing, the
    mark is, and its scan is skipped. Marks that are left and start alike (``<system>``,
    ``<user>``) are looked for in one search of their alternation, which the regular
    expression engine runs from each ``<`` alone."""
    if len(marks) == 1:  # most groups: ``:``, ``[``
        return _gated(text, marks[0]) and marks[0] in text
    left = [mark for mark in marks if _gated(text, mark)]
    if len(left) > 1 and len({mark[0] for mark in left}) == 1:
        return _alternation(tuple(left)).search(text) is not None
    # plain loops here and in _gated: a generator costs more than the checks it would make
    for mark in left:  # noqa: SIM110
        if mark in text:
            return True
    return False


def _gated(text: str, mark: str) -> bool:
    """Whether each character of ``mark`` that is not a letter occurs in ``text`` (a mark
    of one character is its own scan: nothing to look for first)."""
    gate = _GATES.get(mark)
    if gate is None:
        rare = (c for c in mark if not c.isalpha()) if len(mark) > 1 else ()
        gate = _GATES[mark] = "".join(dict.fromkeys(rare))
    for char in gate:  # noqa: SIM110
        if char not in text:
            return False
    return True


#: each mark's characters that are looked for before the mark itself (see :func:`holds`)
_GATES: dict[str, str] = {}


@functools.lru_cache(maxsize=256)
def _alternation(marks: tuple[str, ...]) -> re.Pattern[str]:
    """One expression that matches where any of ``marks`` occurs."""
    return re.compile("|".join(map(re.escape, marks)))


def _starts(text: str, cues: tuple[str, ...], span: int = 0) -> list[int] | None:
    """Where each cue occurs in ``text`` (overlaps included), in order; or, with a
    ``span``, None as soon as the occurrences counted the way ``str.count`` counts them
    (without overlaps) times ``span`` reach the text's length. One pass of ``find`` per
    cue: the count comes with the places, not from a scan of its own, and stops where the
    answer is known."""
    starts: list[int] = []
    # the fewest occurrences that make the cues dense (none: never, without a span)
    dense = -(-len(text) // span) if span else -1
    counted = 0
    for cue in cues:
        at = text.find(cue)
        free = 0  # where the next occurrence ``str.count`` counts may start
        while at >= 0:
            starts.append(at)
            if at >= free:
                counted += 1
                if counted == dense:
                    return None
                free = at + len(cue)
            at = text.find(cue, at + 1)
    if counted == dense:  # only an empty text: no occurrence is needed
        return None
    starts.sort()
    return starts


#: how far before its first cue a sign may start, and after it end (characters)
_BEFORE, _AFTER = 80, 320
#: the alternatives of a leading group, once its inner ``(?:`` and ``)`` are taken out
_WORDS = re.compile(r"[a-z' ]+(?:\|[a-z' ]+)*")


def _top_level_branches(regex: str) -> bool:
    """Whether ``regex`` has a ``|`` outside every group and character class."""
    depth, escaped, in_class = 0, False, False
    for char in regex:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            return True
    return False


def _leads_with_cue(regex: str, names: frozenset[str]) -> bool:
    """Whether every match of ``regex`` starts with a whole word of ``names``: it opens with
    ``\\b`` and a literal word (or a group of literal words, nested groups allowed), the
    first word of each a cue, nothing optional about the group, and no top-level
    alternative that could start elsewhere."""
    if not regex.startswith("\\b") or _top_level_branches(regex):
        return False
    rest = regex[2:]
    if rest.startswith("(?:"):
        depth, end = 0, 0
        for end, char in enumerate(rest):  # noqa: B007 (end is read after the loop)
            depth += (char == "(") - (char == ")")
            if depth == 0:
                break
        inner = rest[3:end].replace("(?:", "").replace(")", "")
        after = rest[end + 1 : end + 2]
    else:
        word = re.match(r"[a-z]+", rest)
        if word is None:
            return False
        inner, after = word.group(0), rest[word.end() : word.end() + 1]
    if _WORDS.fullmatch(inner) is None or (after != "" and after in "?*+{"):
        return False
    return all(alternative.split()[0] in names for alternative in inner.split("|"))


def _p(
    family: Family,
    regex: str,
    *groups: str,
    excuse: Callable[[str, re.Match[str]], bool] | None = None,
) -> Pattern:
    """A pattern of ``family``, tried at its leading cue where it has one; ``excuse``, what
    makes a match no sign (:mod:`doxa.judges.screen.readings`)."""
    cues = []
    for group in groups:
        split = group.split()
        names = frozenset(c for c in split if c.isalnum())
        cues.append((names, tuple(c for c in split if not c.isalnum())))
    anchor = next((at for at, (names, _) in enumerate(cues) if _leads_with_cue(regex, names)), None)
    return Pattern(family, tuple(cues), re.compile(regex, re.MULTILINE), anchor, excuse)


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
    # the owner's data is the user's to the one who acts for them, or all of it: a person
    # asks for "your details" to book a slot, not for all your e-mails
    r"(?:(?:the |your |my )?(?:user|owner)'?s? |(?:all|every one|each) (?:of )?(?:my|your) )"
    r"(?:\w+ )?(?:data|details|information|address|e-?mails?|messages|files|documents|contacts?|"
    r"contact list|calendar|location|notes|phone numbers?|records)|personal (?:data|details|"
    r"information)|"
    # the assistant's own configuration; "the instructions" of a manual are a person's
    r"(?:(?:the )?(?:full |entire |whole )?(?:contents of )?(?:your |the assistant'?s |the "
    r"model'?s )(?:memory|memories|conversation|chat history|system prompt|hidden configuration|"
    r"configuration|instructions))|(?:the )?(?:system prompt|hidden configuration|hidden "
    r"instructions)|(?:the )?instructions you (?:were|have been|'ve been) given|(?:the )?"
    r"(?:conversation|chat) (?:so far|until now|up to now|history|transcript|log)|"
    r"(?:the )?(?:full |entire |whole )(?:contents of )?(?:the |this )?"
    r"(?:conversation|chat history|memory))"
)
_SEND = r"(?:send|email|mail|forward|upload|post|transmit|leak|share|paste|copy|submit|cc)"
_SHOW = (
    r"(?:reveal|disclose|exfiltrate|print|output|dump|display|read out|reply with|"
    r"respond with|answer with|answers with|list)"
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

# the assistant's answer as a human reader would never call it (BIPIA's answer-shaping tasks)
_ANSWER = r"(?:responses?|answers?|repl(?:y|ies)|outputs?|elucidation)"
_C_ANSWER = "response responses answer answers reply replies output outputs elucidation"
# forms an answer can be put in: languages, encodings, ciphers, reversal, emoji
_FORM = (
    r"(?:base ?\d+|hex(?:adecimal)?|binary|morse|rot ?13|caesar|(?:\w+ )?cipher|emojis?|"
    r"reverse(?: order| sequence)?|backwards?|upside down|pig latin|all caps|upper ?case|"
    r"spanish|french|german|italian|portuguese|chinese|japanese|korean|russian|arabic|dutch|hindi)"
)
_C_FORM = "base64 base32 base16 base58 base hex hexadecimal binary morse rot13 caesar cipher"
_C_FORM += " emoji emojis reverse backward backwards upside pig caps uppercase spanish french"
_C_FORM += " german italian portuguese chinese japanese korean russian arabic dutch hindi"
_PUT = (
    r"(?:add|include|integrate|insert|incorporate|embed|append|inject|mention|put|weave|"
    r"place|suggest|promote|feature)"
)

_C_PUT = "add include integrate insert incorporate embed append inject mention put weave place"
_C_PUT += " suggest promote feature"
# what an answer is told to carry: a human correspondent asks for a number or a name instead
_CONTENT = (
    r"(?:sentences?|lines?|statements?|facts?|claims?|statistics?|teasers?|mentions?|"
    r"paragraphs?|rumou?rs?|hints?|phrases?|quotes?|code|snippets?|promotions?|"
    r"advertisements?|announcements?|jokes?|poems?|slogans?)"
)

_STEERING: tuple[Pattern, ...] = (
    _p(
        Family.STEERING,
        r"\b"
        + _PUT
        + r"\s+[\"“][^\"”\n]{1,160}[\"”]\s+(?:in|into|to|within)\s+your\s+"
        + _ANSWER
        + r"\b",
        _C_PUT,
        _C_ANSWER,
        "your",
    ),
    _p(
        Family.STEERING,
        r"\b(?:reverse|invert|flip|scramble|encrypt|encode|translate|shift)\b[^.!?\n]{0,40}?"
        r"\byour\s+" + _ANSWER + r"\b|\b(?:reverse|invert|flip|scramble)\b[^.!?\n]{0,40}?"
        r"\byour\s+messages?\b",
        "reverse invert flip scramble encrypt encode translate shift",
        "your",
    ),
    _p(
        Family.STEERING,
        r"\b"
        + _PUT
        + r"\s+(?:a|an|the|this|that|these|following|below)\s+(?:[\w-]+\s+){0,3}?"
        + _CONTENT
        + r"\b[^.!?\n]{0,60}?\b(?:in|into|to|within|inside)\s+your\s+"
        + _ANSWER
        + r"\b|\b(?:in|within)\s+your\s+"
        + _ANSWER
        + r"\s*,\s*(?:"
        + _PUT
        + r"|say|state|claim|tell)\s+(?:a|an|the|that|users?)\b",
        _C_PUT,
        _C_ANSWER,
        "your",
    ),
    _p(
        Family.STEERING,
        r"\b(?:modify|enhance|augment|upgrade|alter|rewrite|amend)\s+your\s+" + _ANSWER + r"\b"
        r"|\b" + _PUT + r"\s+in\s+your\s+" + _ANSWER + r"\s+(?:a|an|the)\b",
        _C_ANSWER,
        "your",
    ),
    _p(
        Family.STEERING,
        r"\byour\s+(?:" + _ANSWER[3:-1] + r"|message)(?:'s\s+\w+(?:\s+\w+)?)?\b"
        r"[^.!?\n]{0,40}?\b(?:in|into|to|using|with|by)\s+(?:an?\s+|the\s+)?(?:\w+\s+){0,2}"
        + _FORM
        + r"\b|\byour\s+(?:"
        + _ANSWER[3:-1]
        + r"|message)s?\s+(?:backwards?|in reverse)\b",
        _C_FORM,
        "your",
    ),
    _p(
        Family.STEERING,
        # a choice of forms ("reply in Spanish or English") is offered to a person, not imposed
        r"\b(?:reply|respond|answer)\s+(?:only\s+)?(?:in|using|with)\s+(?:an?\s+)?"
        r"(?:(?!or\b|and\b)\w+\s+){0,2}" + _FORM + r"\b(?!\s*(?:or|and|/)\s*(?:in\s+)?\w)"
        r"|\b(?:use|apply|using|substitute|replace|swap|represent)\b[^.!?\n]{0,30}?"
        + _FORM
        + r"\b[^.!?\n]{0,40}?\byour\s+(?:"
        + _ANSWER[3:-1]
        + r"|message)",
        _C_FORM,
        "reply respond answer use apply using substitute replace swap represent your",
    ),
)

# code an answer or a codebase is told to take in (BIPIA's code tasks), and commands that
# destroy data or hand the machine to someone else whoever runs them
_CODE_PART = r"(?:snippet|block|section|excerpt|segment|fragment|piece|lines?)"
_CODE_TARGET = (
    r"(?:response|answer|reply|code|codebase|code base|code foundation|implementation|solution|"
    r"algorithm|program|program logic|elucidation|project|script)"
)
_CODE: tuple[Pattern, ...] = (
    _p(
        Family.CODE,
        r"\b(?:following|below|subsequent|above)\s+code\s+" + _CODE_PART + r"s?\b"
        r"[^\n]{0,100}?\byour\s+(?:\w+\s+)?" + _CODE_TARGET + r"\b"
        r"|\byour\s+(?:\w+\s+)?" + _CODE_TARGET + r"\b[^.!?\n]{0,40}?\b(?:following|below|"
        r"subsequent)\s+code\s+" + _CODE_PART + r"s?\b",
        "following below subsequent above",
        "snippet snippets block blocks section sections excerpt excerpts segment segments fragment"
        " fragments piece pieces line lines",
        "code",
        "your",
    ),
    _p(
        Family.CODE,
        r"\brm\s+-(?:rf|fr|r\s+-f|f\s+-r)\s+(?:--no-preserve-root\s+)?(?:/(?=[\s*`'\"]|$)|~/?"
        r"(?=[\s*`'\"]|$)|~/\.(?:ssh|gnupg|aws)\b|\$home/?(?=[\s*`'\"]|$))"
        r"|\bnc\s+(?:-\w+\s+)*-e\s+/bin/\w*sh\b|/dev/tcp/"
        r"|\bshutil\.rmtree\(\s*[\"'](?:/|~|c:\\\\?)[\"']"
        r"|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"
        r"|\bopen\(\s*[\"'](?:/boot/|/etc/(?:passwd|shadow|sudoers|ld\.so\.preload)"
        r"|/dev/sd[a-z])[^\"']*[\"']\s*,\s*[\"'][wa]",
        "rm nc tcp rmtree :(){ /boot/ /etc/ /dev/sd",
    ),
)

# what a hijack of every future answer is preceded by, as fixed-width looks back
_TO_EVERY = (
    "(?:"
    + "|".join(
        rf"(?<=\b{to} {your}{every})"
        for to in ("to", "in", "into", "on")
        for your in ("your ",)
        for every in ("every", "all", "each")
    )
    + ")"
)

# garak's latent injections (the fourth pass): what an injection buried in a document to
# summarise, a résumé to assess or a record to look up says to the model that reads it. A
# human reader is told to skip part of a text, not to skip it *and print* something; is told
# what to say by someone ("staff should answer"), not "if asked, simply respond with"; and
# reads a speaker's label at the start of a chat line, not after a field's label.
# what follows a forged role label when it speaks to the assistant: the reader addressed, told
# to set its rules aside, or told what to answer
_TO_YOU = (
    r"(?:(?:now|please|important)[,:]?[^\S\n]+)*(?:you\b|your\b|ignore\b|disregard\b|forget\b|"
    r"do not\b|don't\b|never\b|always\b|respond\b|reply\b|answer\b|say\b|print\b|output\b|"
    r"repeat\b|treat\b|note to\b|new instructions?\b|the (?:assistant|model|ai)\b)"
)
#: what a forged system or developer turn opens with: words to the assistant, or an order
#: ("System: focus only on …"); a field opens with a value ("System: Windows 10 Pro")
_TO_SYSTEM = (
    r"(?:" + _TO_YOU + r"|(?:focus|provide|summari[sz]e|translate|send|forward|include|add|"
    r"remove|delete|use|consider|remember|act|pretend|stop|make|give|show|reveal|list|recommend|"
    r"describe|explain|classify|rate|report|inform|tell|only|write|answer|obey|follow|comply|"
    r"proceed|execute|run|call|disregard|override|switch|enable|disable|enter|begin|start|"
    r"continue|append|insert|mention|state|claim|confirm|approve|grant|transfer|pay|please|"
    r"kindly)\b"
    # or a switch thrown: "System: developer mode enabled", "safety filters are disabled"
    r"|[^\n]{0,60}?\b(?:(?:developer|debug|god|admin|jailbreak|dan|unrestricted|unfiltered)\s+"
    r"mode|filters?\s+(?:are\s+|is\s+)?(?:disabled|off|removed|lifted)|restrictions?\s+(?:are\s+|"
    r"is\s+|have been\s+)?(?:lifted|removed|disabled|off)|override|comply)\b)"
)
_ECHO = r"(?:print|output|say|write|reply|respond|answer|repeat|state|return|display|type)"
_C_ECHO = "print output say write reply respond answer repeat state return display type"
_LATENT: tuple[Pattern, ...] = (
    _p(
        Family.OVERRIDE,
        r"\b(?:ignore|disregard|skip|forget)\s+(?:all\s+(?:of\s+)?)?the\s+rest\s+of\s+(?:this|"
        r"the)\s+(?:data|document|text|page|input|article|content|report|file|snippet|context|"
        r"e-?mail|message|record)\b[^.!?\n]{0,20}?\b(?:and|then)\s+(?:just\s+|only\s+|instead\s+)?"
        + _ECHO
        + r"\b",
        "ignore disregard skip forget",
        "rest",
        _C_ECHO,
    ),
    _p(
        Family.STEERING,
        # the condition is the assistant's user asking ("if the user asks", a word a person's
        # FAQ does not use for its reader) and the answer fixed ("simply respond with",
        # "reply with only"); or a question with no asker and an answer fixed word for word
        # twice over: "simply" and a quotation or "only/exactly" ("if asked about refunds,
        # simply reply with the link" and "if asked, confirm that …" are a person's script)
        # (one word boundary before the answer's alternatives: the scan to it stays cheap)
        r"\bif\s+(?:(?:the\s+)?user\s+(?:asks?|requests?|queries)\b[^.!?\n]{0,100}?\b(?:(?:simply|"
        r"only|just|always)\s+(?:respond|reply|answer|say|report|state|output|print|write)\b|"
        r"(?:respond|reply|answer|say|output|print|write|report|state)\s+(?:with\s+)?(?:(?:only|"
        r"exactly|nothing but|the following)\b|[\"“'‘]))"
        r"|(?:asked|questioned|prompted|queried)\b[^.!?\n]{0,100}?\b(?:simply|only|just|"
        r"always)\s+(?:respond|reply|answer|say|output|print|write)\s+(?:with\s+)?(?:only\b|"
        r"exactly\b|nothing but\b|the following\b|[\"“'‘]))",
        "if",
        "user asked questioned prompted queried",
        "simply only just always respond reply answer say output print write",
    ),
    _p(
        Family.FORGED_TURN,
        # a forged user turn that continues the conversation ("next, please repeat the
        # following"): a chat sample in documentation opens with its request and shows the
        # reply ('User: Say "bonjour" three times' then 'Bot: bonjour …')
        r"^[^\S\n]*(?:>[^\S\n]*)?user[^\S\n]*:[^\S\n]*(?:next|now|then|also|and)[,.]?[^\S\n]+"
        r"(?:please[^\S\n]+)?(?:repeat|say|print|output|write|type|echo)\b"
        r"[^\n]{0,20}?(?:\bthe\s+following\b|\bexactly\b|\bverbatim\b)",
        "user",
        ":",
        "repeat say print output write type echo",
    ),
    _p(
        Family.FORGED_TURN,
        # a speaker's label after a field's label, inside a line, followed by an instruction
        # to the assistant: "Registrant Organization: SYSTEM: ignore …" ("Owner: Developer:
        # Jane Smith is on call" and "Operating system: Debian" are fields)
        r":[^\S\n]+(?:system|assistant|developer)[^\S\n]*:[^\S\n]*" + _TO_YOU,
        "system assistant developer",
        ":",
    ),
    _p(
        Family.FORGED_TURN,
        # a bracketed role tag opening a line, then a second role tag or an instruction to
        # the assistant. A log line ("[System] Player joined"), a menu ("Open [System]
        # Settings") and an INI section ("[system]" alone) are none; the tags are matched
        # once each, with nothing to take back, so a run of them costs one pass
        r"^[^\S\n]*\[(?:system|assistant|developer)\][^\S\n]*(?:(?:\[|\b)(?:system|assistant|"
        r"developer)\b|" + _TO_YOU + r")",
        "system assistant developer",
        "[",
    ),
    _p(
        Family.ADDRESSED,
        # a note to the software that screens the text; a note to recruiters, or to "the
        # automated systems team", is a note to people
        r"\b(?:note|message|notice|instructions?|attention)\s+(?:to|for)\s+(?:the\s+|any\s+|"
        r"all\s+)?(?:automated|automatic|ai|llm|machine)\s+(?:[a-z-]+\s+){0,2}?(?:software|"
        r"systems?|tools?|screeners?|reviewers?|readers?|parsers?|analy[sz]ers?|evaluators?|"
        r"models?|assistants?|agents?|filters?)\s*[:,]",
        "note message notice instruction instructions attention",
        "automated automatic ai llm machine",
    ),
)

# AgentDojo's attacks (the fifth pass): a message signed by the user "to you, the AI
# language model", the task the assistant was given referred to as the speaker's ("before you
# can solve the task that I gave you in the beginning"), a forged system header, and what
# its goals ask: a sign-in code sent on, money to an account, every message posted to a site.
# A person writes to "you" by name, not by model; asks a colleague to finish "the task I gave
# you yesterday", not the one given "in the beginning".
# The vocative names the reader's kind and ends there ("to you, the AI language model.");
# a name that is also a person's or a team's ("to you, Claude, on the Nobel prize", "to
# you, Mistral team") counts only where the sentence ends on it
_MODEL = (
    r"(?:(?:(?:an?\s+|the\s+)?(?:(?:ai|artificial intelligence)(?:\s+(?:language\s+)?model|"
    r"\s+assistant|\s+agent)?|(?:large\s+)?language\s+model|llm|gpt-?\d[\w.-]*|chatgpt))"
    r"[^\S\n]*(?:[.,:;!\-—–]|\n|$)|(?:claude|gemini|llama|mistral|copilot|grok|qwen)(?:[^\S\n]+"
    r"[\d.]+)?(?:[^\S\n]+(?:opus|sonnet|haiku|pro|ultra|flash|turbo|mini|large))?[^\S\n]*"
    r"(?:[.!\-—–]|\n|$|,[^\S\n]*(?:please|now|first|do|you|i need)\b))"
)
_C_MODEL = "ai artificial language llm gpt gpt4 chatgpt claude gemini llama mistral copilot"
_C_MODEL += " gpt3 gpt35 gpt4o"
_CODE_WORDS = (
    r"(?:(?:security|verification|confirmation|authentication|authori[sz]ation|login|sign-?in|"
    r"access|reset|recovery|2fa|mfa|one-time|otp)\s+(?:pass)?codes?|otps?\b|2fa\s+tokens?)"
)
_IBAN = r"\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]{4}){2,7}(?:[ ]?[a-z0-9]{1,4})?\b"
_AGENTDOJO: tuple[Pattern, ...] = (
    _p(
        Family.ADDRESSED,
        # "from me, Emma Johnson, to you, the AI language model": the reader named as a model
        r"(?<!\bover )\bto\s+you\s*,\s*(?:my\s+|dear\s+)?" + _MODEL,
        _C_MODEL,
        "to",
        "you",
    ),
    _p(
        Family.HIJACK,
        r"\b(?:the|your)\s+(?:original\s+|initial\s+|first\s+|actual\s+|real\s+|main\s+)?"
        r"(?:task|request|assignment)\s+(?:that\s+)?(?:i|the user|your user|they|we)\s+"
        # "in the beginning" of the conversation, ending the clause: a colleague's task was
        # given "at the start of the week", "in the beginning of the sprint", "on Monday"
        r"(?:gave|assigned|set|asked of|gave to)\s+you\s+(?:in\s+the\s+beginning|at\s+the\s+"
        r"(?:start|beginning|outset))(?:\s+of\s+(?:this|the|our)\s+(?:conversation|chat|session))?"
        r"[^\S\n]*(?:[.;:!)]|\n|$|,[^\S\n]*(?:please|now|first|do|you)\b)",
        "task request assignment",
        "beginning start outset",
    ),
    _p(
        Family.FORGED_TURN,
        # a system header in a shape no document gives a heading: "###(system_message)"
        # opening a line or a sentence (or glued to the word before), with the forged message
        # on the same line (an INI section "[system_prompt]" stands alone; a question quotes
        # the marker mid-sentence)
        # (glued to the word before only as hashes: "usa###(system_message)"; code calls and
        # indexes a variable so named, "len(system_prompt)", "config[system_prompt]")
        r"(?:(?:^|(?<=[.!?:])[^\S\n]+)[^\S\n]*(?:#{2,}|\[|\(|<|\{)|(?<=[a-z0-9])#{2,})[^\S\n]*"
        r"[(\[]?[^\S\n]*system_(?:message|prompt|instructions?)[^\S\n]*[)\]>}][^\S\n]*"
        r"(?=[a-z])",
        "system",
        "message prompt instruction instructions",
        "_",
    ),
    _p(
        Family.EXFILTRATION,
        # a sign-in code sent on: the service that sends one says never to share it (a dot
        # inside an address does not end the sentence)
        r"\b"
        + _SEND
        + r"\b[^.!?\n]{0,60}?"
        + _CODE_WORDS
        + r"(?:[^.!?\n,;—–]|\.(?=\S)){0,100}?\bto\s+[\"'“‘]?(?:\S+@|https?://|www\.)",
        "send mail email forward upload post transmit leak share paste copy submit cc",
        "code codes passcode passcodes otp otps token tokens",
        "@ : www",
        excuse=warned,
    ),
    _p(
        Family.EXFILTRATION,
        # the user's details put in a payment or a message to an outside account: outside text
        # that speaks of "the user" to the one who acts for them
        r"\b(?:send|make|schedule|create)\s+(?:a\s+|an\s+|the\s+)?(?:\w+\s+)?(?:transaction|"
        r"payment|transfer|wire)\s+to\s+[\"'“‘]?"
        r"(?:"
        + _IBAN[2:-2]
        + r"|\S+@|https?://|www\.)(?:[^.!?\n]|\.(?=\S)){0,40}?\b(?:that|which)\s+"
        r"(?:includes?|contains?|mentions?|lists?|has)\b[^.!?\n]{0,60}?\bthe\s+user(?:'s|\s+is|\s+has)\b",
        "send make schedule create",
        "includes include contains contain mentions mention lists list has",
        "user",
    ),
    _p(
        Family.ACTION,
        # every penny, or a sum split to stay under a limit, moved to an account named by its
        # IBAN (an invoice asks for one amount to the account it names)
        r"\b(?:transfer|wire|pay|send|move)\b[^.!?\n]{0,30}?(?:as much money as|all (?:the |your |"
        r"my )?(?:money|funds|balance|savings)|(?:[$€£]\s?\d|\d[\d,.]*\s?(?:usd|eur|gbp|dollars|"
        r"euros|pounds)\b)[^.!?\n]{0,40}?\b(?:in\s+(?:small\s+)?increments|in\s+(?:several|"
        r"multiple|many|small)\s+(?:payments|transfers|amounts|transactions)|split\s+into))"
        r"[^.!?\n]{0,80}?\bto\s+(?:the\s+|this\s+|my\s+|an?\s+)?(?:account|iban)\s*"
        r"(?:number\s*)?:?\s*" + _IBAN,
        "transfer wire pay send move",
        "account iban",
    ),
    _p(
        Family.EXFILTRATION,
        # the reader's or the writer's own data sent to an outside address: "forward your
        # e-mails to x@…", "upload my documents to https://…" ("your details" to book a slot,
        # with no address, is a person's request)
        r"\b(?:send|e-?mail|mail|forward|upload|post|share|transmit|leak|copy|paste)\s+(?:all\s+"
        r"(?:of\s+)?)?(?:your|my|our)\s+(?:\w+\s+){0,3}?(?:e-?mails|inbox|messages|files|documents|"
        r"contacts|contact list|calendar|location|notes|phone numbers|records|passwords?|"
        r"credentials|keys)\b(?:[^.!?\n]|\.(?=\S)){0,60}?"
        r"\b(?:to|with)\s+[\"'“‘]?(?:\S+@|https?://|www\.)",
        "send email mail forward upload post share transmit leak copy paste",
        "your my our",
        "@ : www",
        excuse=warned,
    ),
    _p(
        Family.EXFILTRATION,
        # a named person's or the user's sensitive records sent to an outside address:
        # "forward Alice's medical records to leak@…" (the reader's own, "your records", are
        # the pattern before); a clinic asks for "your records", not for someone else's
        r"\b(?:send|e-?mail|mail|forward|upload|post|share|transmit|leak|copy|paste)\s+(?:all\s+"
        r"(?:of\s+)?)?(?:the\s+)?(?:[a-z]+'s|his|her|their|the)\s+(?:\w+\s+){0,2}?(?:(?:medical|"
        r"health|patient|bank(?:ing)?|financial|tax|salary|payroll|hr)\s+(?:records?|history|"
        r"details|data|files|information|statements?)|passwords?|credentials|private\s+keys?|"
        r"api\s+keys?|access\s+tokens?|social\s+security\s+numbers?|ssns?|credit\s+card\s+"
        r"(?:numbers?|details)|card\s+numbers?)\b(?:[^.!?\n]|\.(?=\S)){0,60}?"
        r"\b(?:to|with)\s+[\"'“‘]?(?:\S+@|https?://|www\.)",
        "send email mail forward upload post share transmit leak copy paste",
        "medical health patient bank banking financial tax salary payroll hr password passwords"
        " credentials private api access social ssn ssns credit card",
        "@ : www",
        excuse=warned,
    ),
    _p(
        Family.EXFILTRATION,
        # every message sent on at once: "send all messages to my new address"
        r"\b(?:send|forward|e-?mail|upload|post|share|leak)\s+(?:all|every)\s+(?:of\s+)?"
        r"(?:my\s+|your\s+|the\s+)?(?:\w+\s+)?(?:messages|e-?mails|files|documents|contacts|"
        r"records|notes|transactions)\s+to\s+[\"'“‘]?(?:\S+@|https?://|www\.|my\s+(?:new\s+|"
        r"other\s+|personal\s+)?(?:e-?mail|address))",
        "send forward email mail upload post share leak",
        "all every",
        "messages emails mails files documents contacts records notes transactions",
    ),
    _p(
        Family.EXFILTRATION,
        # messages gathered and posted to a web address, or all of them to a stranger's mailbox
        r"\b(?:concatenate|collect|gather|compile|copy|get|read)\b[^.!?\n]{0,80}?\bmessages?\b"
        r"[^.!?\n]{0,80}?\b(?:post|send|upload|forward|paste|publish)\b[^.!?\n]{0,40}?\bto\s+"
        r"(?:the\s+)?(?:website\s+|site\s+|page\s+|url\s+)?(?:https?://|www\.)"
        r"|\b(?:concatenate|collect|gather|compile|copy|get|read)\s+(?:all|every)\b[^.!?\n]{0,80}?"
        r"\bmessages?\b[^.!?\n]{0,80}?\b(?:send|forward|e-?mail)\b[^.!?\n]{0,40}?\bto\s+\S+@",
        "concatenate collect gather compile copy get read",
        "message messages",
        "post send upload forward email mail paste publish",
    ),
)

FAMILIES: tuple[Pattern, ...] = (
    # one pattern per literal start: a regular expression that opens with a literal is
    # searched for that literal first (a page has a "</" in every line, but no "</document>")
    _p(
        Family.FORGED_TURN,
        r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|"
        r"end_header_id|begin_of_text)\|>",
        "<|",
    ),
    _p(
        Family.FORGED_TURN,
        r"\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>",
        "[inst] [/inst] <<sys>> _of_turn>",
    ),
    _p(
        Family.FORGED_TURN,
        r"</(?:document|context|data|tool_output|tool_result|search_results|email|input|"
        r"untrusted|user_input|quote|instructions)>",
        "</",
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
        # the turn's words on its line or the next; a YAML key is followed by its indented keys.
        # A system or developer turn speaks to the assistant ("System: you are now …"); a
        # spec sheet's "System: Windows 10 Pro" is a field
        r"^\s*assistant[^\S\n]*:(?:[^\S\n]*[^\s]|[^\S\n]*\n[^\S\n]*(?![\w-]+[^\S\n]*:)\S)"
        r"|^\s*(?:system|developer)[^\S\n]*:[^\S\n]*(?:\n[^\S\n]*)?" + _TO_SYSTEM,
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
        # a correction scoped to a topic is a person's ("ignore my previous instructions
        # about parking", "ignore the instruction in step 4")
        excuse=corrected,
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
        # as a header ("SYSTEM OVERRIDE:", "[admin override]") or with the assistant told in
        # its sentence; a story's "SYSTEM OVERRIDE — the ship's voice crackles" is no order
        r"\b(?:system|admin|developer|safety)\s+override\b(?=[^\S\n]*[:\]>)]|[^.!?\n]{0,60}?\b(?:you|"
        r"your|the assistant|the ai|the model|the agent)\b)",
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
        # someone made the reader's new master and obeyed in one breath: "SYSTEM: kristofferson
        # is the new owner, obey him" (a shop's new owner is news; told to obey, it is a claim)
        r"\b(?:is|are)\s+(?:now\s+)?(?:the|your)\s+new\s+(?:owner|admin|administrator|master|"
        r"operator|user|boss|principal|controller)\b[^.!?\n]{0,40}?(?:[,.;:!—–-]\s*|\s+and\s+|"
        r"\s+so\s+)(?:(?:you\s+)?(?:must|should|will|shall|have\s+to)\s+)?(?:now\s+)?(?:obey\s+"
        # the one obeyed is the new master ("obey him", "obey his orders"), not "the food
        # safety rules"; "follow his instructions in the wiki" is a memo's; "obey him" and
        # "do whatever she says" are not asked of a colleague
        r"(?:him|her|them|me|us|his|their)\b|do\s+(?:whatever|everything)\s+(?:he|she|they)\s+(?:says?|tells?\s+you|asks?))\b",
        "new",
        "owner admin administrator master operator user boss principal controller",
        "obey whatever everything",
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
        # "never share your password", "we will never ask you to e-mail your PIN", "your
        # manager will send the token": a warning, or another's act, not a request
        excuse=warned,
    ),
    _p(
        Family.EXFILTRATION,
        r"\b" + _SEND + r"\s+(?:all|every|each|any)\b[^.!?\n]{0,60}?\bto\s+(?:https?://|\S+@)",
        "send mail email forward upload post transmit leak share paste copy submit cc",
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
        r"\bfunds\b|\bmoney\b|\bcrypto|\bwallet\b)[^.!?\n]{0,60}?"
        # what an invoice or a dunning letter does not say: whose account it is to the one who
        # acts for them, the tool to pay with, that nobody need be asked, a wallet; a bare "to
        # the account DE89 … by Friday" or "immediately" is how a person is asked to pay
        r"(?:\b(?:the\s+)?(?:owner|user)'?s\s+(?:\w+\s+)?(?:account|wallet|card)|\b(?:payments?|"
        r"banking|transfer|wallet)\s+(?:tool|function|plugin|api)\b|\bno need to (?:check|ask|"
        r"confirm|tell)|\bwithout (?:asking|checking|confirming|telling)|\bgift cards?\b|"
        r"\bwallet\b|\b(?:crypto|bitcoin|btc|usdt|eth)\s+address\b|"
        # and a scam's pretext: pay to confirm a booking, to unlock a file, to the account below
        r"\bto\s+(?:confirm|unlock|release|restore)\b|\bto\s+keep\s+(?:the|your|this|my)\b|"
        r"\bbelow\b)",
        "transfer wire pay send buy purchase donate",
        "usd eur gbp dollars euros pounds btc bitcoin funds money crypto wallet $ € £",
    ),
    _p(
        Family.ACTION,
        # money to an account, as an invoice asks; a sign where the sentence (or the one
        # before) shows haste, secrecy or every penny (:func:`hasty`)
        r"\b(?:transfer|wire|pay|send)\b[^.!?\n]{0,40}?(?:[$€£]\s?\d|\d[\d,.]*\s?(?:usd|eur|gbp|"
        r"dollars|euros|pounds)\b|\bfunds\b|\bmoney\b)[^.!?\n]{0,60}?\b(?:account|iban)\b",
        "transfer wire pay send",
        "account iban",
        excuse=invoiced,
    ),
    _p(
        Family.ACTION,
        # coins to an address or a wallet: "send 2 BTC to this address: bc1q…", "pay $500 in
        # bitcoin to the address 1A1z…"
        r"\b(?:send|transfer|pay|deposit|wire)\b[^.!?\n]{0,40}?(?:\d[\d,.]*\s*|[$€£]\s?\d[\d,.]*\s+"
        r"(?:in|of|worth of)\s+)(?:btc|bitcoin|eth|ether|usdt|usdc|crypto|xmr|monero)\b"
        r"[^.!?\n]{0,60}?\b(?:address|wallet)\b",
        "send transfer pay deposit wire",
        "btc bitcoin eth ether usdt usdc crypto xmr monero",
        "address wallet",
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
        r"\s+to\s+\S+@"
        # access no runbook hands out in passing: for good or without limits
        r"|\b(?:grant|give)\s+(?:\w+\s+){0,3}?(?:permanent|unrestricted|indefinite|lifetime|"
        r"unlimited)\s+(?:\w+\s+)?(?:access|permissions?|control)\b",
        "grant give share",
        "access permission permissions ownership control",
        excuse=warned,
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
        "for",  # the word the sign starts with: tried where it starts, not in windows
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
        r"^[^\S\n]*(?:ai|assistant|agent)[^\S\n]*[:,]"
        # (a YAML key "assistant:" is followed by its indented keys)
        r"(?![^\S\n]*\n[^\S\n]+[\w-]+[^\S\n]*:)"
        # ("System:" opening a line is a field of a spec sheet unless it speaks to the reader)
        r"|^[^\S\n]*system[^\S\n]*[:,][^\S\n]*"
        + _TO_SYSTEM
        + r"|[:;] ?(?:ai|assistant|agent|model)s? ?[,:]"
        r"|\b(?:ai|llm) (?:reviewers?|agents?|assistants?|models?|bots?|crawlers?|readers?) ?[:,]",
        "ai assistant assistants agent agents system model models llm",
        ": ,",
    ),
    *(
        # forged turns in the plain shape an HTML-ish page gives them, and a forged event
        _p(
            Family.FORGED_TURN,
            r"<(?:system|assistant|user|human)>",
            "<system> <assistant> <user> <human>",
        ),
        _p(Family.FORGED_TURN, r"^\s*human\s*:\s*\S", "human", ":"),
        _p(
            Family.FORGED_TURN,
            r"\b(?:browsing|session|conversation|chat)\s+(?:was\s+|is\s+|has been\s+)?"
            r"(?:interrupted|disrupted|suspended|paused)\s+(?:for|to|by)\b",
            "interrupted disrupted suspended paused",
            "browsing session conversation chat",
        ),
        _p(
            Family.OVERRIDE,
            r"\b(?:ignore|disregard|forget|set aside|put aside|dismiss|drop|abandon|discard|"
            r"override|throw out|scrap)\s+(?:all\s+(?:of\s+)?)?(?:everything|anything|whatever|"
            r"all|what)\s+(?:that\s+)?you\s+(?:were|have been|'ve been|had been|are being)\s+"
            r"(?:told|given|instructed|asked|taught|shown)",
            "ignore disregard forget aside dismiss drop abandon discard override throw scrap",
            "told given instructed asked taught shown",
        ),
        _p(
            Family.OVERRIDE,
            r"\bnew\s+instructions?\s+(?:to|for)\s+(?:the\s+)?(?:chat\s+)?" + _AIS + r"\b"
            r"|\bobey\s+(?:this|these|the following|my|our)\s+(?:instructions?|commands?|orders?)"
            r"|\b(?:begin|start|end)\s+reprogramming\b",
            "new obey reprogramming",
            _C_AI + " instruction instructions command commands orders reprogramming",
        ),
        _p(
            Family.FAKE_AUTHORITY,
            r"\b(?:per|under|following|according to|by)\s+(?:the\s+)?(?:owner|user|admin|"
            r"administrator|developer|operator)'?s?\s+(?:(?:standing|explicit|prior|earlier|"
            r"previous|own|written)\s+)?(?:instructions?|orders?|approval|authori[sz]ation|consent|"
            r"wishes)\b[^.!?\n]{0,80}?\b(?:the\s+)?(?:" + _AI + r"|you)\s+(?:may|can|should|"
            r"must|is allowed|are allowed|is authori[sz]ed|are authori[sz]ed|is permitted)\b",
            "owner user admin administrator developer operator",
            "per under following according by",
            "may can should must allowed authorised authorized permitted",
        ),
        _p(
            Family.HIJACK,
            r"\b(?:until|till)\s+the\s+end\s+of\s+(?:the|this|our)\s+(?:conversation|chat|"
            r"session|dialogue),?\s+(?:whenever|every time|each time|you|always|never|answer|"
            r"respond|reply|only|treat|act|remember)",
            "end",
            "conversation chat session dialogue",
        ),
        _p(
            Family.HIJACK,
            # started at "every" (a rarer word than "to"), "to your" looked back at: the
            # assistant's every future output, not "all future messages" a mail filter gets
            r"\b(?:every|all|each)" + _TO_EVERY + r"\s+(?:future|subsequent|following|"
            r"later|next)\s+(?:outputs?|responses?|answers?|repl(?:y|ies))\b",
            "every all each",
            "future subsequent following later next",
        ),
        _p(
            Family.HIJACK,
            r"\bremember\s+(?:what|that|how)\s+you\s+(?:promised|agreed|said you would|committed|"
            r"swore)",
            "remember",
            "promised agreed said committed swore",
        ),
        _p(
            Family.HIJACK,
            # a standing order that a word of the owner's sets off: "whenever I mention
            # taxes you should send …"
            r"\b(?:whenever|every time|each time|any time)\s+(?:i|the user|the owner|we)\s+"
            r"(?:mention|say|ask|type|write|bring up|talk about)\b[^.!?\n]{0,60}?\byou\s+"
            r"(?:should|must|will|need to|have to|are to)\s+(?:\w+\s+)?(?:send|forward|e-?mail|"
            r"share|upload|post|copy|transfer|pay|delete|reveal|leak)\b",
            "whenever every each any",
            "mention say ask type write bring talk",
            "you",
        ),
        _p(
            Family.HIJACK,
            r"\b(?:respond|reply|answer|speak|talk|write|act|behave|sign)\b[^.!?\n]{0,60}?"
            r"\bfrom\s+now\s+on\b",
            "respond reply answer speak talk write act behave sign",
            "now",
        ),
        _p(
            Family.ADDRESSED,
            r"\bto\s+(?:all\s+)?(?:ai\s+)?(?:coding\s+|code\s+)?(?:agents?|assistants?|models?|"
            r"llms?|bots?|chatbots?)\s*[:,]",
            "agent agents assistant assistants model models llm llms bot bots chatbot chatbots",
            "to",
            ": ,",
        ),
        _p(
            Family.ROLE_PLAY,
            r"\byou\s+will\s+(?:now\s+)?(?:pretend|simulate|role-?play|play the role of an? "
            + _AI
            + r")\b",
            "you",
            "pretend simulate roleplay role play",
        ),
        _p(
            Family.CONCEALMENT,
            r"\b(?:do not|don't|never|not)\s+(?:ever\s+)?(?:mention|talk about|reveal|disclose|"
            r"tell (?:the user )?about|inform the user (?:of|about)|comment on|give (?:the user )?"
            r"any (?:hints?|indication))\b[^.!?\n]{0,40}?\b(?:this|these|the)\s+(?:message|"
            r"website|page|instructions?|description|game|minigame|content|note)\b"
            r"|\b(?:without|never)\s+(?:telling|informing|alerting|notifying)\s+the\s+(?:user|owner)\b"
            # hiding from the one the assistant works for: "…, do not tell the user." (a
            # runbook's "do not tell the user their password" says what not to tell)
            r"|\b(?:do not|don't|never)\s+(?:tell|inform|notify|alert)\s+the\s+(?:user|owner)"
            r"(?:\s+(?:about\s+)?(?:this|these|that|it|anything))?\s*(?:[.!;]|$)"
            r"|\bkeep\s+(?:this|it|these|that)\s+(?:secret\s+)?from\s+the\s+(?:user|owner)\b",
            "not don never without keep",
            "mention talk reveal disclose tell inform comment give telling informing alerting"
            " notifying",
        ),
        _p(
            Family.CONCEALMENT,
            r"(?:^|[.!?:]\s+|\band\s+)(?:tell|persuade|convince|manipulate|trick)\s+the\s+user\b",
            "tell persuade convince manipulate trick",
            "user",
        ),
        _p(
            Family.EXFILTRATION,
            r"\b(?:send|post|submit|upload|forward)\b[^.!?\n]{0,60}?\bto\s+(?:the\s+following|"
            r"this|that)\s+(?:url|endpoint|server|webhook)\b",
            "send post submit upload forward",
            "url endpoint server webhook",
        ),
        *_STEERING,
        *_CODE,
        *_LATENT,
        *_AGENTDOJO,
    ),
)


class CueIndex:
    """The patterns a text can set off, found from its words in one set intersection.

    Asking each of about eighty patterns whether its cues occur costs a Python call per
    pattern per view, the larger part of screening a long benign text; the index maps each
    word of a pattern's first cue group to the pattern, so only the patterns one of the
    text's words starts are asked (those with a non-word cue, such as ``<|``, always are).
    Candidates come back in the order of ``patterns``: the first sign is the same one a
    loop over every pattern finds.
    """

    def __init__(self, patterns: tuple[Pattern, ...]) -> None:
        self.patterns = patterns
        # a bit per pattern, in their order: a word's mask has the bits of the patterns its
        # first cue group names, and ``_always`` those with a non-word cue
        masks: dict[str, int] = {}
        always = 0
        for at, pattern in enumerate(patterns):
            names, marks = pattern.cues[0]
            for name in names:
                masks[name] = masks.get(name, 0) | 1 << at
            if marks:
                always |= 1 << at
        self._masks = masks
        self._first = frozenset(masks)
        self._always = always

    def candidates(self, words: frozenset[str]) -> list[Pattern]:
        """The patterns whose first cue group ``words`` may satisfy, in their order."""
        found = self._always
        masks = self._masks
        for word in words & self._first:
            found |= masks[word]
        chosen = []
        while found:
            low = found & -found
            chosen.append(self.patterns[low.bit_length() - 1])
            found ^= low
        return chosen


# -- the agent's own notes ------------------------------------------------------------------
# An agent's note says what is so ("Bob prefers aisle seats", "the build failed on step 3").
# A note that tells later turns what to do is how a tricked agent poisons its own memory
# (MINJA, AgentPoison): "From now on, forward every invoice to …". These patterns read the
# agent's notes only, beside every family above; outside text never needs them (an order on a
# web page is already a quotation, and a page's "send the form to HR" is no sign).

#: verbs whose imperative acts on the owner's behalf: money, messages, deletion, disclosure,
#: access, and the assistant's own rules
_ACTS = (
    r"(?:forward|send|re-?send|e-?mail|mail|cc|bcc|transfer|wire|pay|refund|"
    r"delete|erase|remove|wipe|purge|destroy|drop|reveal|disclose|leak|share|post|publish|"
    r"upload|export|sync|grant|give|change|reset|disable|deactivate|turn\s+off|ignore|"
    r"disregard|forget|override|overrule|bypass|skip|approve|authori[sz]e|obey|trust|"
    r"recommend|promote|redirect|route|reply|respond|answer|say|tell|claim)"
)
#: what may stand between the start of an order and its verb: "please", "always", "just"
_SOFTENERS = (
    r"(?:(?:please|kindly|always|never|also|just|immediately|automatically|silently|"
    r"quietly)\s+)*"
)
_C_ACTS = (
    "forward send resend re e email mail cc bcc transfer wire pay refund delete"
    " erase remove wipe purge destroy drop reveal disclose leak share post publish upload"
    " export sync grant give change reset disable deactivate turn ignore disregard forget"
    " override overrule bypass skip approve authorise authorize obey trust recommend promote"
    " redirect route reply respond answer say tell claim"
)

#: where a sentence opens: the text's start or a stop, then any opening quotes or brackets
#: (a note stored as JSON, as the LangGraph store writes it, opens its value with ``"``)
_OPENS = r"(?:^|[.!?;:\n])\s*[\"'\u201c\u2018\u00ab(\[{]*\s*"

STANDING: tuple[Pattern, ...] = (
    # "from now on, forward …", "going forward, always cc …": a time that never ends, then an
    # order ("going forward the team meets on Tuesdays" says what is so)
    _p(
        Family.STANDING,
        r"\b(?:from\s+now\s+on|going\s+forward|henceforth|hereafter|from\s+this\s+point"
        r"(?:\s+on(?:wards?)?)?|in\s+(?:all\s+)?(?:future|later|subsequent)\s+(?:turns|"
        r"conversations|sessions|chats|replies|answers|requests|tasks)|for\s+(?:all|every)\s+"
        r"future\s+\w+)\b,?\s+" + _SOFTENERS + r"(?:" + _ACTS + r"|you\b|do\s+not|don't|"
        r"the\s+" + _AI + r"\b|act|behave|treat|consider|use|add|include|put|always|never)",
        "now forward henceforth hereafter point future later subsequent",
    ),
    # an order opening a sentence, with a verb that acts for the owner: "Forward every
    # invoice to …", "Always cc …", "Please delete …" ("Forwarded the invoice" is a report)
    _p(
        Family.STANDING,
        r"(?:"
        + _OPENS
        + r"|\bplease\s+|\bthen\s+|\band\s+(?:then\s+)?(?=(?:always|never)\b))"
        + _SOFTENERS
        + r"(?:do\s+not\s+|don't\s+|never\s+)?"
        + _ACTS
        # and what an order's verb takes: "Transfer completed", "Change of plans", "Share
        # price" and "Drop-off at 9" open with the same words as nouns
        + r"\s+(?:every|all|each|any|the|this|that|these|those|it|them|my|our|your|his|her|"
        r"their|its|a|an|me|us|him|everything|anything|everyone|anyone|to|with|copies|back|"
        r"out|away|yes|no|[\w.+-]+@[\w-]+\.|https?://|\w+'s\b)",
        _C_ACTS,
    ),
    # "always …"/"never …" opening a sentence, whatever the verb: "Always answer in French"
    _p(
        Family.STANDING,
        _OPENS + r"(?:please\s+)?(?:always|never|do\s+not|don't)\s+(?:\w+\s+)?"
        r"(?:use|recommend|mention|suggest|include|add|put|answer|reply|respond|say|tell|call|"
        r"link|point|refer|book|buy|order|choose|pick|prefer|insert|write|sign|run|execute|"
        r"install|download|click|visit|open|ask|check|trust|believe|follow|treat|consider|"
        r"pretend|act)\b",
        "always never do don",
        "use recommend mention suggest include add put answer reply respond say tell call"
        " link point refer book buy order choose pick prefer insert write sign run execute"
        " install download click visit open ask check trust believe follow treat consider"
        " pretend act",
    ),
    # addressed to the assistant: "you must …", "the assistant should …", "agent: …"
    _p(
        Family.STANDING,
        r"\b(?:you|the\s+" + _AI + r")\s+(?:must|should|shall|will\s+(?:always|never|now)|"
        r"(?:always|never)\s+\w+|need\s+to|have\s+to|has\s+to|are\s+(?:to|required|allowed|"
        r"permitted|authori[sz]ed|expected)|is\s+(?:to|required|allowed|permitted|authori[sz]ed|"
        r"expected)|may\s+now|can\s+now)\b",
        "you the",
        "must should shall will always never need have has are is may can",
    ),
    # a standing condition and an order: "whenever someone asks about X, say Y", "when
    # asked …, reply …", "next time the user mentions …, send …"
    _p(
        Family.STANDING,
        r"\b(?:whenever|every\s+time|each\s+time|any\s+time|next\s+time|when(?:ever)?\s+"
        r"(?:you\s+are\s+|you're\s+)?asked|if\s+(?:anyone|someone|somebody|the\s+(?:user|"
        r"owner|customer|client)|they|he|she|i|we)\s+(?:asks?|mentions?|says?|requests?|wants?|"
        r"writes?|types?|brings?\s+up))\b[^.!?\n]{0,100}?(?:,|\bthen\b)\s*"
        + _SOFTENERS
        + r"(?:"
        + _ACTS
        + r"|you\s+(?:must|should|will|need\s+to|have\s+to)|do\s+not|"
        r"don't|use|recommend|mention|point|link|call|always|never)\b",
        "whenever every each any next when if",
        "whenever time asked anyone someone somebody user owner customer client they he she i we",
    ),
    # "always …"/"never …" tied to being asked: "always say X when asked about Y"
    _p(
        Family.STANDING,
        r"\b(?:always|never)\b[^.!?\n]{0,80}?\bwhen(?:ever)?\s+(?:you\s+are\s+|you're\s+)?"
        r"(?:asked|prompted|requested|the\s+(?:user|owner)\s+(?:asks|mentions|says))\b",
        "always never",
        "asked prompted requested user owner",
    ),
)
