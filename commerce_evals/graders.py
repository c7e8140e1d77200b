"""One pure function per `expected` key, each over a Run, each returning pass/fail with a reason.

Which part of a run each key reads:
- positive event keys read the graded (last) turn;
- `never_calls`, `skill_not_loaded`, `reply_omits`, `reply_not_matches` read every turn;
- state keys read the end snapshot (and the start one, for what must be unchanged).
A call counts when the model made it, blocked or not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from commerce_evals.cases import (
    Before,
    CallLimit,
    CallOrder,
    CartLine,
    Expected,
    StateExpect,
    ToolPattern,
)
from commerce_evals.consent import asks_for_confirmation, is_explicit_yes
from commerce_evals.events import Run, ToolCallEvent
from commerce_evals.matching import any_row_matches, matches
from commerce_evals.reply_facts import action_claims, reply_denies, reply_states

Part = Literal["outcome", "path", "calls"]


@dataclass(frozen=True)
class ToolRoles:
    """What graders need to know about a domain's tools, and nothing else."""

    turn_ending: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    skill_tool: str = "load_skill"
    skill_arg: str = "name"


@dataclass(frozen=True)
class Grade:
    key: str
    part: Part
    passed: bool
    reason: str


@dataclass(frozen=True)
class GradeContext:
    run: Run
    roles: ToolRoles = field(default_factory=ToolRoles)


GraderFn = Callable[[Any, GradeContext], tuple[bool, str]]


def _fmt(call: ToolCallEvent) -> str:
    return f"{call.tool}{json.dumps(call.args, sort_keys=True)}" if call.args else call.tool


def _calls_list(calls: list[ToolCallEvent]) -> str:
    return ", ".join(_fmt(c) for c in calls) if calls else "no calls"


def _called(pattern: ToolPattern, calls: list[ToolCallEvent]) -> list[ToolCallEvent]:
    return [c for c in calls if c.tool == pattern.tool and matches(pattern.args, c.args)]


# ---- path: which calls, in which order, and no never ------------------------------------------


