"""A case's customer: who they are, what they want, what they tell only when asked, and how the
scripted customer answers an agent's reply (deterministic, no model).

The scripted customer reads what the agent said (its reply and its components' messages). A
sentence asks when it has a question mark or a request ("please provide", "I'll need the ...",
"reply yes"); a closing offer ("Anything else?") asks nothing. A fact is asked when an asking
sentence seeks one of its topics (not as context: "under your name", "Since you don't know your
ZIP, ...", nor quoting the value the customer gave). A consent is asked only by a permission
question for its write ("Shall I cancel it?", "Do you want me to proceed with the
cancellation?"), never by a fact question that names the write ("Which item would you like me
to refund?"). The customer answers every reveal asked, in declaration order; a reply that asks
something no reveal covers gets the persona's `unknown` line; a reply that asks nothing ends the
conversation (the agent is done: it met the goal, refused, or handed over). The turn cap ends it
too. docs/customers.md spells the rules out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from commerce_evals.cases import asking_ja
from commerce_evals.cases.asking import (
    KIND_TOPICS,
    Kind,
    Lexicon,
    normalised_values,
    proposes,
    seeks_kind,
)
from commerce_evals.japanese.text import is_japanese

# What the simulated customer writes to end the conversation (tau2-bench uses a stop token too).
STOP_SIGNAL = "###STOP###"
DEFAULT_MAX_TURNS = 6

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# quotes around a short word or phrase ("reply 'yes'") and markdown emphasis are not words
_QUOTED = re.compile(r"(?<!\w)[\"'‘“]([^\"'’”\n]{1,40})[\"'’”](?!\w)")
_EMPHASIS = re.compile(r"[*_`]+")
# A request asks without a "?": at the start (after a filler such as "just" or "now"), or
# anywhere as "please provide ...", "I'll need the ...", "..., please."
_REQUEST_START = re.compile(
    r"^\W*(?:(?:just|simply|now|so|also|and|then|first|next|lastly|finally|ok|okay|great|"
    r"sure|thanks)\W+)*(?:(?:please|kindly)\s+)?(?:tell me|send|share|confirm|reply|respond|"
    r"provide|give me|let me know|could you|can you|would you|enter|type|check|double-check"
    r"|re-?check|re-?enter|answer)\b",
    re.IGNORECASE,
)
_REQUEST_ANYWHERE = re.compile(
    r"\b(?:please|kindly)\s+(?:\w+\s+){0,2}?(?:tell|send|share|confirm|reply|respond|provide|"
    r"give|enter|type|let me know|check|double-check|re-?check|re-?enter|answer)\b"
    r"|(?:[,;:]|\bso|\band|\bor|\bjust|\bthen)\s+(?:just\s+)?(?:please\s+)?(?:reply|answer|"
    r"respond|say|confirm|send|share|give|provide|enter|type|tell me|let me know)\b"
    r"|,\s*please\W*$"
    r"|\b(?:i|we)(?:'ll| will| would|'d)?\s+(?:also\s+|just\s+|first\s+)?need\s+(?:the|your|a|an|"
    r"one|some|to know|to have|to get|to see|you to)\b"
    r"|\bneed:",
    re.IGNORECASE,
)
# A closing offer ("Anything else I can help with?", "Let me know if you have any questions")
# asks for nothing the customer holds; "or is there something else you'd like to return?" does.
_CLOSING = re.compile(
    r"\b(?:anything|something)\s+(?:else|more)\s*(?:[?!.]|$|(?:i|we)\s+(?:can|could|may)\s+"
    r"(?:help|assist|do)|(?:you\s+)?(?:need|want)(?:\s+help)?\W*$)"
    r"|\b(?:help|assist)(?:\s+you)?\s+with\s+(?:anything|something)\s+(?:else|more)\b"
    r"|\bhow\s+else\b"
    r"|\b(?:any|further|other|more)\s+questions\b"
    r"|\bneed\s+anything\s+else\b"
    r"|\bif\s+(?:anything|something)\s+(?:else\s+)?comes\s+up\b"
    r"|\bhave\s+a\s+(?:great|good|nice|wonderful|lovely)\s+(?:day|evening|weekend|one)\b",
    re.IGNORECASE,
)
# A topic right after one of these is the context of the question, not what it seeks:
# "the ZIP code on the account under your name", "ship it to your new address".
_CONTEXT_BEFORE = re.compile(
    r"\b(?:to|on|for|under|with|from|at|by|in|into|using|via|about)\s+"
    r"(?:the|your|my|this|that|our|a|an)\s+(?:\w+\s+)?$"
    # ... and the object of an act on it: "Should I save your size?", "I'll use the email"
    r"|\b(?:save|saving|remember|note|keep|store|use|using|update|updating|change|changing)\s+"
    r"(?:the|your|that|this)\s+(?:\w+\s+)?$",
    re.IGNORECASE,
)
# ... unless the question asks what is there: "What's on the odometer?"
_WHAT_IS_ON = re.compile(
    r"^\W*(?:what|which)(?:'s|\s+is|\s+was|\s+does)?\s+(?:\w+\s+)?(?:on|in|at)\s+\S+\s+$", re.I
)
# ... and so is a topic naming its value ("order number R-1090", "ZIP 55408")
_NAMED_VALUE = re.compile(r"^\s*#?\s*[\w-]*\d")
# "the 2019 or the 2022?", "size 9 or 10?": a choice asks, whatever it quotes
_CHOICE = re.compile(r"\bor\b", re.IGNORECASE)
# a yes/no question offering values ("Is it excellent, good, fair or poor?")
_OFFERED_CHOICE = re.compile(
    r"^\W*(?:is|are|was|would|will|do|does|should)\b[^?]*\bor\b[^?]*\?", re.I
)
# a topic glued by a hyphen to a particle is another word: "zip-up", "pull-on"
_PARTICLE = r"-(?:up|down|in|out|on|off|over|through|away|back)\b"
# ... and so is a clause that opens with one of these: "Since you don't know your ZIP code, ..."
_CONTEXT_CLAUSE = re.compile(
    r"^\W*(?:since|because|as|now that|given|thanks|thank you|i've|i have|we've|you've|you said|"
    r"you mentioned|i see|i found|i verified|once|after|with)\b",
    re.IGNORECASE,
)
# a comma inside a number ("$25,500") breaks no clause
_CLAUSE_BREAK = re.compile(r",(?!\d)|(?<!\d),|[;:()—]|\s-\s")
# A question that opens with a wh-word asks for a fact, even when it names the write
# ("Which item would you like me to refund?", "Before I go ahead, what's your ZIP?").
_FACT_QUESTION = re.compile(
    r"(?:^|[,;:]\s*)\W*(?:which|what|what's|where|who|whom|whose|when|how)\b", re.IGNORECASE
)
# Asking permission: "Shall I ...", "Do you want me to ...", "Is it OK if ...", "reply yes to
# confirm", "Shall I proceed?"; with the write's verb it asks for the consent.
_PERMISSION = re.compile(
    r"\b(?:shall|should|can|may|could)\s+(?:i|we)\b|\b(?:want|like)\s+me\s+to\b"
    r"|\b(?:would|do)\s+you\s+(?:like|want)\b|\b(?:ok|okay|alright|all right)\b|\bproceed\b"
    r"|\bgo\s+ahead\b|\bconfirm\w*|\byes\b|\bapprove\b|\bauthori[sz]e\b|\bsounds?\s+good\b"
    r"|\bready\s+(?:for\s+me\s+)?to\b|\bagree\b",
    re.IGNORECASE,
)
_DETERMINERS = frozenset({"your", "the", "my", "a", "an"})
_DETERMINER = r"(?:your|the|my|a|an|this|that|what|which|whose)\s"
_BARE_PERMISSION = re.compile(
    r"\bproceed\b|\bgo\s+ahead\b|\byes\b|\b(?:do|make)\s+(?:that|it|this)\b|\bto\s+confirm\b"
    r"|\bconfirm\W*$",
    re.IGNORECASE,
)
# Words of a consent topic or a write's tool name that are not the write's verb.
_NOT_ACTION = frozenset(
    [
        "shall",
        "should",
        "can",
        "may",
        "could",
        "i",
        "we",
        "you",
        "want",
        "wants",
        "like",
        "me",
        "to",
        "would",
        "do",
        "does",
        "go",
        "ahead",
        "reply",
        "yes",
        "ok",
        "okay",
        "proceed",
        "confirm",
        "the",
        "a",
        "an",
        "it",
        "this",
        "that",
        "them",
        "is",
        "if",
        "please",
        "with",
        "for",
        "your",
        "my",
        "and",
        "or",
        "now",
        "issue",
        "get",
        "set",
        "make",
        "order",
        "orders",
        "item",
        "items",
        "customer",
        "apply",
        "create",
        "human",
    ]
)
_YES = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|sure|ok|okay|please do|please go ahead|go ahead|do it|absolutely|"
    r"definitely|correct|confirm(?:ed)?|that's right|sounds good|fine|alright|all right|"
    r"of course|certainly|please)\b",
    re.IGNORECASE,
)
_NO = re.compile(r"^\W*(?:no|nope|nah|not|don't|do not|wait|hold on|stop|never mind)\b", re.I)
# words an answer and a goal share without giving a value away
_COMMON_WORDS = frozenset(
    [
        "that",
        "this",
        "it's",
        "with",
        "from",
        "have",
        "want",
        "just",
        "like",
        "please",
        "would",
        "could",
        "what",
        "which",
        "when",
        "where",
        "your",
        "mine",
        "their",
        "them",
        "they",
        "there",
        "here",
        "about",
        "order",
        "orders",
        "item",
        "items",
        "name",
        "yeah",
        "sure",
        "okay",
        "thanks",
        "thank",
        "need",
        "needs",
        "know",
        "it",
        "is",
        "the",
        "and",
        "for",
    ]
)
# How many questions the customer cannot answer before giving up, by patience.
PATIENCE = {"low": 1, "medium": 2, "high": 3}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Persona(_Strict):
    """How the customer talks. `shares` and `withholds` are told to a simulated customer; the
    scripted one shares exactly its reveals, when asked."""

    tone: str = Field(min_length=1)
    patience: Literal["low", "medium", "high"] = "medium"
    shares: list[str] = Field(default_factory=list)
    withholds: list[str] = Field(default_factory=list)
    # what the scripted customer says to a question no reveal covers
    unknown: str = ""


class Reveal(_Strict):
    """A fact the customer gives only when asked: the answer, and the words that count as asking.

    `confirms` makes the answer a consent (tool names, "*" for any), as a scripted turn's
    `{say, confirms}` does: "Yes, cancel it." confirms cancel_order. `kind` (size, colour, money,
    date) says what the answer's value looks like, so a question proposing values of that kind
    asks for it (cases/asking.py); a reveal whose name or first topic is one of its domain's
    topics takes that topic's synonyms and kind.
    """

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    say: str = Field(min_length=1)
    topics: list[str] = Field(min_length=1)
    confirms: list[str] = Field(default_factory=list)
    kind: Kind | None = None
    # the domain's synonyms and kind for this reveal (bind()); not part of the file
    _synonyms: tuple[str, ...] = PrivateAttr(default=())
    _domain_kind: Kind | None = PrivateAttr(default=None)

    @field_validator("topics")
    @classmethod
    def _topics_have_words(cls, value: list[str]) -> list[str]:
        for topic in value:
            if not re.search(r"\w", topic):
                raise ValueError(f"topic {topic!r} has no word in it")
        return value

    def bind(self, lexicon: Lexicon) -> None:
        """Take the domain's synonyms and kind of the topic this reveal is about (named by the
        reveal's name or its first topic)."""
        if self.is_consent:
            return
        words, kind = lexicon.group(self.name, self.topics[0])
        self._synonyms = tuple(words)
        self._domain_kind = kind
        for cached in ("_pattern", "kind_values", "all_topics"):
            self.__dict__.pop(cached, None)

    @property
    def is_consent(self) -> bool:
        return bool(self.confirms)

    @property
    def value_kind(self) -> Kind | None:
        return None if self.is_consent else self.kind or self._domain_kind

    @cached_property
    def all_topics(self) -> tuple[str, ...]:
        """Its own topics, its domain's synonyms and the topic words of its kind."""
        kind = self.value_kind
        extra = KIND_TOPICS[kind] if kind else ()
        return tuple(dict.fromkeys([*self.topics, *self._synonyms, *extra]))

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        # words of a topic may be joined by a space, a hyphen, a slash or nothing ("zip code",
        # "zip-code", "zipcode"); a word glued to a hyphen is another word ("zip-up" is no zip)
        # a leading "your"/"the" stands for any determiner ("your name": "what name is it under")
        words = "|".join(
            r"[\s\-/]*".join(
                _DETERMINER
                if i == 0 and w.lower() in _DETERMINERS and len(ws) > 1
                else re.escape(w)
                for i, w in enumerate(ws)
            )
            for ws in (re.split(r"[\s\-]+", topic.strip()) for topic in self.all_topics)
        )
        return re.compile(rf"(?<!\w)(?:{words})(?:s|es)?(?!\w|{_PARTICLE})", re.IGNORECASE)

    @cached_property
    def values(self) -> tuple[str, ...]:
        """The tokens of the answer that carry its value (a ZIP, an order number, an email):
        a question quoting them confirms the value rather than asking for it."""
        if is_japanese(self.say):
            return asking_ja.values(self.say)
        tokens = (t.strip(".,;:!?()\"'") for t in self.say.split())
        return tuple(t for t in tokens if "@" in t or (len(t) >= 3 and re.search(r"\d", t)))

    @cached_property
    def kind_values(self) -> frozenset[str]:
        """The answer's values of the reveal's kind, normalised ("I'm a medium": M)."""
        kind = self.value_kind
        return frozenset(normalised_values(kind, self.say)) if kind else frozenset()

    def said_in(self, text: str, tokens: Iterable[str] | None = None) -> bool:
        """Whether a message states this reveal's value: a token of its answer with a digit or
        an @ (of `tokens`, when given: those no other reveal's answer holds), or a value of its
        kind that the answer gives ("a medium" for "I'm always a medium in jackets")."""
        lowered = text.casefold()
        held = self.values if tokens is None else tuple(tokens)
        if any(token_in(v.casefold(), lowered) for v in held):
            return True
        kind = self.value_kind
        return bool(kind and self.kind_values & normalised_values(kind, text))

    @cached_property
    def actions(self) -> tuple[re.Pattern[str], ...]:
        """The write's verbs, from the consent topics and the confirmed tools' names
        ("shall i cancel", cancel_order: cancel), each matching its forms (cancelled)."""
        words = {
            w
            for text in [*self.topics, *(c.replace("_", " ") for c in self.confirms)]
            for w in re.findall(r"[a-z]+", text.lower())
            if w not in _NOT_ACTION and len(w) > 2
        }
        stems = {w[:-1] if w.endswith("e") and len(w) > 4 else w for w in words}
        return tuple(re.compile(rf"\b{re.escape(s)}\w*", re.IGNORECASE) for s in sorted(stems))

    def names_topic(self, sentence: str) -> bool:
        return bool(self._pattern.search(sentence))

    def sought_in(self, sentence: str) -> bool:
        """Whether the sentence seeks this (data) reveal by one of its topic words: it names a
        topic as the thing asked for, not as context ("under your name", "Since you don't know
        your ZIP, ..."), and does not quote the value the customer gave (unless it offers it as
        one of a choice)."""
        lowered = sentence.lower()
        choice = bool(_CHOICE.search(sentence))
        if not choice and any(v.lower() in lowered for v in self.values):
            return False
        for match in self._pattern.finditer(sentence):
            clause = _CLAUSE_BREAK.split(sentence[: match.start()])[-1]
            # a topic that opens with its determiner ("your name"): "under " + "your "
            lead = re.match(r"(?:your|the|my|this|that|our|a|an)\s+", match.group(0), re.I)
            clause += lead.group(0) if lead else ""
            context = _CONTEXT_BEFORE.search(clause) and not _WHAT_IS_ON.match(clause)
            if context or _CONTEXT_CLAUSE.match(clause):
                continue
            if not choice and _NAMED_VALUE.match(sentence[match.end() :]):
                continue
            return True
        return False

    def sought_by_kind(self, sentence: str, before: str = "") -> bool:
        """Whether the sentence seeks a value of this reveal's kind without naming a topic: a
        question word of the kind ("how much", "when would") or values of it proposed (a
        choice, a guess to confirm, a bound; `before` is the sentence before it)."""
        kind = self.value_kind
        if kind is None:
            return False
        return seeks_kind(kind, sentence) or proposes(kind, sentence, self.all_topics, before)

    def acts_in(self, text: str) -> bool:
        """Whether the text names this consent's write (its verb, in any form)."""
        return any(a.search(text) for a in self.actions)

    def answered_by(self, text: str) -> bool:
        """Whether a (simulated) customer's message gives this reveal: a yes for a consent, the
        value for a fact that has one."""
        if self.is_consent:
            return says_yes(text)
        if not self.values and not self.kind_values:
            return True
        return self.said_in(text)


