"""Replies judged by meaning: typed facts a reply must state or must not, and action claims
checked against what the run changed.

- `reply_states` (graded turn): each fact is stated, not negated, not merely the end of a range,
  and, when the fact names a `role`, stated in a clause with one of the role's cue words; a clause
  with a cue that states another value of the same kind contradicts it and fails.
- `reply_denies` (every turn): no reply asserts the fact (a negated mention is not an assertion).
- `action_claims` (every case, on by default): a reply that says an action was done (placed,
  refunded, cancelled, applied, staged, sent, approved, updated, paid, ...) fails when nothing of
  that kind changed, and a "sent" fails where the sandbox only simulated the send.

Parsing is in facts.py; what changed is `what_changed(run)`, the one place that reads the run's
start and end snapshots for it.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator, model_validator

from commerce_evals.grading.facts import (
    DATE_SPAN,
    NEGATION,
    Kind,
    Mention,
    Status,
    clause_bounds,
    mentions,
    normalise,
    same_value,
    status_phrases,
    token_positions,
)
from commerce_evals.grading.reasons import clipped
from commerce_evals.strict import Strict

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext
    from commerce_evals.harness.events import Run

VALUE_FIELDS = ("money", "date", "percent", "count", "product", "id", "status")


class Fact(Strict):
    """One typed fact: exactly one of money, date, percent, count, product, id or status.

    `role` lists cue words ("now", "current") that must share the fact's clause; a clause holding
    a cue and another value of the same kind states the fact wrongly.
    """

    money: float | None = None
    date: dt.date | None = None
    percent: float | None = None
    count: int | None = Field(default=None, ge=0)
    product: str | None = None
    id: str | None = None
    status: Status | None = None
    role: list[str] = Field(default_factory=list)

    @field_validator("role", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _exactly_one(self) -> Fact:
        given = [f for f in VALUE_FIELDS if getattr(self, f) is not None]
        if len(given) != 1:
            raise ValueError(f"a fact takes exactly one of {list(VALUE_FIELDS)}; got {given}")
        return self

    @property
    def field(self) -> str:
        return next(f for f in VALUE_FIELDS if getattr(self, f) is not None)

    def describe(self) -> str:
        value = getattr(self, self.field)
        shown = f"${value:,.2f}" if self.field == "money" else str(value)
        shown += "%" if self.field == "percent" else ""
        cue = f" (as {'/'.join(self.role)})" if self.role else ""
        return f"{self.field} {shown}{cue}"


# ---- stating a fact ------------------------------------------------------------------------------


def _has_cue(text: str, position: int, role: list[str]) -> bool:
    start, end = clause_bounds(text, position)
    clause = text[start:end]
    return any(token_positions(clause, cue) for cue in role)


def _typed(fact: Fact) -> tuple[Kind, float | dt.date] | None:
    if fact.field in ("money", "date", "percent", "count"):
        return fact.field, getattr(fact, fact.field)  # type: ignore[return-value]
    return None


def _asserted(found: list[Mention], kind: Kind) -> list[Mention]:
    return [m for m in found if m.kind == kind and not m.negated and not m.in_range]


def product_names(product_id: str, run: Run) -> set[str]:
    """The id and every name the run's tool results or snapshots give that id."""
    names = {product_id}

    def visit(value: Any) -> None:
        if isinstance(value, dict):
            ids = {str(value.get(k)) for k in ("id", "product_id") if value.get(k) is not None}
            if product_id in ids:
                names.update(str(value[k]) for k in ("name", "title") if value.get(k))
            for sub in value.values():
                visit(sub)
        elif isinstance(value, list):
            for sub in value:
                visit(sub)

    for turn in run.turns:
        for result in turn.results():
            visit(result.data)
    visit(run.end)
    return names


