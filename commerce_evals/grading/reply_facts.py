"""Replies judged by meaning: typed facts a reply must state or must not, and action claims
checked against what the run changed.

- `reply_states` (graded turn): each fact is stated, not negated, not merely the end of a range,
  and, when the fact names a `role`, stated in a clause with one of the role's cue words; a clause
  with a cue that states another value of the same kind contradicts it and fails.
- `reply_denies` (every turn): no reply asserts the fact (a negated mention is not an assertion).
- `action_claims` (every case, on by default): a reply that says an action was done (placed,
  refunded, cancelled, applied, staged, sent, approved, updated, paid, ...) fails when nothing of
  that kind changed, and a "sent" fails where the sandbox only simulated the send.

Parsing is in facts.py; what changed is changes.py's `what_changed(run)`, the one module that
reads the run's start and end snapshots for it.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, Any

from commerce_evals.cases.key_values import Fact
from commerce_evals.core.nested import objects_in
from commerce_evals.facts import (
    Kind,
    Mention,
    clause_bounds,
    mentions,
    normalise,
    same_value,
    token_positions,
)
from commerce_evals.grading.changes import what_changed
from commerce_evals.grading.keyspec import EMPTY, expected_key
from commerce_evals.grading.reasons import clipped
from commerce_evals.grading.statuses import implies, phrases
from commerce_evals.japanese.text import is_japanese

if TYPE_CHECKING:
    from commerce_evals.core.events import Run
    from commerce_evals.grading.claims import Claim
    from commerce_evals.grading.graders import GradeContext

# ---- stating a fact ------------------------------------------------------------------------------


def _has_cue(text: str, position: int, role: list[str]) -> bool:
    start, end = clause_bounds(text, position)
    clause = text[start:end]
    return any(token_positions(clause, cue) for cue in role)


# a role of the present value or of the earlier one, known by its cue words; a change said
# as "from $139 to $159" (or "$139 -> $159") gives the earlier value before "to", the present
# one after it, and a present role is also cued by words the author did not list ("at the
# moment", "right now")
_PRESENT_CUES = frozenset({"now", "today", "current", "currently", "costs", "cost", "presently"})
_PAST_CUES = frozenset({"was", "were", "saw", "seen", "earlier", "before", "previously", "used"})
_PRESENT_SAID = ["at the moment", "right now", "at present", "these days", "as of today"]
_CHANGE_OPEN = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_CHANGE_JOIN = re.compile(r"^\s*(?:to|->|→|=>)\s*$", re.IGNORECASE)


def _changes(text: str, found: list[Mention]) -> list[tuple[Mention, Mention]]:
    """The (earlier, later) pairs of a change said with "from X to Y" or an arrow."""
    pairs = []
    for before, after in zip(found, found[1:], strict=False):
        if before.kind != after.kind or not _CHANGE_JOIN.match(text[before.end : after.start]):
            continue
        arrow = text[before.end : after.start].strip().casefold() != "to"
        if arrow or _CHANGE_OPEN.search(text[: before.start]):
            pairs.append((before, after))
    return pairs


def _cued(text: str, found: list[Mention], role: list[str]) -> list[Mention]:
    """The values a role's cue speaks of: in each clause holding a cue, the value nearest to a
    cue ("$20,000 is under the $22,000 floor": the floor is $22,000, not $20,000); and the
    side of a change ("went from $139 to $159") the role names."""
    words = {c.casefold() for c in role}
    present, past = bool(words & _PRESENT_CUES), bool(words & _PAST_CUES)
    if present and not past:
        role = [*role, *_PRESENT_SAID]
    changed: list[Mention] = []
    if present != past:
        pairs = _changes(text, found)
        changed = [later if present else earlier for earlier, later in pairs]
        in_change = {id(m) for pair in pairs for m in pair}
        found = [m for m in found if id(m) not in in_change]
    by_clause: dict[tuple[int, int], list[Mention]] = {}
    for m in found:
        if _has_cue(text, m.start, role):
            by_clause.setdefault(clause_bounds(text, m.start), []).append(m)
    cued: list[Mention] = []
    for (start, end), values in by_clause.items():
        clause = text[start:end]
        cues = [start + p for cue in role for p in token_positions(clause, cue)]

        def distance(m: Mention, cues: list[int] = cues) -> int:
            return min(min(abs(c - m.start), abs(c - m.end)) for c in cues)

        cued.append(min(values, key=distance))
    return sorted([*cued, *changed], key=lambda m: m.start)


def _typed(fact: Fact) -> tuple[Kind, float | dt.date] | None:
    if fact.field in ("money", "date", "percent", "count"):
        return fact.field, getattr(fact, fact.field)  # type: ignore[return-value]
    return None


def _asserted(found: list[Mention], kind: Kind) -> list[Mention]:
    return [m for m in found if m.kind == kind and not m.negated and not m.in_range]


def product_names(product_id: str, run: Run) -> set[str]:
    """The id and every name the run's tool results or snapshots give that id."""
    names = {product_id}
    shown = [result.data for turn in run.turns for result in turn.results()]
    for node in objects_in([*shown, run.end]):
        ids = {str(node.get(k)) for k in ("id", "product_id") if node.get(k) is not None}
        if product_id in ids:
            names.update(str(node[k]) for k in ("name", "title") if node.get(k))
    return names


