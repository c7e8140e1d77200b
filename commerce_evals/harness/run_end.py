"""What the end of a run says besides Inspect's figures: how many cases passed, failed or need
review, and which ones (their ids, the first ten and a count).

Inspect prints a task's metrics when it ends and nothing about its samples. A hook (Inspect's
public `@hooks` API) prints these lines after it, for every log of the run scored by
`commerce_case`, unless the display is off (`--display none`, and every test). Registered when a
flow task is built (harness/flow_task.py imports this module). It reads each sample's verdict
alone (grading/verdict.py), so a log written before the score carried one reads the same; the
breakdowns (per priority, difficulty and part, the judge's calls) are `commerce-evals summary`'s.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.hooks import Hooks, RunEnd, hooks
from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleSummary,
    read_eval_log_sample_summaries_async,
)
from inspect_ai.scorer import CORRECT, INCORRECT

from commerce_evals.grading.verdict import VERDICT_KEY, verdict_of

SCORER = "commerce_case"
SHOWN = 10  # ids listed per kind; the rest are counted


@dataclass
class CaseTally:
    """Each case's verdict over its epochs, as pass^k reads them: failed when any epoch failed,
    needs review when none failed and one is unsettled, passed when every epoch passed."""

    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    errored: list[str] = field(default_factory=list)  # no verdict: a sample error, or skipped

    @property
    def cases(self) -> int:
        return len(self.passed) + len(self.failed) + len(self.review) + len(self.errored)


def epoch_verdict(value: Any) -> str | None:
    """One epoch's grade: its `verdict`, or read off its numbers (logs before the verdict)."""
    if not isinstance(value, dict):
        return None
    passed = value.get("passed")
    if isinstance(passed, float) and math.isnan(passed) and value.get("needs_review") != 1.0:
        return None  # the case asserted nothing this run did: no verdict either way
    verdict = value.get(VERDICT_KEY)
    return verdict if isinstance(verdict, str) else verdict_of(value)


def tally(samples: Iterable[Any]) -> CaseTally:
    """Samples (or their summaries) of one log: id, epoch, scores."""
    by_case: dict[str, list[str | None]] = defaultdict(list)
    for sample in samples:
        score = (sample.scores or {}).get(SCORER)
        by_case[str(sample.id)].append(epoch_verdict(score.value) if score else None)
    result = CaseTally()
    for case_id in sorted(by_case):
        verdicts = [v for v in by_case[case_id] if v is not None]
        if INCORRECT in verdicts:
            result.failed.append(case_id)
        elif not verdicts:
            result.errored.append(case_id)
        elif all(v == CORRECT for v in verdicts):
            result.passed.append(case_id)
        else:
            result.review.append(case_id)
    return result


def listed(label: str, ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:SHOWN])
    more = f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return f"{label} ({len(ids)}): {shown}{more}"


def summary_lines(task: str, found: CaseTally, location: str | None) -> list[str]:
    counts = [f"{len(found.passed)} passed", f"{len(found.failed)} failed"]
    counts.append(f"{len(found.review)} need review")
    if found.errored:
        counts.append(f"{len(found.errored)} without a verdict (errors or skipped)")
    cases = f"{found.cases} case{'' if found.cases == 1 else 's'}"
    lines = [f"{task}: {cases}: {', '.join(counts)}"]
    if found.failed:
        lines.append(listed("failed", found.failed))
    if found.review:
        lines.append(listed("need review", found.review))
    if found.errored:
        lines.append(listed("without a verdict", found.errored))
    if location:
        lines.append(f"breakdowns: commerce-evals summary {shown_path(location)}")
    return lines


def shown_path(location: str) -> str:
    """A local log as a path from the current folder (as Inspect shows it), a URL as it is."""
    if "://" in location and not location.startswith("file://"):
        return location
    return os.path.relpath(location.removeprefix("file://"))


def scored_by_us(log: EvalLog) -> bool:
    names = {s.name.rsplit("/", 1)[-1] for s in log.eval.scorers or []}
    return SCORER in names


async def samples_of(log: EvalLog) -> Sequence[EvalSample | EvalSampleSummary] | None:
    if log.samples is not None:
        return log.samples
    if not log.location:
        return None
    # an eval set hands its hooks log headers: the summaries hold the scores' values
    return await read_eval_log_sample_summaries_async(log.location)


@hooks(name="commerce_run_end", description="lists the failed cases after a run")
class RunEndSummary(Hooks):
    async def on_run_end(self, data: RunEnd) -> None:
        from inspect_ai.util import display_type

        if display_type() == "none":
            return
        for log in data.logs:
            if not scored_by_us(log):
                continue
            samples = await samples_of(log)
            if not samples:
                continue
            location = log.location or None
            # plain print: Inspect's full-screen display captures stdout and shows it after
            # the run, and a console made earlier in the process may write elsewhere
            print("\n".join(summary_lines(log.eval.task, tally(samples), location)), flush=True)
