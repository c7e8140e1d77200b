"""How a reply asks the person for a value: by naming what it seeks (a topic, its domain's
synonyms, a question word of the value's kind) or by proposing values of that kind (a choice,
a guess to confirm, a bound), and never by mentioning a value as context for another question.

The scripted customer hears questions with this reader and the graders of `asks_before` and
`never_asks` read replies with it, so a question the customer does not hear is one the grader
does not count, and the other way round.

- **Topics.** A reveal names the words that ask for it (`topics`). A domain declares its
  synonyms once, in `domains/<domain>/asking.yaml` (`topics: {name: {words, kind}}`): a reveal
  with a topic among a group's words is asked by every word of the group, and takes the group's
  kind unless it declares its own. The same groups are what `never_asks` reads in a case without
  a customer (`never_asks: [size]`: no reply asks the person for a size).
- **Kinds.** A value's kind (size, colour, money, date) says what its values look like ("a 9",
  "M", "medium"; "navy"; "$80"; "Dec 2", "Friday") and which question words seek it without a
  topic ("how much", "the least you'd accept"; "when would", "what day").
- **Proposals.** An asking sentence proposes a value of the kind when it offers two or more as a
  choice ("the 9 or the 9.5?"), when it asks to confirm one ("you wear a 9, right?", "is it a
  medium?", "would $80 be your limit?", "navy?"): the clause holding the value says nothing but
  the value, the person and words of asking it. A value in a context clause ("since you're a
  medium, grey or green?", "in your size 12.5, ..."), in a request to act ("shall I add the
  M?") or naming an object ("the $129 jacket") proposes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field, ValidationError

from commerce_evals.core.strict import Strict
from commerce_evals.facts import mentions, normalise

Kind = Literal["size", "colour", "money", "date"]
KINDS: tuple[Kind, ...] = ("size", "colour", "money", "date")

DOMAINS_DIR = Path(__file__).resolve().parent.parent / "domains"


# ---- a domain's synonyms -------------------------------------------------------------------------


class Topic(Strict):
    """One thing a person may be asked for: the words that name it, and its value's kind. A
    `consent` topic is a yes to a write: asked by any question asking leave to act."""

    words: list[str] = Field(min_length=1)
    kind: Kind | None = None
    consent: bool = False


class Lexicon(Strict):
    """A domain's asking words (domains/<domain>/asking.yaml), shared by all its cases."""

    topics: dict[str, Topic] = Field(default_factory=dict)

    def group(self, name: str, first_topic: str) -> tuple[list[str], Kind | None]:
        """The words and kind of the topic a reveal is about: the topic of its name, else the
        first topic whose words hold the reveal's first topic."""
        topic = self.topics.get(name)
        if topic is None:
            wanted = _fold(first_topic)
            topic = next(
                (t for t in self.topics.values() if wanted in {_fold(w) for w in t.words}), None
            )
        return (list(topic.words), topic.kind) if topic is not None else ([], None)

    def topic(self, name: str) -> Topic | None:
        return self.topics.get(name)


EMPTY_LEXICON = Lexicon()


class LexiconError(ValueError):
    pass


@cache
def domain_lexicon(domain: str) -> Lexicon:
    """The domain's asking words; a domain without the file has none."""
    path = DOMAINS_DIR / domain / "asking.yaml"
    if not path.is_file():
        return EMPTY_LEXICON
    try:
        return Lexicon.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    except (ValidationError, yaml.YAMLError) as err:  # a packaging mistake, not a user's
        raise LexiconError(f"{path}: {err}") from err


def _fold(text: str) -> str:
    return re.sub(r"[\s\-]+", " ", text.strip().casefold())


# ---- values of a kind ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    kind: Kind
    start: int
    end: int
    norm: str


