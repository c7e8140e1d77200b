"""`records_agree`: what a reply states about a record must agree with the record.

Every reply, and every free text a person reads that the run wrote (a staged change's note, a
ticket's summary, a task's title and notes), is read sentence by sentence. A value (money, a
date) or a status ("sold out", "on its way", "still waiting") is tied to the record it is said
of: a record named in its clause, else the nearest record named before it in its sentence, else
(a sentence that opens with "it", "this", "that", "they") the last record of the sentence
before. A value tied to no record is not checked here.

A tied value must agree with the record as the tools showed it or the run left it:
- an amount must be one of the record's own amounts (any observed, any field: a price seen
  earlier and the price now both belong to it), or a quantity times its price; an amount after
  a bound ("under", "up to", "from") or beside arithmetic ("total", "more than", "off") is not
  the record's own value and is skipped;
- when the record's price moved (seen at one, now another), an amount said as the current one
  ("now", "to", "costs") must be the current one, and a direction ("dropped", "went up") must be
  the record's;
- a date must be one of the record's dates; said as the arrival ("arrives", "expected", "new
  date"), it must not be a delivery date the record has since replaced;
- a status must be true of some value the record had in the run (statuses.py), of each record
  of a group ("both approved") too;
- a size must be one it comes in (numbers or letters); a word of another record's material,
  colour or brand said of it must be its own; a comparative must point the way the two records'
  fields do; what the reviews are said to report must not turn them round;
- a record shown to the person must not hold what their message ruled out.
What code cannot tie precisely is left to the `no_invented_facts` judge dimension, which sees
the same tool results and, as evidence, what code read and could not tie (`untied_values`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from commerce_evals.core.nested import objects_in
from commerce_evals.facts import (
    NEGATION,
    Mention,
    clause_bounds,
    mentions,
    negated_at,
    normalise,
)
from commerce_evals.grading.ja import record_facts as ja_records
from commerce_evals.grading.keyspec import expected_key
from commerce_evals.grading.reasons import clipped
from commerce_evals.grading.records import Record, Records, Reference
from commerce_evals.grading.statuses import StatusPhrase, holds, phrases
from commerce_evals.japanese.text import is_japanese

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(*-])|\n+")
_PRONOUN = re.compile(r"\b(?:it|its|it's|this one|that one)\b", re.I)
_PLURAL_IT = re.compile(r"^\W*(?:they|their|these|those|both)\b", re.I)
_PRONOUN_START = re.compile(r"^\W*(?:it|its|it's|this|that|they|their|these|those|both)\b", re.I)
# before an amount: it bounds or compares, so it is not the record's own value
_BOUND_BEFORE = re.compile(
    r"\b(?:under|below|over|above|up to|upto|at most|at least|less than|more than|within|max(?:imum)?"
    r"|min(?:imum)?|from|starting at|budget|limit|cap|threshold|spend|around|about|roughly|nearly"
    r"|almost|just over|just under|than|by|save|saving|saves|off|extra|another|plus|minus)\W*$",
    re.IGNORECASE,
)
_BOUND_AFTER = re.compile(
    r"^\s*(?:under|below|above|over|more|less|off|cheaper|pricier|higher|lower|short of)\b", re.I
)
_ARITHMETIC = re.compile(
    r"\b(?:total|totals|together|combined|sum|subtotal|difference|cheaper|pricier|more|less"
    r"|saves?|saving|savings|off|discount|extra|shipping|tax|fee|deposit|balance|each|apiece"
    r"|per|budget|remaining|left over|caps?|limits?|maximum|minimum|drops?|dropped|rises?|rose"
    r"|cut|up|down|usual|keeping|keep)\b",
    re.IGNORECASE,
)
_CURRENT = re.compile(
    r"\b(?:now|currently|today|current|new price|(?:dropped|fell|went down|rose|went up|increased"
    r"|decreased|climbed|changed|gone up|gone down|moved|jumped)\s+to|is now|costs?)\b",
    re.IGNORECASE,
)
_EARLIER = re.compile(
    r"\b(?:was|were|from|used to|originally|before|earlier|previously|had been|shown at|seen at"
    r"|instead of|old|when you (?:saw|looked))\b",
    re.IGNORECASE,
)
_DOWN = re.compile(
    r"\b(?:dropped|drop|fell|went down|gone down|decreased|cheaper|lower(?:ed)?|reduced|cut"
    r"|down)\b",
    re.I,
)
_UP = re.compile(
    r"\b(?:rose|risen|went up|gone up|increased|pricier|higher|raised|climbed|jumped|up)\b", re.I
)
_ARRIVAL = re.compile(
    r"\b(?:arriv\w*|expected|expect|estimate\w*|eta|due|deliver(?:y|ed|s)?|get there|reach(?:es)?"
    r"|show up|land\w*|new date|updated|now|should (?:be|get))\b",
    re.IGNORECASE,
)
_ORIGINAL = re.compile(
    r"\b(?:originally|original|first|initially|was|were|previously|old|instead of|from|before"
    r"|had been|used to)\b",
    re.IGNORECASE,
)
_DATE_FIELDS = ("delivery_date", "updated_delivery_date")
_FLAG_BEFORE_NAME = re.compile(r"^\w*(?:[\s-]+[a-z][\w-]*){0,2}\s+(?=[A-Z0-9])")
_FOR_RECORD = re.compile(r"^\S*\s+(?:for|on|of)\s+(?:the\s+|your\s+|a\s+)?$", re.I)
_OWN_SUBJECT = re.compile(
    r"\b(?:the|a|an|your|our|my|this|each|every|any|no)\s+(?!same\b|one\b)[a-z]\w+", re.I
)
# a value whose record's name follows at once: "$24,000 (Tucson)", "$26,800 and $24,000 Tucson"
_GLUED = re.compile(
    r"^\S*(?:,?\s+and\s+\$?[\d,.]+\S*)*\s*(?:\(|(?:for|on|of)\s+(?:the\s+|your\s+)?)?\s*$",
    re.IGNORECASE,
)
# a clause about what would or could be: its values are no record's
_HYPOTHETICAL = re.compile(
    r"\b(?:would|could|might|if|unless|can|will|'ll|should|may|once|asks?|asked|wants?|wanted"
    r"|requests?|requested|proposes?|proposed|suggests?|suggested)\b",
    re.IGNORECASE,
)
# before a status: it is what will or would be, not what is
_NOT_YET = re.compile(
    r"\b(?:would|could|might|if|unless|once|until|till|after|before|when|as soon as|needs? to"
    r"|has to|have to|must|will|'ll|to be|waiting for|awaiting|can|should)\b",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_CONDITIONAL = re.compile(
    r"\b(?:would|could|might|if|unless|asks?|asked|wants?|wanted|requests?|requested|proposes?"
    r"|proposed|suggests?|suggested)\b",
    re.IGNORECASE,
)
_TOTAL = re.compile(
    r"\b(?:total|totals|subtotal|comes to|altogether|in all|all told|grand total)\b", re.I
)
# a count right before a record's name ("2 Brightwell lamps") or after it ("x2", "qty 2")
_COUNT_AFTER = re.compile(r"^\s*(?:x|×|qty:?|quantity:?)\s*(\d+)\b", re.I)


@dataclass(frozen=True)
class Problem:
    said: str
    record: str
    why: str

    def line(self) -> str:
        return f"{self.said} about {self.record}: {self.why}"


def _sentences(text: str) -> Iterator[str]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        yield text[start : m.start()]
        start = m.end()
    yield text[start:]


def _tie(
    position: int,
    sentence: str,
    refs: list[Reference],
    previous: Reference | None,
    value: bool = True,
) -> Reference | None:
    """The record a value (or, `value` False, a status or a word) at `position` in the
    sentence is said of."""
    following = [r for r in refs if r.start >= position]
    if value and following and _GLUED.match(sentence[position : following[0].start]):
        preceding = [r for r in refs if r.end <= position]
        if not (preceding and re.fullmatch(r"[\s(:]{0,3}", sentence[preceding[-1].end : position])):
            return following[0]
    clause_start, clause_end = clause_bounds(sentence, position)
    in_clause = [r for r in refs if clause_start <= r.start < clause_end]
    before = [r for r in in_clause if r.start < position]
    # "the Farm ($39.99), a plush fox ($19.99)": a noun of its own between the record and
    # the value, or a determiner right before it ("the $24,000 offer"), takes the value
    if before and not _OWN_SUBJECT.search(sentence[before[-1].end : position]):
        return before[-1]
    if before or re.search(r"\b(?:the|a|an|your|that|this)\s+$", sentence[:position], re.I):
        return None
    after = [r for r in in_clause if r.start >= position]
    if after and _FOR_RECORD.match(sentence[position : after[0].start]):
        return after[0]  # "$10 for the lamp"
    earlier = [r for r in refs if r.start < position]
    # a clause with a subject of its own ("the store caps a cart at $2,000") speaks of that
    if earlier and not _OWN_SUBJECT.search(sentence[earlier[-1].end : position]):
        return earlier[-1]
    # "O-5003 is delayed a little; it should arrive on Nov 28": a clause whose subject is "it"
    # speaks of the record named last before it
    if _PRONOUN_START.match(sentence[clause_start:]) and not _PLURAL_IT.match(
        sentence[clause_start:]
    ):
        if earlier:
            return earlier[-1]
        if previous is not None:
            return previous
    if previous is not None and _PRONOUN_START.match(sentence):
        return previous
    # "Note that it isn't dimmable": a pronoun in a sentence that names no record of its own
    if previous is not None and not refs and _PRONOUN.search(sentence[:position]):
        return previous
    return None


def _amounts(record: Record) -> list[float]:
    return [v for _, v in record.numbers()]


def _price_history(record: Record) -> tuple[float | None, float | None]:
    """(the price seen earlier, the price now) when the record's price moved in the run."""
    seen = [v for _, v in record.fields("price_seen") if isinstance(v, int | float)]
    now = [v for _, v in record.fields("price") if isinstance(v, int | float)]
    if seen and now and abs(float(seen[0]) - float(now[-1])) > 0.005:
        return float(seen[0]), float(now[-1])
    return None, None


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 0.01 + 1e-9


