"""What `sourced_values` reads in Japanese: the amounts, percents and spans a sentence states,
the units of a span, and what a reply says the person is or likes. It hands back the English
reader's `Stated` (grading/stated.py), so one `Sources.backs` decides both languages.

- A span or a length is a count before a unit of time or length: 30日, 30日間, 5営業日, 48時間,
  2週間, 3か月, 1年, 17インチ, 26.5cm, 6mm, with its size in base units (6mm is 0.6 cm; a year of
  the calendar, 2026年, is no span). Both ends of a range are stated (3〜5営業日), and 数日, 数週間
  state a rough few.
- A span is a term (backed only by a span a source gave, never by the days between two dates) when
  it is a bound promised (30日以内) or modifies a noun (30日間の返品期間, 90日保証です); how long it
  has been (お届けから30日が経ちました, 30日後) is no term.
- A question (〜ですか, ？) states what its clauses before the asking one state
  (「現在15,900円ですが、よろしいですか？」); a negated value (「30日ではありません」) states nothing.
- A rough amount (約20,000円, 20,000円ほど, 20,000円程度, 20,000円くらい) states nothing; a rough span
  (約1週間, 3日ほど) is read as rough, backed by a source near it. An amount said as a bound
  (2万円以下, 20,000円未満, 20,000円まで, 20,000円を超える, 最大20,000円) is a limit, not an amount of
  anything.
- What a reply gives the person: 「お客様の靴のサイズは26.5cm」, 「いつもの26.5cm」, 「ハヤテがお好き」,
  「ハヤテをご愛用」: the value must be the person's own (their message, their stored memory).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from commerce_evals.facts import Mention, mentions
from commerce_evals.grading.stated import Stated
from commerce_evals.japanese.text import clause_bounds, negated_after, normalise, sentences

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
# nouns that place a point in time or a stretch around a span, not a thing the span is a term of:
# 30日後, 3日前, 30日目, 30日の間, 30日の時点
_TIME_NOUN = r"(?:後|前|目|間|頃|ごろ|中|内|以上|以降|以前|時点|経過|うち|今日|本日)"
# a span said as a term: a bound promised (30日以内, 7日までに), or the span modifying a noun,
# through の (30日間の返品期間, 1年の保証) or as the head of a compound used as a noun (90日保証です,
# 1年保証付き); a compound used as a verb (30日経過しました) tells time passing, no term
_TERM_AFTER = re.compile(
    r"^\s?(?:以内|までに|のうちに)"
    rf"|^\s?の\s?(?!{_TIME_NOUN})[\u4e00-\u9fff\u30a0-\u30ff]"
    rf"|^(?!{_TIME_NOUN})[\u4e00-\u9fff]+(?:付き|つき|です|でした|でござい|の|が|は|を|も|、|。|$)"
)
# one end of a range whose other end carries the unit: 3〜5営業日, 3から5日
_RANGE_TO = re.compile(r"^\s?(?:〜|～|~|-|–|から)\s?(?=\d)")
# a span said with no number: 数日 (a few days), 数週間, 数か月; not 数日分 (a few days' worth)
_VAGUE_SPAN = re.compile(
    r"数(" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")(?!分|おき|ごと)"
)
_VAGUE_VALUE = 3.0


_TIME_UNITS = "|".join(
    sorted((u for u, (f, _) in _UNITS.items() if f == "time"), key=len, reverse=True)
)
# a span of time that ends a text, with what may follow it before its particle (以上, ほど)
_SPAN_AT_END = re.compile(
    rf"(?:\d+(?:\.\d+)?|数)\s?(?:{_TIME_UNITS})(?:以上|近く|余り|ほど|程度|強|弱)?\s?(?P<particle>[がをはも])?\s*$"
)


def time_passes(lead: str) -> bool:
    """Whether the words before a predicate make it time passing: a span of time as its subject or
    the point it passes (「30日を過ぎています」, 「1週間が経ちました」), or a span counted from an event
    (「お届けから30日経過しました」). What is said then is how long it has been, a fact about a record,
    not an act."""
    m = _SPAN_AT_END.search(lead)
    if m is None:
        return False
    return bool(m.group("particle")) or bool(re.search(r"から\s?$", lead[: m.start()]))


def _unit(text: str, end: int) -> tuple[str, float, int] | None:
    """The family and size of the unit right after a count ending at `end`, and where the unit
    ends; a four-digit year before 年 is the calendar's, no span."""
    m = _UNIT_AFTER.match(text[end:])
    if m is None:
        return None
    if m.group(1) == "年" and re.search(r"(?<!\d)\d{4}$", text[:end]):
        return None
    family, size = _UNITS[m.group(1)]
    return family, size, end + m.end()


