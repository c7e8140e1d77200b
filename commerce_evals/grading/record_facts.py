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
- a status must be true of some value the record had in the run (statuses.py).
What code cannot tie precisely is left to the `no_invented_facts` judge dimension, which sees
the same tool results.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from commerce_evals.grading.facts import (
    NEGATION,
    Mention,
    clause_bounds,
    mentions,
    negated_at,
    normalise,
)
from commerce_evals.grading.ja import record_facts as ja_records
from commerce_evals.grading.reasons import clipped
from commerce_evals.grading.records import Record, Records, Reference, run_records
from commerce_evals.grading.statuses import StatusPhrase, holds, phrases
from commerce_evals.japanese.text import is_japanese

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(*-])|\n+")
_PRONOUN = re.compile(r"\b(?:it|its|it's|this one|that one)\b", re.I)
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
    if mention.negated or mention.in_range or _BOUND_BEFORE.search(lead):
        return None
    if _BOUND_AFTER.match(clause[len(lead) + len(mention.text) :]):
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
    for key in ("status", "stock", "delivery_date", "updated_delivery_date"):
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
        for word, path, value in record.flag_words():
            for m in re.finditer(_flag_pattern(word), sentence, re.IGNORECASE):
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


def _flag_pattern(word: str) -> str:
    """A flag's word and its verb ("packable": packs, packed, packing; "dimmable": dims)."""
    forms = [rf"{re.escape(word)}\w*"]
    stem = re.sub(r"(?:able|ible)$", "", word)
    if stem != word and len(stem) >= 4:
        forms.append(rf"{re.escape(stem)}(?:s|es|ing)\b(?!\s+with\b)")
    return rf"(?<![\w-])(?:{'|'.join(forms)})"


# a plural subject that names no record: "they", "all three", "none of them", "both"
_PLURAL = re.compile(
    r"^\W*(?:they|these|those|both|all|each|every|neither|none|the \d+|these \d+|all \d+)\b"
    r"|\b(?:none|all|both|each|neither) of (?:them|these|those)\b|,\s*(?:all|both)\b"
    r"|\b(?:all|these|those) \d+\b|^\W*\d+ (?:are|come|have|run|fit|use)\b",
    re.IGNORECASE,
)
_SIZE = re.compile(
    r"\bsizes?\s+(?:from\s+|between\s+)?(?:us\s+|eu\s+|uk\s+)?(\d+(?:\.\d+)?)"
    r"(?:\s*(?:-|–|to|through|and)\s*(\d+(?:\.\d+)?))?",
    re.IGNORECASE,
)


def _check_sizes(
    sentence: str, record: Record, refs: list[Reference] | None = None, ref: Reference | None = None
) -> str | None:
    """A size said of a record must be one it comes in: "comes in a size 6", "sizes 6 to 13".
    With `refs`, only a size the sentence ties to `ref` is read."""
    sizes = {
        float(v)
        for _, value in record.fields("sizes")
        for v in (value if isinstance(value, tuple) else (value,))
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    if not sizes:
        return None
    for m in _SIZE.finditer(sentence):
        if refs is not None and _tie(m.start(), sentence, refs, None, value=False) != ref:
            continue
        start, end = clause_bounds(sentence, m.start())
        clause = sentence[start:end]
        if _HYPOTHETICAL.search(clause) or NEGATION.search(clause):
            continue
        said = [float(g) for g in m.groups() if g]
        missing = [f"{v:g}" for v in said if v not in sizes]
        if missing:
            return (
                f"says size {', '.join(missing)}; it comes in {min(sizes):g} to {max(sizes):g} "
                f"({', '.join(f'{v:g}' for v in sorted(sizes))})"
            )
    return None


def _group_facts(sentence: str, record: Record) -> list[str]:
    """What a sentence about a group says wrongly of one of its records: a yes/no attribute
    said the other way ("none of them need batteries") or a size it does not come in."""
    whys: list[str] = []
    for word, path, value in record.flag_words():
        for m in re.finditer(_flag_pattern(word), sentence, re.IGNORECASE):
            start, end = clause_bounds(sentence, m.start())
            if _HYPOTHETICAL.search(sentence[start:end]):
                continue
            said = not NEGATION.search(sentence[start : m.start()])
            if said not in value:
                whys.append(f"says they are{'' if said else ' not'} {word}; its {path} is {value}")
    size = _check_sizes(sentence, record)
    if size:
        whys.append(size)
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


def problems_in(
    text: str,
    records: Records,
    written: frozenset[str] = frozenset(),
    presented: tuple[str, ...] = (),
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
    for sentence in _sentences(norm):
        if not sentence.strip():
            continue
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
                        for why in _group_facts(sentence[start:end], record)
                    )
        earlier = [r.record_id for r in refs if r.record_id] or earlier
        question = sentence.rstrip().endswith("?")
        for mention in mentions(sentence) if not question else []:
            ref = _tie(mention.start, sentence, refs, previous)
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
            if _HYPOTHETICAL.search(clause):
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
        ]:
            found.append(Problem(clipped(sentence.strip()), ref.text, why))
        for phrase in phrases(sentence):
            ref = _tie(phrase.start, sentence, refs, previous, value=False)
            record = records.get(ref.record_id) if ref else None
            if ref is None or record is None:
                continue
            why = _check_status(phrase, record)
            if why:
                found.append(Problem(clipped(sentence.strip()), ref.text, why))
        if refs:
            previous = refs[-1]
    return found


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
        if ctx.roles.writes and call.tool not in ctx.roles.writes:
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


def records_agree(enabled: bool, ctx: GradeContext) -> tuple[bool, str]:
    if not enabled:
        return True, "reply facts not checked against the records"
    records = run_records(ctx.run, ctx.shown)
    written = _written_ids(ctx, records)
    problems: list[str] = []
    shown_by_turn = [_presented(turn) for turn in ctx.run.turns]
    for where, text in written_texts(ctx.run):
        index = int(where.split()[1]) - 1
        presented = shown_by_turn[index] if 0 <= index < len(shown_by_turn) else ()
        problems.extend(
            f"{where}: {p.line()}" for p in problems_in(text, records, written, presented)
        )
    if problems:
        return False, "; ".join(dict.fromkeys(problems))
    return True, "what the replies state about the run's records agrees with them"