def _check_money(
    mention: Mention, clause: str, lead: str, record: Record, records: Records
) -> str | None:
    rest = clause[len(lead) + len(mention.text) :]
    # "from $34.50 to $28.00": the price it moves from is the record's, no bound
    moves = re.search(r"\bfrom\W*$", lead) and re.match(r"\s*to\s+(?:\$|us\$)?\d", rest, re.I)
    if mention.negated or mention.in_range or (_BOUND_BEFORE.search(lead) and not moves):
        return None
    if _BOUND_AFTER.match(rest):
        return None  # "$1,100 under the buy-now": a difference, not the record's amount
    value = float(mention.value)  # type: ignore[arg-type]
    own = _amounts(record)
    if not own:
        return None
    earlier, now = _price_history(record)
    if earlier is not None and now is not None:
        return _check_moved_price(value, clause, lead, earlier, now)
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
        return None  # a total, a saving, a comparison: the judge reads those
    others = [
        r.id for r in records if r is not record and any(_near(value, a) for a in _amounts(r))
    ]
    if others:
        return f"${value:,.2f} is not its amount (it is {others[0]}'s)"
    shown = ", ".join(f"{p} ${v:,.2f}" for p, v in record.numbers() if _money_field(p))
    return f"the record shows no ${value:,.2f}" + (f" ({shown})" if shown else "")


def _money_field(path: str) -> bool:
    return bool(re.search(r"price|amount|total|cost|balance|deposit", path, re.I))


def _check_moved_price(
    value: float, clause: str, lead: str, earlier: float, now: float
) -> str | None:
    """A price that moved: "now $X" must be the price now, "was $X" the earlier one, and a
    direction word must point the way the price went."""
    if not (_near(value, earlier) or _near(value, now)):
        return (
            None
            if _ARITHMETIC.search(clause)
            else (
                f"${value:,.2f} is neither the price seen (${earlier:,.2f}) nor the price now "
                f"(${now:,.2f})"
            )
        )
    said_now = bool(_CURRENT.search(lead[-40:])) and not _EARLIER.search(lead[-12:])
    said_before = bool(_EARLIER.search(lead[-14:]))
    if said_now and _near(value, earlier) and not _near(value, now):
        return f"says the price is now ${value:,.2f}; it is ${now:,.2f} (${earlier:,.2f} was seen)"
    if said_before and _near(value, now) and not _near(value, earlier) and not said_now:
        return f"says ${value:,.2f} was the earlier price; it is the price now"
    went_up = now > earlier
    if _DOWN.search(clause) and went_up and not _UP.search(clause):
        return f"says the price went down; it went up from ${earlier:,.2f} to ${now:,.2f}"
    if _UP.search(clause) and not went_up and not _DOWN.search(clause):
        return f"says the price went up; it went down from ${earlier:,.2f} to ${now:,.2f}"
    return None


def _dates(record: Record) -> dict[str, list[date]]:
    found: dict[str, list[date]] = {}
    for path, value in record.fields():
        parsed = _as_date(value)
        if parsed is not None:
            found.setdefault(path.rsplit(".", 1)[-1], []).append(parsed)
    return found


def _as_date(value: Any) -> date | None:
    if not isinstance(value, str) or not re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _same_day(a: date, b: date) -> bool:
    return (a.month, a.day) == (b.month, b.day)


def _check_date(mention: Mention, lead: str, clause: str, record: Record) -> str | None:
    if mention.negated or mention.in_range:
        return None
    said = mention.value
    assert isinstance(said, date)
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
            return f"gives {said:%b %d} as the arrival; the carrier moved it to {new}"
        return None
    if _ARRIVAL.search(clause) and any(f in dates for f in _DATE_FIELDS):
        known = ", ".join(f"{f} {d.isoformat()}" for f in _DATE_FIELDS for d in dates.get(f, []))
        return f"gives {said:%b %d} as a date of the delivery; the record has {known}"
    return None


# a cue in the clause says which of a record's dates is meant, by the words of the field's name
_DATE_ROLES: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\b(?:until|through|thru|ends?|ending|expir\w*|runs? (?:to|till|until))\b", re.I),
     ("end", "expir", "until")),
    (re.compile(r"\b(?:delivered|arrived|got there|came)\b", re.I), ("deliver",)),
    (re.compile(r"\b(?:placed|ordered|bought|purchased)\b", re.I), ("placed", "order", "purchas")),
)  # fmt: skip


