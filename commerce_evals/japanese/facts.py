"""Typed values in a Japanese reply: money, dates, percents and counts, with negation and ranges.

Read after the Japanese normal form (commerce_evals/japanese: full-width as ASCII, kanji
numerals as digits), so one pattern reads every form:
- money: 12,800円, ¥12,800, 12800円, 一万二千八百円, 1万2800円, 12,800 JPY;
- dates: 12月2日, 十二月二日, 2026年12月2日, 2026/12/02, 12/2, 令和8年12月2日 (spans found here,
  read by dateparser with languages=["ja"] and checked against the span's own month and day);
- percents: 30%, 30パーセント, 3割 (30%), 半額 (50%);
- counts: 10個, 十個, 3点, 2つ, and any whole number that is no amount, date or id.
A value is negated when its clause's predicate is ("12,800円ではありません"); the two ends of a range
("5,000円〜8,000円", "5,000円から8,000円まで") state neither end, while "12,800円から13,800円に" is a
change and states both.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache
from typing import NamedTuple

from commerce_evals.japanese.text import negated_after, normalise


class Found(NamedTuple):
    kind: str
    value: float | date
    start: int
    end: int
    text: str
    negated: bool = False
    in_range: bool = False
    has_year: bool = False


_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_ERA = {"令和": 2018, "平成": 1988}
DATE_SPAN = re.compile(
    r"(?:(?P<era>令和|平成)\s?(?P<ey>\d{1,2}|元)\s?年\s?|(?P<y>\d{4})\s?年\s?)?"
    r"(?P<m>\d{1,2})\s?月\s?(?P<d>\d{1,2})\s?日(?:\s?[(（][月火水木金土日][)）]|\s?[月火水木金土日]曜日?)?"
    r"|(?<![\d/])(?P<y2>\d{4})[/\-.](?P<m2>\d{1,2})[/\-.](?P<d2>\d{1,2})(?![\d/])"
    r"|(?<![\d/.,])(?P<m3>\d{1,2})/(?P<d3>\d{1,2})(?![\d/])"
)
_MONEY = re.compile(rf"(?:¥|JPY\s?)\s?(?P<a>{_NUM})|(?P<b>{_NUM})\s?(?:円|JPY|日本円)")
_PERCENT = re.compile(
    rf"(?P<n>{_NUM})\s?(?:%|パーセント)|(?P<w>\d{{1,2}})\s?割(?!合)|(?P<half>半額)"
)
# a whole number that is no piece of an id, an amount or a decimal
_COUNT = re.compile(r"(?<![A-Za-z0-9_$¥.,/-])(?P<n>\d+)(?![0-9.,/%]|[A-Za-z]*-\d)")
_RANGE_JOIN = re.compile(r"^\s?(?:〜|~|-|–|—|から)\s?$")
_RANGE_CLOSE = re.compile(r"^\s?(?:まで|以内|の間|の範囲)")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


@lru_cache(maxsize=512)
def parse_date(span: str) -> date | None:
    """A date span (normalised) read by dateparser, kept only when it keeps the span's month and
    day (dateparser turns 2月30日 into another day rather than refuse it)."""
    import dateparser

    m = DATE_SPAN.fullmatch(span.strip())
    if m is None:
        return None
    month = int(m.group("m") or m.group("m2") or m.group("m3"))
    day = int(m.group("d") or m.group("d2") or m.group("d3"))
    year_text = m.group("y") or m.group("y2")
    if m.group("era"):
        era_year = 1 if m.group("ey") == "元" else int(m.group("ey"))
        year_text = str(_ERA[m.group("era")] + era_year)
    text = f"{year_text}年{month}月{day}日" if year_text else f"{month}月{day}日"
    # dateparser has no type information: say what it returns
    parsed: datetime | None = dateparser.parse(
        text,
        languages=["ja"],
        settings={"DATE_ORDER": "MDY", "PREFER_DAY_OF_MONTH": "first",
                  "RELATIVE_BASE": datetime(2026, 1, 1)},
    )  # fmt: skip
    if parsed is None or (parsed.month, parsed.day) != (month, day):
        return None
    return parsed.date()


def _taken(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(start < e and s < end for s, e in spans)


def mentions(text: str) -> list[Found]:
    """Every typed value of `text` (read in its normal form), in order."""
    text = normalise(text)
    found: list[Found] = []
    spans: list[tuple[int, int]] = []

    def add(kind: str, value: float | date, start: int, end: int, has_year: bool = False) -> None:
        spans.append((start, end))
        found.append(Found(kind, value, start, end, text[start:end], has_year=has_year))

    for m in DATE_SPAN.finditer(text):
        parsed = parse_date(m.group(0))
        if parsed is not None:
            year = bool(m.group("y") or m.group("y2") or m.group("era"))
            add("date", parsed, m.start(), m.end(), year)
    for m in _MONEY.finditer(text):
        if not _taken(spans, m.start(), m.end()):
            add("money", _number(m.group("a") or m.group("b")), m.start(), m.end())
    for m in _PERCENT.finditer(text):
        if _taken(spans, m.start(), m.end()):
            continue
        if m.group("half"):
            value = 50.0
        elif m.group("w"):
            value = float(m.group("w")) * 10
        else:
            value = _number(m.group("n"))
        add("percent", value, m.start(), m.end())
    for m in _COUNT.finditer(text):
        if not _taken(spans, m.start(), m.end()):
            add("count", float(m.group("n")), m.start(), m.end())
    found.sort(key=lambda f: f.start)
    return [_marked(text, found, i) for i in range(len(found))]


def _in_range(text: str, left: Found, right: Found) -> bool:
    if {left.kind, right.kind} - {left.kind if left.kind != "count" else right.kind, "count"}:
        return False
    gap = text[left.end : right.start]
    if not _RANGE_JOIN.match(gap):
        return False
    # "12,800円から13,800円に" moves a value; "5,000円から8,000円まで" bounds one
    if gap.strip() == "から":
        return bool(_RANGE_CLOSE.match(text[right.end :]))
    return True


def _marked(text: str, found: list[Found], index: int) -> Found:
    mention = found[index]
    before = found[index - 1] if index else None
    after = found[index + 1] if index + 1 < len(found) else None
    in_range = bool(
        (before is not None and _in_range(text, before, mention))
        or (after is not None and _in_range(text, mention, after))
    )
    return mention._replace(negated=negated_after(text, mention.end), in_range=in_range)
