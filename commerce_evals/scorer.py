"""The Inspect scorer: code graders per part, an overall verdict, and the metrics over them.

A score's value is a dict of parts, each 1.0 (pass), 0.0 (fail) or NaN (the case asserts nothing
in that part, or it was not judged): NaN parts are left out of their metrics, never counted as
passes. `passed` is 1.0 only when every part the case asserts and that was graded passes.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import (
    Metric,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    accuracy,
    grouped,
    metric,
    pass_k,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from commerce_evals.agent import RunRecord
from commerce_evals.cases import Case
from commerce_evals.graders import Grade, ToolRoles, grade

PARTS = ("outcome", "path", "calls", "rubric")
NAN = float("nan")


@metric
def by_priority() -> Metric:
    """Pass rate per priority (Inspect's grouped(), named so it can sit beside by_difficulty)."""
    return grouped(accuracy(), "priority", all=False, name_template="{group_name}")


@metric
def by_difficulty() -> Metric:
    return grouped(accuracy(), "difficulty", all=False, name_template="{group_name}")


def part_metrics() -> dict[str, list[Metric]]:
    return {
        "passed": [accuracy(), stderr(), by_priority(), by_difficulty()],
        **{part: [accuracy()] for part in PARTS},
    }


@score_reducer(name="pass_hat_k")
def pass_hat_k() -> ScoreReducer:
    """pass^k with k = the number of epochs run: a case counts only if every epoch passed."""

    def reduce(scores: list[Score]) -> Score:
        return pass_k(len(scores))(scores)

    return reduce


def explain(grades: list[Grade], notes: list[str]) -> str:
    failed = [g for g in grades if not g.passed]
    lines = [f"FAIL {g.part}/{g.key}: {g.reason}" for g in failed]
    if not failed:
        lines.append(f"all {len(grades)} code-graded keys passed")
    lines.extend(notes)
    return "\n".join(lines)


def part_values(grades: list[Grade]) -> dict[str, float]:
    values: dict[str, float] = {}
    for part in ("outcome", "path", "calls"):
        mine = [g.passed for g in grades if g.part == part]
        values[part] = NAN if not mine else float(all(mine))
    return values


def overall(values: dict[str, float]) -> float:
    graded = [v for v in values.values() if not math.isnan(v)]
    return float(all(v == 1.0 for v in graded)) if graded else NAN


@scorer(metrics=part_metrics())
def commerce_case(roles: ToolRoles) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        case = Case.model_validate(state.metadata["case"])
        if case.skip:
            return Score.unscored(reason="skipped", explanation=f"skipped: {case.skip}")
        run = store_as(RunRecord).run
        if run is None:
            return Score.unscored(reason="no_run", explanation="the solver recorded no run")
        grades = grade(case.expected, run, roles)
        values = part_values(grades)
        notes: list[str] = []
        values["rubric"] = NAN
        if case.expected.rubric or case.expected.dimensions:
            notes.append("rubric: not judged (no judge configured)")
        values["passed"] = overall(values)
        failed = [g.key for g in grades if not g.passed]
        return Score(
            value=values,
            answer=run.graded.reply()[:500],
            explanation=explain(grades, notes),
            metadata={
                "failed_keys": failed,
                "grades": [
                    {"key": g.key, "part": g.part, "passed": g.passed, "reason": g.reason}
                    for g in grades
                ],
                "counterexample": state.metadata.get("counterexample"),
            },
        )

    return score
