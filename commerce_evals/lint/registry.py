"""The rule type every family's RULES holds; the families are gathered, in the order the lint
reports and lists them, by runner.RULES."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from commerce_evals.lint.model import Finding, LintRun

Rule = Callable[[LintRun], Iterable[Finding]]


def gather(order: tuple[str, ...], *families: dict[str, Rule]) -> dict[str, Rule]:
    """Every family's rules by name, in `order`; a rule named twice or left out of `order` (or
    an order naming no rule) is a programming error, raised at import."""
    rules: dict[str, Rule] = {}
    for family in families:
        twice = set(rules) & set(family)
        if twice:
            raise ValueError(f"lint rules named twice: {sorted(twice)}")
        rules.update(family)
    if set(order) != set(rules):
        raise ValueError(
            f"lint rule order differs from the rules: {sorted(set(order) ^ set(rules))}"
        )
    return {name: rules[name] for name in order}