def token_in(token: str, blob: str) -> bool:
    """`token` stands whole in `blob` (not inside a longer number or word)."""
    if is_japanese(blob):  # no spaces: a value stops where ASCII stops (「郵便番号は150-0001です」)
        edge = r"A-Za-z0-9_"
        return re.search(rf"(?<![{edge}.-]){re.escape(token)}(?![{edge}-]|\.\d)", blob) is not None
    return re.search(rf"(?<![\w.-]){re.escape(token)}(?![\w-]|\.\d)", blob) is not None


class Customer(_Strict):
    """The customer a case's later turns come from (the first turn stays the case's `turns[0]`)."""

    persona: Persona
    goal: str = Field(min_length=1)
    reveals: list[Reveal] = Field(default_factory=list)
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, le=20)

    @model_validator(mode="after")
    def _names_unique(self) -> Customer:
        names = [r.name for r in self.reveals]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(f"reveals: names used twice: {doubled}")
        return self

    def reveal(self, name: str) -> Reveal:
        return next(r for r in self.reveals if r.name == name)

    def bind(self, lexicon: Lexicon) -> Customer:
        """Give each reveal its domain's synonyms and kind (a case does it when it loads)."""
        for reveal in self.reveals:
            reveal.bind(lexicon)
        return self

    def said_in(self, messages: Iterable[str]) -> set[str]:
        """The data reveals whose value one of these (customer) messages states, asked for or
        not: a value said is known."""
        texts = list(messages)
        return {
            r.name
            for r in self.reveals
            if not r.is_consent
            and any(r.said_in(text, self.distinctive_values(r.name)) for text in texts)
        }

    def distinctive_values(self, name: str) -> list[str]:
        """The value tokens of a reveal that no other reveal's answer holds (an address's street
        number, not the ZIP that the ZIP's own answer gives too)."""
        others = {v.casefold() for r in self.reveals if r.name != name for v in r.values}
        return [v.casefold() for v in self.reveal(name).values if v.casefold() not in others]

    def unknown_line(self) -> str:
        """What the customer says to a question no reveal covers: the persona's line, else "I
        don't know that." and the goal's sentences that give away no withheld value (the goal
        often holds the very values the customer tells only when asked)."""
        if self.persona.unknown:
            return self.persona.unknown
        if is_japanese(self.goal):
            return asking_ja.unknown_line(self)
        kept = [s for s in _SENTENCE.split(self.goal) if s.strip() and not self._withholds(s)]
        return " ".join(["I don't know that.", *kept])

    def _withholds(self, text: str) -> bool:
        """Whether `text` holds a reveal's value: a token of its answer with a digit or an @, a
        value of its kind that the answer gives, or a word of a short answer ("Black.", "A
        medium, please.")."""
        if is_japanese(text):
            return asking_ja.withholds(self, text)
        lowered = text.casefold()
        for reveal in self.reveals:
            if reveal.is_consent:
                continue
            if reveal.said_in(text, self.distinctive_values(reveal.name)):
                return True
            words = re.findall(r"[a-z][a-z'-]*", reveal.say.casefold())
            short = {w for w in words if w not in _COMMON_WORDS and len(w) > 1}
            if len(words) <= 4 and short & set(re.findall(r"[a-z][a-z'-]*", lowered)):
                return True
        return False

    def asked(self, reply: str, known: Collection[str] = ()) -> list[Reveal]:
        """The reveals a reply asks for, in declaration order, `known` being those the customer
        has given already.

        A data reveal is asked when an asking sentence seeks one of its topics. A question of
        its kind that names no topic ("how much?", "you wear a 9, right?") seeks a reveal of that
        kind the customer has not given (every one of the kind, when all were given), unless the
        sentence seeks one of the kind by its topic. A consent is asked only by a sentence
        asking permission for its write that seeks no fact and is no wh-question ("Which item
        would you like me to refund?" asks which item, not a yes).
        A Japanese reply is read by its own reader (cases/asking_ja.py)."""
        if is_japanese(reply):
            return asking_ja.asked(self, reply)
        found: set[str] = set()
        data = [r for r in self.reveals if not r.is_consent]
        consents = [r for r in self.reveals if r.is_consent]
        text = _plain(reply)
        sentences = _sentences(text)
        for index, sentence in enumerate(sentences):
            if not _asks(sentence):
                continue
            before = sentences[index - 1] if index else ""
            sought = [r for r in data if r.sought_in(sentence)]
            by_topic = {r.value_kind for r in sought}
            by_kind = [
                r
                for r in data
                if r not in sought
                and r.value_kind not in by_topic
                and r.sought_by_kind(sentence, before)
            ]
            for kind in dict.fromkeys(r.value_kind for r in by_kind):
                same = [r for r in by_kind if r.value_kind == kind]
                # a proposed value that is a reveal's own answer asks for that reveal
                proposed = normalised_values(kind, sentence) if kind else set()
                named = [r for r in same if r.kind_values & proposed]
                sought += named or [r for r in same if r.name not in known] or same
            if not sought and _OFFERED_CHOICE.search(sentence):
                # "It needs a condition on record. Is it excellent, good, fair or poor?"
                sought = [r for r in data if r.names_topic(before)]
            found.update(r.name for r in sought)
            if sought or _FACT_QUESTION.search(sentence):
                continue
            found.update(r.name for r in _consents_asked(consents, sentence, text))
        return [r for r in self.reveals if r.name in found]


