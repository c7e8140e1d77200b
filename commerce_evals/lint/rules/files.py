"""Files and schema: a file that does not load, or a case that does not validate, is a `schema`
finding of the loader (model.load); here, a case whose flow maps to no domain and agent."""

from __future__ import annotations

from commerce_evals.lint.model import Finding, LintRun
from commerce_evals.lint.registry import Rule


def rule_flow_known(run: LintRun) -> list[Finding]:
    """A case's flow (the id's first part) maps to a domain and an agent that load."""
    return [c.finding("flow-known", c.problem) for c in run.cases if c.problem]


RULES: dict[str, Rule] = {"flow-known": rule_flow_known}