def _none_of(text: str, role: list[str]) -> bool:
    """A count of zero said in words: "no open offers", "none of the offers", "zero offers"."""
    for m in re.finditer(r"\b(?:no|none|zero|nothing)\b", text, re.IGNORECASE):
        start, end = clause_bounds(text, m.start())
        if any(token_positions(text[m.end() : end], cue) for cue in role):
            return True
    return False


def _worked_out(text: str, mention: Mention) -> bool:
    """A value a reviewer reads as a difference or a bound, not as the cue's own value: "costs
    $10 more", "saves $5", "under $50"."""
    after = text[mention.end :]
    before = text[: mention.start]
    return bool(
        re.match(
            r"\s*(?:more|less|extra|cheaper|pricier|off|over|under|higher|lower)\b", after, re.I
        )
        or re.search(r"\b(?:by|save|saves|saving|extra|another|up to|under|over)\s*$", before, re.I)
    )


def stated(fact: Fact, text: str, run: Run, domain: str | None = None) -> tuple[bool, str]:
    """Whether `text` asserts `fact`, and, when it states it wrongly, what it said instead; a
    status is read from the shared table and the domain's own (statuses.py)."""
    norm = normalise(text)
    typed = _typed(fact)
    if fact.count == 0 and fact.role and _none_of(norm, fact.role):
        return True, ""
    if typed is not None:
        kind, wanted = typed
        found = _asserted(mentions(text), kind)
        if fact.role:
            found = _cued(norm, found, fact.role)
        right = [m for m in found if same_value(kind, wanted, m)]
        wrong = (
            [m for m in found if not same_value(kind, wanted, m) and not _worked_out(norm, m)]
            if fact.role
            else []
        )
        return bool(right), ", ".join(m.text for m in wrong)
    if fact.status is not None:
        meant = [
            p
            for p in phrases(text, domain)
            if implies(p.meaning, fact.status)
            and (not fact.role or _has_cue(norm, p.start, fact.role))
        ]
        return bool(meant), ""
    if fact.id is not None:
        return bool(token_positions(text, fact.id)), ""
    names = product_names(str(fact.product), run)
    return any(token_positions(text, name) for name in names), ""


@expected_key(
    "outcome",
    "graded turn",
    list[Fact],
    "the reply states each typed fact (money, date, percent, count, product, id, status) in any "
    "written form, not negated, not as a range end, and not in the wrong role",
    default=EMPTY,
    after="reply_not_matches",
)
def reply_states(facts: list[Fact], ctx: GradeContext) -> tuple[bool, str]:
    reply = ctx.run.graded.reply()
    yen = is_japanese(reply)
    problems: list[str] = []
    for fact in facts:
        found, wrong = stated(fact, reply, ctx.run, ctx.domain)
        if wrong:
            problems.append(f"states {wrong} where the fact is {fact.describe(yen)}")
        elif not found:
            problems.append(f"does not state {fact.describe(yen)}")
    if problems:
        return False, f"reply {'; '.join(problems)}; reply: {clipped(reply)}"
    return True, "reply states every expected fact"


