"""Statuses a reply states, in their common written forms, and what each means for a record.

One table, `STATUSES`: each status is a set of phrases (read whole, case-insensitive, after
number words became digits) and the record values it is true of: the raw `status` values of
orders, offers, vehicles and tasks, or a test on the record's stock or delivery dates. A
negated phrase ("hasn't shipped", "not in stock") is true of every value of the status's family
that the phrase itself is not true of.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from commerce_evals.grading.facts import negated_at, normalise
from commerce_evals.grading.ja import statuses as ja_statuses
from commerce_evals.japanese.text import is_japanese


@dataclass(frozen=True)
class Status:
    name: str
    phrases: str
    # the family of `status` values this status speaks about, and those it is true of
    family: frozenset[str] = frozenset()
    true_of: frozenset[str] = frozenset()
    # or a test on the record itself (stock, dates)
    test: str | None = None


_ORDER = frozenset({"placed", "processing", "shipped", "delivered", "cancelled", "canceled"})
_OFFER = frozenset({"new", "pending", "accepted", "declined", "withdrawn", "countered", "expired"})
_VEHICLE = frozenset(
    {"draft", "listed", "on_hold", "in_closing", "sold", "offer_accepted", "delisted"}
)


def _values(*names: str) -> frozenset[str]:
    return frozenset(names)


STATUSES: tuple[Status, ...] = (
    Status(
        "out_of_stock",
        r"out of stock|sold out|unavailable|none left|0 left|0 in stock|0 units|no units"
        r"|all gone|back ?ordered|zero units|zero left|out of inventory",
        test="stock_zero",
    ),
    Status(
        "in_stock",
        r"in stock|available(?! (?:in|on) )|\d+ left|\d+ in stock|ready to ship|on hand|in inventory",
        test="stock_positive",
    ),
    Status(
        "delayed",
        r"delay(?:ed|s)?|pushed (?:\w+ )?(?:back|out)|running late|running behind|behind schedule"
        r"|slipped|moved (?:\w+ )?(?:back|out)|reschedul\w*|postpone\w*"
        r"|later than (?:planned|expected|first)"
        r"|(?:latest|updated|new|revised) (?:estimate|date|eta|delivery date|arrival date)",
        test="delayed",
    ),
    Status(
        "on_schedule",
        r"on schedule|on time|on track|as planned|as scheduled",
        test="on_schedule",
    ),
    Status(
        "in_transit",
        r"in transit|on (?:its|it's|the|their) way|with the carrier|out for delivery|en route"
        r"|heading (?:your|to you|her|his|their)",
        _ORDER,
        _values("shipped"),
    ),
    Status(
        "shipped",
        r"(?:has |have |was |were |been |already )?shipped|dispatched|left (?:the|our) warehouse",
        _ORDER,
        _values("shipped", "delivered"),
    ),
    Status(
        "delivered",
        r"delivered|arrived|dropped off",
        _ORDER,
        _values("delivered"),
    ),
    Status(
        "not_shipped",
        r"(?:still )?(?:being (?:prepared|packed|processed)|processing|yet to ship"
        r"|still at (?:the|our) warehouse)",
        _ORDER,
        _values("placed", "processing"),
    ),
    Status(
        "waiting",
        r"waiting|pending|awaiting|still open|open offers?|undecided|unanswered",
        _OFFER,
        _values("new", "pending"),
    ),
    Status("accepted", r"accepted", _OFFER, _values("accepted")),
    Status("declined", r"declined|rejected|turned down", _OFFER, _values("declined")),
    Status("withdrawn", r"withdrawn|pulled (?:out|back)|retracted", _OFFER, _values("withdrawn")),
    Status("listed", r"listed|live on|for sale|on the market", _VEHICLE, _values("listed")),
    Status("paused", r"paused|on hold", _VEHICLE, _values("on_hold")),
    # a send the sandbox only recorded: nothing reached the person
    Status(
        "simulated",
        r"simulat\w*|only (?:logged|recorded|logs|records)|(?:logged|recorded) but not sent"
        r"|not (?:actually |really )?(?:sent|delivered|emailed|go(?:ne)? out)"
        r"|nothing (?:actually |really )?(?:goes|went|is sent|was sent|got sent) out"
        r"|no (?:real|actual) (?:email|message|send|reminder)",
        test="simulated",
    ),
)
BY_NAME = {s.name: s for s in STATUSES}
StatusName = Literal[
    "out_of_stock", "in_stock", "delayed", "on_schedule", "in_transit", "shipped", "delivered",
    "not_shipped", "waiting", "accepted", "declined", "withdrawn", "listed", "paused", "simulated",
]  # fmt: skip
# what a negated status asserts: "not in stock" is out of stock, "hasn't shipped" not shipped
OPPOSITE: dict[str, str] = {
    "in_stock": "out_of_stock",
    "out_of_stock": "in_stock",
    "on_schedule": "delayed",
    "delayed": "on_schedule",
    "shipped": "not_shipped",
    "in_transit": "not_shipped",
}


@dataclass(frozen=True)
class StatusPhrase:
    status: Status
    start: int
    end: int
    text: str
    negated: bool

    @property
    def meaning(self) -> str | None:
        """The status the phrase asserts once its negation is read (None: a negation that
        asserts no one status, "not accepted")."""
        if not self.negated:
            return self.status.name
        return OPPOSITE.get(self.status.name)


@cache
def _pattern(status: Status) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-])(?:{status.phrases})(?![\w-])", re.IGNORECASE)


def phrases(text: str) -> list[StatusPhrase]:
    """Every status phrase of `text` (normalised), longest first, never overlapping."""
    if is_japanese(text):
        return [
            StatusPhrase(BY_NAME[f.name], f.start, f.end, f.text, f.negated)
            for f in ja_statuses.phrases(text)
        ]
    text = normalise(text)
    candidates = [(status, m) for status in STATUSES for m in _pattern(status).finditer(text)]
    candidates.sort(key=lambda c: c[1].start() - c[1].end())
    found: list[StatusPhrase] = []
    for status, m in candidates:
        if any(m.start() < p.end and p.start < m.end() for p in found):
            continue
        negated = negated_at(text, m.start())
        found.append(StatusPhrase(status, m.start(), m.end(), m.group(0), negated))
    return sorted(found, key=lambda p: p.start)


def _raw(value: Any) -> str:
    return str(value).casefold()


def holds(phrase: StatusPhrase, record_values: dict[str, list[Any]]) -> bool | None:
    """Whether what the phrase says (negation read) is true of a record: True when some observed
    value bears it out, False when none does, None when the phrase does not speak of this kind
    of record."""
    status = phrase.status
    if status.test is not None:
        truth = _TESTS[status.test](record_values)
        if truth is None:
            return None
        return truth != phrase.negated
    observed = {_raw(v) for v in record_values.get("status", [])}
    if not observed & status.family:
        return None
    meant = status.true_of if not phrase.negated else status.family - status.true_of
    return bool(observed & meant)


def _stock(values: dict[str, list[Any]]) -> list[float]:
    return [
        float(v)
        for key in ("stock", "quantity_available", "inventory")
        for v in values.get(key, [])
        if isinstance(v, int | float) and not isinstance(v, bool)
    ]


def _stock_zero(values: dict[str, list[Any]]) -> bool | None:
    stock = _stock(values)
    return None if not stock else any(s <= 0 for s in stock)


def _stock_positive(values: dict[str, list[Any]]) -> bool | None:
    stock = _stock(values)
    return None if not stock else any(s > 0 for s in stock)


def _delayed(values: dict[str, list[Any]]) -> bool | None:
    first = values.get("delivery_date")
    if not first:
        return None
    later = [v for v in values.get("updated_delivery_date", []) if v]
    return bool(later) and any(str(v) > str(first[0]) for v in later)


def _on_schedule(values: dict[str, list[Any]]) -> bool | None:
    delayed = _delayed(values)
    return None if delayed is None else not delayed


def _simulated(values: dict[str, list[Any]]) -> bool | None:
    flags = [v for v in values.get("simulated", []) if isinstance(v, bool)]
    return None if not flags else any(flags)


_TESTS: dict[str, Callable[[dict[str, list[Any]]], bool | None]] = {
    "simulated": _simulated,
    "stock_zero": _stock_zero,
    "stock_positive": _stock_positive,
    "delayed": _delayed,
    "on_schedule": _on_schedule,
}


def implies(said: str | None, meant: str) -> bool:
    """Whether a phrase asserting `said` states `meant`: the same status, or one of its family
    true of fewer values ("in transit" states "shipped"; "shipped" does not state "in transit")."""
    if said is None:
        return False
    if said == meant:
        return True
    a, b = BY_NAME.get(said), BY_NAME.get(meant)
    if a is None or b is None or not a.family or a.family != b.family:
        return False
    return bool(a.true_of) and a.true_of <= b.true_of
