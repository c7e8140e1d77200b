"""Counterexamples and alternatives: a case whose keys could fail a good run on its wording or on
a call's arguments carries an alternative good run that its keys must also pass. (A
counterexample's `breaks` naming a key or invariant the case has is ids-exist's, through
World.check_case.)"""

from __future__ import annotations

from commerce_evals.cases.model import Case
from commerce_evals.grading.keys import KEYS, pattern_values
from commerce_evals.lint.model import Finding, LintRun
from commerce_evals.lint.registry import Rule

REPLY_KEYS = ("reply_includes", "reply_omits", "reply_matches", "reply_not_matches")


def needs_alternative(case: Case) -> bool:
    """A case whose keys could fail a good run on wording or on a call's arguments."""
    expected = case.expected
    if any(getattr(expected, k) for k in (*REPLY_KEYS, "reply_states", "reply_denies")):
        return True
    return any(
        pattern.args
        for spec in KEYS  # every key that holds call patterns
        for pattern in pattern_values(spec, getattr(expected, spec.name, None))
    )


def rule_alternative_runs(run: LintRun) -> list[Finding]:
    """A case with a reply key or a call pattern with arguments carries at least one
    alternative: a good run other than the reference, which its keys must also pass.

    A seed-format task kept under the id its source document gives it (`flow_name` set) is left
    out: it is kept character for character as the seed prints it, and its twin in the case
    format carries the alternatives."""
    return [
        item.finding(
            "alternative-runs",
            "asserts a reply or a call's arguments but has no alternatives: add one good run "
            "that differs from the reference (other wording or formats, another valid order, "
            "an extra read-only lookup, a default argument left out)",
        )
        for item in run.cases
        if item.case.skip is None
        and item.case.flow_name is None
        and not item.case.alternatives
        and needs_alternative(item.case)
    ]


RULES: dict[str, Rule] = {"alternative-runs": rule_alternative_runs}