def _check_date_role(mention: Mention, clause: str, record: Record, records: Records) -> str | None:
    """A date said in a role ("running until", "delivered on") must be a date of that role
    where the record, or a record it is linked to, has one: an order's placed date given as its
    delivery, a promotion's end given as another day."""
    if mention.negated or mention.in_range or not isinstance(mention.value, date):
        return None
    said = mention.value
    before = clause[: max(0, clause.find(mention.text))] if mention.text in clause else clause
    cues = [(m.start(), cue, words) for cue, words in _DATE_ROLES for m in cue.finditer(before)]
    # the cue nearest before the date says its role ("returnable until Sep 19 since it was
    # delivered Aug 20": Sep 19 is an end, Aug 20 a delivery)
    for _, cue, words in sorted(cues, key=lambda c: c[0])[-1:]:
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
            return f"gives {said:%b %d} as its {cue.search(clause).group(0)} date; the record has {known}"  # type: ignore[union-attr]
    return None


def _check_status(phrase: StatusPhrase, record: Record) -> str | None:
    truth = holds(phrase, record.values)
    if truth is False:
        said = ("not " if phrase.negated else "") + phrase.status.name.replace("_", " ")
        shown = _status_evidence(record)
        return f"says {said}, which no value the run saw bears out ({shown})"
    return None


def _status_evidence(record: Record) -> str:
    parts = []
    for key in ("status", "stock", "delivery_date", "updated_delivery_date", "approved_by"):
        if key in record.values:
            parts.append(f"{key} {', '.join(str(v) for v in record.values[key])}")
    return "; ".join(parts) or "no status field"


def _check_total(mention: Mention, clause: str, lead: str, records: Records) -> str | None:
    """An amount said as a total must be a total the tools gave or the cart's lines add up to."""
    if mention.negated or mention.in_range or not _TOTAL.search(clause):
        return None
    if _BOUND_BEFORE.search(lead) or not records.totals:
        return None
    value = float(mention.value)  # type: ignore[arg-type]
    if any(_near(value, t) for t in records.possible_totals()):
        return None
    shown = ", ".join(f"${t:,.2f}" for t in sorted(set(records.totals)))
    return f"gives ${value:,.2f} as a total; the tools gave {shown}"


def _check_flags(
    sentence: str,
    refs: list[Reference],
    previous: Reference | None,
    records: Records,
    all_refs: list[Reference] | None = None,
) -> list[tuple[Reference, str]]:
    """A yes/no attribute of a record said the other way round: a word of a true-or-false field's
    name ("dimmable", "induction", "packable") in the record's clause, negated or not."""
    found: list[tuple[Reference, str]] = []
    all_refs = refs if all_refs is None else all_refs
    for ref in refs or ([previous] if previous else []):
        record = records.get(ref.record_id)
        if record is None:
            continue
        for word, path, value in records.derived(record, Record.flag_words):
            for m in _flag_matches(word, sentence):
                # a flag word before a name modifies it ("the vegan mesh Trailblaze 4")
                modified = _FLAG_BEFORE_NAME.match(sentence[m.end() :])
                following = [r for r in all_refs if r.start >= m.end()]
                if (
                    modified
                    and following
                    and following[0].start - m.end() <= len(modified.group(0))
                ):
                    if following[0] != ref:
                        continue
                elif _tie(m.start(), sentence, refs, previous, value=False) != ref:
                    continue
                clause_start, clause_end = clause_bounds(sentence, m.start())
                if _HYPOTHETICAL.search(sentence[clause_start:clause_end]):
                    continue
                if any(p.start <= m.start() < p.end for p in phrases(sentence)):
                    continue  # "0 in stock" is a status, read as one
                said = not negated_at(sentence, m.start())
                if said not in value:
                    state = "is" if True in value else "is not"
                    found.append(
                        (
                            ref,
                            f"says it {'is' if said else 'is not'} {word}; its "
                            f"{path} {state} ({value})",
                        )
                    )
    return found


def _flag_matches(word: str, sentence: str) -> Iterator[re.Match[str]]:
    """Where a sentence says a flag's word (`_flag_pattern`)."""
    pattern, stem = _flag_regex(word)
    # every form of the word begins with its stem, so a sentence without it has none of them:
    # tested only where both are ASCII, whose letters alone match a letter of another case
    # (a dotless ı in a field's name matches "i" and "I")
    if stem.isascii() and sentence.isascii() and stem not in sentence.casefold():
        return iter(())
    return pattern.finditer(sentence)


@lru_cache(maxsize=1024)
def _flag_regex(word: str) -> tuple[re.Pattern[str], str]:
    """`_flag_pattern` compiled, and the folded stem each of its forms begins with."""
    return re.compile(_flag_pattern(word), re.IGNORECASE), _flag_stem(word).casefold()


def _flag_stem(word: str) -> str:
    return re.sub(r"(?:able|ible)$", "", word)


def _flag_pattern(word: str) -> str:
    """A flag's word and its verb ("packable": packs, packed, packing; "dimmable": dims)."""
    forms = [rf"{re.escape(word)}\w*"]
    stem = _flag_stem(word)
    if stem != word and len(stem) >= 4:
        forms.append(rf"{re.escape(stem)}(?:s|es|ing)\b(?!\s+with\b)")
    return rf"(?<![\w-])(?:{'|'.join(forms)})"


# a plural subject that names no record: "they", "all three", "none of them", "both"
_PLURAL = re.compile(
    r"^\W*(?:they|these|those|both|all|each|every|neither|none|the \d+|these \d+|all \d+)\b"
    r"|\b(?:none|all|both|each|neither) of (?:them|these|those)\b|,\s*(?:all|both)\b"
    r"|,\s*2 (?:are|were|now|still|already|approved|ready|waiting|pending|staged|applied)\b"
    r"|\b(?:all|these|those) \d+\b|^\W*\d+ (?:are|come|have|run|fit|use|work|need|take|suit|hold"
    r"|include|support|cost|weigh|last|feature|do|don't|aren't|can|will)\b",
    re.IGNORECASE,
)
_SIZE = re.compile(
    r"\bsizes?\s+(?:from\s+|between\s+)?(?:us\s+|eu\s+|uk\s+)?(\d+(?:\.\d+)?)"
    r"(?:\s*(?:-|–|to|through|and)\s*(\d+(?:\.\d+)?))?",
    re.IGNORECASE,
)


# letter sizes and their words: "size M", "in a medium", "an XL", "comes in S and M"
_LETTERS = {"xs": "XS", "s": "S", "m": "M", "l": "L", "xl": "XL", "xxl": "XXL", "2xl": "XXL",
            "extra small": "XS", "x-small": "XS", "small": "S", "medium": "M", "large": "L",
            "extra large": "XL", "x-large": "XL", "xx-large": "XXL"}  # fmt: skip