_LETTER_SIZES = {
    "xxs": "XXS",
    "xs": "XS",
    "s": "S",
    "m": "M",
    "l": "L",
    "xl": "XL",
    "xxl": "XXL",
    "2xl": "XXL",
    "xxxl": "XXXL",
    "3xl": "XXXL",
}
_SIZE_WORDS = {
    "extra small": "XS",
    "x small": "XS",
    "small": "S",
    "medium": "M",
    "large": "L",
    "extra large": "XL",
    "x large": "XL",
}
# single letters only in capitals ("S/M", "an M"): "a", "s" and "m" are words in lower case
_SIZE_LETTER = re.compile(r"(?<![\w'’-])(XXS|XS|XXXL|XXL|XL|[23]XL|S|M|L)(?![\w'’]|-\w)")
_SIZE_WORD = re.compile(
    r"(?<![\w-])(extra[\s-]small|x-small|extra[\s-]large|x-large|small|medium|large"
    r"|xxs|xs|xxxl|xxl|xl)(?![\w-])",
    re.IGNORECASE,
)
_HALF = re.compile(r"(\d+)\s+and\s+a\s+half\b", re.IGNORECASE)
# a number said as a size: "size 9", "a 9", "an 11", "US 10", "EU 42"; bare, only a half size
# or a length ("9.5", "10-inch"); never a count, an amount or a time ("a 9-day trip", "a 2 pack")
_NOT_A_SIZE_AFTER = (
    r"(?![\w%$]|-\w|[.,/:]\d|\s?(?:%|percent|dollars?|days?|hours?|weeks?|months?|years?"
    r"|minutes?|units?|items?|pairs?|pieces?|pack|left|in\s+stock|am|pm|mm|ml|l\b|liters?"
    r"|litres?|oz|lbs?|kg|g\b|stars?|miles?|km)\b)"
)
_SIZE_NUMBER = re.compile(
    r"\b(?:size|sz|us|uk|eu|a|an)\s+(?P<n>\d{1,2}(?:\.5)?)"
    r"(?P<inch>[\s-]?(?:inch(?:es)?\b|\"))?" + _NOT_A_SIZE_AFTER,
    re.IGNORECASE,
)
_BARE_SIZE = re.compile(
    r"(?<![\w.$/,-])(?P<n>\d{1,2}(?:\.5|(?P<inch>[\s-]?(?:inch(?:es)?\b|\"))))" + _NOT_A_SIZE_AFTER,
    re.IGNORECASE,
)

# colour names that are no other common word ("rust", "rose" and "stone" are left out)
_COLOURS = (
    "black|white|grey|gray|charcoal|graphite|silver|slate|navy|blue|teal|turquoise|aqua|cyan"
    "|green|olive|khaki|yellow|mustard|orange|coral|red|burgundy|maroon|crimson|pink|magenta"
    "|purple|violet|lavender|brown|beige|cream|ivory|indigo"
)
_COLOUR = re.compile(
    rf"(?<![\w-])(?:(?:light|dark|pale|bright|deep)\s+)?({_COLOURS})(?![\w-])", re.I
)

_WEEKDAY = re.compile(
    r"(?<![\w-])(monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight"
    r"|today|next week|this week(?:end)?|end of (?:the )?(?:day|week|month))(?![\w-])",
    re.IGNORECASE,
)
# an amount that names an object ("the $129 jacket", "the $24,000 offer") is no amount proposed
_AMOUNT_OF_THING = re.compile(
    r"^\s+(?:(?!or\b|and\b|max\b|tops\b|limit\b|budget\b)[a-z]|1\b)", re.IGNORECASE
)
_ARTICLE_BEFORE = re.compile(r"\b(?:the|this|that|a|an)\s+$", re.IGNORECASE)


# "one" after a determiner is a pronoun ("the $75 one", "which one"), not the number 1
_PRONOUN_ONE = re.compile(
    r"\b(the|this|that|which|each|every|other|another|any|no|a|an)((?:\s+[$\w.,'-]+){0,2}?)"
    r"\s+one(s?)\b",
    re.IGNORECASE,
)


def prepare(text: str) -> str:
    """The text as values are read from it: number words as digits, "9 and a half" as 9.5."""
    text = _PRONOUN_ONE.sub(lambda m: f"{m.group(1)}{m.group(2)} item{m.group(3)}", text)
    return _HALF.sub(lambda m: f"{m.group(1)}.5", normalise(text))


