"""Judged dimensions: a rubric is worded as the judge reads it (the rule is the judge's own, in
commerce_evals/judging/dimensions.py), and every dimension a case names can be judged in its
domain. What a rubric's text must say and leave out is rubrics.py's."""

from __future__ import annotations

from collections.abc import Iterator

from commerce_evals.judging.dimensions import dimension_problems, rubric_wording_problem
from commerce_evals.lint.model import Finding, LintRun
from commerce_evals.lint.registry import Rule


def rule_rubric_pass_fail(run: LintRun) -> Iterator[Finding]:
    """A rubric holds exactly one PASS condition and one FAIL condition."""
    for item in run.cases:
        rubric = item.case.expected.rubric
        problem = rubric_wording_problem(rubric) if rubric is not None else None
        if problem:
            yield item.finding("rubric-pass-fail", problem)


def rule_dimensions_known(run: LintRun) -> Iterator[Finding]:
    """Every dimension a case names is a shared judge, named once, whose context (a policy, say)
    the case's domain supplies."""
    for item in run.cases:
        context = item.world.judge_context() if item.world else None
        for problem in dimension_problems(item.case.expected, context):
            yield item.finding("dimensions-known", problem)


RULES: dict[str, Rule] = {
    "rubric-pass-fail": rule_rubric_pass_fail,
    "dimensions-known": rule_dimensions_known,
}