def unit_end(text: str, end: int) -> int | None:
    """Where the unit of time or length after a count ending at `end` ends, if one follows."""
    unit = _unit(text, end)
    return unit[2] if unit else None


def measure(text: str, end: int) -> tuple[str, float] | None:
    """The family of the unit right after a count ending at `end`, and its size in base units."""
    unit = _unit(text, end)
    return unit[:2] if unit else None


def declared_part(sentence: str) -> str:
    """The part of a sentence that states: all of it, or for a question the clauses before the
    clause that asks (「現在15,900円ですが、よろしいですか？」 states 15,900円; 「7,700円を返金しますか？」
    states nothing)."""
    if not _QUESTION.search(sentence):
        return sentence
    body = sentence.rstrip(" 。?？")
    start, _ = clause_bounds(sentence, max(len(body) - 1, 0))
    return sentence[:start]


def _span(sentence: str, mention: Mention) -> Stated | None:
    """A count read as a span or a length: its unit after it, or after the far end of the range
    it opens (「3〜5営業日」 states 3 days and 5)."""
    lead, rest = sentence[: mention.start], sentence[mention.end :]
    unit = _unit(sentence, mention.end)
    if unit is None:
        to = _RANGE_TO.match(rest)
        far = NUMBER.match(sentence, mention.end + to.end()) if to else None
        if far is None:
            return None
        unit = _unit(sentence, far.end())
        if unit is None:
            return None
    family, size, unit_end = unit
    after = sentence[unit_end:]
    rough = bool(
        _APPROXIMATE_BEFORE.search(lead)
        or _APPROXIMATE_AFTER.match(rest)
        or _APPROXIMATE_AFTER.match(after)
    )
    # only a span of time is a term or not: the days between two dates back no length
    term = family == "time" and bool(_TERM_AFTER.match(after))
    return Stated(sentence, mention, family, rough, term, size)


def stated_values(text: str) -> Iterator[Stated]:
    """Every amount, percent, span and length `text` states: not in the clause that asks, not
    negated. A rough amount (約20,000円) states nothing; a rough span (3日ほど) is read as one."""
    norm = normalise(text)
    for _, whole in sentences(norm):
        sentence = declared_part(whole)
        if not sentence.strip():
            continue
        for mention in mentions(sentence):
            if mention.negated:
                continue
            lead, rest = sentence[: mention.start], sentence[mention.end :]
            if mention.kind in ("money", "percent"):
                if _APPROXIMATE_BEFORE.search(lead) or _APPROXIMATE_AFTER.match(rest):
                    continue
                if mention.kind == "money" and (
                    _BOUND_BEFORE.search(lead) or _BOUND_AFTER.match(rest)
                ):
                    continue  # 「2万円以下の商品」: a limit, not an amount of anything
                yield Stated(sentence, mention, mention.kind)
            elif mention.kind == "count":
                span = _span(sentence, mention)
                if span is not None:
                    yield span
        for m in _VAGUE_SPAN.finditer(sentence):
            if negated_after(sentence, m.end()):
                continue
            family, size = _UNITS[m.group(1)]
            mention = Mention("count", _VAGUE_VALUE, m.start(), m.end(), m.group(0))
            term = bool(_TERM_AFTER.match(sentence[m.end() :]))
            yield Stated(sentence, mention, family, True, term, size, bare=False)


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
