"""`sourced_values`: every amount, percent and measure a reply states comes from somewhere.

An agent may only tell a person numbers it was given: by a tool, by its instructions and policy,
by the screen, or by the person. A reply that states "$20", "40% off", "a 90-day warranty",
"within 10 days" or "48 hours" where none of those gave that number, and no sum, difference,
multiple, share or span of theirs makes it, invented it. A number a seller or a reviewer wrote
was seen: whether the reply relays it as the store's is the judge's (`no_invented_facts`).

The check is lenient by construction, so it fails a reply only when no source could have given
the number: an amount is backed by any amount a source gave (a field named for money, or "$"
in a text) or follows from them; a percent by a percent given or the share between two amounts;
a span or a length by one given in any unit (a field named in days, "30th day"); a number the
person said backs any kind. The days between two dates of one record the agent saw, or from such a
date to today, back a span of how long ago or how soon, never a term ("a 90-day warranty",
"within 10 days"). A rough amount ("about $20") is no one's; a rough span ("about a week") needs a
source near it.

What a reply says the person is or likes ("you wear a 13", "since you prefer Zentrix", "Travix
is your favorite brand") must come from the person: a message of theirs, or a stored memory or
profile the agent was given. A preference read in a review or a listing is not theirs, and a
saved memory holds no number the person did not say. Questions ("would $80 be your limit?") and negated
values ("there's no 90-day window") state nothing; a range states both its ends. What it cannot
see (an invented warranty with no number, a fact in words) is the `no_invented_facts` judge
dimension's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from itertools import combinations
from typing import TYPE_CHECKING, Any

from commerce_evals.facts import (
    NEGATION,
    Mention,
    mentions,
    negated_at,
    normalise,
    parse_date,
)
from commerce_evals.grading.changes import what_changed
from commerce_evals.grading.ja import sourced as ja_sourced
from commerce_evals.grading.keyspec import expected_key
from commerce_evals.grading.reasons import clipped
from commerce_evals.grading.stated import Kind, Stated
from commerce_evals.japanese.text import is_japanese, token_pattern

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])\d+(?:\.\d+)?")
# a date as a record or the instructions write it; bounded by digits, not by \b, so that one in
# Japanese text with no space around it (「今日は2026-10-01です」) is read too
_ISO_DATE = re.compile(r"(?<![\d-])\d{4}-\d{2}-\d{2}(?![\d-])")
# a count that measures: "90-day", "10 days", "48 hours", "17-inch"
_MEASURE_AFTER = re.compile(
    r"^(?:st|nd|rd|th)?\s?-?\s?(?:business\s+|working\s+|calendar\s+)?"
    r"(day|week|month|year|hour|minute|inch|cm|mm|ft|foot|feet)(?:s|es)?\b",
    re.IGNORECASE,
)
_FAMILY = {
    "minute": ("time", 1 / 1440), "hour": ("time", 1 / 24), "day": ("time", 1.0),
    "week": ("time", 7.0), "month": ("time", 30.0), "year": ("time", 365.0),
    "inch": ("length", 2.54), "cm": ("length", 1.0),
    "mm": ("length", 0.1), "ft": ("length", 30.48), "foot": ("length", 30.48),
    "feet": ("length", 30.48),
}  # fmt: skip
# a field whose name says what kind of number it holds
_MONEY_WORDS = frozenset(
    [
        "price",
        "prices",
        "amount",
        "total",
        "cost",
        "fee",
        "fees",
        "balance",
        "deposit",
        "refund",
        "cap",
        "limit",
        "threshold",
        "budget",
        "msrp",
        "paid",
        "charge",
        "credit",
        "subtotal",
        "spend",
        "value",
    ]
)
_PERCENT_WORDS = frozenset(["percent", "pct", "discount", "off", "rate"])
_UNIT_WORDS = {"minutes": "minute", "hours": "hour", "days": "day", "weeks": "week",
               "months": "month", "years": "year", "inches": "inch", "cm": "cm", "mm": "mm",
               "minute": "minute", "hour": "hour", "day": "day", "week": "week",
               "month": "month", "year": "year", "inch": "inch", "h": "hour", "hrs": "hour"}  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_BOUND = re.compile(
    r"\b(?:under|below|less than|up to|at most|no more than|over|above|more than|at least)\s+$",
    re.IGNORECASE,
)
# a value said as a rough figure is no one's number: "about $20 to over $200"
_APPROXIMATE = re.compile(
    r"\b(?:about|around|roughly|approximately|over|upwards of|ballpark|some|typically|usually)"
    r"\s+(?:\$|us\$)?$",
    re.IGNORECASE,
)


def _key_words(key: str) -> set[str]:
    """A field name's words: "buyNowPrice" -> buy, now, price; "window_days" -> window, days."""
    return {w.casefold() for w in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", key) if w}


@lru_cache(maxsize=4096)
def _field_kinds(key: str) -> tuple[bool, bool, tuple[tuple[str, float], ...]]:
    """What a number under this field name is by its words: money, a percent, and each measure
    (family, base units in one). Cached: a run's tool results repeat a few dozen field names."""
    words = _key_words(key)
    measures = tuple(_FAMILY[_UNIT_WORDS[word]] for word in words if word in _UNIT_WORDS)
    return bool(words & _MONEY_WORDS), bool(words & _PERCENT_WORDS), measures


def _cents(value: float) -> int:
    return round(value * 100)  # an int already: round() without digits gives one


def _measure(text: str, end: int) -> tuple[str, float] | None:
    """The family of the unit right after a count, and how many base units one of it is."""
    m = _MEASURE_AFTER.match(text[end:])
    if m is None and is_japanese(text):
        return ja_sourced.measure(text, end)
    return _FAMILY[m.group(1).casefold()] if m else None


def _numbers(text: str) -> re.Pattern[str]:
    """The number pattern of a text: Japanese has no spaces around its numbers."""
    return ja_sourced.NUMBER if is_japanese(text) else _NUMBER


# a range's first end, whose unit follows its far end: "5-7 business days", "5 to 7 days", 3〜5営業日
_RANGE_TO = re.compile(r"\s?(?:-|–|〜|～|~|\bto\b|から)\s?(?=\d)")


def _unit_of(text: str, end: int) -> tuple[str, float] | None:
    """The unit of a number a source wrote: right after it, or after the far end of the range it
    opens (a policy's "5-7 business days" gives 5 days as well as 7)."""
    unit = _measure(text, end)
    to = _RANGE_TO.match(text, end) if unit is None else None
    far = _numbers(text).match(text, to.end()) if to else None
    return _measure(text, far.end()) if far else unit


@lru_cache(maxsize=8192)
def _text_numbers(
    text: str,
) -> tuple[frozenset[float], frozenset[float], tuple[tuple[str, float], ...], frozenset[float]]:
    """A source text's money, percents, measures (family, value in its base unit) and bare
    numbers. Cached: the same catalogue and policy texts come back in every sample's tool results."""
    money: set[float] = set()
    percent: set[float] = set()
    for mention in mentions(text):
        if mention.kind == "money":
            money.add(float(mention.value))  # type: ignore[arg-type]
        elif mention.kind == "percent":
            percent.add(float(mention.value))  # type: ignore[arg-type]
    measures: list[tuple[str, float]] = []
    numbers: set[float] = set()
    norm = normalise(text)
    for number in _numbers(norm).finditer(norm):
        value = float(number.group(0).replace(",", ""))
        unit = _unit_of(norm, number.end())
        if unit is not None:
            measures.append((unit[0], value * unit[1]))
        numbers.add(value)
    return frozenset(money), frozenset(percent), tuple(measures), frozenset(numbers)


_SEQUENCES = (list, tuple)
_NUMBERS = (int, float)


@dataclass
class _Numbers:
    """Numbers by kind, as a source gives them; `any` holds numbers of no known kind."""

    money: set[float]
    percent: set[float]
    measures: dict[str, set[float]]  # family -> values in its base unit
    any: set[float]

    @classmethod
    def empty(cls) -> _Numbers:
        return cls(set(), set(), {}, set())

    def add_text(self, text: str) -> None:
        money, percent, measures, numbers = _text_numbers(text)
        self.money.update(money)
        self.percent.update(percent)
        for family, value in measures:
            self.measures.setdefault(family, set()).add(value)
        self.any.update(numbers)

    def add_field(self, key: str, value: float) -> None:
        self.any.add(value)
        money, percent, measures = _field_kinds(key)
        if money:
            self.money.add(value)
        if percent:
            self.percent.add(value)
        for family, size in measures:
            self.measures.setdefault(family, set()).add(value * size)

    def add(self, value: Any, key: str = "") -> None:
        # by how often each kind comes (a tool result is mostly texts and objects); a bool is
        # no number, and None is nothing
        if isinstance(value, str):
            self.add_text(value)
        elif isinstance(value, dict):
            for k, v in value.items():
                self.add(v, str(k))
        elif isinstance(value, _SEQUENCES):
            for v in value:
                self.add(v, key)
        elif isinstance(value, _NUMBERS) and not isinstance(value, bool):
            self.add_field(key, float(value))


class Sources:
    """What the run was given, by kind, with what a reviewer works out from it (in cents). What
    is worked out (every sum, difference and share of two amounts; the days between dates) is
    worked out when a reply first states a value of its kind: most replies state none."""

    def __init__(
        self, trusted: _Numbers, person: _Numbers, elapsed: Callable[[], set[float]]
    ) -> None:
        self._trusted, self._person, self._read_elapsed = trusted, person, elapsed
        # per family of measure, the values given in its base unit (days, centimetres)
        self.measures = {family: frozenset(v) for family, v in trusted.measures.items()}
        # the person's numbers take part in the arithmetic: "$60.01 left of your $100"
        trusted.money.update(person.money | person.any)
        trusted.percent.update(person.percent | {n for n in person.any if 0 < n <= 100})
        self._given: dict[str, frozenset[int]] = {}

    def given(self, kind: str) -> frozenset[int]:
        """The amounts (in cents) of a kind given or worked out: "money", "percent", "person"."""
        if kind not in self._given:
            if kind == "money":
                self._given[kind] = _money(self._trusted)
            elif kind == "percent":
                self._given[kind] = _percent(self._trusted, self._person)
            elif kind == "person":
                self._given[kind] = frozenset(_cents(n) for n in self._person.any)
            else:
                self._given[kind] = frozenset()
        return self._given[kind]

    @cached_property
    def person(self) -> frozenset[float]:
        """The person's own numbers, to the cent."""
        return frozenset(c / 100 for c in self.given("person"))

    @cached_property
    def elapsed(self) -> frozenset[float]:
        """Days between two dates of one record the agent saw, or between such a date and a date
        its instructions or the person gave (today): how long ago or how soon, never a term."""
        return frozenset(self._read_elapsed())

    def backs(
        self,
        kind: Kind,
        value: float,
        size: float = 1.0,
        term: bool = False,
        rough: bool = False,
        bare: bool = True,
    ) -> bool:
        """Whether the value (a measure: `size` base units each) was given or follows. A `term`
        (a "90-day warranty", "a 2-week turnaround") is backed only by a span given as one, not
        by the days between two dates; a `rough` figure by any within a tenth of it ("about 45
        hours"), or within half of it when said in words ("about a week"). `bare` False: the value was no written number ("a week"), so a bare number
        the person said does not back it."""
        if bare and value in self.person:
            return True
        if kind in self.measures or kind == "time":
            meant = value * size
            given = self.measures.get(kind, frozenset())
            spans = self.elapsed if kind == "time" and not term else frozenset()
            if rough:
                # "about 45 hours" rounds a number a source gave; "about a week" is vaguer
                near = 0.1 if bare else 0.5
                return any((1 - near) * meant <= v <= (1 + near) * meant for v in (*given, *spans))
            return any(abs(meant - v) <= max(0.02 * v, 0.01) for v in given) or any(
                abs(meant - v) < 0.5 for v in spans
            )
        cents = _cents(value)
        keys = self.given(kind)
        return any(c in keys for c in (cents - 1, cents, cents + 1))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v)