_LETTER_WORD = r"extra[- ]small|x-small|extra[- ]large|xx-large|x-large|small|medium|large"
_LETTER_CODE = r"XXL|2XL|XL|XS|S|M|L"
_LETTER_SIZE = re.compile(
    # after "size(s)": a word or a code, and what follows it in a list ("sizes S and M")
    rf"\bsizes?\s+(?P<a>(?:{_LETTER_WORD})\b|(?:{_LETTER_CODE})(?![\w-]))"
    rf"(?:\s*(?:,|or|and|to|-|/)\s*(?P<b>(?:{_LETTER_WORD})\b|(?:{_LETTER_CODE})(?![\w-])))?"
    # "in your usual medium", "in an L", "comes in S and M": the size ends its phrase
    rf"|\bin\s+(?:a\s+|an\s+|the\s+|your\s+)?(?:usual\s+|normal\s+|regular\s+|own\s+)?"
    rf"(?P<c>(?:{_LETTER_WORD})|(?-i:{_LETTER_CODE}))(?=\s*(?:[.,;:!?)]|$|\s(?:or|and|to|for|with|so|as|if|instead|too)\b))"
    rf"(?:\s*(?:,|or|and|to|-|/)\s*(?P<d>(?:{_LETTER_WORD})|(?-i:{_LETTER_CODE}))(?![\w-]))?",
    re.IGNORECASE,
)


def _letter(word: str) -> str:
    return _LETTERS.get(
        re.sub(r"\s+", " ", word.casefold().replace("-", " "))
        .replace("x small", "x-small")
        .replace("x large", "x-large"),
        word.upper(),
    )


def _record_sizes(record: Record) -> tuple[set[float], set[str]]:
    """The sizes a record comes in: numbers, and letters (S, M, L, XL)."""
    numbers: set[float] = set()
    letters: set[str] = set()
    for _, value in record.fields("sizes"):
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, int | float) and not isinstance(v, bool):
                numbers.add(float(v))
            elif isinstance(v, str) and v.strip():
                letters.add(_letter(v.strip()))
    return numbers, letters


def _check_sizes(
    sentence: str, record: Record, refs: list[Reference] | None = None, ref: Reference | None = None
) -> str | None:
    """A size said of a record must be one it comes in: "comes in a size 6", "sizes 6 to 13",
    "in your usual medium", "an XL". With `refs`, only a size the sentence ties to `ref` is
    read."""
    sizes, letters = _record_sizes(record)
    if not sizes and not letters:
        return None
    found: list[tuple[int, list[str], str]] = []
    if sizes:
        for m in _SIZE.finditer(sentence):
            numbers = [float(g) for g in m.groups() if g]
            missing = [f"{v:g}" for v in numbers if v not in sizes]
            shown = (
                f"{min(sizes):g} to {max(sizes):g} ({', '.join(f'{v:g}' for v in sorted(sizes))})"
            )
            found.append((m.start(), missing, shown))
    if letters:
        for m in _LETTER_SIZE.finditer(sentence):
            named = [_letter(g) for g in m.groups() if g]
            missing = [v for v in named if v not in letters]
            order = list(dict.fromkeys(_LETTERS.values()))
            shown = ", ".join(sorted(letters, key=lambda v: order.index(v) if v in order else 99))
            found.append((m.start(), missing, shown))
    for start_at, missing, shown in found:
        if refs is not None and _tie(start_at, sentence, refs, None, value=False) != ref:
            continue
        start, end = clause_bounds(sentence, start_at)
        clause = sentence[start:end]
        if _HYPOTHETICAL.search(clause) or NEGATION.search(clause):
            continue
        if missing:
            return f"says size {', '.join(missing)}; it comes in {shown}"
    return None


# a short text field that names what a record is (material, colour, brand, terrain), read as
# words; long texts (descriptions, reviews), ids, names, dates and statuses are not
_NOT_CATEGORY = re.compile(
    r"(?:^|_)(?:id|ids|name|title|description|text|notes?|summary|reason|message|author|status"
    r"|url|link|niche|sku|date|on|at|email|phone|street|city|zip|state|key)$|Id$|Url$|Date$",
    re.IGNORECASE,
)
_CATEGORY_STOP = frozenset(
    {"with", "from", "that", "this", "into", "over", "under", "only", "made"}
)
# a clause that sets one thing against another says nothing of the record it names first
_CONTRAST = re.compile(
    r"\b(?:unlike|than|versus|vs|compared|instead|rather|whereas|while|other|otherwise"
    r"|alternative|twin|version)\b",
    re.IGNORECASE,
)


def _category_words(record: Record) -> dict[str, set[str]]:
    """Per short text field of the record, the words of every value it had."""
    found: dict[str, set[str]] = {}
    for path, seen in record.values.items():
        leaf = _category_leaf(path)
        if leaf is None:
            continue
        for value in seen:
            for part in value if isinstance(value, tuple) else (value,):
                words = _category_value_words(part) if isinstance(part, str) else None
                if words is not None:
                    found.setdefault(leaf, set()).update(words)
    return found


@lru_cache(maxsize=4096)
def _category_leaf(path: str) -> str | None:
    """The field a value's dotted path ends in, when that field may hold a category."""
    leaf = path.rsplit(".", 1)[-1]
    return None if _NOT_CATEGORY.search(leaf) else leaf


_DATE_PART = re.compile(r"\d{4}-\d\d")
_CATEGORY_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")


@lru_cache(maxsize=16384)
def _category_value_words(part: str) -> frozenset[str] | None:
    """The words a short text value gives its field (none may be long enough); None for a value
    that is no category (empty, long prose, a date). Cached: a catalogue's values recur."""
    if not 0 < len(part) <= 40 or _DATE_PART.search(part):
        return None
    return frozenset(
        w.casefold()
        for w in _CATEGORY_WORD.findall(part)
        if len(w) >= 4 and w.casefold() not in _CATEGORY_STOP
    )


# what a clause predicates of the record that opens it: "the Trailblaze 4 is leather", "the
# Harbor comes in navy"
_PREDICATE = re.compile(
    r"^\s*(?:'s\b|is\b|are\b|was\b|has\b|have\b|comes?\b|uses?\b|features?\b|is made\b"
    r"|isn't\b|aren't\b|wasn't\b|doesn't\b|hasn't\b|does not\b|is not\b"
    r"|made\b|\(|:|,?\s+(?:a|an|the)\b)",
    re.IGNORECASE,
)


def _said_of(sentence: str, ref: Reference, refs: list[Reference]) -> str:
    """The predicate a clause gives the record it opens with, up to the next record or the
    clause's end ("" when the record is not the clause's subject)."""
    after = ref.end
    # "the Trailblaze 4 (P-1001, $119.99) is leather": the predicate follows the parenthesis
    aside = re.match(r"[^()]*\)", sentence[ref.end :])
    if aside and "(" in sentence[max(0, ref.start - 40) : ref.start]:
        after = ref.end + aside.end()
    _, end = clause_bounds(sentence, after)
    following = [r.start for r in refs if r.start >= after]
    end = min([end, *following])
    rest = sentence[after:end]
    return rest if _PREDICATE.match(rest) else ""


def _check_categories(clause: str, record: Record, records: Records) -> list[str]:
    """A word of another record's material, colour or brand said of this record, where its own
    field holds another value ("both are leather" of a synthetic mesh shoe); or a word of its own
    field denied ("the leather one isn't leather")."""
    if _CONTRAST.search(clause) or _HYPOTHETICAL.search(clause):
        return []
    own = records.derived(record, _category_words)
    if not own:
        return []
    # a name in the clause is no attribute: "the Trailblaze 4 Leather" names, it does not say
    masked = clause
    for ref in records.references(clause):
        masked = masked[: ref.start] + " " * (ref.end - ref.start) + masked[ref.end :]
    said_words = [
        (m.group(0).casefold(), m.start())
        for m in _CATEGORY_WORD.finditer(masked)
        if len(m.group(0)) >= 4
    ]
    if not said_words:
        return []
    owners = records.across(_category_owners)

    def of_another(leaf: str, word: str) -> bool:
        holders = owners.get(leaf, {}).get(word, ())
        return len(holders) > 1 or (len(holders) == 1 and record.id not in holders)

    name_words = {w.casefold() for n in record.names for w in re.findall(r"[A-Za-z][\w'-]+", n)}
    whys: list[str] = []
    for leaf, words in own.items():
        for word, start in said_words:
            said = not negated_at(masked, start)
            if said and of_another(leaf, word) and word not in words | name_words:
                whys.append(f"says it is {word}; its {leaf} is {_shown_value(record, leaf)}")
            elif not said and word in words and not of_another(leaf, word):
                whys.append(f"says it is not {word}; its {leaf} is {_shown_value(record, leaf)}")
    return whys


