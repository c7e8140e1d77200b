"""The authoring lint: seed 000's authoring rules over case files, by family (lint/rules/), run
over cases loaded and replayed by the core (lint/model.py).

Tags the rules read (free-form otherwise):
  memory:<kind>:<role>       role write | refuse | use: each kind needs all three
  gate:<name> / no-gate:<name>                 a gate exercised / the same request shape let through
  disclosure:<topic> / no-disclosure:<topic>   something the reply must say / must not say
  poisoned, vector:<V-nn>    a case that puts a planted instruction in front of the agent
  benign                     its should-serve counterpart over a benign eval-only listing
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from commerce_evals.domains.base import DATASETS
from commerce_evals.lint.model import Finding, LintRun, load
from commerce_evals.lint.registry import Rule, gather
from commerce_evals.lint.rules import (
    coverage,
    drafts,
    files,
    ids,
    judged,
    keys,
    memory,
    poisoned,
    rubrics,
    runs,
)

__all__ = ["RULES", "Finding", "LintRun", "check", "defaults", "lint_paths", "load", "waivers"]

# The order findings are reported and rules listed in (the first round of seed 000's rules, then
# the later round, as users have always seen them).
ORDER = (
    "flow-known",
    "ids-exist",
    "skip-reason",
    "rubric-pass-fail",
    "dimensions-known",
    "max-tool-calls",
    "positive-has-negative",
    "memory-three-cases",
    "refusal-has-counterpart",
    "memory-end-state",
    "stored-fact-search",
    "poisoned-vector-seen",
    "poisoned-asserts-negative",
    "poisoned-id-in-fixtures",
    "poisoned-manifest",
    "typed-reply-facts",
    "alternative-runs",
    "draft",
    "preconditions-in-state",
    "gate-has-negative",
    "counterpart-serves",
    "memory-refusal-no-error",
    "rubric-names-fact",
    "rubric-no-style",
    "rubric-exclusive",
    "rubric-variants",
    "notes",
    "max-tool-calls-slack",
    "vector-in-driven-turn",
    "no-eval-ids-in-captures",
)
RULES: dict[str, Rule] = gather(
    ORDER,
    files.RULES,
    ids.RULES,
    drafts.RULES,
    judged.RULES,
    keys.RULES,
    coverage.RULES,
    memory.RULES,
    poisoned.RULES,
    rubrics.RULES,
    runs.RULES,
)


def check(run: LintRun, rules: Iterable[str] | None = None) -> list[Finding]:
    """Every finding of the chosen rules (all by default), load problems first."""
    findings = list(run.load_problems)
    for name in rules or RULES:
        findings.extend(RULES[name](run))
    return findings


def lint_paths(paths: Iterable[Path | str] | None = None) -> list[Finding]:
    """Lint case files or folders (datasets/ by default) with every rule."""
    return check(load(list(paths) if paths else [DATASETS]))


def waivers(run: LintRun) -> list[str]:
    """Every case that grades less than the defaults: closed-world tables and invariants waived,
    one line each with the case's reason (listed, not a problem)."""
    lines = []
    for item in run.cases:
        changes = item.case.expected.changes
        if changes is not None:
            lines.append(
                f"{item.path}: case {item.case.id}: changes not compared for {changes.any}: "
                f"{changes.reason}"
            )
        for name, reason in item.case.waive.items():
            lines.append(f"{item.path}: case {item.case.id}: invariant {name} waived: {reason}")
    return lines


def defaults(run: LintRun) -> list[str]:
    """Every case whose priority or difficulty is a default rather than its author's (a task in
    seed 003's format carries neither), one line each (listed, not a problem)."""
    return [
        f"{item.path}: case {item.case.id}: "
        + " and ".join(f"{field} {getattr(item.case, field)}" for field in item.case.defaulted)
        + " by default (the file does not say); give them to weigh its failures in a report"
        for item in run.cases
        if item.case.defaulted
    ]