def _money(numbers: _Numbers) -> frozenset[int]:
    """Amounts given, and those worked out from them: sums and differences of two, a quantity
    times an amount, a percent of an amount and what is left after it."""
    base = sorted(n for n in numbers.money if 0 < n < 10_000_000)[:400]
    out = {_cents(n) for n in base}
    for a, b in combinations(base, 2):
        out.update((_cents(a + b), _cents(b - a)))
    counts = [n for n in numbers.any if 1 < n <= 50 and n == int(n)] or [2.0]
    percents = [p for p in numbers.percent if 0 < p <= 100]
    for n in base:
        out.update(_cents(n * k) for k in {*counts, *range(2, 13)})
        for p in percents:
            out.update((_cents(n * p / 100), _cents(n * (1 - p / 100))))
    return frozenset(out)


def _percent(numbers: _Numbers, person: _Numbers) -> frozenset[int]:
    """Percents given, and the share one amount is of another or takes off it: two amounts the
    sources gave, or one the person gave beside one a source gave ("drop it to $19" of $32)."""
    out = {_cents(p) for p in numbers.percent}
    amounts = sorted(n for n in numbers.money if n > 0)[:300]
    pairs = [*combinations(amounts, 2), *((a, b) for a in person.any if a > 0 for b in amounts)]
    for a, b in pairs:
        for share in (abs(b - a) / b * 100, abs(b - a) / a * 100, a / b * 100):
            out.update(_cents(round(share, d)) for d in (0, 1))
    return frozenset(out)