def _category_owners(records: Records) -> dict[str, dict[str, set[str]]]:
    """Per short text field, each word of its values -> the records whose field holds it."""
    owners: dict[str, dict[str, set[str]]] = {}
    for record in records:
        for leaf, words in records.derived(record, _category_words).items():
            by_word = owners.setdefault(leaf, {})
            for word in words:
                by_word.setdefault(word, set()).add(record.id)
    return owners


def _shown_value(record: Record, leaf: str) -> str:
    values = [v for path, v in record.fields(leaf)]
    return ", ".join(repr(v) for v in values) or "unknown"


def _group_facts(sentence: str, record: Record, records: Records | None = None) -> list[str]:
    """What a sentence about a group says wrongly of one of its records: a yes/no attribute
    said the other way ("none of them need batteries") or a size it does not come in."""
    whys: list[str] = []
    flags = record.flag_words() if records is None else records.derived(record, Record.flag_words)
    for word, path, value in flags:
        for m in _flag_matches(word, sentence):
            start, end = clause_bounds(sentence, m.start())
            if _HYPOTHETICAL.search(sentence[start:end]):
                continue
            said = not NEGATION.search(sentence[start : m.start()])
            if said not in value:
                whys.append(f"says they are{'' if said else ' not'} {word}; its {path} is {value}")
    size = _check_sizes(sentence, record)
    if size:
        whys.append(size)
    if records is not None:
        whys.extend(_check_categories(sentence, record, records))
    return whys


def _names_or_verb_before(text: str) -> bool:
    """Whether the word before a count makes it no cart quantity: a capitalised word (the count
    is part of a name, "Studio 40 Wireless") or a past verb ("dropped 1", "added 2")."""
    from commerce_evals.grading.claims import past_lemma

    words = re.findall(r"[A-Za-z][\w'-]*", text[-30:])
    if not words or not text[-30:].rstrip().endswith(words[-1]):
        return False
    last = words[-1]
    return last[0].isupper() and len(text.strip()) > len(last) or past_lemma(last) is not None


def _check_quantities(
    sentence: str, refs: list[Reference], records: Records
) -> list[tuple[Reference, str]]:
    found: list[tuple[Reference, str]] = []
    for ref in refs:
        record = records.get(ref.record_id)
        if record is None:
            continue
        quantities = [v for _, v in record.fields("quantity") if isinstance(v, int | float)]
        if not quantities:
            continue
        before = re.search(r"(?<![\w$.,])(\d+)\s*(?:x|×)?\s*(?:the\s+)?$", sentence[: ref.start])
        clause_start, clause_end = clause_bounds(sentence, ref.start)
        if _HYPOTHETICAL.search(sentence[clause_start:clause_end]):
            continue
        if before and _names_or_verb_before(sentence[: before.start()]):
            before = None
        after = _COUNT_AFTER.match(sentence[ref.end :])
        said = before or after
        if said is None:
            continue
        count = float(said.group(1))
        if not any(_near(count, q) for q in quantities):
            found.append(
                (
                    ref,
                    f"says {int(count)} of it; the cart held {', '.join(str(q) for q in quantities)}",
                )
            )
    return found


# who a reply says reported something: the reviews, or the listing's own text
_REVIEWERS = re.compile(
    r"\b(?:(?:one|a|two|some|several|most|many|the|other|both|all)\s+)?(?:reviewers?|reviews?"
    r"|customers?|buyers?|owners?|users?|shoppers?|people)\s+(?:\w+\s+){0,2}?(?:say|says|said"
    r"|report\w*|mention\w*|note[sd]?|find|found|agree[sd]?|describe[sd]?|call|praise[sd]?"
    r"|complain\w*|rave|write|wrote|comment\w*|feel|felt|think|thought|claim\w*)\b"
    r"|\baccording to (?:the |its |one |a |some )?(?:reviews?|reviewers?|customers|buyers)\b",
    re.IGNORECASE,
)
_LISTING = re.compile(
    r"\b(?:the |its )?(?:listing|description|product page)\s+(?:says|said|states|notes|mentions"
    r"|claims|describes)\b|\baccording to (?:the |its )?(?:listing|description)\b",
    re.IGNORECASE,
)
_FUNCTION_WORDS = frozenset(
    [
        "this",
        "that",
        "with",
        "have",
        "been",
        "they",
        "them",
        "their",
        "there",
        "here",
        "what",
        "when",
        "where",
        "which",
        "while",
        "would",
        "could",
        "should",
        "about",
        "after",
        "before",
        "other",
        "into",
        "from",
        "than",
        "then",
        "also",
        "just",
        "very",
        "really",
        "quite",
        "even",
        "still",
        "some",
        "more",
        "most",
        "much",
        "many",
        "such",
        "only",
        "over",
        "under",
        "bit",
        "little",
        "though",
        "although",
        "because",
        "since",
        "your",
        "yours",
        "ours",
        "it's",
        "its",
        "it'd",
        "isn't",
        "doesn't",
        "don't",
        "didn't",
        "wasn't",
        "won't",
        "can't",
        "says",
        "said",
        "reviewer",
        "reviewers",
        "review",
        "reviews",
        "customer",
        "customers",
        "buyer",
        "buyers",
        "owner",
        "owners",
        "user",
        "users",
        "people",
        "listing",
        "description",
        "mention",
        "mentions",
        "mentioned",
        "report",
        "reports",
        "reported",
        "note",
        "notes",
        "noted",
        "find",
        "found",
        "thing",
        "things",
        "make",
        "makes",
        "made",
    ]
)


@cache
def _lemma(word: str) -> str:
    from lemminflect import getAllLemmas

    lowered = word.casefold()
    lemmas = getAllLemmas(lowered)
    for pos in ("VERB", "NOUN", "ADJ"):
        if lemmas.get(pos):
            return str(lemmas[pos][0])
    return lowered


# words that judge rather than describe ("great", "well"): said of what, only the clause tells
_EVALUATIVE = frozenset(
    [
        "good",
        "great",
        "nice",
        "well",
        "bad",
        "fine",
        "easy",
        "hard",
        "solid",
        "perfect",
        "excellent",
        "poor",
        "decent",
        "terrible",
        "awful",
        "love",
        "like",
        "hate",
    ]
)


def _clause_lemmas(text: str, position: int) -> frozenset[str]:
    start, end = clause_bounds(text, position)
    return frozenset(
        _lemma(w.casefold())
        for w in re.findall(r"[A-Za-z][a-z'-]{3,}", text[start:end])
        if w.casefold() not in _FUNCTION_WORDS and w.casefold() not in _EVALUATIVE
    )


