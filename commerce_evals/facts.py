"""Typed facts read out of a reply: money, dates, percents, counts, ids, products and statuses.

A reply is read the way a person writes: "$32", "32.00 USD", "thirty-two dollars"; "Dec 2",
"December 2nd", "2 December", "12/2", "2026-12-02"; "30%", "30 percent", "thirty percent".
Number words become digits with text2num (`alpha2digit`), and a date span found by the patterns
below is read by dateparser. Money, percents and counts are read by the patterns here: the
libraries compared (price-parser, quantulum3) read only the first number, or read a range and a
date as plain numbers (docs/authoring.md, "Typed reply facts", says which and why).

Every mention carries what a string match cannot see:
- `negated`: a negation word ("not", "no", "never", "n't", "no longer", "no sign of", ...) stands
  before it in the same clause;
- `in_range`: it is an end of a range ("$30-$35", "between 30 and 35", "from Dec 2 to Dec 4"),
  which states neither end;
- `clause`: the clause it sits in, so a role cue ("now", "was") is read next to its value.
Words are matched whole: "yes" is not found in "eyes", nor "stock" in "stockings".

It sits below every layer (it imports only commerce_evals/japanese): the graders read replies with
it, and the case layer reads what a reply asks with it (cases/asking.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import Literal

from commerce_evals.japanese import facts as ja_facts
from commerce_evals.japanese import text as ja_text

Kind = Literal["money", "date", "percent", "count"]


@dataclass(frozen=True)
class Mention:
    kind: Kind
    value: float | date
    start: int
    end: int
    text: str
    negated: bool = False
    in_range: bool = False
    has_year: bool = False


# ---- clauses and negation ------------------------------------------------------------------------

_CLAUSE_BREAK = re.compile(
    r"[.;!?](?=\s|$)|,\s|\s[-–—]\s|\n|\(|\)"
    r"|\b(?:but|and|while|whereas|although|though|however|instead|so|which|whereas)\b",
    re.IGNORECASE,
)
NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|nor|neither|without|cannot|isn't|aren't|wasn't|weren't"
    r"|hasn't|haven't|hadn't|doesn't|don't|didn't|won't|can't|couldn't|shouldn't|wouldn't"
    r"|no longer|no sign of|not yet|instead of|rather than|unable)\b|n't\b|\bnot\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1024)
def _clause_breaks(text: str) -> tuple[tuple[int, int], ...]:
    # every grader asks for the clauses of the same few replies, position by position
    return tuple((match.start(), match.end()) for match in _CLAUSE_BREAK.finditer(text))


def clause_bounds(text: str, position: int) -> tuple[int, int]:
    """The start and end of the clause holding `position`."""
    if ja_text.is_japanese(text):
        return ja_text.clause_bounds(text, position)
    start, end = 0, len(text)
    for break_start, break_end in _clause_breaks(text):
        if break_end <= position:
            start = break_end
        elif break_start >= position:
            end = break_start
            break
    return start, end


NEGATION_REACH = 5  # words: "not $139", "no longer $32", "no sign of a delay", "isn't in stock"


def negated_at(text: str, start: int) -> bool:
    """A negation word stands within a few words before `start`, in the same clause (so "I didn't
    change it: $20,000 is under the $22,000 floor" does not negate the floor). Japanese negates
    the predicate after the value (japanese/text.py)."""
    if ja_text.is_japanese(text):
        return ja_text.negated_after(text, ja_text.word_end(text, start))
    clause_start, _ = clause_bounds(text, start)
    # a colon ends what a negation before it governs ("it isn't live yet: going live takes an
    # approval"), though it joins a label to its value for the cues ("Total: $20")
    before = text[clause_start:start].rsplit(": ", 1)[-1]
    words = before.split()
    return bool(NEGATION.search(" ".join(words[-NEGATION_REACH:])))


# ---- normalising number words --------------------------------------------------------------------


@lru_cache(maxsize=256)
def normalise(text: str) -> str:
    """Number words as digits ("thirty-two dollars" -> "32 dollars"), spacing kept simple.
    Cached: several graders read the same reply, and number words are slow to parse. Japanese
    has a normal form of its own (japanese/text.py: full-width as ASCII, kanji numerals as digits)."""
    if ja_text.is_japanese(text):
        return ja_text.normalise(text)
    from text_to_num import alpha2digit

    text = text.replace("\u2019", "'").replace("\u00a0", " ")
    # a number word joined to its unit ("two-year", "thirty-day") reads as the number and the unit
    text = _WORD_BEFORE_UNIT.sub(" ", text)
    try:
        converted = alpha2digit(text, "en", threshold=0)
    except Exception:  # text2num refuses a few odd inputs; the text as written still parses
        converted = text
    converted = re.sub(r"\bboth\b", "2", converted, flags=re.IGNORECASE)
    # units written short read as their words: "45 hrs", "30 mins", "5 yrs"
    for short, unit in _UNIT_SHORT:
        converted = re.sub(rf"(\d)\s*{short}\b", rf"\1 {unit}", converted, flags=re.IGNORECASE)
    return converted


_WORD_BEFORE_UNIT = re.compile(
    r"(?<=[a-z])-(?=(?:day|week|month|year|hour|minute|inch|foot|pound|dollar|buck|percent)s?\b)",
    re.IGNORECASE,
)
_UNIT_SHORT = (
    (r"hrs?\.?", "hours"),
    (r"h(?=\b)", "hours"),
    (r"mins?\.?", "minutes"),
    (r"yrs?\.?", "years"),
    (r"wks?\.?", "weeks"),
)


# ---- the patterns --------------------------------------------------------------------------------

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
DATE_SPAN = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b"
    rf"|\b\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b"
    rf"|\b(?:{_MONTHS})\.?\s+(?:the\s+\d{{1,2}}(?:st|nd|rd|th)|{_DAY})\b(?:,?\s+\d{{4}}\b)?"
    rf"|\b{_DAY}\s+(?:of\s+)?(?:{_MONTHS})\b\.?(?:,?\s+\d{{4}}\b)?",
    re.IGNORECASE,
)
_MONEY = re.compile(
    rf"(?:(?:US)?\$|\bUSD|\bUS dollars?)\s?(?P<a>{_NUM})(?P<k>[kK]\b)?"
    rf"|(?P<b>{_NUM})\s?(?:USD|usd|dollars?|bucks)\b(?:\s+and\s+(?P<c>\d{{1,2}})\s+cents?\b)?",
)
_PERCENT = re.compile(rf"(?P<n>{_NUM})\s?(?:%|percent\b|per\s?cent\b|pct\b)", re.IGNORECASE)
# a bare whole number, an ordinal ("30th") or a number before a unit ("30-day"); not a piece of an
# id ("R-1130"), a phone number, an amount or a decimal
_COUNT = re.compile(r"(?<![\w$.,/-])(?P<n>\d+)(?:st|nd|rd|th)?(?![\w%]|[.,/-]\d)")
_RANGE_JOIN = re.compile(r"^\s?(?:-|–|to|through)\s?$", re.IGNORECASE)
_RANGE_OPEN = re.compile(r"\bbetween\s+$", re.IGNORECASE)
# "from $139 to $159" is a change, both values stated; "$30 to $35" is a range
_FROM = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_RANGE_AND = re.compile(r"^\s+and\s+$", re.IGNORECASE)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@lru_cache(maxsize=512)
def parse_date(span: str) -> date | None:
    import dateparser

    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", span, flags=re.IGNORECASE)
    cleaned = re.sub(r"\b(?:of|the)\s+", "", cleaned, flags=re.IGNORECASE)
    parsed = dateparser.parse(
        cleaned,
        languages=["en"],
        settings={
            "DATE_ORDER": "MDY",
            "PREFER_DAY_OF_MONTH": "first",
            "RELATIVE_BASE": datetime(2026, 1, 1),
        },
    )
    return parsed.date() if parsed else None


def _taken(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(start < e and s < end for s, e in spans)


def mentions(text: str) -> list[Mention]:
    """Every typed value in `text`, in order, with negation and ranges marked."""
    return list(_mentions(text))


@lru_cache(maxsize=2048)
def _mentions(text: str) -> tuple[Mention, ...]:
    # read once per text: the graders of one reply, and the sentences of every reply, ask again
    if ja_text.is_japanese(text):
        return tuple(Mention(*found) for found in ja_facts.mentions(text))  # type: ignore[arg-type]
    text = normalise(text)
    found: list[Mention] = []
    spans: list[tuple[int, int]] = []

    def add(kind: Kind, value: float | date, start: int, end: int, has_year: bool = False) -> None:
        spans.append((start, end))
        found.append(Mention(kind, value, start, end, text[start:end], has_year=has_year))

    for m in DATE_SPAN.finditer(text):
        parsed = parse_date(m.group(0))
        if parsed is not None:
            add("date", parsed, m.start(), m.end(), bool(re.search(r"\d{4}", m.group(0))))
    for m in _MONEY.finditer(text):
        if _taken(spans, m.start(), m.end()):
            continue
        if m.group("a"):
            value = _number(m.group("a")) * (1000 if m.group("k") else 1)
        else:
            value = _number(m.group("b")) + (int(m.group("c")) / 100 if m.group("c") else 0)
        add("money", value, m.start(), m.end())
    for m in _PERCENT.finditer(text):
        if not _taken(spans, m.start(), m.end()):
            add("percent", _number(m.group("n")), m.start(), m.end())
    for m in _COUNT.finditer(text):
        if not _taken(spans, m.start(), m.end()):
            add("count", float(m.group("n")), m.start(), m.end())
    found.sort(key=lambda x: x.start)
    return tuple(_marked(text, found, i) for i in range(len(found)))


def _marked(text: str, found: list[Mention], index: int) -> Mention:
    mention = found[index]
    in_range = False
    before = found[index - 1] if index else None
    after = found[index + 1] if index + 1 < len(found) else None
    for left, right in ((before, mention), (mention, after)):
        if left is None or right is None or {left.kind, right.kind} - {mention.kind, "count"}:
            continue
        gap = text[left.end : right.start]
        if (
            _RANGE_JOIN.match(gap)
            and not (gap.strip().casefold() == "to" and _FROM.search(text[: left.start]))
            or _RANGE_AND.match(gap)
            and _RANGE_OPEN.search(text[: left.start])
        ):
            in_range = True
    return Mention(
        mention.kind,
        mention.value,
        mention.start,
        mention.end,
        mention.text,
        negated=negated_at(text, mention.start),
        in_range=in_range,
        has_year=mention.has_year,
    )


def same_value(kind: Kind, wanted: float | date, mention: Mention, year: bool = True) -> bool:
    if mention.kind != kind:
        # a count may be written as a bare number where a percent or money amount was meant
        return False
    if kind == "date":
        assert isinstance(wanted, date) and isinstance(mention.value, date)
        if (wanted.month, wanted.day) != (mention.value.month, mention.value.day):
            return False
        return not (year and mention.has_year) or wanted.year == mention.value.year
    assert isinstance(mention.value, float)
    return abs(float(wanted) - mention.value) <= 0.01 + 1e-9  # type: ignore[arg-type]


# ---- ids and names -------------------------------------------------------------------------------


def token_positions(text: str, token: str) -> list[int]:
    """Where `token` stands as a whole word (case-insensitive; "-" and " " interchangeable)."""
    if ja_text.is_japanese(text) or ja_text.is_japanese(token):
        return ja_text.token_positions(text, token)
    body = r"[-\s]?".join(re.escape(part) for part in re.split(r"[-\s]+", token.strip()))
    pattern = rf"(?<![\w]){body}(?![\w])"
    return [m.start() for m in re.finditer(pattern, normalise(text), re.IGNORECASE)]