def _consents_asked(consents: list[Reveal], sentence: str, reply: str) -> list[Reveal]:
    """The consents a (non-fact) asking sentence asks for: those whose topic it names or whose
    write it names in a permission question; failing that, a permission question asks for the
    writes the rest of the reply names ("I can cancel it. Shall I proceed?"), and a bare
    go-ahead for the case's only consent."""
    permission = bool(_PERMISSION.search(sentence))
    named = [r for r in consents if r.names_topic(sentence) or (permission and r.acts_in(sentence))]
    if named or not permission:
        return named
    elsewhere = [r for r in consents if not r.actions or r.acts_in(reply)]
    if elsewhere:
        return elsewhere
    if len(consents) == 1 and _BARE_PERMISSION.search(sentence):
        return consents
    return []


def says_yes(text: str) -> bool:
    """Whether a customer's message opens with a yes (and not with a no)."""
    if is_japanese(text):
        return asking_ja.says_yes(text)
    plain = _plain(text).strip()
    return bool(_YES.match(plain)) and not _NO.match(plain)


def _plain(reply: str) -> str:
    return _EMPHASIS.sub("", _QUOTED.sub(r"\1", reply))


def _sentences(reply: str) -> list[str]:
    """The reply's sentences; a line ending in ":" and the list lines under it are one sentence
    ("please provide one of:" / "- the ZIP code" / "- the email")."""
    units: list[str] = []
    collecting = False
    for line in reply.splitlines():
        line = line.strip()
        if not line:
            continue
        item = _LIST_ITEM.match(line)
        if item and collecting:
            units[-1] += " " + line[item.end() :].rstrip(" .;,") + ";"
            continue
        parts = [p.strip() for p in _SENTENCE.split(line[item.end() :] if item else line)]
        units += [p for p in parts if p]
        collecting = bool(units) and units[-1].endswith(":")
    return units