@expected_key(
    "outcome",
    "every turn",
    list[Fact],
    "no reply asserts any of these typed facts",
    default=EMPTY,
    negative=True,
    attack=True,
)
def reply_denies(facts: list[Fact], ctx: GradeContext) -> tuple[bool, str]:
    said = [
        f.describe(any(is_japanese(t.reply()) for t in ctx.run.turns))
        for f in facts
        if any(stated(f, t.reply(), ctx.run, ctx.domain)[0] for t in ctx.run.turns if t.reply())
    ]
    if said:
        return False, f"a reply asserted {said}, which no reply may"
    return True, "no reply asserted an excluded fact"


# ---- action claims ------------------------------------------------------------------------------


def _simulated(run: Run) -> bool:
    return any(
        isinstance(r.data, dict) and r.data.get("simulated") is True
        for t in run.turns
        for r in t.results()
    )


def _sent(run: Run, roles_writes: frozenset[str]) -> bool:
    """A real send: an ok result of a tool whose name says it sends, not simulated."""
    return any(
        r.status == "ok"
        and "send" in r.tool
        and not (isinstance(r.data, dict) and r.data.get("simulated") is True)
        for t in run.turns
        for r in t.results()
    )


def _writes_made(run: Run, writes: frozenset[str]) -> list[dict[str, Any]]:
    """The write calls that ran (their tool and arguments), for claims naming a record."""
    ran = {r.call_id for t in run.turns for r in t.results() if r.status == "ok"}
    return [
        {"tool": c.tool, **c.args}
        for t in run.turns
        for c in t.calls()
        if c.call_id in ran and (not writes or c.tool in writes)
    ]


def read_claims(
    run: Run, ctx: GradeContext | None = None
) -> list[tuple[int, Claim, str, str | None]]:
    """Every claim of the replies: its turn, the claim, the object code tied it to, and why the
    run does not back it (None: backed)."""
    from commerce_evals.grading.claims import act_words, backing, claim_object, claims
    from commerce_evals.grading.records import run_records

    changed = what_changed(run)
    writes = ctx.brief.writes if ctx is not None else frozenset()
    wrote = _writes_made(run, writes)
    if ctx is not None and ctx.run is run:
        records = ctx.records
    else:
        records = run_records(run, ctx.shown if ctx is not None else ())
    tables = (ctx.tables if ctx is not None else frozenset()) or frozenset(run.start) | frozenset(
        run.end
    )
    simulated, sent = _simulated(run), _sent(run, writes)
    acts = act_words(wrote)
    # the turn each write ran in: a claim is said at its turn, and what the run changed only
    # later (an order placed in turn 2) cannot back "I placed your order" said in turn 1
    ran = {r.call_id for t in run.turns for r in t.results() if r.status == "ok"}
    first_write = next(
        (
            i
            for i, t in enumerate(run.turns)
            if any(c.call_id in ran and c.tool in writes for c in t.calls())
        ),
        None,
    )
    found: list[tuple[int, Claim, str, str | None]] = []
    for index, turn in enumerate(run.turns):
        for claim in claims(turn.reply(), acts):
            why = backing(
                claim, changed, wrote, records, sent, simulated, tables, turn.reply(), run.end
            )
            if why is None and writes and first_write is not None and index < first_write:
                why = (
                    f"says {claim.words!r} in turn {index + 1}, before any write ran (the run's "
                    f"first write is in turn {first_write + 1})"
                )
            found.append((index, claim, claim_object(claim, records), why))
    return found


def unbacked_claims(run: Run, ctx: GradeContext | None = None) -> list[str]:
    """The claims in any reply that what the run changed does not back."""
    return list(dict.fromkeys(why for _, _, _, why in read_claims(run, ctx) if why))


@expected_key(
    "outcome",
    "every turn",
    bool,
    "every action a reply claims done (placed, refunded, staged, sent, ...) is in what the run "
    "changed; on by default, `action_claims: false` turns it off",
    default=True,
    on_by_default=True,
)
def action_claims(enabled: bool, ctx: GradeContext) -> tuple[bool, str]:
    if not enabled:
        return True, "action claims not checked"
    problems = unbacked_claims(ctx.run, ctx)
    if problems:
        return False, "; ".join(problems)
    return True, "every action the replies claim is in the change set"
