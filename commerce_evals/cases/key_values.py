"""The value shapes of the `expected` keys, and what every case model of them shares.

A key is declared once, on its grader (grading/keyspec.py); the case model `Expected`
(cases/expected.py) is generated from those declarations over the shapes here, so the case layer
reads a case file without importing the graders. The typed facts of `reply_states` and
`reply_denies` (`Fact`) and the names of the statuses a domain's replies are read for sit here for
the same reason: a case file is checked against them when it loads.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from commerce_evals.core.strict import Strict


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
# a count that may be left out (a budget, a cart size)
Count = Annotated[int | None, Field(ge=0)]
# a key that takes only `true`: set, it asserts; left out, it does not
Flag = Literal[True] | None
# `asks_for`: each entry a name, or a list of names any one of which will do
AskedFor = list[str | list[str]]


# ---- aliases: another spelling of a key, turned into the key's own value (named by Expected) ----------------------


def before_to_call_order(value: Any) -> list[dict[str, Any]]:
    rules = value if isinstance(value, list) else [value]
    return [
        {"first": list(r.first), "then": r.then, "first_ok": r.first_ok}
        for r in (Before.model_validate(rule) for rule in rules)
    ]


def per_tool_to_at_most(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, dict):
        raise ValueError("max_calls_per_tool takes {tool: times}")
    return [{"tool": tool, "times": times} for tool, times in value.items()]


# ---- statuses: the names a typed fact may give, per domain ------------------------------------

StatusName = Literal[
    "out_of_stock", "in_stock", "delayed", "on_schedule", "in_transit", "shipped", "delivered",
    "not_shipped", "waiting", "accepted", "declined", "withdrawn", "listed", "paused", "simulated",
    "needs_person", "blocked", "refunded", "final_sale", "superseded", "key_revoked",
    "price_moved", "awaiting_approval", "approved", "cart_empty", "completed",
]  # fmt: skip

# The statuses every domain's replies are read for, and each domain's own, by name; what each
# means and how it is written are grading/statuses.py's (a test checks the two agree).
SHARED_STATUSES: tuple[StatusName, ...] = (
    "out_of_stock", "in_stock", "delayed", "on_schedule", "in_transit", "shipped", "delivered",
    "not_shipped", "waiting", "accepted", "declined", "withdrawn", "listed", "paused", "approved",
    "completed", "simulated",
)  # fmt: skip
DOMAIN_STATUSES: Mapping[str, tuple[StatusName, ...]] = {
    "shop": ("blocked", "price_moved", "awaiting_approval", "cart_empty"),
    "support": ("refunded", "final_sale", "needs_person"),
    "dealer": ("superseded", "key_revoked", "needs_person"),
}


def status_names(domain: str | None) -> tuple[StatusName, ...]:
    """The statuses a reply in `domain` is read for: the shared ones and the domain's own."""
    return SHARED_STATUSES + DOMAIN_STATUSES.get(domain or "", ())


# ---- typed facts -------------------------------------------------------------------------------

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
    status: StatusName | None = None
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

    def describe(self, yen: bool = False) -> str:
        """The fact as a reviewer reads it; money in yen where the store is a Japanese one."""
        value = getattr(self, self.field)
        shown = str(value)
        if self.field == "money":
            shown = f"{value:,.0f}円" if yen else f"${value:,.2f}"
        shown += "%" if self.field == "percent" else ""
        cue = f" (as {'/'.join(self.role)})" if self.role else ""
        return f"{self.field} {shown}{cue}"


# ---- what every case model of the keys shares ----------------------------------------------------

AliasValue = Callable[[Any], list[dict[str, Any]]]


class ExpectedBase(Strict):
    """Only the keys a case is about. The generated `Expected` declares the keys as fields, in
    registry order, and the aliases and default keys below."""

    # another spelling of a key -> (the key, its value turned into the key's value)
    ALIASES: ClassVar[Mapping[str, tuple[str, AliasValue]]] = {}
    # the keys graded on every case unless waived (the closed-world outcome)
    DEFAULT_KEYS: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _fold_aliases(cls, data: Any) -> Any:
        return cls.fold_aliases(data) if isinstance(data, dict) else data

    @classmethod
    def fold_aliases(cls, expected: dict[str, Any]) -> dict[str, Any]:
        """A case file's `expected` mapping with every alias turned into its key's value."""
        folded = dict(expected)
        for alias, (name, convert) in cls.ALIASES.items():
            if alias not in folded:
                continue
            converted = convert(folded.pop(alias))
            existing = folded.get(name) or []
            folded[name] = [*existing, *converted]
        return folded

    @classmethod
    def canonical(cls, name: str) -> str:
        """A key's own name for an alias (a counterexample may name `before` for `call_order`)."""
        return cls.ALIASES[name][0] if name in cls.ALIASES else name

    def asserted_keys(self) -> list[str]:
        """The keys this case grades, in registry order: the keys it sets, and the keys on by
        default (the closed-world outcome) unless it waives them whole."""
        return [
            k
            for k in type(self).model_fields
            if (k in self.model_fields_set or k in self.DEFAULT_KEYS) and not self.waived(k)
        ]

    def written_keys(self) -> list[str]:
        """The keys the case file sets itself (a draft sets none), in registry order."""
        return [k for k in type(self).model_fields if k in self.model_fields_set]

    def waived(self, key: str) -> bool:
        """A key on by default that the case turned off (`action_claims: false`) or waived for
        every table (`changes: {any: ["*"], reason}`)."""
        value = getattr(self, key, None)
        if value is False:
            return True
        return isinstance(value, ChangesExpect) and "*" in value.any
