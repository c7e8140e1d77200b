"""Ids and fixtures: what a case names exists in its domain, and what only the eval may see
(the eval-only listings and messages) appears in no demo fixture and no capture."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from commerce_evals.cases.state import own_state
from commerce_evals.domains.base import DATASETS, World, _id_values
from commerce_evals.lint.model import Finding, LintCase, LintRun, ids_in_files
from commerce_evals.lint.registry import Rule

CAPTURES = ("production", "captures")
# Where production traffic and captures are kept (a module setting, so a test can point it away).
CAPTURES_ROOT = DATASETS


def state_id_problems(item: LintCase, world: World) -> list[str]:
    """Ids in the injected state once the domain's state model has normalised it (so shorthand
    such as `seen_products: [P-1001]` is checked too)."""
    own = own_state(item.case.state)
    try:
        state = world.state_model.model_validate(own).model_dump(mode="json")
    except ValueError:
        return []  # world.check_case reports a state that does not validate
    known = world.known_ids() | world.case_ids(own)  # what check_case counts as known
    unknown = sorted({i for _, i in _id_values(state, world.id_fields) if i not in known})
    return [f"state: id {i!r} is not in the fixtures" for i in unknown]


def rule_ids_exist(run: LintRun) -> Iterator[Finding]:
    """Ids in `state` and `expected` exist in the fixtures; tools and tables exist in the domain."""
    for item in run.cases:
        if item.world is None or item.profile is None:
            continue
        problems = item.world.check_case(item.case, item.profile)
        for problem in state_id_problems(item, item.world):
            if not any(problem.split(": ", 1)[1] in p for p in problems):
                problems.append(problem)
        yield from (item.finding("ids-exist", problem) for problem in problems)


def rule_poisoned_ids_not_in_fixtures(run: LintRun) -> Iterator[Finding]:
    """No id of an eval-only listing or message appears in the demo fixtures."""
    for domain, poisoned, root in run.domains_with_poisoned():
        files = sorted(p for p in (run.fixtures_root / domain).rglob("*") if p.is_file())
        for path, found in ids_in_files(poisoned.eval_only_ids(root), files):
            yield Finding(
                str(path), "-", "poisoned-id-in-fixtures", f"eval-only id {found} appears here"
            )


def capture_files() -> list[Path]:
    """Production traffic and captures kept beside the cases."""
    root = CAPTURES_ROOT
    return sorted(
        p
        for name in CAPTURES
        if (root / name).is_dir()
        for p in (root / name).rglob("*")
        if p.is_file()
    )


def rule_no_eval_ids_in_captures(run: LintRun) -> Iterator[Finding]:
    """Captures and production traffic hold no eval-only (poisoned) listing or message id."""
    files = capture_files()
    for _, poisoned, root in run.domains_with_poisoned():
        for path, found in ids_in_files(poisoned.eval_only_ids(root), files):
            yield Finding(
                str(path), "-", "no-eval-ids-in-captures", f"eval-only id {found} appears here"
            )


RULES: dict[str, Rule] = {
    "ids-exist": rule_ids_exist,
    "poisoned-id-in-fixtures": rule_poisoned_ids_not_in_fixtures,
    "no-eval-ids-in-captures": rule_no_eval_ids_in_captures,
}