def _denied_here(text: str, position: int) -> bool:
    """A negation governs the word itself: "doesn't sear", "wasn't great", "no drips", not the
    words further on ("isn't bad with a soak" says nothing against the soak)."""
    start, _ = clause_bounds(text, position)
    words = re.sub(
        r"\b(?:really|very|so|quite|too|that|always|ever|at all)\b", " ", text[start:position]
    )
    return bool(NEGATION.search(" ".join(words.split()[-2:])))


@lru_cache(maxsize=2048)
def _polarities(texts: tuple[str, ...]) -> dict[str, list[tuple[bool, frozenset[str]]]]:
    """Each content word's lemma in the texts: whether it is said or denied there, and the other
    words of its clause. Cached: a record's reviews recur from run to run, and every sentence
    that reports them asks again. The value is shared: read it only."""
    found: dict[str, list[tuple[bool, frozenset[str]]]] = {}
    for text in texts:
        norm = normalise(text)
        for m in re.finditer(r"[A-Za-z][a-z'-]{3,}", norm):
            word = m.group(0).casefold()
            if word in _FUNCTION_WORDS:
                continue
            said = not _denied_here(norm, m.start())
            found.setdefault(_lemma(word), []).append((said, _clause_lemmas(norm, m.start())))
    return found


def _check_reported(sentence: str, record: Record, unsaid: list[str] | None = None) -> list[str]:
    """What a reply says the reviews (or the listing) report must not deny what they say, nor
    say what they deny: "reviewers say it doesn't sear well" where a review says it "sears
    beautifully". Only a word the texts use one way only is read; a word they never use may be
    a paraphrase or an invention, which the judge tells apart (`unsaid`)."""
    whys: list[str] = []
    for pattern, where in ((_REVIEWERS, "reviews"), (_LISTING, "description")):
        texts = record.texts.get(where, [])
        marks = list(pattern.finditer(sentence)) if texts else []
        if not marks:
            continue
        source = _polarities(tuple(texts))
        for i, m in enumerate(marks):
            if negated_at(sentence, m.end()) or _HYPOTHETICAL.search(sentence[: m.start()][-20:]):
                continue  # "no reviewer says", "if reviewers said"
            end = marks[i + 1].start() if i + 1 < len(marks) else len(sentence)
            for w in re.finditer(r"[A-Za-z][a-z'-]{3,}", sentence[m.end() : end]):
                word = w.group(0).casefold()
                if word in _FUNCTION_WORDS:
                    continue
                at = m.end() + w.start()
                said = not _denied_here(sentence, at)
                entries = source.get(_lemma(word))
                if entries is not None and word in _EVALUATIVE:
                    # "great" of the seasoning is not "great" of the grip: the clause must share
                    # a word with the review's
                    near = _clause_lemmas(sentence, at)
                    entries = [(way, words) for way, words in entries if words & near]
                ways = {way for way, _ in entries} if entries is not None else None
                if ways is None and unsaid is not None and word not in _name_words(record):
                    unsaid.append(
                        f"{word!r} in {clipped(sentence.strip())!r}: no text of the {where} of "
                        f"{record.id} uses it"
                    )
                if ways and said not in ways:
                    quoted = "; ".join(repr(t) for t in texts)[:300]
                    whys.append(
                        f"says the {where} {'report' if said else 'deny'} {word!r}; they "
                        f"{'deny' if said else 'say'} it ({quoted})"
                    )
    return whys


def _name_words(record: Record) -> set[str]:
    return {w.casefold() for n in record.names for w in re.findall(r"[A-Za-z][\w'-]*", n)}


# a comparative, the way it points, and the words of the fields it compares
_COMPARATIVES: tuple[tuple[re.Pattern[str], int, tuple[str, ...]], ...] = (
    (re.compile(r"\b(?:pricier|priciest|more expensive|most expensive|dearer|costlier|costs? more"
                r"|higher[- ]priced)\b", re.I), 1, ("price",)),
    (re.compile(r"\b(?:cheaper|cheapest|less expensive|least expensive|costs? less|more affordable"
                r"|lower[- ]priced)\b", re.I), -1, ("price",)),
    (re.compile(r"\b(?:heavier|heaviest|weighs more)\b", re.I), 1, ("weight",)),
    (re.compile(r"\b(?:lighter|lightest|weighs less)\b", re.I), -1, ("weight",)),
    (re.compile(r"\b(?:better[- ]rated|higher[- ]rated|rated higher|best[- ]rated)\b", re.I), 1,
     ("rating",)),
    (re.compile(r"\b(?:lower[- ]rated|rated lower|worse[- ]rated|worst[- ]rated)\b", re.I), -1,
     ("rating",)),
    (re.compile(r"\b(?:holds more|bigger capacity|larger capacity)\b", re.I), 1,
     ("capacity", "volume")),
    (re.compile(r"\b(?:holds less|smaller capacity)\b", re.I), -1, ("capacity", "volume")),
)  # fmt: skip


# any of them: one scan tells the many sentences that compare nothing from the few that do
_ANY_COMPARATIVE = re.compile("|".join(p.pattern for p, _, _ in _COMPARATIVES), re.I)
assert all(p.flags & re.I for p, _, _ in _COMPARATIVES), "the joined pattern ignores case"

_SUPERLATIVE = re.compile(r"est\b|\b(?:most|least|best|worst)\b", re.I)


def _measure_of(record: Record, words: tuple[str, ...]) -> float | None:
    """The record's latest number in a field whose name holds one of `words` (its price now)."""
    for path in reversed(list(record.values)):
        leaf = path.rsplit(".", 1)[-1].casefold()
        if any(w in leaf for w in words) and not leaf.endswith("seen"):
            value = record.latest(path)
            if isinstance(value, int | float) and not isinstance(value, bool):
                return float(value)
    return None


def _check_comparatives(
    sentence: str,
    refs: list[Reference],
    previous: Reference | None,
    records: Records,
    pair: list[str],
    unchecked: list[str] | None = None,
) -> list[tuple[Reference, str]]:
    """ "A is cheaper than B", "A is the pricier of the two": A's own field must point that way
    against B's. B is the record after "than", else the other of the two records the reply is
    about. A comparison along a field neither record has is left to the judge (`unchecked`)."""
    found: list[tuple[Reference, str]] = []
    if not _ANY_COMPARATIVE.search(sentence):
        return found
    for pattern, way, words in _COMPARATIVES:
        for m in pattern.finditer(sentence):
            start, end = clause_bounds(sentence, m.start())
            clause = sentence[start:end]
            if _HYPOTHETICAL.search(clause) or negated_at(sentence, m.start()):
                continue
            before = [r for r in refs if r.end <= m.start() and r.record_id]
            subject = before[-1] if before else previous if _PRONOUN_START.match(sentence) else None
            than = re.match(r"\s*(?:one\s+)?than\b", sentence[m.end() :])
            after = [r for r in refs if r.start >= m.end() and r.record_id]
            if subject is None:
                if unchecked is not None and (than or _SUPERLATIVE.search(m.group(0))):
                    unchecked.append(
                        f"{m.group(0)!r} in {clipped(sentence.strip())!r}: said of no record code "
                        "could name"
                    )
                continue
            other: str | None = None
            rest = [i for i in dict.fromkeys(pair) if i != subject.record_id]
            if _SUPERLATIVE.search(m.group(0)) and len(rest) >= 1:
                # "the cheapest of them": below every other record the reply is about
                a = records.get(subject.record_id)
                va = _measure_of(a, words) if a else None
                beaten = [
                    (i, v)
                    for i in rest
                    if (o := records.get(i)) is not None
                    and (v := _measure_of(o, words)) is not None
                    and va is not None
                    and (va - v) * way < 0
                ]
                if beaten:
                    i, v = beaten[0]
                    found.append(
                        (
                            subject,
                            f"says it is the {m.group(0)}; its {words[0]} is {va:g}, {i}'s is {v:g}",
                        )
                    )
                continue
            if than and after:
                other = after[0].record_id
            elif not than:
                other = rest[0] if len(rest) == 1 else None
            a, b = records.get(subject.record_id), records.get(other) if other else None
            if a is None or b is None:
                continue
            va, vb = _measure_of(a, words), _measure_of(b, words)
            if va is None or vb is None:
                if unchecked is not None:
                    unchecked.append(
                        f"{m.group(0)!r} in {clipped(sentence.strip())!r}: no {'/'.join(words)} field of {a.id} and {b.id}"
                    )
                continue
            if (va - vb) * way <= 0:
                found.append(
                    (
                        subject,
                        f"says it is {m.group(0)} than {b.id}; its {words[0]} is {va:g}, "
                        f"{b.id}'s is {vb:g}",
                    )
                )
    return found