def stated(fact: Fact, text: str, run: Run) -> tuple[bool, str]:
    """Whether `text` asserts `fact`, and, when it states it wrongly, what it said instead."""
    norm = normalise(text)
    typed = _typed(fact)
    if typed is not None:
        kind, wanted = typed
        found = _asserted(mentions(text), kind)
        if fact.role:
            found = [m for m in found if _has_cue(norm, m.start, fact.role)]
        right = [m for m in found if same_value(kind, wanted, m)]
        wrong = [m for m in found if not same_value(kind, wanted, m)] if fact.role else []
        return bool(right), ", ".join(m.text for m in wrong)
    if fact.status is not None:
        meant = [
            p
            for p in status_phrases(text)
            if p.meaning == fact.status and (not fact.role or _has_cue(norm, p.start, fact.role))
        ]
        return bool(meant), ""
    if fact.id is not None:
        return bool(token_positions(text, fact.id)), ""
    names = product_names(str(fact.product), run)
    return any(token_positions(text, name) for name in names), ""


def reply_states(facts: list[Fact], ctx: GradeContext) -> tuple[bool, str]:
    reply = ctx.run.graded.reply()
    problems: list[str] = []
    for fact in facts:
        found, wrong = stated(fact, reply, ctx.run)
        if wrong:
            problems.append(f"states {wrong} where the fact is {fact.describe()}")
        elif not found:
            problems.append(f"does not state {fact.describe()}")
    if problems:
        return False, f"reply {'; '.join(problems)}; reply: {clipped(reply)}"
    return True, "reply states every expected fact"


def reply_denies(facts: list[Fact], ctx: GradeContext) -> tuple[bool, str]:
    said = [
        f.describe()
        for f in facts
        if any(stated(f, t.reply(), ctx.run)[0] for t in ctx.run.turns if t.reply())
    ]
    if said:
        return False, f"a reply asserted {said}, which no reply may"
    return True, "no reply asserted an excluded fact"


# ---- what changed --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableChange:
    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]


def what_changed(run: Run) -> dict[str, TableChange]:
    """Per changed table, the rows the end has that the start lacked, and the reverse."""
    changes: dict[str, TableChange] = {}
    for table in run.changed_tables():
        before, after = run.start_table(table), run.end.get(table, [])
        changes[table] = TableChange(
            added=[row for row in after if row not in before],
            removed=[row for row in before if row not in after],
        )
    return changes


# ---- action claims -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimKind:
    name: str
    verbs: str
    tables: tuple[str, ...] = ()  # a changed table whose name holds one of these; () is any
    sends: bool = False


CLAIM_KINDS = (
    ClaimKind("order", r"placed|ordered|submitted (?:the |your )?order", ("order",)),
    ClaimKind(
        "refund",
        r"refunded|(?:issued|processed|started|initiated) (?:a |the |your )?(?:full )?refund",
        ("refund",),
    ),
    ClaimKind("cancel", r"cancell?ed", ("order", "offer", "task", "write")),
    ClaimKind("stage", r"staged|queued", ("staged",)),
    ClaimKind("send", r"sent|emailed|messaged|texted|resent|re-sent", ("send", "ticket"), True),
    ClaimKind(
        "write",
        r"applied|approved|updated|changed|saved|added|removed|paid|escalated|accepted|paused"
        r"|issued|processed|completed|done"
        r"|pushed (?:it |them |the \w+ )?live|published|launched|rotated",
    ),
)
_ADVERBS = r"(?:\s+(?:just|now|already|successfully|also|gone ahead and|went ahead and|been))*"
_SUBJECT = (
    r"\b(?:i|we)(?:'ve|'d| have| had)?"
    r"|\b(?:it|that|this|everything|they|both|all (?:of )?(?:them|\w+)|(?:your|the) [\w-]+(?: [\w-]+)?)"
    r"(?:'s| has| have| is| are| was| were|'re)"
)
_MODAL = re.compile(
    r"\b(?:will|'ll|can|could|would|should|shall|going to|want me to|like me to|ready to|about to"
    r"|once|if|after|before|until|to be|needs? to|able to|happy to|let me|may|might|must|when)\b"
    r"|'ll\b",
    re.IGNORECASE,
)


_CONDITION = re.compile(
    r"\b(?:if|once|as soon as|unless|just reply|reply yes|say yes|say the word)\b", re.IGNORECASE
)
# "I've staged nothing", "applied none of them": the object negates the claim
_NOTHING = re.compile(r"\s+(?:nothing|none|no\b|anything|neither)", re.IGNORECASE)
_HISTORY = re.compile(
    rf"[^.!?\n]*?(?:{DATE_SPAN.pattern}|\b(?:ago|yesterday|last (?:week|month)|earlier|previously)\b)",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"(?:i|we)\b", re.IGNORECASE)
