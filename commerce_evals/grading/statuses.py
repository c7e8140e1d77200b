"""Statuses a reply states, in their common written forms, and what each means for a record.

One table per domain: the statuses every domain shares (`STATUSES`: stock, delivery, orders,
offers, vehicles, a simulated send) and each domain's own (`DOMAIN_STATUSES`: a refund, a final
sale item, a handover to a person, a superseded offer, a revoked key, a write the system
refused), read together by `phrases(text, domain)`. Each status is a set of phrases (read whole,
case-insensitive, after number words became digits) and the record values it is true of: the
raw `status` values of orders, offers, vehicles and tasks, or a test on the record's stock or
delivery dates. A negated phrase ("hasn't shipped", "not in stock") is true of every value of the
status's family that the phrase itself is not true of.

A domain's own statuses are read only where the domain is known (the typed facts of
`reply_states` and `reply_denies`); phrases such as "refunded" are also action claims, which the
claim reader (claims.py) reads from the shared table alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from commerce_evals.facts import DATE_SPAN, negated_at, normalise, parse_date
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
    # a lead of the phrase that negates it ("isn't late"), read as a negation before it
    negates: str | None = None


_ORDER = frozenset({"placed", "processing", "shipped", "delivered", "cancelled", "canceled"})
_OFFER = frozenset(
    {"new", "pending", "accepted", "declined", "withdrawn", "countered", "expired", "superseded"}
)
_VEHICLE = frozenset(
    {"draft", "listed", "on_hold", "in_closing", "sold", "offer_accepted", "delisted"}
)


def _values(*names: str) -> frozenset[str]:
    return frozenset(names)


# a quantity word meaning none, and what a stock is counted in
_NONE = r"(?:no|zero|0|nil|none|nothing|not a single|not 1)"
_STOCK_NOUN = r"stock|inventory|units?|pieces?|copies|left in stock"
# a verb of being, negated: "isn't late", "won't be late" (the phrase holds its own negation)
_NOT_BE = r"(?:isn't|aren't|wasn't|weren't|(?:is|are|was|were) not|won't be|will not be|not)"
_MONTH_WORDS = r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
# how far behind: "a week", "about 3 days", "a bit", "a little"
_AMOUNT = (
    r"(?:(?:about|around|roughly|nearly|almost|over|more than|at least|some|a|an|\d+|few"
    r"|couple(?: of)?|bit|little|full|whole|good|day|days|week|weeks|hours?|business days?) ){0,5}"
)
# a predicate of lateness after its verb: "is late", "running about a week late", "arrives 2
# days late", "is a few days behind"; not "late November", "too late", "behind the counter"
_LATE = (
    rf"(?:(?:{_NOT_BE}|is|are|was|were|be|been|being|running|runs|run|arriving|arrives|arrive"
    rf"|coming|come|comes|landing|lands|land|(?:showing|shows|show|turning|turns|turn) up"
    rf"|(?:getting|gets|get) (?:there|to you|in)|(?:reaching|reaches|reach) you|now|fallen|fell"
    rf"|slipped) |(?<='s )|(?<='re ))(?:still |already |now )?{_AMOUNT}(?:late(?! (?:in|on|next|this|last|morning|afternoon|evening|night|fee|fees"
    rf"|orders?|deliveries|shipments?|(?:{_MONTH_WORDS})\w*)(?![\w-]))"
    rf"|behind(?: (?:schedule|plan|the (?:original |first )?(?:date|estimate|schedule)))?"
    rf"(?! (?:the|a|an|us|you|it|them|other|our|your|that|this|those|these|his|her|their)\b))"
    rf"|(?:late|behind|overdue|past due) (?:by |now )?{_AMOUNT}(?:late)?"
    # behind a named schedule needs no verb: "lands Dec 2, a bit behind the original date"
    rf"|{_AMOUNT}behind (?:schedule|plan|the (?:original |first |1st |planned |promised )?"
    rf"(?:date|estimate|schedule|eta|plan))"
)


STATUSES: tuple[Status, ...] = (
    Status(
        "out_of_stock",
        rf"out[- ]of[- ](?:stock|inventory)|sold[- ]out|unavailable|all gone|back[- ]?ordered"
        # a quantity meaning none of the stock: "no stock", "zero units", "0 left", "none in
        # stock", "nothing on hand", "stock is at 0"
        rf"|{_NONE} (?:more )?(?:{_STOCK_NOUN})(?! (?:shortage|issue|problem|concern|worr|question)\w*)"
        rf"(?: (?:left|remaining|on hand|in stock|available))?"
        rf"|{_NONE} (?:(?:left|remaining)(?: (?:in stock|on hand|in inventory))?|in stock|on hand"
        rf"|in inventory|available to (?:sell|ship))"
        rf"|(?:stock|inventory)(?: level| count)? (?:is |'s |sits |stands |has (?:hit|dropped to) "
        rf"|hit |reached |ran down to |down to )(?:at )?(?:0|zero|nil|nothing)(?!\w|[.,]\d)"
        # stock still to come in: "waiting on a restock", "until it's restocked"
        rf"|(?:waiting|wait|waits|awaiting|awaits|due) (?:on |for )?(?:a |the |its |their |new |more "
        rf"|fresh )*(?:restock(?:ing)?|replenishment|(?:new |more |fresh )stock|stock to (?:arrive|come in))"
        rf"|(?:being|to be|until (?:it|they) (?:is|are|gets?) |until (?:it's|they're) )restocked",
        test="stock_zero",
    ),
    Status(
        "in_stock",
        r"in stock|available(?! (?:in|on) )|\d+ left|\d+ in stock|ready to ship|on hand|in inventory",
        test="stock_positive",
    ),
    Status(
        "delayed",
        rf"delay(?:ed|s)?|pushed (?:\w+ )?(?:back|out)|{_LATE}|overdue|past due"
        r"|slipped|moved (?:\w+ )?(?:back|out)|reschedul\w*|postpone\w*"
        r"|later than (?:planned|expected|first|1st|promised|quoted)"
        r"|(?:latest|updated|new|revised) (?:estimate|date|eta|delivery date|arrival date)",
        test="delayed",
        negates=_NOT_BE,
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
        r"(?:has |have |was |were |been |already )?shipped|dispatched"
        # a motion verb of dispatch: "went out", "left the warehouse", "is out the door"
        r"|(?:went|gone|headed|shipped) (?:out|off)(?! (?:of stock|for delivery|to))"
        r"|out the door|(?:left|has left|departed|rolled out of) (?:the|our) (?:warehouse|building"
        r"|facility|dock|depot)|(?:handed|passed|given) (?:over |off )?to (?:the )?(?:carrier|courier)"
        r"|picked up by (?:the )?(?:carrier|courier)",
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
    # a staged change a person approved (its approver is recorded)
    Status(
        "approved",
        r"(?:has |have |was |were |been |already |now )?(?:approved|signed off|green-?lit)",
        test="approved",
    ),
    # a part of a closing done: a payment received, a document signed
    Status(
        "completed",
        r"received|paid(?: in full| up)?|cleared|landed|came in|come in|in hand|settled|funded"
        r"|signed|completed?|nothing (?:is |left )?(?:outstanding|owed|due)",
        test="completed",
    ),
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
# a person, not the agent, takes it from here: "a teammate will follow up", "I've handed it to
# our team", "only a person can approve that"
_PERSON = (
    r"(?:a |an |our |the |one of our )?(?:person|human|colleague|teammate|team ?member|specialist"
    r"|manager|supervisor|staff(?: member)?|representative|someone (?:on|from) (?:our|the) team"
    r"|member of (?:our|the) team|(?:our |the )?(?:support |customer care |sales )?team)"
)
_NEEDS_PERSON = Status(
    "needs_person",
    rf"needs? (?:a |an )?(?:person|human)|needs_person|only {_PERSON}"
    rf"|{_PERSON}(?: (?:on|from|in) (?:our|the) team)?(?: who)? (?:will|would|'ll|can|could"
    rf"|has to|have to|must|needs? to|should|is going to|decides|handles|reviews|approves"
    rf"|takes|follows up|looks into)"
    rf"|(?:hand|pass|send|refer|forward|escalat|go(?:es)?|went)\w* (?:[\w']+ ){{0,3}}?"
    rf"(?:over |on |along |up )?(?:to|with) {_PERSON}"
    rf"|(?:hand|pass)(?:ed|ing)? (?:it |this |that )?(?:over|off|on)|escalat\w*"
    rf"|(?:decided|approved|reviewed|handled) by {_PERSON}",
    test="unknown",
)
# a write the system would not take ("the save was blocked", "it wasn't able to store that")
_BLOCKED = Status(
    "blocked",
    r"blocked|guardrails?|(?:was|were|got|has been|have been) (?:refused|rejected|stopped|prevented)"
    r"|(?:couldn't|could not|wasn't able to|was unable to|failed to|didn't manage to) "
    r"(?:save|store|keep|remember|note|record|add|write)"
    r"|(?:save|saving|store|storing|write) (?:failed|didn't go through|did not go through)"
    r"|(?:wouldn't|would not|won't|didn't) let me (?:save|store|keep|remember|add)",
    test="unknown",
)
DOMAIN_STATUSES: dict[str, tuple[Status, ...]] = {
    "shop": (
        _BLOCKED,
        # a price said to have moved since the person saw it (which way is for records_agree)
        Status(
            "price_moved",
            r"(?:has |have |had )?(?:gone|went|going|moved) (?:up|down)|increased|decreased|risen|rose"
            r"|dropped|fallen|(?:prices?|costs?) (?:has |have )?(?:changed|moved)"
            r"|(?:higher|lower|more|less|cheaper|dearer) than (?:before|when you|what you|you saw"
            r"|it was)|(?:price )?(?:hike|increase|rise|drop|cut|change) since",
            test="unknown",
        ),
        # a staged change a person has yet to approve, and one approved
        Status(
            "awaiting_approval",
            # what approval is a precondition of: a verb of need or waiting, or a conjunction of time or
            # condition ("going live takes a person's approval", "once someone signs it off")
            r"(?:needs?|awaits?|awaiting|waits?|waiting|pending|requires?|takes?|calls? for"
            r"|depends? on|hinges? on|subject to|until|once|after|before"
            r"|as soon as|when|whenever|the moment|if|unless)"
            r" (?:(?:for|on) )?(?:[\w']+ ){0,4}?(?:approv\w*|sign(?:s|ed)?[- ]off|signs? it off)"
            r"|unapproved|not yet approved",
            test="unknown",
        ),
        Status(
            "cart_empty",
            r"(?:is |'s )?empty|nothing in (?:it|there|your (?:cart|basket)|the (?:cart|basket))"
            r"|no items|(?:doesn't|does not|don't) (?:have|contain|hold) anything|isn't anything"
            r"|0 items|nothing to check ?out",
            test="unknown",
        ),
    ),
    "support": (
        Status(
            "refunded",
            r"refunded|(?:refund|money|payment)s?(?: [\w$,.'-]+){0,6}? (?:was |were |has been |had been "
            r"|already )?"
            r"(?:issued|processed|sent back|returned|credited|paid out|went (?:through|out|back))"
            r"|credited back|paid back|(?:got|received) (?:your |the |their )?money back",
            test="unknown",
        ),
        Status(
            "final_sale",
            r"final[- ]sale|clearance|non-?returnable|not returnable|no returns"
            r"|can(?:no|')t be (?:returned|refunded)|(?:isn't|is not|aren't|are not) eligible for "
            r"(?:a )?(?:return|refund)s?",
            test="final_sale",
        ),
        _NEEDS_PERSON,
    ),
    "dealer": (
        Status(
            "superseded",
            r"supersed\w*|auto(?:matically)?[- ]?(?:closed|declined|cancell?ed|rejected)"
            r"|(?:closed|declined|cancell?ed|rejected|dropped) (?:out |off )?(?:[\w$,'-]+ ){0,4}?"
            r"automatically"
            r"|closed (?:out|off) by (?:the|that) (?:sale|acceptance)"
            r"|no longer (?:open|active|valid|in play|live)",
            _OFFER,
            _values("superseded"),
        ),
        Status(
            "key_revoked",
            r"revoked|(?:no longer|stops?|stopped) work\w*|(?:is|was) (?:dead|disabled|invalid"
            r"|deactivated)",
            test="unknown",
        ),
        _NEEDS_PERSON,
    ),
}
BY_NAME = {s.name: s for s in STATUSES} | {
    s.name: s for table in DOMAIN_STATUSES.values() for s in table
}


def table(domain: str | None) -> tuple[Status, ...]:
    """The statuses a reply in `domain` is read for: the shared ones and the domain's own."""
    return STATUSES + DOMAIN_STATUSES.get(domain or "", ())


