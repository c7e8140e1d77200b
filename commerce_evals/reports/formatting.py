"""How run-pattern reports write a case's epochs, a rate and a cost (no pandas needed)."""

from __future__ import annotations

import math
from typing import Any

from commerce_evals.reports.logs import CaseResult

CELL = {
    "pass": "pass",
    "fail": "FAIL",
    "flaky": "flaky",
    "needs_review": "REVIEW",
    "error": "error",
    "unscored": "unscored",
}


def _missing(value: float | None) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def epochs_text(case: CaseResult | None) -> str:
    """`2/3` passing epochs (`+1 review`, `+1 err` for epochs with no verdict), `skipped`,
    `error`, or `-` when the run lacks the case."""
    if case is None:
        return "-"
    if case.skipped:
        return "skipped"
    scored = len(case.bits)
    review = f" +{case.reviews} review" if case.reviews else ""
    errors = f" +{case.errors} err" if case.errors else ""
    if scored == 0:
        if case.reviews:
            return f"{case.reviews} review{errors}"
        return "error" if case.errors else "unscored"
    return f"{case.passes}/{scored}{review}{errors}"


def cell(case: CaseResult | None) -> str:
    """A matrix cell: status and passing epochs, e.g. `FAIL 0/3`, `flaky 2/3`, `REVIEW 3 review`."""
    if case is None or case.skipped or not (case.bits or case.reviews):
        return epochs_text(case)
    return f"{CELL[case.status]} {epochs_text(case)}"


def rate(value: float | None) -> str:
    return "n/a" if _missing(value) else f"{100 * float(value):.1f}%"  # type: ignore[arg-type]


def money(value: float | None, currency: str) -> str:
    return "unknown" if _missing(value) else f"{float(value):,.4f} {currency}"  # type: ignore[arg-type]


def judge_tokens(row: Any) -> str:
    """Judge tokens a run needed, cache hits included, and how much the cache answered:
    `2,217 / 166 (12 calls, 6 cached: 1,100 / 80)`; `-` for logs written before verdicts
    recorded their tokens."""
    if "judge_calls" not in row or _missing(row["judge_calls"]):
        return "-"
    calls, cached = int(row["judge_calls"]), int(row["judge_cached"])
    text = f"{int(row['judge_all_input']):,} / {int(row['judge_all_output']):,} ({calls} calls"
    if cached:
        text += (
            f", {cached} cached: {int(row['judge_cached_input']):,}"
            f" / {int(row['judge_cached_output']):,}"
        )
    return text + ")"