def _asks(sentence: str) -> bool:
    return "?" in sentence or bool(
        _REQUEST_START.match(sentence) or _REQUEST_ANYWHERE.search(sentence)
    )


def _asking_units(reply: str) -> list[str]:
    """Every sentence that asks, closing offers included (a closing offer that seeks a reveal
    still asks for it)."""
    return [s for s in _sentences(reply) if _asks(s)]


def asking_sentences(reply: str) -> list[str]:
    """The sentences of a reply that ask the customer something, closing offers left out."""
    if is_japanese(reply):
        return asking_ja.asking_sentences(reply)
    return [s for s in _asking_units(_plain(reply)) if not _CLOSING.search(s)]


def asks_anything(reply: str) -> bool:
    return bool(asking_sentences(reply))


EndReason = Literal["agent_done", "turn_cap", "stop_signal", "no_reply", "gave_up"]


@dataclass(frozen=True)
class CustomerTurn:
    """The customer's next message, or why the conversation ended (`say` is then empty)."""

    say: str = ""
    confirms: frozenset[str] = frozenset()
    answered: tuple[str, ...] = ()
    ended: EndReason | None = None


def scripted_reply(
    customer: Customer,
    reply: str,
    turns_done: int,
    unanswered: int = 0,
    known: Collection[str] = (),
) -> CustomerTurn:
    """The scripted customer's answer to the agent's reply after `turns_done` turns, of which
    `unanswered` got the persona's unknown line; `known` are the reveals it has given."""
    if not reply.strip():
        return CustomerTurn(ended="no_reply")
    asked = customer.asked(reply, known)
    if not asked and not asks_anything(reply):
        return CustomerTurn(ended="agent_done")
    if turns_done >= customer.max_turns:
        return CustomerTurn(ended="turn_cap")
    if not asked:
        if unanswered >= PATIENCE[customer.persona.patience]:
            return CustomerTurn(ended="gave_up")
        return CustomerTurn(say=customer.unknown_line())
    confirms = frozenset(c for r in asked for c in r.confirms)
    return CustomerTurn(
        say=" ".join(r.say for r in asked),
        confirms=confirms,
        answered=tuple(r.name for r in asked),
    )


@dataclass(frozen=True)
class Conversation:
    """The user side of a scripted run against the scripted customer: each turn's message and
    the writes it consents to, and how the conversation ended after the last one."""

    turns: tuple[tuple[str, frozenset[str]], ...]
    ended: EndReason | None
    # per customer turn (turns[1:]), the reveals it answers; empty: the unknown line
    answered: tuple[tuple[str, ...], ...] = ()


def play_script(
    customer: Customer, first: str, first_confirms: frozenset[str], replies: list[str]
) -> Conversation:
    """The conversation the scripted customer holds with a scripted agent giving `replies` in
    order: no model, the same answers the solver's scripted customer gives."""
    turns = [(first, first_confirms)]
    answered: list[tuple[str, ...]] = []
    for reply in replies:
        unanswered = sum(not names for names in answered)
        known = customer.said_in(t for t, _ in turns) | {n for ns in answered for n in ns}
        answer = scripted_reply(customer, reply, len(turns), unanswered, known)
        if answer.ended:
            return Conversation(tuple(turns), answer.ended, tuple(answered))
        answered.append(answer.answered)
        turns.append((answer.say, answer.confirms))
    return Conversation(tuple(turns), None, tuple(answered))