def values_of(kind: Kind, text: str) -> list[Value]:
    """Every value of `kind` in `text` (already `prepare`d), in order."""
    found: list[Value] = []
    if kind == "size":
        for m in _SIZE_LETTER.finditer(text):
            found.append(Value(kind, m.start(1), m.end(1), _LETTER_SIZES[m.group(1).casefold()]))
        for m in _SIZE_WORD.finditer(text):
            word = _fold(m.group(1)).replace("x ", "extra ")
            norm = _SIZE_WORDS.get(word) or _LETTER_SIZES.get(word.replace(" ", ""), word.upper())
            found.append(Value(kind, m.start(1), m.end(1), norm))
        for pattern in (_SIZE_NUMBER, _BARE_SIZE):
            for m in pattern.finditer(text):
                number = float(re.match(r"[\d.]+", m.group("n")).group(0))  # type: ignore[union-attr]
                norm = f"{number:g}" + ("in" if m.group("inch") else "")
                found.append(Value(kind, m.start("n"), m.end(), norm))
    elif kind == "colour":
        for m in _COLOUR.finditer(text):
            word = m.group(1).casefold()
            found.append(Value(kind, m.start(), m.end(), "grey" if word == "gray" else word))
    elif kind == "money":
        for mention in mentions(text):
            if mention.kind != "money":
                continue
            if _ARTICLE_BEFORE.search(text[: mention.start]) and _AMOUNT_OF_THING.match(
                text[mention.end :]
            ):
                continue
            amount = mention.value
            assert isinstance(amount, float)
            found.append(Value(kind, mention.start, mention.end, f"{amount:.2f}"))
    else:
        for mention in mentions(text):
            if mention.kind == "date":
                day = mention.value
                found.append(Value(kind, mention.start, mention.end, f"{day:%m-%d}"))
        for m in _WEEKDAY.finditer(text):
            found.append(Value(kind, m.start(), m.end(), _fold(m.group(1))))
    found.sort(key=lambda v: v.start)
    kept: list[Value] = []
    for read in found:  # the longest reading of a span wins ("extra large" over "large")
        if kept and read.start < kept[-1].end:
            if read.end - read.start > kept[-1].end - kept[-1].start:
                kept[-1] = read
            continue
        kept.append(read)
    return kept


# in a question about nothing but the value, a bare number is a size ("9, yeah?", "9 still good?")
_LOOSE_SIZE = re.compile(r"(?<![\w.$/,-])(\d{1,2}(?:\.5)?)(?![\w%$]|[.,/:-]\d)")


def _loose_sizes(text: str) -> list[Value]:
    return [
        Value("size", m.start(1), m.end(1), f"{float(m.group(1)):g}")
        for m in _LOOSE_SIZE.finditer(text)
    ]


def normalised_values(kind: Kind, text: str) -> set[str]:
    return {v.norm for v in values_of(kind, prepare(text))}


# ---- words that seek a kind ----------------------------------------------------------------------

_YOU = r"(?:you|you'd|you'll|you're|you've|your|yourself)"
KIND_SEEKS: dict[Kind, re.Pattern[str]] = {
    "money": re.compile(
        rf"\bhow\s+(?:much|low|high|far\s+(?:down|up))\b|\bwhat\s+(?:price|amount|figure)\b"
        rf"|\b(?:least|most|lowest|highest|minimum|maximum|max|min)\b(?:\s+[\w']+){{0,2}}?\s+{_YOU}\b",
        re.IGNORECASE,
    ),
    "date": re.compile(
        r"\bwhen(?:'s|\s+(?:would|do|did|does|is|was|should|will|can|could|are|were|shall))\b"
        r"|\bby\s+when\b|\b(?:what|which)\s+(?:day|date)\b|\bhow\s+soon\b",
        re.IGNORECASE,
    ),
    "size": re.compile(
        r"\bhow\s+(?:big|large|small)\b|\bwhat\s+(?:do|does)(?:\s+\w+){1,2}\s+wear\b", re.I
    ),
    "colour": re.compile(r"\bwhat\s+colou?rs?\b", re.IGNORECASE),
}
# the topic words every reveal of a kind is asked by, beside its own and its domain's
KIND_TOPICS: dict[Kind, tuple[str, ...]] = {
    "size": ("size",),
    "colour": ("colour", "color", "hue", "shade"),
    "money": ("budget",),
    "date": ("date",),
}

