"""Numbers written in kanji, read as digits in place: 一万二千八百円 -> 12800円, 十二月二日 -> 12月2日,
十個 -> 10個, 二〇二六年 -> 2026年, 1万2800円 -> 12800円.

A run of numeral characters is read only where Japanese writes a quantity: before a counter or a
unit (円, 個, 月, 日, 年, %, 割, ...) or after a yen sign. Elsewhere the same characters are words:
一覧 (a list), 一緒 (together), 統一 (unified), 十分 (enough), 一番 (most), 一度 (once), 万一 (just in
case) stay as written. The value of a run comes from kanjize (maintained, typed, pure Python; it
reads positional numerals, digit-by-digit years and digits mixed with 万 and 億, and refuses what
is no number instead of guessing); docs/authoring.md says why it and not the others.
"""

from __future__ import annotations

import re

# A counter or unit right after a number: the grammatical class Japanese writes quantities with.
COUNTERS = (
    r"円|個|点|つ|ヶ月|か月|カ月|ヵ月|箇月|月|日間|日|年間|年|時間|週間|週|営業日|%|パーセント|割"
    r"|人|名|件|回|本|枚|足|台|着|冊|箱|セット|組|泊|歳|才|号|倍|位|センチ|cm|ミリ|mm|キロ|kg"
    r"|グラム|g|インチ|リットル|ml|L|万|億"
)
_KANJI_DIGITS = "〇零一二三四五六七八九十百千万億"
# a run holds at least one kanji numeral; digits and a comma may join it (1万2,800)
_RUN = re.compile(rf"[0-9{_KANJI_DIGITS}][0-9,.{_KANJI_DIGITS}]*")
_HAS_KANJI = re.compile(f"[{_KANJI_DIGITS}]")
_COUNTER_NEXT = re.compile(rf"\s?(?:{COUNTERS})")
# a counter that starts a word of its own: 一時的 (temporary), 個人 (a person), 一日中 (all day)
_NOT_A_QUANTITY = re.compile(
    r"\s?(?:時的|個人|日中|年中|月並|人前|点張|本化|件落着|回り道|足先|足早)"
)
_YEN_BEFORE = re.compile(r"[¥￥]\s?$")


def _value(run: str) -> int | float | None:
    from kanjize import kanji2number

    plain = run.replace(",", "")
    try:
        return kanji2number(plain)
    except (ValueError, KeyError, IndexError):
        return None


def _digits(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def numerals_as_digits(text: str) -> str:
    """`text` with every kanji numeral that writes a quantity as ASCII digits."""
    if not _HAS_KANJI.search(text):
        return text
    out: list[str] = []
    last = 0
    for match in _RUN.finditer(text):
        run = match.group(0).rstrip(",.")
        if not _HAS_KANJI.search(run):
            continue
        end = match.start() + len(run)
        after = text[end:]
        quantity = bool(_COUNTER_NEXT.match(after)) or run[-1] in "万億"
        if _YEN_BEFORE.search(text[: match.start()]):
            quantity = True
        if not quantity or _NOT_A_QUANTITY.match(after):
            continue
        value = _value(run)
        if value is None:
            continue
        out.append(text[last : match.start()])
        out.append(_digits(value))
        last = end
    out.append(text[last:])
    return "".join(out)
