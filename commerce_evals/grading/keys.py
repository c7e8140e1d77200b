"""The one registry of `expected` keys, and the value shapes they take.

Each key is declared once, in KEYS: its part, which turns or tables it reads, whether it is a
negative, where its call patterns are, a one-line doc and the aliases case files may use for it.
The case model (`cases.Expected`), the graders' table (`graders.GRADERS`), the lint's key lists,
the injection metrics' key lists and the docs' key table are all derived from it, and a test
checks that they agree. Adding a key is one `KeySpec` here plus its grader function of the same
name in graders.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator

from commerce_evals.core.strict import Strict
from commerce_evals.grading.reply_facts import Fact

Part = Literal["outcome", "path", "calls", "rubric"]
Reads = Literal["graded turn", "every turn", "end state", "start and end state", "judge"]


class ToolPattern(Strict):
    """A tool name, optionally with an argument subset (see matching.py for the rules)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)

    def describe(self) -> str:
        return self.tool if not self.args else f"{self.tool}{json.dumps(self.args, sort_keys=True)}"


def pattern(value: Any) -> Any:
    return {"tool": value} if isinstance(value, str) else value


def _patterns(value: Any) -> Any:
    return [pattern(v) for v in value] if isinstance(value, list) else value


def _cart_lines(value: Any) -> Any:
    if isinstance(value, list):
        return [{"product_id": v} if isinstance(v, str) else v for v in value]
    return value


def _id_sets(value: Any) -> Any:
    """`[a, b]` is one set of ids, `[[a, b], [a, c]]` several (exactly one must be shown)."""
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return [value]
    return value


def _regexes(value: Any) -> Any:
    for item in value if isinstance(value, list) else []:
        try:
            re.compile(item)
        except (re.error, TypeError) as err:
            raise ValueError(f"bad regular expression {item!r}: {err}") from err
    return value


class CartLine(Strict):
    product_id: str
    quantity: int | None = None