# what a negated status asserts: "not in stock" is out of stock, "hasn't shipped" not shipped
OPPOSITE: dict[str, str] = {
    "in_stock": "out_of_stock",
    "out_of_stock": "in_stock",
    "on_schedule": "delayed",
    "delayed": "on_schedule",
    "shipped": "not_shipped",
    "in_transit": "not_shipped",
    "approved": "awaiting_approval",
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


_OPENS_CLAUSE = re.compile(
    r"(?:until|once|after|before|unless|as soon as|when|whenever|the moment|if)\b", re.IGNORECASE
)
# a verb whose object is a negative quantifier negates its status after it: "a decline
# supersedes nothing", "I've refunded nothing yet"
_NEGATIVE_OBJECT = re.compile(r"\s+(?:nothing|none|nobody|no one)\b", re.IGNORECASE)


_D = rf"(?:{DATE_SPAN.pattern})"
# a date moved to another: "ETA moved from 11/25 to 12/2", "arrives Dec 2 instead of Nov 25",
# "Dec 2 (not Nov 25)", "11/25 -> 12/2"; a delay when the date it moved to is the later one
_DATE_MOVED = re.compile(
    rf"\b(?:moved|changed|shifted|pushed|slipped|slid|bumped|updated|revised|went|gone|jumped"
    rf"|rescheduled|reset|now)\b(?:\s+[\w.']+){{0,4}}?\s+from\s+(?P<a>{_D})\s+"
    rf"(?:to|until|till|->|→)\s+(?P<b>{_D})"
    rf"|(?P<b2>{_D})\s*,?\s*\(?(?:instead of|rather than|and not|not|no longer)\s+(?:the\s+)?"
    rf"(?:(?:original|planned|first|earlier|old|previous)\s+)?(?:(?:date|estimate|eta)\s+(?:of\s+)?)?"
    rf"(?P<a2>{_D})"
    rf"|(?P<a3>{_D})\s*(?:->|→|=>)\s*(?P<b3>{_D})",
    re.IGNORECASE,
)


def _later(moved_to: str, moved_from: str) -> bool:
    """Whether the date `moved_to` falls after `moved_from`; dates without a year are read in
    the same year, or the next when the move would otherwise go back more than half a year."""
    to, since = parse_date(moved_to), parse_date(moved_from)
    if to is None or since is None:
        return False
    if not re.search(r"\d{4}", moved_to + moved_from) and (since - to).days > 182:
        return True  # "Dec 30 -> Jan 2"
    return to > since


def _dates_moved(text: str) -> list[tuple[int, int]]:
    """Where `text` says a date moved later: a delay said by its dates."""
    found = []
    for m in _DATE_MOVED.finditer(text):
        since = m.group("a") or m.group("a2") or m.group("a3")
        to = m.group("b") or m.group("b2") or m.group("b3")
        if _later(to, since):
            found.append((m.start(), m.end()))
    return found


@cache
def _pattern(status: Status) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-])(?:{status.phrases})(?![\w-])", re.IGNORECASE)


