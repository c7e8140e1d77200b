"""Drafts and skips: a draft (skip: draft) is not a case yet, and any other skip says what it
waits on."""

from __future__ import annotations

from collections.abc import Iterator

from commerce_evals.authoring.skeletons import is_draft
from commerce_evals.lint.model import Finding, LintCase, LintRun
from commerce_evals.lint.registry import Rule

PLACEHOLDER_REASONS = frozenset(
    {"todo", "tbd", "wip", "fixme", "later", "skip", "skipped", "n/a", "na", "none", "yes", "true"}
)


def finished(run: LintRun) -> list[LintCase]:
    """The cases the rules of the later seed-000 round read: drafts left out."""
    return [item for item in run.cases if not is_draft(item.case.skip)]


def rule_skip_reason(run: LintRun) -> Iterator[Finding]:
    """`skip` carries a reason a reader can act on, not a placeholder."""
    for item in run.cases:
        reason = (item.case.skip or "").strip()
        if item.case.skip is None or is_draft(item.case.skip):  # the `draft` rule's
            continue
        if reason.casefold().rstrip(".") in PLACEHOLDER_REASONS or len(reason.split()) < 3:
            yield item.finding(
                "skip-reason", f"skip {reason!r} is not a reason (say what it waits on)"
            )


def rule_draft(run: LintRun) -> Iterator[Finding]:
    """A draft (skip: draft) is unfinished: a person writes expected and the reference, then
    removes the skip."""
    for item in run.cases:
        if not is_draft(item.case.skip):
            continue
        missing = [
            what
            for what, absent in (
                ("expected", not item.case.expected.written_keys()),
                ("the reference run", item.case.reference is None),
            )
            if absent
        ]
        todo = f"write {' and '.join(missing)}, then " if missing else ""
        yield item.finding("draft", f"a draft: {todo}remove `skip: draft`")


RULES: dict[str, Rule] = {"skip-reason": rule_skip_reason, "draft": rule_draft}
