"""Seed 003's task format (user_turns, reference_solution, graders) read into the same Case.

A team with tasks in that format can drop the files into datasets/ beside case-shape files:

    graders:
      - type: state_check     expect: {no_writes, unchanged, <table>: [rows], <table>_count: n,
                                       <table>_added: n}
      - type: tool_calls      forbidden, required, before, max_calls, writes_need_confirmation
      - type: transcript      must_include / must_not_include (regular expressions on the reply),
                              states / denies (typed facts: reply_states / reply_denies)

`<table>_count` counts the rows the run wrote (new or changed since the start): the seed's fixtures
start with empty tables, so its end-of-run row count is the rows the task made (`refunds_count: 1`
is "one refund"), and ours already hold rows. `<table>_added` is the same count under our name.
Ids such as `identity-missing` are accepted as written; the task's flow is then the folder or file
it sits in (datasets/support/..., or a folder under it). Seed tasks carry no priority or
difficulty: a file may give them in `defaults:` beside `cases:`; a task that still has none (a seed
file exactly as the seed prints it) takes `DEFAULTS`, and the case records the fields it took in
`defaulted`, which the lint and the run summary report. Several
graders of one type add up. `must_include` reads the graded (last) turn's reply, like every
positive key; `must_not_include` reads every turn.

Keys of the case shape (priority, difficulty, state, niche, notes, alternatives, counterexamples) may sit beside them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from commerce_evals.cases.key_values import Before
from commerce_evals.cases.scripts import ScriptedTurn
from commerce_evals.core.strict import Strict

SEED_ONLY_KEYS = {"user_turns", "reference_solution", "graders"}
# What the case shape needs and seed 003's format does not say: the middle of each scale, so a
# defaulted task weighs neither up nor down in a report's per-priority rows.
DEFAULTS = {"priority": "medium", "difficulty": "medium"}


class StateCheck(Strict):
    type: Literal["state_check"]
    expect: dict[str, Any]


class ToolCallsCheck(Strict):
    type: Literal["tool_calls"]
    forbidden: list[Any] = Field(default_factory=list)
    required: list[Any] = Field(default_factory=list)
    before: list[Before] = Field(default_factory=list)
    max_calls: dict[str, int] = Field(default_factory=dict)
    max_total_calls: int | None = None
    writes_need_confirmation: bool = False


class TranscriptCheck(Strict):
    type: Literal["transcript"]
    must_include: list[str] = Field(default_factory=list)
    must_not_include: list[str] = Field(default_factory=list)
    # typed facts (ours): reply_states / reply_denies, read by meaning rather than as patterns
    states: list[dict[str, Any]] = Field(default_factory=list)
    denies: list[dict[str, Any]] = Field(default_factory=list)


Grader = StateCheck | ToolCallsCheck | TranscriptCheck


class SeedTask(Strict):
    id: str
    purpose: str = ""
    tags: list[str] = Field(default_factory=list)
    should: str | None = None
    user_turns: list[Any]  # a string, or {say, confirms}
    reference_solution: list[ScriptedTurn] | None = None
    graders: list[Grader] = Field(default_factory=list)
    # case-shape keys accepted beside the seed's own
    priority: str | None = None
    difficulty: str | None = None
    niche: str | None = None
    skip: str | None = None
    state: dict[str, Any] = Field(default_factory=dict)
    notes: str = ""
    rubric: str | None = None
    dimensions: list[str] = Field(default_factory=list)
    alternatives: list[dict[str, Any]] = Field(default_factory=list)
    counterexamples: list[dict[str, Any]] = Field(default_factory=list)


def declared_turns(task: SeedTask) -> list[Any]:
    """The user turns with the consent each declares.

    Seed 003's format has no way to say what a turn consents to; its reference solution says it
    instead: the writes the reference makes in a turn are what that turn's message (for example
    "Yes, go ahead.") was written to allow. So a plain-string turn confirms the tools its reference
    turn calls. A turn written as `{say, confirms}` keeps its own declaration.
    """
    reference = task.reference_solution or []
    turns: list[Any] = []
    for index, turn in enumerate(task.user_turns):
        if isinstance(turn, str) and index < len(reference):
            called = sorted({c.tool for step in reference[index].rounds() for c in step})
            turns.append({"say": turn, "confirms": called} if called else turn)
        else:
            turns.append(turn)
    return turns


def is_seed_task(entry: dict[str, Any]) -> bool:
    return bool(SEED_ONLY_KEYS & set(entry))


def _state_expect(expect: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """Add one state_check's `expect` block to the StateExpect dict built so far."""
    for key, value in expect.items():
        if key == "no_writes":
            if value:
                state["no_writes"] = True
        elif key == "unchanged":
            state.setdefault("unchanged", []).extend([value] if isinstance(value, str) else value)
        elif key.endswith("_count"):
            state.setdefault("new_rows", {})[key[: -len("_count")]] = value
        elif key.endswith("_added"):
            state.setdefault("new_rows", {})[key[: -len("_added")]] = value
        else:
            rows = value if isinstance(value, list) else [value]
            state.setdefault("rows", {}).setdefault(key, []).extend(rows)
    return state


def _extend(expected: dict[str, Any], key: str, values: list[Any]) -> None:
    if values:
        expected.setdefault(key, []).extend(values)


def seed_task_to_case(entry: dict[str, Any]) -> dict[str, Any]:
    """Translate a seed-format task into the case-shape dict (validated again by Case)."""
    task = SeedTask.model_validate(entry)
    expected: dict[str, Any] = {}
    for grader in task.graders:
        if isinstance(grader, StateCheck):
            expected["state"] = _state_expect(grader.expect, expected.get("state", {}))
        elif isinstance(grader, ToolCallsCheck):
            _extend(expected, "never_calls", grader.forbidden)
            _extend(expected, "calls_tool", grader.required)
            _extend(expected, "before", [b.model_dump() for b in grader.before])
            if grader.max_calls:
                expected.setdefault("max_calls_per_tool", {}).update(grader.max_calls)
            if grader.max_total_calls is not None:
                expected["max_tool_calls"] = grader.max_total_calls
            if grader.writes_need_confirmation:
                expected["writes_need_confirmation"] = True
        else:
            _extend(expected, "reply_matches", grader.must_include)
            _extend(expected, "reply_not_matches", grader.must_not_include)
            _extend(expected, "reply_states", grader.states)
            _extend(expected, "reply_denies", grader.denies)
    if task.rubric:
        expected["rubric"] = task.rubric
    if task.dimensions:
        expected["dimensions"] = task.dimensions
    case: dict[str, Any] = {
        "id": task.id,
        "purpose": task.purpose,
        "tags": task.tags,
        "should": task.should,
        "turns": declared_turns(task),
        "expected": expected,
        "notes": task.notes or task.purpose,
        "state": task.state,
        "alternatives": task.alternatives,
        "counterexamples": task.counterexamples,
    }
    if task.reference_solution is not None:
        case["reference"] = [t.model_dump() for t in task.reference_solution]
    for key in ("priority", "difficulty", "niche", "skip"):
        if getattr(task, key) is not None:
            case[key] = getattr(task, key)
    defaulted = [key for key in DEFAULTS if key not in case]
    for key in defaulted:
        case[key] = DEFAULTS[key]
    if defaulted:
        case["defaulted"] = defaulted
    return case