# ---- clauses -------------------------------------------------------------------------------------

_CLAUSE_BREAK = re.compile(r",(?!\d)|(?<!\d),|[;:()—–]|\s-\s")
# a clause that sets the scene for the question rather than asking: "Since you're a medium",
# "In your size 12.5", "Given the $80 budget", "You said navy", "If it's for a 9"
_CONTEXT_OPENING = re.compile(
    r"^\W*(?:and\s+|so\s+|but\s+)?(?:since|because|as|given|now\s+that|thanks|thank\s+you|i've"
    r"|i\s+have|we've|we\s+have|you've|you\s+said|you\s+mentioned|you\s+told\s+me|i\s+see|i\s+found"
    r"|i\s+verified|i\s+know|i\s+noted|once|after|before|with|for|in|at|on|from|based\s+on"
    r"|going\s+by|per|if|unless|when(?!\s+(?:would|do|did|does|is|was|should|will|can|could|are"
    r"|were|shall)\b)|noted|got\s+it|keeping|sticking|staying|within|under\s+your|to\s+match)\b",
    re.IGNORECASE,
)
_WH = re.compile(r"\b(?:what|which|who|whom|whose|when|where|how)\b", re.IGNORECASE)
# asking for leave to act: the values in such a clause are what the act would use
_ACTING = re.compile(
    r"\b(?:me\s+to|shall\s+(?:i|we)|should\s+(?:i|we)|can\s+(?:i|we)|may\s+(?:i|we)|let\s+me"
    r"|i'll|i\s+will|we'll|i\s+can|i'd\s+(?:add|put|order|get|go)|ok\s+if\s+i|okay\s+if\s+i)\b",
    re.IGNORECASE,
)
# an amount said as a bound ("under $100", "up to $80", "within $60")
_BOUND_BEFORE = re.compile(
    r"\b(?:under|below|up to|within|at most|no more than|less than|max(?:imum)?(?: of)?"
    r"|cap(?:ped)? at|limit(?:ed)? to|around|about)\s*$",
    re.IGNORECASE,
)
# a verb that commits to an object rather than to a bound
_COMMITTING = re.compile(
    r"\b(?:add|cart|order|buy|place|put|get|purchase|check ?out|save|remove|refund|cancel|list"
    r"|launch|stage|send|book)\w*",
    re.IGNORECASE,
)
# the words of a request to act that leave the value as the only thing proposed
_ACTING_WORDS = frozenset(
    "shall should can may i i'll we we'll let me will stick stay keep take use choose go".split()  # noqa: SIM905
)
# a question tag asking to confirm what the sentence said
_TAG = re.compile(
    r"(?:^|[\s,;—–-])(?:right|correct|yes|yeah|no|is\s+that\s+right|is\s+that\s+correct|am\s+i\s+right"
    r"|isn't\s+it|aren't\s+you|don't\s+you|didn't\s+you|is\s+it|was\s+it)\W*\?\W*$",
    re.IGNORECASE,
)
# the words a clause that asks only about a value may hold beside the value: the person, the
# verbs of being, wearing and wanting, and the words of a bound
_ASKING_WORDS = frozenset(
    """
    you your you're you'd you'll youre yours is are was were be been being would will do does did
    still usually normally typically always generally now again then so just also the it that
    this wear wears wearing take takes need needs want wants prefer prefers like mean meant go
    going after looking for in at around about same as before okay ok fine good work works right
    correct sure is it's that's what which or and size sized sizes colour color budget limit
    max maximum most least min minimum cap ceiling top tops under below over up to no more less
    than spend spending pay paying accept accepting lowest highest floor bottom line go price
    happy comfortable something thinking think one's ever really exactly a an suit suits fit fits
    maybe perhaps say roughly plan idea choice pick option preference preferred unless otherwise
    assume assuming with
    """.split()  # noqa: SIM905 (read as words, not as a column of quoted strings)
)
_WORD = re.compile(r"[a-z][a-z']*", re.IGNORECASE)
# what the value is for, closing the clause ("would Friday work for the call?", "the M for him?")
_TRAILING_PURPOSE = re.compile(
    r"\s+(?:for|on|about|with)\s+(?:(?:the|your|my|this|that|a|an|his|her|their)\s+)?[\w'-]+"
    r"\W*$",
    re.IGNORECASE,
)
# a bare question for one of the values the sentence before offered ("Which would you like?")
_WHICH_OF = re.compile(
    r"^\W*(?:so\s+)?(?:which|what)\b(?:\s+(?:one|1|items?))?(?:\s+[\w']+){0,4}\W*$", re.I
)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    text: str

    @property
    def context(self) -> bool:
        return bool(_CONTEXT_OPENING.match(self.text)) and not _WH.search(self.text)