def problems_in(
    text: str,
    records: Records,
    written: frozenset[str] = frozenset(),
    presented: tuple[str, ...] = (),
    read: tuple[str, ...] = (),
    untied: list[str] | None = None,
) -> list[Problem]:
    """What `text` states about the run's records that the records do not bear out. `presented`:
    the records the turn showed the person (what "they" and "all three" speak of when the reply
    names none). Japanese has its own reader of what ties a value to a record (grading/ja)."""
    if is_japanese(text):
        return [
            Problem(*found) for found in ja_records.problems_in(text, records, written, presented)
        ]
    norm = normalise(text)
    found: list[Problem] = []
    previous: Reference | None = None
    earlier: list[str] = []  # the records the sentence before named
    named_so_far: list[str] = []  # every record the text named up to here
    lead_in = ""  # the line a list hangs from ("Zephyr Trade Hub wants:")
    for sentence in _sentences(norm):
        if not sentence.strip():
            continue
        bullet = bool(_BULLET.match(sentence))
        if not bullet:
            lead_in = sentence if sentence.rstrip().endswith(":") else ""
        # the items of a list under "they want:", "it would be:" are what would be, not what is
        wanted_list = bullet and bool(_HYPOTHETICAL.search(lead_in))
        refs = records.references(sentence)
        for plural in _PLURAL.finditer(sentence) if not sentence.rstrip().endswith("?") else []:
            start, end = clause_bounds(sentence, plural.end() - 1)
            colon = sentence.find(":", plural.end(), end)
            end = colon if colon >= 0 else end  # "all 3 come in 6 to 13: the A, the B and the C"
            if any(start <= r.start < end for r in refs):
                continue  # "both Trailblaze shoes are vegan": the names say which
            named = [r.record_id for r in refs if r.record_id]
            group = next((g for g in (named, earlier) if len(set(g)) >= 2), list(presented))
            for record_id in dict.fromkeys(group):
                record = records.get(record_id)
                if record is not None and record_id not in written:
                    name = next(iter(sorted(record.names)), record.id)
                    found.extend(
                        Problem(clipped(sentence.strip()), name, why)
                        for why in _group_facts(sentence[start:end], record, records)
                    )
                    # "CH-103 and CH-104, both approved": a status said of the group
                    for phrase in phrases(sentence[start:end]):
                        why = _check_status(phrase, record)
                        if why and not _NOT_YET.search(sentence[start : start + phrase.start]):
                            found.append(Problem(clipped(sentence.strip()), name, why))
        earlier = [r.record_id for r in refs if r.record_id] or earlier
        named_so_far.extend(r.record_id for r in refs if r.record_id)
        about_pair = list(dict.fromkeys([*named_so_far, *presented]))
        question = sentence.rstrip().endswith("?")
        for mention in mentions(sentence) if not question else []:
            ref = _tie(mention.start, sentence, refs, previous)
            if (
                ref is None
                and untied is not None
                and not mention.negated
                and (mention.kind != "count" or _measured(sentence, mention.end))
            ):
                untied.append(f"{mention.text!r} in {clipped(sentence.strip())!r}")
            if ref is None and mention.kind == "money":
                start, end = clause_bounds(sentence, mention.start)
                clause = sentence[start:end]
                why = (
                    None
                    if _HYPOTHETICAL.search(clause)
                    else _check_total(mention, clause, sentence[start : mention.start], records)
                )
                if why:
                    found.append(Problem(clipped(sentence.strip()), "the cart", why))
                continue
            if ref is None and mention.kind == "date":
                # a date in a role ("running until Jan 31") said of the sentence's record
                start, end = clause_bounds(sentence, mention.start)
                tied = [
                    record
                    for r in refs
                    if r.start < mention.start and (record := records.get(r.record_id))
                ]
                whys = [_check_date_role(mention, sentence[start:end], r, records) for r in tied]
                if whys and all(whys):
                    found.append(Problem(clipped(sentence.strip()), refs[0].text, str(whys[-1])))
                continue
            if ref is None:
                continue
            record = records.get(ref.record_id)
            if record is None:
                continue
            start, end = clause_bounds(sentence, mention.start)
            clause, lead = sentence[start:end], sentence[start : mention.start]
            # "it should arrive on Dec 3", "it'll get there Nov 28": an expected date is stated,
            # not supposed; "if it arrived", "it could arrive" are not
            expected = mention.kind == "date" and _ARRIVAL.search(clause)
            if (_CONDITIONAL if expected else _HYPOTHETICAL).search(clause) or wanted_list:
                continue
            if mention.kind == "money":
                why = (
                    _check_total(mention, clause, lead, records)
                    if _TOTAL.search(clause)
                    else (_check_money(mention, clause, lead, record, records))
                )
            elif mention.kind == "date":
                why = _check_date(mention, lead, clause, record) or _check_date_role(
                    mention, clause, record, records
                )
            else:
                why = None
            if why:
                found.append(Problem(clipped(sentence.strip()), ref.text, why))
        if question:
            if refs:
                previous = refs[-1]
            continue
        about = refs[0] if refs else previous
        reported = records.get(about.record_id) if about else None
        if reported is None and len(read) == 1:
            reported = records.get(read[0])  # the one record the turn read, named or not
        if reported is not None:
            found.extend(
                Problem(
                    clipped(sentence.strip()), next(iter(sorted(reported.names)), reported.id), why
                )
                for why in _check_reported(sentence, reported, untied)
            )
        for ref, why in [
            # a record the run wrote to may have changed a flag no tool showed again
            *_check_flags(
                sentence,
                [r for r in refs if r.record_id not in written],
                previous if previous is not None and previous.record_id not in written else None,
                records,
                refs,
            ),
            *_check_quantities(sentence, refs, records),
            *(
                (ref, why)
                for ref in refs
                if (record := records.get(ref.record_id)) is not None
                and (why := _check_sizes(sentence, record, refs, ref)) is not None
            ),
            *(
                (named, why)
                for named in refs
                if (record := records.get(named.record_id)) is not None
                for why in _check_categories(_said_of(sentence, named, refs), record, records)
            ),
            *_check_comparatives(sentence, refs, previous, records, about_pair, untied),
        ]:
            found.append(Problem(clipped(sentence.strip()), ref.text, why))
        for phrase in phrases(sentence):
            ref = _tie(phrase.start, sentence, refs, previous, value=False)
            record = records.get(ref.record_id) if ref else None
            if ref is None or record is None:
                continue
            start, end = clause_bounds(sentence, phrase.start)
            if _NOT_YET.search(sentence[start : phrase.start]):
                continue  # "it goes live once a person has approved it": what will be
            why = _check_status(phrase, record)
            if why:
                found.append(Problem(clipped(sentence.strip()), ref.text, why))
        if refs:
            previous = refs[-1]
    return found


