"""Rubric judges: dimensions, the quoted transcript, the prompt, verdict parsing, the judge calls.

dimensions.py   shared dimension files (commerce_evals/judging/prompts/*.md) and a case's own rubric
run_text.py     a Run as text: one walk over its events, in the judge's style or a person's
transcript.py   a Run as quoted lines, cut from the start to a character budget
prompt.py       quoted data first, instructions after; the fingerprint of a verdict
verdict.py      the judge's verdict: its last own JSON object, or its final line (text fallback)
judge.py        one call per dimension through the grader role; every fault recorded
"""

from commerce_evals.judging.dimensions import check_expected, dimensions_for, shared_dimensions
from commerce_evals.judging.judge import (
    GRADER_ROLE,
    STATUSES,
    CaseJudgement,
    DimensionVerdict,
    JudgeSettings,
    bound_grader,
    judge_case,
)

__all__ = [
    "GRADER_ROLE",
    "STATUSES",
    "CaseJudgement",
    "DimensionVerdict",
    "JudgeSettings",
    "bound_grader",
    "check_expected",
    "dimensions_for",
    "judge_case",
    "shared_dimensions",
]