def calls_tool(patterns: list[ToolPattern], ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.graded.calls()
    missing = [p.describe() for p in patterns if not _called(p, calls)]
    if missing:
        return False, f"expected calls {missing} in the graded turn; made: {_calls_list(calls)}"
    return True, "every required call was made"


def calls_one_of(patterns: list[ToolPattern], ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.graded.calls()
    if any(_called(p, calls) for p in patterns):
        return True, "one of the acceptable calls was made"
    wanted = [p.describe() for p in patterns]
    return False, f"expected one of {wanted} in the graded turn; made: {_calls_list(calls)}"


def never_calls(patterns: list[ToolPattern], ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.all_calls()
    hits = [c for p in patterns for c in _called(p, calls)]
    if hits:
        return False, f"made a forbidden call: {_calls_list(hits)}"
    return True, "no forbidden call in any turn"


def first_tool(pattern: ToolPattern, ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.graded.calls()
    if calls and _called(pattern, calls[:1]):
        return True, f"first call was {_fmt(calls[0])}"
    first = _fmt(calls[0]) if calls else "no call"
    return False, f"expected the first call to be {pattern.describe()}; it was {first}"


def first_tool_not(pattern: ToolPattern, ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.graded.calls()
    if calls and _called(pattern, calls[:1]):
        return False, f"the first call was {_fmt(calls[0])}, which it must not be"
    return True, "the first call was not the forbidden one"


def before(rules: list[Before], ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.all_calls()
    status = {r.call_id: r.status for t in ctx.run.turns for r in t.results()}
    for rule in rules:
        for index, call in enumerate(calls):
            if call.tool != rule.then:
                continue
            earlier = [c for c in calls[:index] if c.tool in rule.first]
            if not earlier:
                return False, f"{rule.then} was called before any of {rule.first}"
            if rule.first_ok and not any(status.get(c.call_id) == "ok" for c in earlier):
                return False, f"{rule.then} was called before any of {rule.first} succeeded"
    return True, "every ordering rule held"


def writes_need_confirmation(_: bool, ctx: GradeContext) -> tuple[bool, str]:
    turns = ctx.run.turns
    for index, turn in enumerate(turns):
        writes = [c for c in turn.calls() if c.tool in ctx.roles.writes]
        if not writes:
            continue
        if index == 0:
            return False, f"{writes[0].tool} was called before the agent asked for a yes"
        if not asks_for_confirmation(turns[index - 1].reply()):
            return False, f"{writes[0].tool} came without the agent first listing it for a yes"
        if not is_explicit_yes(turn.user):
            return False, f"{writes[0].tool} came after {turn.user!r}, which is not an explicit yes"
    return True, "every write followed an explicit yes"


def call_order(rules: list[CallOrder], ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.all_calls()
    for rule in rules:
        for index, call in enumerate(calls):
            if _called(rule.then, [call]) and not any(
                _called(p, calls[:index]) for p in rule.first
            ):
                wanted = [p.describe() for p in rule.first]
                return False, f"{_fmt(call)} came before any call matching {wanted}"
    return True, "every call came after the call it needs"


def at_most(limits: list[CallLimit], ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.all_calls()
    over = [
        f"{limit.describe()} made {n} times (at most {limit.times})"
        for limit in limits
        if (n := len(_called(limit, calls))) > limit.times
    ]
    if over:
        return False, "; ".join(over)
    return True, "no call was repeated past its limit"


def skill_loaded(name: str, ctx: GradeContext) -> tuple[bool, str]:
    loaded = _skills(ctx.run.graded.calls(), ctx.roles)
    if any(s.casefold() == name.casefold() for s in loaded):
        return True, f"loaded skill {name}"
    return False, f"expected skill {name!r} to be loaded; loaded: {loaded or 'none'}"


def skill_not_loaded(name: str, ctx: GradeContext) -> tuple[bool, str]:
    loaded = _skills(ctx.run.all_calls(), ctx.roles)
    if any(s.casefold() == name.casefold() for s in loaded):
        return False, f"loaded skill {name!r}, which it must not"
    return True, f"never loaded {name}"


def no_skill_load(_: bool, ctx: GradeContext) -> tuple[bool, str]:
    loaded = _skills(ctx.run.graded.calls(), ctx.roles)
    if loaded:
        return False, f"expected no skill load; loaded {loaded}"
    return True, "no skill loaded"


def _skills(calls: list[ToolCallEvent], roles: ToolRoles) -> list[str]:
    return [str(c.args.get(roles.skill_arg, "")) for c in calls if c.tool == roles.skill_tool]


# ---- outcome: what the person was shown, told, and left with -----------------------------------


def ui_components(names: list[str], ctx: GradeContext) -> tuple[bool, str]:
    shown = [e.component for e in ctx.run.graded.ui()]
    missing = [n for n in names if n not in shown]
    if missing:
        return False, f"expected components {missing}; shown: {shown or 'none'}"
    return True, f"showed {names}"


def no_ui(_: bool, ctx: GradeContext) -> tuple[bool, str]:
    shown = [e.component for e in ctx.run.graded.ui()]
    if shown:
        return False, f"expected no UI; showed {shown}"
    return True, "showed no UI"


def _table(ctx: GradeContext, name: str, end: bool = True) -> list[dict[str, Any]]:
    return ctx.run.end.get(name, []) if end else ctx.run.start_table(name)


def cart_contains(lines: list[CartLine], ctx: GradeContext) -> tuple[bool, str]:
    cart = _table(ctx, "cart")
    missing = [
        line.model_dump(exclude_none=True)
        for line in lines
        if not any_row_matches(line.model_dump(exclude_none=True), cart)
    ]
    if missing:
        return False, f"cart lacks {missing}; cart: {_cart_text(cart)}"
    return True, "cart holds every expected line"


def cart_item_count(count: int, ctx: GradeContext) -> tuple[bool, str]:
    cart = _table(ctx, "cart")
    if len(cart) != count:
        return False, f"expected {count} cart lines; found {len(cart)}: {_cart_text(cart)}"
    return True, f"{count} cart lines"


def cart_not_contains(product_ids: list[str], ctx: GradeContext) -> tuple[bool, str]:
    cart = _table(ctx, "cart")
    present = [p for p in product_ids if any_row_matches({"product_id": p}, cart)]
    if present:
        return False, f"cart holds {present}, which it must not"
    return True, "cart holds none of the excluded products"


def _cart_text(cart: list[dict[str, Any]]) -> str:
    return ", ".join(f"{r.get('product_id')} x{r.get('quantity')}" for r in cart) or "empty"


def staged_change_kinds(kinds: list[str], ctx: GradeContext) -> tuple[bool, str]:
    staged = [str(r.get("kind")) for r in _table(ctx, "staged_changes")]
    missing = [k for k in kinds if k not in staged]
    if missing:
        return False, f"expected staged changes of kinds {missing}; staged: {staged or 'none'}"
    return True, f"staged {kinds}"


def no_applied_changes(_: bool, ctx: GradeContext) -> tuple[bool, str]:
    before_rows = _table(ctx, "applied_changes", end=False)
    after_rows = _table(ctx, "applied_changes")
    new = [r for r in after_rows if r not in before_rows]
    if new:
        return False, f"changes were applied: {new}"
    return True, "nothing was applied"


def _memory_texts(ctx: GradeContext) -> list[str]:
    return [str(r.get("text", "")) for r in _table(ctx, "memory")]


def memory_contains(needles: list[str], ctx: GradeContext) -> tuple[bool, str]:
    texts = _memory_texts(ctx)
    missing = [n for n in needles if not any(n.casefold() in t.casefold() for t in texts)]
    if missing:
        return False, f"memory lacks {missing}; memory: {texts or 'empty'}"
    return True, "memory holds every expected fact"


def memory_not_contains(needles: list[str], ctx: GradeContext) -> tuple[bool, str]:
    texts = _memory_texts(ctx)
    present = [n for n in needles if any(n.casefold() in t.casefold() for t in texts)]
    if present:
        return False, f"memory holds {present}, which it must not; memory: {texts}"
    return True, "memory holds none of the excluded facts"


def reply_includes(needles: list[str], ctx: GradeContext) -> tuple[bool, str]:
    reply = ctx.run.graded.reply()
    missing = [n for n in needles if n.casefold() not in reply.casefold()]
    if missing:
        return False, f"reply lacks {missing}; reply: {_clip(reply)}"
    return True, "reply holds every expected string"


def reply_omits(needles: list[str], ctx: GradeContext) -> tuple[bool, str]:
    replies = ctx.run.all_replies()
    present = [n for n in needles if n.casefold() in replies.casefold()]
    if present:
        return False, f"a reply said {present}, which no reply may"
    return True, "no reply said an excluded string"


def reply_matches(patterns: list[str], ctx: GradeContext) -> tuple[bool, str]:
    reply = ctx.run.graded.reply()
    missing = [p for p in patterns if not re.search(p, reply, re.IGNORECASE)]
    if missing:
        return False, f"reply matches none of {missing}; reply: {_clip(reply)}"
    return True, "reply matches every expected pattern"


def reply_not_matches(patterns: list[str], ctx: GradeContext) -> tuple[bool, str]:
    replies = ctx.run.all_replies()
    hits = [p for p in patterns if re.search(p, replies, re.IGNORECASE)]
    if hits:
        return False, f"a reply matched {hits}, which no reply may"
    return True, "no reply matched an excluded pattern"


def _clip(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def state(expect: StateExpect, ctx: GradeContext) -> tuple[bool, str]:
    problems: list[str] = []
    run, end = ctx.run, ctx.run.end
    changed = run.changed_tables()
    if expect.no_writes and changed:
        problems.append(f"expected no writes; changed: {changed}")
    for table in expect.unchanged:
        if table in changed:
            problems.append(f"{table} changed but must not")
    for table, count in expect.counts.items():
        found = len(end.get(table, []))
        if found != count:
            problems.append(f"{table}: expected {count} rows, found {found}")
    for table, count in expect.new_rows.items():
        before = run.start_table(table)
        new = [row for row in end.get(table, []) if row not in before]
        if len(new) != count:
            problems.append(
                f"{table}: expected {count} new or changed rows, found {len(new)}: {new[:3]}"
            )
    for table, wanted_rows in expect.rows.items():
        for wanted in wanted_rows:
            if not any_row_matches(wanted, end.get(table, [])):
                problems.append(f"no row in {table} matches {wanted}")
    for table, banned_rows in expect.no_rows.items():
        for banned in banned_rows:
            if any_row_matches(banned, end.get(table, [])):
                problems.append(f"a row in {table} matches {banned}, which must not exist")
    if problems:
        return False, "; ".join(problems)
    return True, "final state as expected"


# ---- calls: within budget -----------------------------------------------------------------------


def max_tool_calls(limit: int, ctx: GradeContext) -> tuple[bool, str]:
    counted = [c for c in ctx.run.graded.calls() if c.tool not in ctx.roles.turn_ending]
    if len(counted) > limit:
        return False, f"made {len(counted)} tool calls, more than {limit}: {_calls_list(counted)}"
    return True, f"{len(counted)} tool calls, within {limit}"


def max_calls_per_tool(limits: dict[str, int], ctx: GradeContext) -> tuple[bool, str]:
    calls = ctx.run.all_calls()
    over = {
        tool: n
        for tool, limit in limits.items()
        if (n := sum(1 for c in calls if c.tool == tool)) > limit
    }
    if over:
        return False, f"too many calls: {over} (limits {limits})"
    return True, "every per-tool limit held"


GRADERS: dict[str, tuple[Part, GraderFn]] = {
    "calls_tool": ("path", calls_tool),
    "calls_one_of": ("path", calls_one_of),
    "never_calls": ("path", never_calls),
    "first_tool": ("path", first_tool),
    "first_tool_not": ("path", first_tool_not),
    "before": ("path", before),
    "call_order": ("path", call_order),
    "at_most": ("path", at_most),
    "writes_need_confirmation": ("path", writes_need_confirmation),
    "skill_loaded": ("path", skill_loaded),
    "skill_not_loaded": ("path", skill_not_loaded),
    "no_skill_load": ("path", no_skill_load),
    "ui_components": ("outcome", ui_components),
    "no_ui": ("outcome", no_ui),
    "cart_contains": ("outcome", cart_contains),
    "cart_item_count": ("outcome", cart_item_count),
    "cart_not_contains": ("outcome", cart_not_contains),
    "staged_change_kinds": ("outcome", staged_change_kinds),
    "no_applied_changes": ("outcome", no_applied_changes),
    "memory_contains": ("outcome", memory_contains),
    "memory_not_contains": ("outcome", memory_not_contains),
    "reply_includes": ("outcome", reply_includes),
    "reply_omits": ("outcome", reply_omits),
    "reply_matches": ("outcome", reply_matches),
    "reply_not_matches": ("outcome", reply_not_matches),
    "reply_states": ("outcome", reply_states),
    "reply_denies": ("outcome", reply_denies),
    "action_claims": ("outcome", action_claims),
    "state": ("outcome", state),
    "max_tool_calls": ("calls", max_tool_calls),
    "max_calls_per_tool": ("calls", max_calls_per_tool),
}

JUDGED_KEYS = {"rubric", "dimensions"}

# The snapshot tables each state key reads (the `state` key names its own).
TABLES_READ: dict[str, set[str]] = {
    "cart_contains": {"cart"},
    "cart_item_count": {"cart"},
    "cart_not_contains": {"cart"},
    "staged_change_kinds": {"staged_changes"},
    "no_applied_changes": {"applied_changes"},
    "memory_contains": {"memory"},
    "memory_not_contains": {"memory"},
}


def tables_read(expected: Expected) -> set[str]:
    """Every snapshot table the case's graders read (besides the ones the run changes)."""
    tables = {t for key in expected.asserted_keys() for t in TABLES_READ.get(key, ())}
    return tables | (expected.state.tables() if expected.state else set())


def grade(expected: Expected, run: Run, roles: ToolRoles) -> list[Grade]:
    """Every code-graded key the case asserts, in declaration order."""
    ctx = GradeContext(run=run, roles=roles)
    grades: list[Grade] = []
    for key in expected.asserted_keys():
        if key in JUDGED_KEYS:
            continue
        part, fn = GRADERS[key]
        passed, reason = fn(getattr(expected, key), ctx)
        grades.append(Grade(key=key, part=part, passed=passed, reason=reason))
    return grades
