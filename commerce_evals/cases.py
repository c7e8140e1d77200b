"""The case shape (seed 000's, plus reference and counterexample runs) and the case-file loader."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from commerce_evals.reply_facts import Fact

CASE_ID = re.compile(r"^[a-z][a-z0-9_]*-\d{3}-[a-z0-9][a-z0-9-]*$")


class Strict(BaseModel):
    """Unknown keys are errors: a typo such as `never_call` must not silently pass."""

    model_config = ConfigDict(extra="forbid")


class ToolPattern(Strict):
    """A tool name, optionally with an argument subset (see matching.py for the rules)."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)

    def describe(self) -> str:
        return self.tool if not self.args else f"{self.tool}{json.dumps(self.args, sort_keys=True)}"


def _pattern(value: Any) -> Any:
    return {"tool": value} if isinstance(value, str) else value


class CartLine(Strict):
    product_id: str
    quantity: int | None = None


class Before(Strict):
    """Some call in `first` must come before every call of `then` (in the same run).

    With `first_ok`, only a `first` call whose result had status ok counts: a verification that
    found no match is not a verification.
    """

    first: list[str]
    then: str
    first_ok: bool = False

    @field_validator("first", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class CallOrder(Strict):
    """Some call matching one of `first` must come before every call matching `then` (any turn).

    Unlike `before` (tool names only), both sides are call patterns with arguments, so a case can
    say "a dry run of launch_vehicle came before the real launch_vehicle".
    """

    first: list[ToolPattern] = Field(min_length=1)
    then: ToolPattern

    @field_validator("first", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        values = [value] if isinstance(value, str | dict) else value
        return [_pattern(v) for v in values] if isinstance(values, list) else values

    @field_validator("then", mode="before")
    @classmethod
    def _then(cls, value: Any) -> Any:
        return _pattern(value)


class CallLimit(ToolPattern):
    """Calls matching the pattern, over every turn, at most `times` times (a retry is one more)."""

    times: int = Field(ge=0)


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


class Expected(Strict):
    """Only the keys a case is about. Which part of a run each key reads is in graders.py."""

    calls_tool: list[ToolPattern] = Field(default_factory=list)
    calls_one_of: list[ToolPattern] = Field(default_factory=list)
    never_calls: list[ToolPattern] = Field(default_factory=list)
    first_tool: ToolPattern | None = None
    first_tool_not: ToolPattern | None = None
    before: list[Before] = Field(default_factory=list)
    call_order: list[CallOrder] = Field(default_factory=list)
    at_most: list[CallLimit] = Field(default_factory=list)
    writes_need_confirmation: Literal[True] | None = None
    ui_components: list[str] = Field(default_factory=list)
    no_ui: Literal[True] | None = None
    cart_contains: list[CartLine] = Field(default_factory=list)
    cart_item_count: int | None = Field(default=None, ge=0)
    cart_not_contains: list[str] = Field(default_factory=list)
    staged_change_kinds: list[str] = Field(default_factory=list)
    no_applied_changes: Literal[True] | None = None
    memory_contains: list[str] = Field(default_factory=list)
    memory_not_contains: list[str] = Field(default_factory=list)
    skill_loaded: str | None = None
    skill_not_loaded: str | None = None
    no_skill_load: Literal[True] | None = None
    reply_includes: list[str] = Field(default_factory=list)
    reply_omits: list[str] = Field(default_factory=list)
    reply_matches: list[str] = Field(default_factory=list)
    reply_not_matches: list[str] = Field(default_factory=list)
    # typed facts read by meaning (reply_facts.py): stated in the graded reply / asserted by none
    reply_states: list[Fact] = Field(default_factory=list)
    reply_denies: list[Fact] = Field(default_factory=list)
    # claims of done actions checked against what changed: on for every case unless set false
    action_claims: bool = True
    max_tool_calls: int | None = Field(default=None, ge=0)
    max_calls_per_tool: dict[str, int] = Field(default_factory=dict)
    state: StateExpect | None = None
    rubric: str | None = None
    dimensions: list[str] = Field(default_factory=list)

    @field_validator("calls_tool", "calls_one_of", "never_calls", mode="before")
    @classmethod
    def _patterns(cls, value: Any) -> Any:
        return [_pattern(v) for v in value] if isinstance(value, list) else value

    @field_validator("first_tool", "first_tool_not", mode="before")
    @classmethod
    def _one_pattern(cls, value: Any) -> Any:
        return _pattern(value)

    @field_validator("cart_contains", mode="before")
    @classmethod
    def _cart_lines(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"product_id": v} if isinstance(v, str) else v for v in value]
        return value

    @field_validator("reply_matches", "reply_not_matches")
    @classmethod
    def _regexes_compile(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as err:
                raise ValueError(f"bad regular expression {pattern!r}: {err}") from err
        return value

    def asserted_keys(self) -> list[str]:
        """The keys this case sets, in declaration order (action_claims unless turned off)."""
        return [
            k
            for k in type(self).model_fields
            if (k in self.model_fields_set and k != "action_claims")
            or (k == "action_claims" and self.action_claims)
        ]


class ScriptedCall(Strict):
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class ScriptedTurn(Strict):
    """One turn of a scripted run: rounds of tool calls, then the reply.

    Each item of `calls` is one call in its own round, or a list of calls made together in one round.
    When the last round calls a turn-ending tool, the reply travels in that same message.
    """

    calls: list[ScriptedCall | list[ScriptedCall]] = Field(default_factory=list)
    reply: str = ""

    def rounds(self) -> list[list[ScriptedCall]]:
        return [step if isinstance(step, list) else [step] for step in self.calls]


class Counterexample(Strict):
    """A scripted bad run that must fail exactly the keys it names.

    `turns` replaces the last len(turns) turns of the reference; earlier turns replay the reference.
    """

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    breaks: list[str] = Field(min_length=1)
    turns: list[ScriptedTurn] = Field(min_length=1)
    note: str = ""

    @field_validator("breaks", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class Alternative(Strict):
    """A scripted good run that differs from the reference and must pass every key.

    Other wording or formats of the same facts, an extra read-only lookup, another valid order of
    calls: what a careful reviewer would accept. `turns` replaces the last len(turns) turns of the
    reference, as a counterexample's do. Each alternative is also an oracle for the end state: a
    run passes the closed-world outcome when its changes match the reference's or any alternative's.
    """

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    turns: list[ScriptedTurn] = Field(min_length=1)
    note: str = ""


class Case(Strict):
    id: str
    priority: Literal["critical", "high", "medium", "low"] = "medium"
    difficulty: Literal["easy", "medium", "hard"] = "medium"
    tags: list[str] = Field(default_factory=list)
    niche: str | None = None
    skip: str | None = None
    purpose: str = ""
    should: Literal["do", "ask", "refuse", "escalate", "answer"] | None = None
    state: dict[str, Any] = Field(default_factory=dict)
    turns: list[str] = Field(min_length=1)
    expected: Expected
    notes: str = ""
    reference: list[ScriptedTurn] | None = None
    alternatives: list[Alternative] = Field(default_factory=list)
    counterexamples: list[Counterexample] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not CASE_ID.match(value):
            raise ValueError(f"id {value!r} does not match <flow>-<nnn>-<behavior>")
        return value

    @field_validator("skip")
    @classmethod
    def _skip_has_reason(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("skip needs a reason")
        return value

    @model_validator(mode="after")
    def _scripts_fit(self) -> Case:
        if self.reference is None and self.skip is None:
            raise ValueError("reference: every runnable case needs a reference run")
        if self.reference is not None and len(self.reference) != len(self.turns):
            raise ValueError(
                f"reference: {len(self.reference)} scripted turns for {len(self.turns)} turns"
            )
        keys = set(self.expected.asserted_keys())
        names: set[str] = set()
        for alt in self.alternatives:
            if alt.name in names:
                raise ValueError(f"alternatives: name {alt.name!r} is used twice")
            names.add(alt.name)
            if len(alt.turns) > len(self.turns):
                raise ValueError(f"alternatives.{alt.name}.turns: more turns than the case has")
        for cx in self.counterexamples:
            if cx.name in names:
                raise ValueError(f"counterexamples: name {cx.name!r} is used twice")
            names.add(cx.name)
            if len(cx.turns) > len(self.turns):
                raise ValueError(f"counterexamples.{cx.name}.turns: more turns than the case has")
            unknown = [k for k in cx.breaks if k not in keys]
            if unknown:
                raise ValueError(
                    f"counterexamples.{cx.name}.breaks: {unknown} are not keys this case asserts"
                )
        return self

    @property
    def flow(self) -> str:
        return self.id.split("-", 1)[0]

    def script(self, variant: str | None = None) -> list[ScriptedTurn]:
        """The run a scripted model replays: the reference, or one counterexample or alternative
        (names are unique across both) laid over it."""
        reference = self.reference or []
        if variant is None:
            return reference
        scripted = [*self.counterexamples, *self.alternatives]
        chosen = next(v for v in scripted if v.name == variant)
        return reference[: len(self.turns) - len(chosen.turns)] + chosen.turns

    def oracle_scripts(self) -> list[list[ScriptedTurn]]:
        """Every run that is right by definition: the reference, then each alternative."""
        if self.reference is None:
            return []
        return [self.reference, *(self.script(a.name) for a in self.alternatives)]


class CaseFileError(ValueError):
    """Every problem in one or more case files, one line each naming file, case and field."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def _location(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(case)"


def _read_entries(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (yaml.YAMLError, json.JSONDecodeError) as err:
        raise CaseFileError(
            [f"{path}: not valid {path.suffix.lstrip('.').upper()}: {err}"]
        ) from err
    if data is None:
        return []
    if isinstance(data, dict) and "cases" in data:
        data = data["cases"]
    elif isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise CaseFileError([f"{path}: expected a list of cases or a mapping with 'cases:'"])
    return data


def parse_case(entry: Any, path: Path | str, index: int) -> Case:
    """Validate one entry; raise CaseFileError naming file, case and field."""
    from commerce_evals.seed_format import is_seed_task, seed_task_to_case

    case_id = entry.get("id", f"#{index + 1}") if isinstance(entry, dict) else f"#{index + 1}"
    if not isinstance(entry, dict):
        raise CaseFileError([f"{path}: case {case_id}: (case): expected a mapping"])
    try:
        if is_seed_task(entry):
            entry = seed_task_to_case(entry)
        return Case.model_validate(entry)
    except ValidationError as err:
        raise CaseFileError(
            [
                f"{path}: case {case_id}: {_location(e['loc'])}: {e['msg']}"
                for e in err.errors(include_url=False)
            ]
        ) from err
    except ValueError as err:
        raise CaseFileError([f"{path}: case {case_id}: {err}"]) from err


def load_cases(paths: list[Path]) -> list[Case]:
    """Load case files; collect every problem across them and raise once if there are any."""
    return [case for _, case in load_case_sources(paths)]


def load_case_sources(paths: list[Path]) -> list[tuple[Path, Case]]:
    """Each valid case with the file it came from; every problem raised together."""
    problems: list[str] = []
    cases: list[tuple[Path, Case]] = []
    seen: dict[str, Path] = {}
    for path in paths:
        try:
            entries = _read_entries(path)
        except CaseFileError as err:
            problems.extend(err.problems)
            continue
        for index, entry in enumerate(entries):
            try:
                case = parse_case(entry, path, index)
            except CaseFileError as err:
                problems.extend(err.problems)
                continue
            if case.id in seen:
                problems.append(f"{path}: case {case.id}: id: duplicate (first in {seen[case.id]})")
                continue
            seen[case.id] = path
            cases.append((path, case))
    if problems:
        raise CaseFileError(problems)
    return cases


def case_files(path: Path) -> list[Path]:
    """A case file, or every YAML/JSON file under a folder, sorted for a stable order."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix in {".yaml", ".yml", ".json"})
    return [path]
