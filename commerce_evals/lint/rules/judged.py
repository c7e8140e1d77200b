"""Judged dimensions: a rubric is worded as the judge reads it (the rule is the judge's own, in
commerce_evals/judging/dimensions.py), names the fact that decides it, and every dimension a
case names can be judged in its domain."""

from __future__ import annotations

import re
from collections.abc import Iterator

from commerce_evals.judging.dimensions import dimension_problems, rubric_wording_problem
from commerce_evals.lint.model import Finding, LintRun
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished

FACT = re.compile(r"\d|\b[A-Z]{1,4}-\d+\b|\"[^\"]+\"|'[^']+'")


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


def rule_rubric_names_fact(run: LintRun) -> Iterator[Finding]:
    """A rubric names the fixture fact that decides it (a price, a date, an id, a quoted name),
    not just PASS and FAIL."""
    for item in finished(run):
        rubric = item.case.expected.rubric
        if rubric and not FACT.search(rubric):
            yield item.finding(
                "rubric-names-fact",
                "the rubric names no fixture fact (a price, date, id or quoted name) that "
                "decides it",
            )


RULES: dict[str, Rule] = {
    "rubric-pass-fail": rule_rubric_pass_fail,
    "dimensions-known": rule_dimensions_known,
    "rubric-names-fact": rule_rubric_names_fact,
}