def run_sources(ctx: GradeContext, with_person: bool = True) -> Sources:
    """What the run was given, by kind: tool results, the screen, the instructions and the
    policy; the person's own numbers back any kind ("my budget is 80"). `with_person` False:
    what the run was given by anyone but the person."""
    trusted = _Numbers.empty()
    person = _Numbers.empty()
    trusted.add(list(ctx.shown))
    trusted.add(list(ctx.sources))
    trusted.add(ctx.state)
    trusted.add(ctx.run.start)
    for turn in ctx.run.turns:
        if with_person:
            person.add_text(turn.user)
        for result in turn.results():
            trusted.add(result.data)
    return Sources(trusted, person, lambda: _elapsed(ctx))


def _dates_in(value: Any) -> set[date]:
    return {
        d
        for text in _strings(value)
        for m in _ISO_DATE.finditer(text)
        if (d := parse_date(m.group(0)))
    }


def _elapsed(ctx: GradeContext) -> set[float]:
    """The days between two dates of one record the agent saw (an order placed and delivered, a
    refund and its order), and between such a date and a date its instructions or the person
    gave ("today"). Dates of two unrelated records make no span a reviewer would work out."""
    from commerce_evals.grading.records import Records

    seen = Records(rows_fixed=True)  # the run's rows do not change while it is graded
    seen.add(list(ctx.shown))
    seen.add(ctx.state)
    for turn in ctx.run.turns:
        for result in turn.results():
            if result.status == "ok":
                seen.add(result.data)
    anchors = _dates_in(list(ctx.sources))
    for turn in ctx.run.turns:
        anchors.update(m.value for m in mentions(turn.user) if isinstance(m.value, date))
    spans: set[float] = set()

    def add(dates: set[date]) -> None:
        spans.update(abs(float((b - a).days)) for a, b in combinations(sorted(dates), 2))

    add(anchors)
    dates = {record.id: _dates_in([v for _, v in record.fields()]) for record in seen}
    for record in seen:
        own = set(dates[record.id])
        parent = seen.parent.get(record.id, "")
        if parent in dates:
            own |= dates[parent]
        if own:  # else each linked record's own spans, added at its turn, are all there are
            for linked in seen.linked(record):
                add(own | dates[linked.id])
        add(own | anchors)
    return spans


