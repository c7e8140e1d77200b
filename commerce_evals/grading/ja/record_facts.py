"""`records_agree` in Japanese: what a reply states about a record must agree with the record.

The checks are the English reader's (grading/record_facts.py): an amount one of the record's own
(or a quantity times its price, a total the tools gave, a linked record's), a price that moved
said as current when it is the current one and in the direction it went, a date one of the
record's and not a replaced delivery date given as the arrival, a status true of some value the
record had. What differs is how Japanese ties a value to its record: a record named before the
value in its clause (「J-1201は3,280円」, 「真空断熱ボトル（3,280円）」), else a record the value modifies
right after it (「3,280円の真空断熱ボトル」), else, for a sentence that names none, the last record
of the sentence before: Japanese leaves out a subject it already gave (the topic carries on, with
or without a demonstrative such as こちら or 同商品). An amount said as a total (合計, 小計) must be a
total the tools gave or the cart's lines add up to. The cue
words are Japanese: 現在 and 今 say the price now, 以前 and ご覧になった the price seen, 値下がり and 値上がり
the direction, お届け, 到着 and 予定 an arrival, 当初 and 変更前 the original date. A clause about
what would or could be (もし, 〜たら, 〜れば, 〜場合, 〜かもしれ) states no record's value. What
code cannot tie is left to the `no_invented_facts` judge dimension.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from commerce_evals.facts import Mention, mentions
from commerce_evals.grading.records import Record, Records, Reference
from commerce_evals.grading.statuses import StatusPhrase, holds, phrases
from commerce_evals.japanese.text import clause_bounds, normalise, sentences

_QUESTION = re.compile(r"(?:か|[?？])\s*[。]?\s*$")
_HYPOTHETICAL = re.compile(r"もし|たら|れば|場合|なら|かもしれ|でしょう|予想|見込み(?!日)|可能性")
_BOUND_BEFORE = re.compile(
    r"(?:最大|最高|上限|最低|下限|約|およそ|予算|合計で?|計|より|差は|差額は)\s?$"
)
_BOUND_AFTER = re.compile(
    r"^\s?(?:以下|未満|以内|以上|超|まで|を超え|を上回|を下回|より|の差|お得|引き|オフ|割引|安|高"
    r"|ほど|程度|くらい|ぐらい|前後|ずつ|分)"
)
_ARITHMETIC = re.compile(
    r"合計|小計|総額|差額|割引|送料|税|手数料|各|あたり|ずつ|予算|上限|残り|節約|お得|安く|高く|値引|引き|オフ"
)
_TOTAL = re.compile(r"合計|小計|総額|お支払い(?:金額|総額)|計\s?\d")
_CURRENT = re.compile(
    r"現在|今は|今の|いまは|只今|ただいま|本日|今日|現行|(?:に|へ)(?:値上がり|値下がり|変更|改定)|となって|になって|です$"
)
_EARLIER = re.compile(
    r"以前|前回|当初|もとは|元は|元々|もともと|ご覧になった|表示されていた|見た時|から$|でした"
)
_DOWN = re.compile(r"値下がり|値下げ|安く|下が|お安")
_UP = re.compile(r"値上がり|値上げ|高く|上が")
_ARRIVAL = re.compile(r"お届け|到着|配達|届|着予定|予定日|予定|着")
_ORIGINAL = re.compile(
    r"当初|元の|もとの|元々|もともと|最初|以前|変更前|から(?:変更|延期|遅れ)|でした|だった"
)
_DATE_FIELDS = ("delivery_date", "updated_delivery_date")
_GLUED_AFTER = re.compile(r"^\s?[のな]\s?$")


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 0.01 + 1e-9


def _tie(
    position: int, end: int, sentence: str, refs: list[Reference], previous: Reference | None
) -> Reference | None:
    clause_start, clause_end = clause_bounds(sentence, position)
    before = [r for r in refs if clause_start <= r.start < position]
    if before:
        return before[-1]
    after = [r for r in refs if r.start >= end and r.start < clause_end]
    if after and _GLUED_AFTER.match(sentence[end : after[0].start]):
        return after[0]  # 「3,280円の真空断熱ボトル」
    earlier = [r for r in refs if r.start < position]
    if earlier:
        return earlier[-1]
    if previous is not None and not refs:
        # Japanese drops a subject the sentence before gave: the topic carries on until a new
        # one is named (「スタジオ40を追加しました。現在の価格は24,800円です。」)
        return previous
    return None


def _amounts(record: Record) -> list[float]:
    return [v for _, v in record.numbers()]


def _yen(value: float) -> str:
    return f"{value:,.0f}円" if float(value).is_integer() else f"{value:,.2f}円"


def _price_history(record: Record) -> tuple[float | None, float | None]:
    seen = [v for _, v in record.fields("price_seen") if isinstance(v, int | float)]
    now = [v for _, v in record.fields("price") if isinstance(v, int | float)]
    if seen and now and abs(float(seen[0]) - float(now[-1])) > 0.005:
        return float(seen[0]), float(now[-1])
    return None, None


def _check_money(
    mention: Mention, clause: str, lead: str, rest: str, record: Record, records: Records
) -> str | None:
    if (
        mention.negated
        or mention.in_range
        or _BOUND_BEFORE.search(lead)
        or _BOUND_AFTER.match(rest)
    ):
        return None
    value = float(mention.value)  # type: ignore[arg-type]
    own = _amounts(record)
    if not own:
        return None
    earlier, now = _price_history(record)
    if earlier is not None and now is not None:
        return _check_moved_price(value, clause, lead, rest, earlier, now)
    quantities = [v for _, v in record.fields("quantity") if isinstance(v, int | float)]
    prices = [p for _, p in record.fields("price", "unit_price") if isinstance(p, int | float)]
    derived = [
        *own,
        *(q * p for q in quantities for p in prices if q),
        *records.sibling_sums(record),
        *(a for linked in records.linked(record) for a in _amounts(linked)),
        *records.totals,
    ]
    if any(_near(value, d) for d in derived):
        return None
    if _ARITHMETIC.search(clause):
        return None
    others = [
        r.id for r in records if r is not record and any(_near(value, a) for a in _amounts(r))
    ]
    if others:
        return f"{_yen(value)} is not its amount (it is {others[0]}'s)"
    return f"the record shows no {_yen(value)}"


def _check_moved_price(
    value: float, clause: str, lead: str, rest: str, earlier: float, now: float
) -> str | None:
    if not (_near(value, earlier) or _near(value, now)):
        if _ARITHMETIC.search(clause):
            return None
        return f"{_yen(value)} is neither the price seen ({_yen(earlier)}) nor the price now ({_yen(now)})"
    near = rest[:12]
    said_now = bool(
        _CURRENT.search(lead[-12:]) or re.match(r"^\s?(?:に|へ)(?:値上がり|値下がり|変更)", near)
    )
    said_before = bool(_EARLIER.search(lead[-12:]) or re.match(r"^\s?から", near))
    if said_now and not said_before and _near(value, earlier) and not _near(value, now):
        return f"says the price is now {_yen(value)}; it is {_yen(now)} ({_yen(earlier)} was seen)"
    if said_before and not said_now and _near(value, now) and not _near(value, earlier):
        return f"says {_yen(value)} was the earlier price; it is the price now"
    went_up = now > earlier
    if _DOWN.search(clause) and went_up and not _UP.search(clause):
        return f"says the price went down; it went up from {_yen(earlier)} to {_yen(now)}"
    if _UP.search(clause) and not went_up and not _DOWN.search(clause):
        return f"says the price went up; it went down from {_yen(earlier)} to {_yen(now)}"
    return None


def _dates(record: Record) -> dict[str, list[date]]:
    found: dict[str, list[date]] = {}
    for path, value in record.fields():
        if isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}", value):
            try:
                found.setdefault(path.rsplit(".", 1)[-1], []).append(date.fromisoformat(value[:10]))
            except ValueError:
                continue
    return found


def _same_day(a: date, b: date) -> bool:
    return (a.month, a.day) == (b.month, b.day)


def _check_date(mention: Mention, clause: str, record: Record) -> str | None:
    if mention.negated or mention.in_range or not isinstance(mention.value, date):
        return None
    said = mention.value
    dates = _dates(record)
    if not dates:
        return None
    if any(_same_day(said, d) for ds in dates.values() for d in ds):
        replaced = dates.get("delivery_date", [])
        updated = [d for d in dates.get("updated_delivery_date", []) if d not in replaced]
        is_old = any(_same_day(said, d) for d in replaced) and not any(
            _same_day(said, d) for d in updated
        )
        if updated and is_old and _ARRIVAL.search(clause) and not _ORIGINAL.search(clause):
            new = ", ".join(d.isoformat() for d in updated)
            return f"gives {said.month}月{said.day}日 as the arrival; the carrier moved it to {new}"
        return None
    if _ARRIVAL.search(clause) and any(f in dates for f in _DATE_FIELDS):
        known = ", ".join(f"{f} {d.isoformat()}" for f in _DATE_FIELDS for d in dates.get(f, []))
        return f"gives {said.month}月{said.day}日 as a date of the delivery; the record has {known}"
    return None


# a cue in the clause says which of a record's dates is meant, by the words of the field's name
_DATE_ROLES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"発送|出荷"), ("ship",)),
    (re.compile(r"注文|購入|ご注文"), ("placed", "order")),
    (re.compile(r"返金"), ("issued", "refund")),
    (re.compile(r"まで|終了|期限"), ("end", "expir", "until")),
)


def _check_date_role(mention: Mention, clause: str, record: Record, records: Records) -> str | None:
    """A date said in a role (「9月28日に発送」, 「9月26日にご注文」) must be a date of that role where the
    record, or a record linked to it, has one."""
    if mention.negated or mention.in_range or not isinstance(mention.value, date):
        return None
    said = mention.value
    for cue, words in _DATE_ROLES:
        if not cue.search(clause):
            continue
        for candidate in [record, *records.linked(record)]:
            role = {
                path: ds
                for path, ds in _dates(candidate).items()
                if any(w in path.casefold() for w in words)
            }
            if not role:
                continue
            if any(_same_day(said, d) for ds in role.values() for d in ds):
                return None
            known = ", ".join(f"{path} {d.isoformat()}" for path, ds in role.items() for d in ds)
            return f"gives {said.month}月{said.day}日 as its {cue.pattern} date; the record has {known}"
    return None


def _check_status(phrase: StatusPhrase, record: Record) -> str | None:
    if holds(phrase, record.values) is False:
        said = ("not " if phrase.negated else "") + phrase.status.name.replace("_", " ")
        parts = [
            f"{key} {', '.join(str(v) for v in record.values[key])}"
            for key in ("status", "stock", "delivery_date", "updated_delivery_date")
            if key in record.values
        ]
        return f"says {said} ({phrase.text}), which no value the run saw bears out ({'; '.join(parts)})"
    return None


def _check_total(mention: Mention, lead: str, rest: str, records: Records) -> str | None:
    """An amount said as a total must be a total the tools gave or the lines add up to."""
    if mention.negated or mention.in_range or not records.totals:
        return None
    if _BOUND_BEFORE.search(lead.replace("合計", "")) or _BOUND_AFTER.match(rest):
        return None
    value = float(mention.value)  # type: ignore[arg-type]
    if any(_near(value, t) for t in records.possible_totals()):
        return None
    shown = ", ".join(_yen(t) for t in sorted(set(records.totals)))
    return f"gives {_yen(value)} as a total; the tools gave {shown}"


def _clipped(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def problems_in(
    text: str, records: Records, written: Any = (), presented: Any = ()
) -> list[tuple[str, str, str]]:
    """(sentence, record, why) for each thing `text` states about the run's records that the
    records do not bear out."""
    norm = normalise(text)
    found: list[tuple[str, str, str]] = []
    previous: Reference | None = None
    for _, sentence in sentences(norm):
        refs = records.references(sentence)
        if _QUESTION.search(sentence):
            previous = refs[-1] if refs else previous
            continue
        for mention in mentions(sentence):
            if mention.kind not in ("money", "date"):
                continue
            start, end = clause_bounds(sentence, mention.start)
            if mention.kind == "money" and _TOTAL.search(sentence[start:end]):
                why = _check_total(
                    mention, sentence[start : mention.start], sentence[mention.end : end], records
                )
                if why:
                    found.append((_clipped(sentence.strip()), "the cart", why))
                continue
            ref = _tie(mention.start, mention.end, sentence, refs, previous)
            record = records.get(ref.record_id) if ref and ref.record_id else None
            if ref is None or record is None:
                continue
            start, end = clause_bounds(sentence, mention.start)
            clause = sentence[start:end]
            if _HYPOTHETICAL.search(clause):
                continue
            lead, rest = sentence[start : mention.start], sentence[mention.end : end]
            if mention.kind == "money":
                why = (
                    None
                    if _TOTAL.search(clause)
                    else _check_money(mention, clause, lead, rest, record, records)
                )
            else:
                why = _check_date(mention, clause, record) or _check_date_role(
                    mention, clause, record, records
                )
            if why:
                found.append((_clipped(sentence.strip()), ref.text, why))
        for phrase in phrases(sentence):
            ref = _tie(phrase.start, phrase.end, sentence, refs, previous)
            record = records.get(ref.record_id) if ref and ref.record_id else None
            if ref is None or record is None:
                continue
            start, end = clause_bounds(sentence, phrase.start)
            if _HYPOTHETICAL.search(sentence[start:end]):
                continue
            why = _check_status(phrase, record)
            if why:
                found.append((_clipped(sentence.strip()), ref.text, why))
        if refs:
            previous = refs[-1]
    return found
