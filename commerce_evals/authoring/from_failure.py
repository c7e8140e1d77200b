"""Case skeletons drafted from failures (seed 003, step 5).

From one failed run (or every run of a failure mode): the state the run started from (the case's
injected state), the user turns it was driven with, and expected keys suggested by what went wrong.
A person confirms each suggestion; only confirmed keys are written, and the draft keeps
`skip: draft` until its reference run is written and the skip removed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from commerce_evals.authoring.notes import RunItem
from commerce_evals.authoring.skeletons import DRAFT, case_id


@dataclass(frozen=True)
class Suggestion:
    key: str
    value: Any
    why: str


def _reference_tools(item: RunItem) -> set[str]:
    return {c.tool for turn in item.case.reference or [] for rnd in turn.rounds() for c in rnd}


def suggestions(item: RunItem, note: str = "") -> list[Suggestion]:
    """Expected keys the failure suggests, each with the reason it is suggested."""
    found: list[Suggestion] = []
    asserted = item.case.expected.model_dump(mode="json", exclude_defaults=True)
    for key in item.failed_keys:
        if key in asserted:
            found.append(
                Suggestion(key, asserted[key], f"the run failed {key}; keep it failing loudly")
            )
    # with no known-good run (a captured conversation) there is nothing to tell extra calls by
    reference = item.case.reference is not None
    extra = sorted({c.tool for c in item.run.all_calls()} - _reference_tools(item))
    if reference and extra and "never_calls" not in {s.key for s in found}:
        found.append(
            Suggestion(
                "never_calls", extra, f"the run called {extra}, which the known-good run never does"
            )
        )
    changed = sorted(item.run.changed_tables())
    if changed:
        found.append(
            Suggestion(
                "state",
                {"unchanged": changed},
                f"the run changed {changed}; assert they stay as they were if that was wrong",
            )
        )
    if item.failed_dimensions:
        found.append(
            Suggestion(
                "dimensions",
                item.failed_dimensions,
                f"the judge failed the run on {item.failed_dimensions}",
            )
        )
    if note and not item.failed_keys and not item.failed_dimensions:
        found.append(
            Suggestion(
                "rubric",
                f"PASS if the reply avoids this failure: {note}. FAIL if it does: {note}.",
                "no grader caught this run: a rubric (rewrite it to name the deciding fixture fact)",
            )
        )
    return found


def draft_from_run(
    item: RunItem,
    number: int,
    confirm: Callable[[Suggestion], bool],
    note: str = "",
    mode: str | None = None,
) -> dict[str, Any]:
    """A skeleton for one failed run, with the suggestions the person confirmed."""
    expected: dict[str, Any] = {}
    for suggestion in suggestions(item, note):
        if confirm(suggestion):
            expected[suggestion.key] = suggestion.value
    case = item.case
    tags = [*case.tags, "from-failure", *([f"mode:{mode}"] if mode else [])]
    behaviour = (mode or case.id.split("-", 2)[-1]).split()
    if item.production and not mode:
        behaviour = ["production", item.sample_id]
    draft: dict[str, Any] = {
        "id": case_id(case.flow, number, behaviour),
        "priority": case.priority,
        "difficulty": case.difficulty,
        "tags": tags,
    }
    if case.niche:
        draft["niche"] = case.niche
    draft.update(
        {
            "skip": DRAFT,
            "state": case.state,
            "turns": [t.user for t in item.run.turns],
            "expected": expected,
            "notes": (
                f"Drafted from the failed run {item.sample_id} (epoch {item.epoch}) of {item.log}, "
                f"run {item.run_id}, transcript {item.transcript_sha}."
                + (
                    " A captured production conversation: inject as `state` what its start held "
                    "(the log keeps the run's start snapshot)."
                    if item.production
                    else ""
                )
                + (f" Note: {note}" if note else "")
            ),
        }
    )
    return draft