# a span said with an article or a vague quantity: "a week", "within a day", "a couple of weeks"
_ARTICLE_SPAN = re.compile(
    r"(?<![\w-])(?P<q>an?|one|a single|a couple(?: of)?|a few|several)\s+(?:more\s+)?"
    r"(?:business\s+|working\s+|full\s+|whole\s+)?"
    r"(?P<u>day|week|month|year|hour)s?(?![\w-])",
    re.IGNORECASE,
)
_ARTICLE_VALUE = {"a": 1.0, "an": 1.0, "one": 1.0, "a single": 1.0, "a couple": 2.0,
                  "a couple of": 2.0, "a few": 3.0, "several": 4.0}  # fmt: skip
# "twice a day", "24 hours a day", "once a week": a rate, not a span
_RATE_BEFORE = re.compile(
    r"(?:\b(?:once|twice|thrice|times|per|every|each)|\b(?:hours?|days?|minutes?|weeks?))\s*$", re.I
)
# "a day pack", "a week's worth": the unit begins a noun, not a span
_NOUN_AFTER = re.compile(
    r"^(?:'s|-|\s+(?!(?:or|and|to|of|from|after|before|later|ago|out|max|at|in|for|tops|or so"
    r"|early|late|earlier|sooner|longer|more|less|and a half|back|since)\b)[a-z])",
    re.IGNORECASE,
)
# a span said as a term: the unit is an adjective of the noun after it ("90-day warranty")
_TERM_AFTER = re.compile(
    r"^(?:st|nd|rd|th)?\s?-\s?[a-z]+\s+[a-z]|^\s(?:day|week|month|year|hour)\s+(?!ago|old|later|early|late|after|before|since|left|in|of|to|or|and|from|back)[a-z]",
    re.I,
)
# a range the count reader leaves out ("5-7 days": neither end stands alone)
_SPAN_RANGE = re.compile(
    r"(?<![\w$.,/-])(?P<a>\d+)\s?[-–]\s?(?P<b>\d+)\s?(?:business\s+|working\s+|calendar\s+)?"
    r"(?P<u>day|week|month|year|hour)s?\b",
    re.IGNORECASE,
)
# "within 10 days": a bound promised, a term
_WITHIN = re.compile(r"\bwithin\s+(?:the\s+next\s+|about\s+|roughly\s+|around\s+)?$", re.I)
# a question is the clause that asks; the clauses before it ("It's $159 now, is that ok?") state
_QUESTION_OPENS = re.compile(
    r"(?:^|[,;:]\s+|\s[-\u2013\u2014]\s)(?=(?:would|could|should|do|does|did|is|are|was|were|can|will"
    r"|shall|may|have|has|what|which|how|who|when|where|why|or|right|ok|okay|yes|no|correct|true"
    r"|want|any|shall)\b)",
    re.IGNORECASE,
)


