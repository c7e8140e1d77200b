"""Drafts, skips and notes: a draft (skip: draft) is not a case yet, any other skip says what it
waits on, and every finished case says in `notes` what it pins and the fixture fact that decides
it (seed 000's case shape)."""

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
    removes the skip; so is a draft counterexample (commerce-evals draft cheats), until a person
    has replayed it and kept it with what it breaks."""
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
    for item in run.cases:
        for cx in item.case.counterexamples:
            if is_draft(cx.skip):
                what = (
                    f"the graders fail it on {cx.breaks}: keep it in the case"
                    if cx.breaks
                    else "no grader fails it: close the hole, then keep it with what it breaks"
                )
                yield item.finding(
                    "draft",
                    f"counterexample {cx.name} is a draft: {what}, and remove `skip: draft`",
                )


# fewer words than this say neither what a case pins nor the fact that decides it
MIN_NOTE_WORDS = 6


def rule_notes(run: LintRun) -> Iterator[Finding]:
    """A finished case has `notes` saying what it pins and the fixture fact that decides it
    (at least a sentence: an empty or two-word note is missing)."""
    for item in finished(run):
        words = len(item.case.notes.split())
        if words < MIN_NOTE_WORDS:
            what = "no notes" if not words else f"notes of {words} word(s)"
            yield item.finding(
                "notes",
                f"{what}: say what the case pins and the fixture fact that decides it (an id, "
                "a price, a date, a search's results)",
            )


RULES: dict[str, Rule] = {
    "skip-reason": rule_skip_reason,
    "draft": rule_draft,
    "notes": rule_notes,
}