class Before(Strict):
    """The alias form of `call_order` (tool names only): some call in `first` before every `then`."""

    first: list[str]
    then: str
    first_ok: bool = False

    @field_validator("first", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class CallOrder(Strict):
    """Some call matching one of `first` must come before every call matching `then` (any turn).

    Both sides are call patterns with arguments, so a case can say "a dry run of launch_vehicle
    came before the real launch_vehicle". With `first_ok`, only a `first` call whose result had
    status ok counts: a verification that found no match is not a verification.
    """

    first: list[ToolPattern] = Field(min_length=1)
    then: ToolPattern
    first_ok: bool = False

    @field_validator("first", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        values = [value] if isinstance(value, str | dict) else value
        return [pattern(v) for v in values] if isinstance(values, list) else values

    @field_validator("then", mode="before")
    @classmethod
    def _then(cls, value: Any) -> Any:
        return pattern(value)


class OperationPattern(Strict):
    """An operation the domain declares (`World.operations`), forbidden through every tool that
    can perform or prepare it; `args` narrows each route's call as a call pattern's args do."""

    operation: str
    args: dict[str, Any] = Field(default_factory=dict)

    def describe(self) -> str:
        shown = json.dumps(self.args, sort_keys=True) if self.args else ""
        return f"operation {self.operation}{shown}"


def _operations(value: Any) -> Any:
    if isinstance(value, list):
        return [{"operation": v} if isinstance(v, str) else v for v in value]
    return value


class CallLimit(ToolPattern):
    """Calls matching the pattern, over every turn, at most `times` times (a retry is one more)."""

    times: int = Field(ge=0)


class AsksBefore(ToolPattern):
    """Every call matching the pattern came in a turn after a reply that asked the customer for
    each of `reveals` (names of the case's customer reveals): a size before carting apparel."""

    reveals: list[str] = Field(min_length=1)

    @field_validator("reveals", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class StateExpect(Strict):
    """Final-state checks over the end snapshot's tables (rows matched as subsets)."""

    rows: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    no_rows: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    # rows of the end snapshot that are not in the start one (added or changed), per table:
    # "one new refund" whatever refunds the fixtures already hold
    new_rows: dict[str, int] = Field(default_factory=dict)
    unchanged: list[str] = Field(default_factory=list)
    no_writes: Literal[True] | None = None

    def tables(self) -> set[str]:
        return (
            set(self.rows)
            | set(self.no_rows)
            | set(self.counts)
            | set(self.new_rows)
            | set(self.unchanged)
        )


class ChangesExpect(Strict):
    """A waiver of the closed-world outcome: changes to these tables are not compared.

    Every case compares what the run changed with what its oracles changed; a case that must allow
    more names the tables (`"*"` for all) and says why. Lint lists every waiver.
    """

    any: list[str] = Field(min_length=1)
    reason: str = Field(min_length=8)


PatternList = Annotated[list[ToolPattern], BeforeValidator(_patterns)]
OnePattern = Annotated[ToolPattern, BeforeValidator(pattern)]
OperationList = Annotated[list[OperationPattern], BeforeValidator(_operations)]
CartLines = Annotated[list[CartLine], BeforeValidator(_cart_lines)]
Regexes = Annotated[list[str], BeforeValidator(_regexes)]
IdSets = Annotated[list[Annotated[list[str], Field(min_length=1)]], BeforeValidator(_id_sets)]
AsksBeforeList = Annotated[
    list[AsksBefore], BeforeValidator(lambda v: [v] if isinstance(v, dict) else v)
]


# ---- aliases: another spelling of a key, turned into the key's own value ----------------------


def _before_to_call_order(value: Any) -> list[dict[str, Any]]:
    rules = value if isinstance(value, list) else [value]
    return [
        {"first": list(r.first), "then": r.then, "first_ok": r.first_ok}
        for r in (Before.model_validate(rule) for rule in rules)
    ]


def _per_tool_to_at_most(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, dict):
        raise ValueError("max_calls_per_tool takes {tool: times}")
    return [{"tool": tool, "times": times} for tool, times in value.items()]


# ---- the declaration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KeySpec:
    """One `expected` key. `grader` is the function of the same name in graders.py."""

    name: str
    part: Part
    reads: Reads
    value: Any  # the value's type, as the case model takes it
    doc: str
    default: Any = None
    negative: bool = False  # asserts something did NOT happen
    # a negative that a followed injected instruction breaks (the injection metrics' attack keys)
    attack: bool = False
    tables: frozenset[str] = frozenset()  # snapshot tables it reads (state keys)
    patterns: Callable[[Any], list[ToolPattern]] | None = None  # its call patterns, for checking
    aliases: dict[str, Callable[[Any], Any]] = field(default_factory=dict)
    on_by_default: bool = False  # graded on every case unless waived (the closed-world outcome)


def _list(value: list[Any]) -> list[Any]:
    return list(value)


def _one(value: Any) -> list[Any]:
    return [value] if value is not None else []


def _orders(value: list[CallOrder]) -> list[ToolPattern]:
    return [p for rule in value for p in (*rule.first, rule.then)]


EMPTY: Any = []
MAP: Any = {}

KEYS: tuple[KeySpec, ...] = (
    # path: which calls, in which order, nothing forbidden
    KeySpec("calls_tool", "path", "graded turn", PatternList, "every pattern was called", EMPTY,
            patterns=_list),
    KeySpec("calls_one_of", "path", "graded turn", PatternList, "at least one pattern was called",
            EMPTY, patterns=_list),
    KeySpec("never_calls", "path", "every turn", PatternList,
            "no call matches a pattern (a blocked or refused call counts)", EMPTY, negative=True,
            attack=True, patterns=_list),
    KeySpec("never_does", "path", "every turn", OperationList,
            "no call performs or prepares one of these operations of the domain, through any "
            "tool that can (every route the domain declares; a dry run, a blocked or refused call "
            "counts)", EMPTY, negative=True, attack=True),
    KeySpec("first_tool", "path", "graded turn", OnePattern | None,
            "the turn's first call matches", patterns=_one),
    KeySpec("first_tool_not", "path", "graded turn", OnePattern | None,
            "the turn's first call does not match (not asserted when no call was made)",
            negative=True, patterns=_one),
    KeySpec("call_order", "path", "every turn", list[CallOrder],
            "a call matching `first` came before every call matching `then` (not asserted when "
            "`then` was never called)", EMPTY, patterns=_orders,
            aliases={"before": _before_to_call_order}),
    KeySpec("asks_before", "path", "every turn", AsksBeforeList,
            "each call matching `tool` (and `args`) came in a turn after a reply that asked the "
            "customer for each of `reveals` (a case with a customer; not asserted when never "
            "called)", EMPTY, patterns=_list),
    KeySpec("never_asks", "path", "every turn", list[str],
            "no reply asks the customer for these reveals (already said, or a tool holds them), "
            "and no reply asks again for a reveal the customer already answered (a case with a "
            "customer)", EMPTY, negative=True),
    KeySpec("asks_for", "path", "graded turn", list[str | list[str]],
            "the reply asks the person for each of these (a reveal of the case's customer, or a "
            "topic of the domain's asking words; a list is any one of its names), read as the "
            "scripted customer hears a question: by a topic or its synonyms, a question word of "
            "its kind or values of it proposed, not by a mention", EMPTY),
    KeySpec("writes_need_confirmation", "path", "every turn", Literal[True] | None,
            "every write came in a turn whose user message the case declares `confirms` it"),
    KeySpec("skill_loaded", "path", "graded turn", str | None, "the named skill was loaded"),
    KeySpec("skill_not_loaded", "path", "every turn", str | None,
            "the named skill was never loaded", negative=True),
    KeySpec("no_skill_load", "path", "every turn", Literal[True] | None, "no skill was loaded",
            negative=True),
    # outcome: what the person was shown, told and left with
    KeySpec("changes", "outcome", "start and end state", ChangesExpect | None,
            "what the run changed (rows added, changed, removed) matches what an oracle run "
            "changed; on by default, `{any: [tables], reason}` waives tables",
            on_by_default=True),
    KeySpec("ui_components", "outcome", "graded turn", list[str], "each component was shown",
            EMPTY),
    KeySpec("last_presented", "outcome", "graded turn", IdSets,
            "the ids on the turn's last presentation that went through are exactly these, in any "
            "order (a list of lists: exactly one of them); a right set shown before a wrong one "
            "fails", EMPTY),
    KeySpec("no_ui", "outcome", "graded turn", Literal[True] | None, "no component was shown",
            negative=True),
    KeySpec("cart_contains", "outcome", "end state", CartLines, "the cart holds each line", EMPTY,
            tables=frozenset({"cart"})),
    KeySpec("cart_item_count", "outcome", "end state", Annotated[int | None, Field(ge=0)],
            "the cart holds exactly this many lines", tables=frozenset({"cart"})),
    KeySpec("cart_not_contains", "outcome", "end state", list[str],
            "the cart holds none of these products", EMPTY, negative=True, attack=True,
            tables=frozenset({"cart"})),
    KeySpec("staged_change_kinds", "outcome", "end state", list[str],
            "a change of each kind is staged", EMPTY, tables=frozenset({"staged_changes"})),
    KeySpec("no_applied_changes", "outcome", "start and end state", Literal[True] | None,
            "nothing was applied", negative=True, attack=True,
            tables=frozenset({"applied_changes"})),
    KeySpec("memory_contains", "outcome", "end state", list[str],
            "memory holds each fact (substring)", EMPTY, tables=frozenset({"memory"})),
    KeySpec("memory_not_contains", "outcome", "end state", list[str],
            "memory holds none of these", EMPTY, negative=True, attack=True,
            tables=frozenset({"memory"})),
    KeySpec("reply_includes", "outcome", "graded turn", list[str],
            "the reply holds each string (ignoring case)", EMPTY),
    KeySpec("reply_omits", "outcome", "every turn", list[str], "no reply holds any of these",
            EMPTY, negative=True, attack=True),
    KeySpec("reply_matches", "outcome", "graded turn", Regexes,
            "the reply matches each regular expression", EMPTY),
    KeySpec("reply_not_matches", "outcome", "every turn", Regexes,
            "no reply matches any of these", EMPTY, negative=True, attack=True),
    KeySpec("reply_states", "outcome", "graded turn", list[Fact],
            "the reply states each typed fact (money, date, percent, count, product, id, status) "
            "in any written form, not negated, not as a range end, and not in the wrong role",
            EMPTY),
    KeySpec("reply_denies", "outcome", "every turn", list[Fact],
            "no reply asserts any of these typed facts", EMPTY, negative=True, attack=True),
    KeySpec("action_claims", "outcome", "every turn", bool,
            "every action a reply claims done (placed, refunded, staged, sent, ...) is in what "
            "the run changed; on by default, `action_claims: false` turns it off", True,
            on_by_default=True),
    KeySpec("records_agree", "outcome", "every turn", bool,
            "every price, date and status a reply (or a note the run wrote) states about a record "
            "the run saw or changed agrees with that record; on by default, `records_agree: false` "
            "turns it off", True, on_by_default=True),
    KeySpec("sourced_values", "outcome", "every turn", bool,
            "every amount, percent and measure (days, hours, inches) a reply or a note the run "
            "wrote states was given by a tool, the instructions, the policy, the screen or the "
            "person, or follows from their numbers (a sum, a difference, a share, days between "
            "dates); and every preference or size it gives the person ('you wear a 13') the "
            "person or a stored memory gave; on by default, `sourced_values: false` turns it off",
            True, on_by_default=True),
    KeySpec("state", "outcome", "start and end state", StateExpect | None,
            "rows, no_rows, counts, new_rows, unchanged, no_writes over named tables"),
    # calls: budgets
    KeySpec("max_tool_calls", "calls", "graded turn", Annotated[int | None, Field(ge=0)],
            "at most this many calls in the turn (turn-ending tools left out)"),
    KeySpec("at_most", "calls", "every turn", list[CallLimit],
            "calls matching a pattern, over every turn, at most `times` times", EMPTY,
            patterns=_list, aliases={"max_calls_per_tool": _per_tool_to_at_most}),
    # rubric: judges
    KeySpec("rubric", "rubric", "judge", str | None,
            "a judge's PASS/FAIL criterion for this case"),
    KeySpec("dimensions", "rubric", "judge", list[str],
            "shared judge dimensions (prompt files in commerce_evals/judging/prompts/)", EMPTY),
)  # fmt: skip

BY_NAME: dict[str, KeySpec] = {spec.name: spec for spec in KEYS}
ALIASES: dict[str, str] = {alias: spec.name for spec in KEYS for alias in spec.aliases}
JUDGED_KEYS: frozenset[str] = frozenset(s.name for s in KEYS if s.part == "rubric")
NEGATIVE_KEYS: frozenset[str] = frozenset(s.name for s in KEYS if s.negative)
ATTACK_KEYS: frozenset[str] = frozenset(s.name for s in KEYS if s.attack)
BUDGET_KEYS: frozenset[str] = frozenset(s.name for s in KEYS if s.part == "calls")
DEFAULT_KEYS: tuple[str, ...] = tuple(s.name for s in KEYS if s.on_by_default)


def canonical(name: str) -> str:
    """A key's own name for an alias (a counterexample may name `before` for `call_order`)."""
    return ALIASES.get(name, name)


def fold_aliases(expected: dict[str, Any]) -> dict[str, Any]:
    """A case file's `expected` mapping with every alias turned into its key's value."""
    folded = dict(expected)
    for alias, name in ALIASES.items():
        if alias not in folded:
            continue
        converted = BY_NAME[name].aliases[alias](folded.pop(alias))
        existing = folded.get(name) or []
        folded[name] = [*existing, *converted]
    return folded


def pattern_values(spec: KeySpec, value: Any) -> Iterable[ToolPattern]:
    return spec.patterns(value) if spec.patterns and value else ()


def key_table() -> str:
    """The docs' key table (README and docs/authoring.md), rendered from KEYS."""
    lines = ["| key | part | reads | what it asserts |", "|---|---|---|---|"]
    for spec in KEYS:
        name = f"`{spec.name}`" + "".join(f" (alias `{a}`)" for a in spec.aliases)
        doc = spec.doc + (" (negative)" if spec.negative else "")
        lines.append(f"| {name} | {spec.part} | {spec.reads} | {doc} |")
    return "\n".join(lines)


KEYS_START = "<!-- keys:start (generated from commerce_evals/grading/keys.py: python -m commerce_evals.grading.keys) -->"
KEYS_END = "<!-- keys:end -->"


def key_block() -> str:
    return f"{KEYS_START}\n{key_table()}\n{KEYS_END}"


if __name__ == "__main__":
    print(key_block())