@lru_cache(maxsize=8192)
def phrases(text: str, domain: str | None = None) -> tuple[StatusPhrase, ...]:
    """Every status phrase of `text` (normalised), longest first, never overlapping: the shared
    statuses, and the domain's own when a domain is given. Cached: several graders read the same
    sentence."""
    return tuple(_read_phrases(text, domain))


def _read_phrases(text: str, domain: str | None) -> list[StatusPhrase]:
    if is_japanese(text):
        return [
            StatusPhrase(BY_NAME[f.name], f.start, f.end, f.text, f.negated)
            for f in ja_statuses.phrases(text)
        ]
    text = normalise(text)
    candidates = [
        (status, m.start(), m.end())
        for status in table(domain)
        for m in _pattern(status).finditer(text)
    ]
    candidates += [(BY_NAME["delayed"], start, end) for start, end in _dates_moved(text)]
    candidates.sort(key=lambda c: c[1] - c[2])
    found: list[StatusPhrase] = []
    for status, start, end in candidates:
        if any(start < p.end and p.start < end for p in found):
            continue
        said = text[start:end]
        # a phrase that opens its own clause ("until someone approves it") is not negated by
        # the clause before it ("nothing goes live until ...")
        negated = not _OPENS_CLAUSE.match(said) and (
            negated_at(text, start) or bool(_NEGATIVE_OBJECT.match(text, end))
        )
        if status.negates and re.match(status.negates, said, re.IGNORECASE):
            negated = not negated
        found.append(StatusPhrase(status, start, end, said, negated))
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