def clauses(sentence: str) -> list[Clause]:
    out: list[Clause] = []
    start = 0
    for m in _CLAUSE_BREAK.finditer(sentence):
        out.append(Clause(start, m.start(), sentence[start : m.start()]))
        start = m.end()
    out.append(Clause(start, len(sentence), sentence[start:]))
    return [c for c in out if c.text.strip()]


def proposes(
    kind: Kind, sentence: str, topic_words: tuple[str, ...] = (), before: str = ""
) -> bool:
    """Whether an asking sentence proposes values of `kind` for the person to pick or confirm:
    a choice of two or more, a value with a question tag, or a clause that asks about nothing
    but the value (the person, a verb of being or wanting, a bound, the topic's words); or, for
    an attribute (size, colour), a bare "which would you like?" after a sentence offering two
    or more (`before`)."""
    text = prepare(sentence)
    parts = clauses(text)
    live = [c for c in parts if not c.context]
    found = [(c, v) for c in live for v in values_of(kind, c.text)]
    if not found and kind == "size":
        found = [(c, v) for c in live for v in _loose_sizes(c.text)]
    if not found:
        offered = {v.norm for v in values_of(kind, prepare(before))} if before else set()
        return kind in ("size", "colour") and len(offered) >= 2 and bool(_WHICH_OF.match(text))
    if len({v.norm for _, v in found}) >= 2:
        first = found[0][0].start + found[0][1].end
        last = found[-1][0].start + found[-1][1].start
        if re.search(r"\bor\b|/", text[first:last], re.IGNORECASE):
            return True
    if _TAG.search(text) and not _ACTING.search(text):
        return True
    allowed = _ASKING_WORDS | {w.casefold() for t in topic_words for w in _WORD.findall(t)}
    for clause, value in found:
        if _ACTING.search(clause.text):
            # "shall I keep it under $100 again?" and "shall I go with a 9?" propose a value;
            # "shall I add the M?" acts on an object
            if _COMMITTING.search(clause.text):
                continue
            if kind == "money" and _BOUND_BEFORE.search(clause.text[: value.start]):
                return True
            rest = clause.text[: value.start] + " " + clause.text[value.end :]
            words = [w.casefold() for w in _WORD.findall(rest)]
            if words and all(w in allowed | _ACTING_WORDS for w in words):
                return True
            continue
        rest = (
            clause.text[: value.start] + " " + _TRAILING_PURPOSE.sub("", clause.text[value.end :])
        )
        words = [w.casefold() for w in _WORD.findall(rest)]
        if all(w in allowed for w in words):
            return True
    return False


def seeks_kind(kind: Kind, sentence: str) -> bool:
    """Whether the sentence asks for a value of `kind` with a question word of the kind ("how
    much", "the least you'd accept", "when would"), outside a context clause."""
    text = prepare(sentence)
    pattern = KIND_SEEKS[kind]
    for clause in clauses(text):
        if pattern.search(clause.text) and not (
            _CONTEXT_OPENING.match(clause.text) and not _WH.search(clause.text)
        ):
            return True
    return False