def _declared_part(sentence: str) -> str:
    """The part of a sentence that states: all of it, or for a question the clauses before the
    clause that asks (its first clause, when that one asks already)."""
    if not sentence.rstrip().endswith("?"):
        return sentence
    opens = [m.start() for m in _QUESTION_OPENS.finditer(sentence)]
    return sentence[: opens[-1]] if opens else ""


def stated_values(text: str) -> Iterator[Stated]:
    """Every amount, percent and measure `text` states: not in a question, not negated. A rough
    figure of money ("about $20") states nothing; a rough span ("about a week") is read as one."""
    if is_japanese(text):
        yield from ja_sourced.stated_values(text)
        return
    norm = normalise(text)
    for whole in _SENTENCE_END.split(norm):
        sentence = _declared_part(whole)
        if not sentence.strip():
            continue
        for mention in mentions(sentence):
            lead = sentence[: mention.start]
            if mention.negated:
                continue
            rough = bool(_APPROXIMATE.search(lead))
            if mention.kind in ("money", "percent"):
                if rough or mention.kind == "money" and _BOUND.search(lead):
                    continue  # "both are under $50": a limit, not an amount of anything
                yield Stated(sentence, mention, mention.kind)
            elif mention.kind == "count":
                unit = _measure(sentence, mention.end)
                if unit is not None:
                    term = bool(_TERM_AFTER.match(sentence[mention.end :]) or _WITHIN.search(lead))
                    yield Stated(sentence, mention, unit[0], rough, term, unit[1])
        for m in _SPAN_RANGE.finditer(sentence):
            # "5-7 business days": both ends of a range written with a hyphen
            if negated_at(sentence, m.start()):
                continue
            family, size = _FAMILY[m.group("u").casefold()]
            term = _WITHIN.search(sentence[: m.start()]) is not None
            for group in ("a", "b"):
                mention = Mention(
                    "count", float(m.group(group)), m.start(group), m.end(group), m.group(group)
                )
                yield Stated(sentence, mention, family, False, term, size)
        for m in _ARTICLE_SPAN.finditer(sentence):
            lead, after = sentence[: m.start()], sentence[m.end() :]
            if (
                _RATE_BEFORE.search(lead)
                or _NOUN_AFTER.match(after)
                or negated_at(sentence, m.start())
            ):
                continue
            family, size = _FAMILY[m.group("u").casefold()]
            quantity = m.group("q").casefold()
            value = _ARTICLE_VALUE.get(quantity, 1.0)
            rough = quantity in ("a few", "several") or bool(_APPROXIMATE.search(lead))
            mention = Mention("count", value, m.start(), m.end(), m.group(0))
            yield Stated(
                sentence, mention, family, rough, _WITHIN.search(lead) is not None, size, False
            )


