"""What `sourced_values` reads in Japanese: the amounts, percents and spans a sentence states,
the units of a span, and what a reply says the person is or likes.

- A span is a count before a unit of time or length: 30日, 30日間, 5営業日, 48時間, 2週間, 3か月,
  1年, 17インチ, 26.5cm (a year of the calendar, 2026年, is no span).
- A value in a question (〜ですか, ？), negated (「30日ではありません」) or rough (約20,000円,
  20,000円ほど, 20,000円程度, 20,000円くらい) states nothing; an amount said as a bound (2万円以下,
  20,000円未満, 20,000円まで, 20,000円を超える, 最大20,000円) is a limit, not an amount of anything.
- What a reply gives the person: 「お客様の靴のサイズは26.5cm」, 「いつもの26.5cm」, 「ハヤテがお好き」,
  「ハヤテをご愛用」: the value must be the person's own (their message, their stored memory).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from commerce_evals.grading.facts import Mention, mentions
from commerce_evals.japanese.text import normalise, sentences

# a number in Japanese text: no spaces, so it stops where ASCII digits stop
NUMBER = re.compile(
    r"(?<![0-9.,A-Za-z])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![0-9.,A-Za-z])\d+(?:\.\d+)?"
)
_UNITS: dict[str, tuple[str, float]] = {
    "分間": ("time", 1 / 1440), "時間": ("time", 1 / 24), "営業日": ("time", 1.0),
    "日間": ("time", 1.0), "日目": ("time", 1.0), "日": ("time", 1.0), "週間": ("time", 7.0),
    "か月": ("time", 30.0), "ヶ月": ("time", 30.0), "カ月": ("time", 30.0), "ヵ月": ("time", 30.0),
    "箇月": ("time", 30.0), "年間": ("time", 365.0), "年": ("time", 365.0),
    "インチ": ("length", 2.54), "センチ": ("length", 1.0), "cm": ("length", 1.0),
    "ミリ": ("length", 0.1), "mm": ("length", 0.1),
}  # fmt: skip
_UNIT_AFTER = re.compile(r"^\s?(" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")")
_APPROXIMATE_BEFORE = re.compile(r"(?:約|およそ|だいたい|大体|おおよそ|概ね)\s?$")
_APPROXIMATE_AFTER = re.compile(r"^\s?(?:ほど|程度|くらい|ぐらい|前後|強|弱|余り)")
_BOUND_BEFORE = re.compile(r"(?:最大|最高|上限|最低|下限)\s?$")
_BOUND_AFTER = re.compile(
    r"^\s?(?:以下|未満|以内|以上|超|まで|を超え|を上回|を下回|より(?:安|高|低|上|下)|に収ま|内で)"
)
_QUESTION = re.compile(r"(?:か|[?？])\s*[。]?\s*$")


def measure(text: str, end: int) -> tuple[str, float] | None:
    """The family of the unit right after a count ending at `end`, and its size in base units;
    a four-digit year before 年 is the calendar's, no span."""
    m = _UNIT_AFTER.match(text[end:])
    if m is None:
        return None
    if m.group(1) == "年" and re.search(r"(?<!\d)\d{4}$", text[:end]):
        return None
    return _UNITS[m.group(1)]


def stated_values(text: str) -> Iterator[tuple[str, Mention, str]]:
    """(sentence, mention, kind) for every amount, percent and span `text` states."""
    norm = normalise(text)
    for _, sentence in sentences(norm):
        if _QUESTION.search(sentence):
            continue
        for mention in mentions(sentence):
            lead, rest = sentence[: mention.start], sentence[mention.end :]
            if (
                mention.negated
                or _APPROXIMATE_BEFORE.search(lead)
                or _APPROXIMATE_AFTER.match(rest)
            ):
                continue
            if mention.kind == "money" and (_BOUND_BEFORE.search(lead) or _BOUND_AFTER.match(rest)):
                continue
            if mention.kind in ("money", "percent"):
                yield sentence, mention, mention.kind
            elif mention.kind == "count":
                unit = measure(sentence, mention.end)
                if unit is not None:
                    yield sentence, mention, unit[0]


# what a reply says of the person: their size, a brand or material they like
def _value(name: str) -> str:
    return rf"(?P<{name}>\d+(?:\.\d+)?|[\u30a0-\u30ffーA-Za-z][\u30a0-\u30ffーA-Za-z0-9.&'-]*)"


_PERSON_FACT = re.compile(
    r"(?:お客様|あなた|ご本人)(?:は|の|が)[^。、]{0,12}?(?:サイズ|好み|お好み|愛用)(?:は|が)\s?"
    + _value("a")
    + r"|(?:いつもの|普段の|ふだんの|お好みの|ご愛用の|お気に入りの)\s?"
    + _value("b")
    + r"|"
    + _value("c")
    + r"\s?(?:が|を)(?:お好き|好き|お好み|ご愛用|愛用|お気に入り)"
)


def person_values(text: str) -> Iterator[tuple[str, str, str]]:
    """(sentence, value, words) for each thing a reply says the person is or likes."""
    norm = normalise(text)
    for _, sentence in sentences(norm):
        if _QUESTION.search(sentence) or re.search(r"(?:でしたら|なら|場合|れば)", sentence):
            continue
        for m in _PERSON_FACT.finditer(sentence):
            value = m.group("a") or m.group("b") or m.group("c") or ""
            if value and not re.search(r"ない|ません|ではなく", sentence[m.end() : m.end() + 12]):
                yield sentence, value, m.group(0)


def said_as_compound(value: str, said: str) -> bool:
    """Whether the person said the value as a compound written with or without の or a space
    (「メッシュのモデル」 is the メッシュモデル a reply names)."""
    squeeze = re.compile(r"[の\s・、]")
    return squeeze.sub("", value.casefold()) in squeeze.sub("", said)