def _unknown(values: dict[str, list[Any]]) -> bool | None:
    """A status no record field tells (a handover, a refused write): never checked against a
    record, only stated or denied."""
    return None


def _final_sale(values: dict[str, list[Any]]) -> bool | None:
    flags = [v for key in ("clearance", "final_sale") for v in values.get(key, [])]
    flags = [v for v in flags if isinstance(v, bool)]
    return None if not flags else any(flags)


def _simulated(values: dict[str, list[Any]]) -> bool | None:
    flags = [v for v in values.get("simulated", []) if isinstance(v, bool)]
    return None if not flags else any(flags)


def _approved(values: dict[str, list[Any]]) -> bool | None:
    """A record with an approver field (a staged change's `approved_by`): approved once set."""
    seen = [v for key in ("approved_by", "approvedBy") for v in values.get(key, [])]
    if not any(key in values for key in ("approved_by", "approvedBy")):
        return None
    return any(v not in (None, "", False) for v in seen)


# the statuses of a part of a closing (a step): done, or not yet
_DONE = frozenset({"complete", "completed", "done"})
_STEP = _DONE | frozenset({"pending", "waiting", "overdue", "due", "open", "skipped"})


def _completed(values: dict[str, list[Any]]) -> bool | None:
    """A step of a closing (a record with a kind, a party or a due date, and a status): done when
    its status is complete."""
    if not any(k in values for k in ("kind", "party", "dueDate", "due_date")):
        return None
    statuses = {_raw(v) for v in values.get("status", [])}
    if not statuses or not statuses <= _STEP:
        return None
    return bool(statuses & _DONE)


_TESTS: dict[str, Callable[[dict[str, list[Any]]], bool | None]] = {
    "unknown": _unknown,
    "final_sale": _final_sale,
    "approved": _approved,
    "completed": _completed,
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