def _unsourced(texts: Iterable[tuple[str, str]], ctx: GradeContext) -> list[str]:
    kinds = {"time": "a span of time", "length": "a length"}
    problems: list[str] = []
    # what the run was given is gathered only for a reply that states a value: many state none
    sources: Sources | None = None
    for where, text in texts:
        for said in stated_values(text):
            value = float(said.mention.value)  # type: ignore[arg-type]
            if sources is None:
                sources = run_sources(ctx)
            if sources.backs(said.kind, value, said.size, said.term, said.rough, said.bare):
                continue
            origin = "no tool, instruction, policy or message of the person gave it"
            shown = f"{said.mention.text!r} ({kinds.get(said.kind, said.kind)})"
            problems.append(
                f"{where}: says {shown} in {clipped(said.sentence.strip())!r}; {origin}"
            )
    return problems


# what a reply says the person is or likes: "you wear a 13", "since you prefer Zentrix",
# "Travix is your favorite brand", "your usual size is 9"
def _value(name: str) -> str:
    return rf"(?:(?:a|an|the|size|sizes|us|eu)\s+){{0,3}}(?P<{name}>[A-Z][\w&'-]+|\d+(?:\.\d+)?)"


_PERSON_FACT = re.compile(
    rf"\byou(?:'re| are)?\s+(?:always\s+|usually\s+|really\s+)?"
    rf"(?:prefer|like|love|wear|favou?r|go for|stick to|want)s?\s+{_value('a')}"
    rf"|\byou(?:'re| are)\s+(?:a|an)\s+(?:size\s+|us\s+|eu\s+)+(?P<d>\d+(?:\.\d+)?)"
    rf"|\byour\s+(?:favou?rite|preferred|usual|go-to|regular)\s+[a-z]+\s+(?:is|'s)\s+{_value('b')}"
    rf"|(?P<c>[A-Z][\w&'-]+|\d+(?:\.\d+)?)\s+(?:is|'s)\s+your\s+(?:favou?rite|preferred|usual"
    rf"|go-to)\b",
)
_NOT_A_VALUE = frozenset({"I", "It", "The", "A", "An", "This", "That", "These", "Those"})


def _person_said(ctx: GradeContext) -> str:
    """What the person told the agent, now or in a stored memory or profile the agent was given.
    A product's name the person wrote says nothing of them: "the reviews of the Travix Roamer"
    states no liking for Travix, so a name of more words than one is left out of their words."""
    records = ctx.records
    texts = []
    for turn in ctx.run.turns:
        text = normalise(turn.user)
        for ref in reversed(records.references(text)):
            if ref.record_id and len(ref.text.split()) > 1:
                text = text[: ref.start] + " " + text[ref.end :]
        texts.append(text)
    about_them = re.compile(r"memor|profile|preferen|customer|account", re.I)
    texts.extend(_strings([v for k, v in ctx.state.items() if about_them.search(k)]))
    texts.extend(_strings([v for k, v in ctx.run.start.items() if about_them.search(k)]))
    return normalise("\n".join(texts)).casefold()