# a reply that says the send was only recorded is not claiming a real send
_QUALIFIED_SEND = re.compile(r"simulat|not (?:actually |really )?sent|sandbox", re.IGNORECASE)


@cache
def _claim_pattern(kind: ClaimKind) -> re.Pattern[str]:
    return re.compile(
        rf"(?:{_SUBJECT}){_ADVERBS}\s+(?:{kind.verbs})\b|(?:^|(?<=[.!?\n:]\s)|^\s*)(?:{kind.verbs})\b",
        re.IGNORECASE | re.MULTILINE,
    )


@cache
def _verb_pattern(kind: ClaimKind) -> re.Pattern[str]:
    """One of the kind's verbs as a word: every claim holds one. The claim pattern tries its
    subjects at every position of a reply, which is slow; this finds in one quick pass the replies
    that cannot hold a claim of the kind at all (most replies, for most kinds)."""
    return re.compile(rf"\b(?:{kind.verbs})\b", re.IGNORECASE)


def claims(text: str) -> list[tuple[str, str, str]]:
    """Each affirmative, past-tense claim of a done action in `text`: (kind, the words, and
    the few words after them, where the claim's object usually stands)."""
    text = normalise(text)
    found: list[tuple[str, str, str]] = []
    for kind in CLAIM_KINDS:
        if not _verb_pattern(kind).search(text):
            continue
        for m in _claim_pattern(kind).finditer(text):
            start, end = clause_bounds(text, m.start())
            lead = text[start : m.start()] + m.group(0)
            if NEGATION.search(lead) or _MODAL.search(lead) or _NOTHING.match(text, m.end()):
                continue
            sentence_start = max(text.rfind(c, 0, m.start()) for c in ".!?\n") + 1
            if _CONDITION.search(text[sentence_start : m.start()]):
                continue
            # "were already refunded", "it was refunded on Sep 20": history, unless the agent
            # says it did it
            if not _FIRST_PERSON.match(m.group(0)) and (
                re.search(r"\balready\b", m.group(0), re.I)
                or _HISTORY.match(text[m.end() : text.find(".", m.end()) % (len(text) + 1)])
            ):
                continue
            sentence_end = re.search(r"[.!?\n]", text[m.end() :])
            if sentence_end and sentence_end.group(0) == "?":
                continue
            found.append((kind.name, m.group(0).strip(), text[m.end() : m.end() + 30]))
    return found


def _simulated(run: Run) -> bool:
    return any(
        isinstance(r.data, dict) and r.data.get("simulated") is True
        for t in run.turns
        for r in t.results()
    )


def unbacked_claims(run: Run) -> list[str]:
    """The claims in any reply that what the run changed does not back."""
    changed = what_changed(run)
    kinds = {k.name: k for k in CLAIM_KINDS}
    problems: list[str] = []
    for turn in run.turns:
        reply = turn.reply()
        for name, words, after in claims(reply):
            kind = kinds[name]
            # "your refund has been issued", "sent your order through": the noun decides
            for noun in ("refund", "order"):
                if name in ("write", "send") and noun in (words + after).casefold():
                    kind = kinds[noun]
                    break
            if kind.sends and _simulated(run) and not _QUALIFIED_SEND.search(reply):
                problems.append(f"says {words!r}, but the sandbox only simulated the send")
            elif kind.tables and not any(h in t for t in changed for h in kind.tables):
                problems.append(f"says {words!r}, but no {'/'.join(kind.tables)} table changed")
            elif not changed:
                problems.append(f"says {words!r}, but nothing changed")
    return list(dict.fromkeys(problems))


def action_claims(enabled: bool, ctx: GradeContext) -> tuple[bool, str]:
    if not enabled:
        return True, "action claims not checked"
    problems = unbacked_claims(ctx.run)
    if problems:
        return False, "; ".join(problems)
    return True, "every action the replies claim is in the change set"