def _measured(sentence: str, end: int) -> bool:
    return bool(
        re.match(r"^\s?-?\s?(?:day|week|month|year|hour|inch|mm|cm)s?\b", sentence[end:], re.I)
    )


def untied_values(ctx: GradeContext) -> list[str]:
    """The amounts, dates, percents and spans the replies and notes state that records_agree
    tied to no record: code could not check them against one."""
    records = ctx.records
    found: list[str] = []
    for where, text in written_texts(ctx.run):
        turn = ctx.run.turns[int(where.split()[1]) - 1]
        untied: list[str] = []
        problems_in(
            text, records, presented=_presented(turn), read=_read(turn, records), untied=untied
        )
        found.extend(f"{where}: {u}" for u in untied)
    return list(dict.fromkeys(found))


def written_texts(run: Any) -> list[tuple[str, str]]:
    """(where, text) for every reply and every free text the run wrote that a person reads."""
    texts = [(f"turn {i + 1} reply", t.reply()) for i, t in enumerate(run.turns) if t.reply()]
    for turn_index, turn in enumerate(run.turns):
        for call in turn.calls():
            for key in ("note", "summary", "title", "notes", "message", "reason"):
                value = call.args.get(key)
                if isinstance(value, str) and value.strip():
                    texts.append((f"turn {turn_index + 1} {call.tool}.{key}", value))
    return texts


def _written_ids(ctx: GradeContext, records: Records) -> frozenset[str]:
    """The records whose yes/no fields a write of the run may have changed: a write call names
    the record, and the write's tool is about one of the record's flags ("issue_refund" and an
    item's `refunded`; "add_to_cart" changes no product's `induction_ready`)."""
    found: set[str] = set()
    for call in ctx.run.all_calls():
        if ctx.brief.writes and call.tool not in ctx.brief.writes:
            continue
        blob = repr(call.args)
        acts = {w[:5] for w in re.split(r"[_\W]+", call.tool.casefold()) if len(w) >= 4}
        for record in records:
            if not all(part in blob for part in record.id.split("/")):
                continue
            flags = {w[:5] for word, _, _ in record.flag_words() for w in [word.casefold()]}
            if not flags or flags & acts:
                found.add(record.id)
    return frozenset(found)


def _presented(turn: Any) -> tuple[str, ...]:
    """The records a turn's components showed the person, in order."""
    ids: list[str] = []
    for event in turn.ui():
        for key in ("product_ids", "product_id", "ids", "id"):
            value = event.payload.get(key)
            ids.extend(value if isinstance(value, list) else [value] if value else [])
        for shown in event.payload.get("products") or []:
            if isinstance(shown, dict) and shown.get("product_id"):
                ids.append(shown["product_id"])
    return tuple(str(i) for i in ids)


# what a person rules out: "without leather", "no wool", "not nylon", "leather-free", "without
# it" (the word before it, in the same message)
_RULED_OUT = re.compile(
    r"\b(?:without|no|not|non-?|nothing|never|avoid|avoiding|except|free of|anything but"
    r"|rather than|instead of)(?:\b|(?<=-))"
    r"\s*(?:any\s+|the\s+)?(?P<word>[a-z][\w-]*)|\b(?P<free>[a-z]+)-free\b",
    re.IGNORECASE,
)


def _ruled_out(message: str, categories: set[str]) -> dict[str, str]:
    """The category words (a material, a colour, a brand of the run's records) the person's
    message rules out, each with the words that did: "without it" stands for the last category
    word of the message before the clause it is in (in its own clause, "trail shoes without
    it", the words say what is wanted)."""
    found: dict[str, str] = {}
    norm = normalise(message)
    for m in _RULED_OUT.finditer(norm):
        word = (m.group("word") or m.group("free") or "").casefold()
        if word in ("it", "them", "that", "those"):
            before = [
                w.casefold()
                for w in re.findall(r"[A-Za-z][\w-]*", norm[: clause_bounds(norm, m.start())[0]])
                if w.casefold() in categories
            ]
            word = before[-1] if before else ""
        if word in categories:
            found[word] = m.group(0)
    return found


def excluded_presented(run: Any, records: Records) -> list[str]:
    """Records a turn showed the person that hold what their message of that turn ruled out."""
    categories = {word for by_word in records.across(_category_owners).values() for word in by_word}
    problems: list[str] = []
    for index, turn in enumerate(run.turns):
        out = _ruled_out(turn.user or "", categories)
        if not out:
            continue
        for record_id in dict.fromkeys(_presented(turn)):
            record = records.get(record_id)
            if record is None:
                continue
            for leaf, words in records.derived(record, _category_words).items():
                for word in sorted(words & set(out)):
                    problems.append(
                        f"turn {index + 1} showed {record_id} ({leaf} "
                        f"{_shown_value(record, leaf)}), which the person ruled out "
                        f"({out[word]!r})"
                    )
    return problems


def _read(turn: Any, records: Records) -> tuple[str, ...]:
    """The records with texts (reviews, a description) the turn's tool results gave."""
    ids: list[str] = []
    for result in turn.results():
        if result.status != "ok":
            continue
        for node in objects_in(result.data):
            for key in ("id", "product_id"):
                record = records.get(str(node.get(key)))
                if record is not None and record.texts and record.id not in ids:
                    ids.append(record.id)
    return tuple(ids)


@expected_key(
    "outcome",
    "every turn",
    bool,
    "every price, date and status a reply (or a note the run wrote) states about a record the "
    "run saw or changed agrees with that record; on by default, `records_agree: false` turns it "
    "off",
    default=True,
    on_by_default=True,
    after="action_claims",
)
def records_agree(enabled: bool, ctx: GradeContext) -> tuple[bool, str]:
    if not enabled:
        return True, "reply facts not checked against the records"
    records = ctx.records
    written = _written_ids(ctx, records)
    problems: list[str] = []
    shown_by_turn = [_presented(turn) for turn in ctx.run.turns]
    read_by_turn = [_read(turn, records) for turn in ctx.run.turns]
    for where, text in written_texts(ctx.run):
        index = int(where.split()[1]) - 1
        presented = shown_by_turn[index] if 0 <= index < len(shown_by_turn) else ()
        read = read_by_turn[index] if 0 <= index < len(read_by_turn) else ()
        problems.extend(
            f"{where}: {p.line()}" for p in problems_in(text, records, written, presented, read)
        )
    problems.extend(excluded_presented(ctx.run, records))
    if problems:
        return False, "; ".join(dict.fromkeys(problems))
    return True, "what the replies state about the run's records agrees with them"