def _person_facts(texts: Iterable[tuple[str, str]], ctx: GradeContext) -> list[str]:
    """A preference or an attribute the reply gives the person that the person never gave."""
    read: list[str] = []

    def said() -> str:
        # read at the first value a reply gives the person: most replies give none
        if not read:
            read.append(_person_said(ctx))
        return read[0]

    problems: list[str] = []
    for where, text in texts:
        if is_japanese(text):
            problems.extend(
                f"{where}: says of the person {words!r}, which neither the person nor a stored "
                "memory of theirs said"
                for _, value, words in ja_sourced.person_values(text)
                if not re.search(token_pattern(value.casefold()), said())
                and not ja_sourced.said_as_compound(value, said())
            )
            continue
        for sentence in _SENTENCE_END.split(normalise(text)):
            if sentence.rstrip().endswith("?"):
                continue
            for m in _PERSON_FACT.finditer(sentence):
                value = m.group("a") or m.group("b") or m.group("c") or m.group("d") or ""
                lead = sentence[: m.start()]
                if (
                    not value
                    or value in _NOT_A_VALUE
                    or re.search(r"\bif\b|\bwhether\b", lead, re.I)
                ):
                    continue
                if NEGATION.search(sentence[max(0, m.start() - 20) : m.end()]):
                    continue
                if re.search(rf"(?<![\w-]){re.escape(value.casefold())}(?![\w-])", said()):
                    continue
                problems.append(
                    f"{where}: says of the person {m.group(0).strip()!r}, which neither the person "
                    f"nor a stored memory of theirs said"
                )
    return problems


def _memory_numbers(ctx: GradeContext) -> list[str]:
    """A number a saved memory holds that the person never said: a memory is what they told."""
    table = ctx.brief.tables.table("memory")
    if table is None:
        return []
    before = ctx.run.start_table(table)
    said = {
        float(m.group(0).replace(",", ""))
        for t in ctx.run.turns
        for m in _numbers(t.user).finditer(normalise(t.user))
    }
    # "ten and a half" reads as "10 and a half"
    said.update(
        float(m.group(1)) + 0.5
        for t in ctx.run.turns
        for m in re.finditer(r"(\d+) and a half", normalise(t.user))
    )
    said.update(
        float(m.group(0).replace(",", ""))
        for text in _strings(before)
        for m in _numbers(text).finditer(normalise(text))
    )
    problems = []
    saved = what_changed(ctx.run).get(table)
    for row in saved.added if saved else []:
        for text in _strings(row.get("text", "") if isinstance(row, dict) else ""):
            norm = normalise(text)
            for m in _numbers(norm).finditer(norm):
                if re.match(r"(?:st|nd|rd|th)\b", norm[m.end() :]):
                    continue  # "recommend them first" reads as "1st"
                if float(m.group(0).replace(",", "")) not in said:
                    problems.append(
                        f"memory saved {clipped(text)!r}: {m.group(0)} is no number the person said"
                    )
    return problems


@expected_key(
    "outcome",
    "every turn",
    bool,
    "every amount, percent and measure (days, hours, inches) a reply or a note the run wrote "
    "states was given by a tool, the instructions, the policy, the screen or the person, or "
    "follows from their numbers (a sum, a difference, a share, days between dates); and every "
    "preference or size it gives the person ('you wear a 13') the person or a stored memory "
    "gave; on by default, `sourced_values: false` turns it off",
    default=True,
    on_by_default=True,
    after="records_agree",
)
def sourced_values(enabled: bool, ctx: GradeContext) -> tuple[bool, str]:
    if not enabled:
        return True, "where the reply's numbers come from is not checked"
    from commerce_evals.grading.record_facts import written_texts

    texts = written_texts(ctx.run)
    problems = [
        *_unsourced(texts, ctx),
        *_person_facts(texts, ctx),
        *_memory_numbers(ctx),
    ]
    if problems:
        return False, "; ".join(dict.fromkeys(problems))
    return True, (
        "every amount, percent and measure the replies state, and every preference they give the "
        "person, came from a source"
    )
