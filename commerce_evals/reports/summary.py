"""One run's full breakdown, computed from its scores: what the metric block of a run leaves out.

The end of a run prints the verdict rates, needs review, the parts and the judge's verdicts
(scoring/metrics.py). The rest is here, read from each epoch's score the way diff and gate read
it (reports/logs.py): pass^k of `passed` and `passed_code`, the rates per priority and per
difficulty, the judge's verdicts over every epoch with its calls and how many the cache answered,
and the cases that failed or need review. `commerce-evals summary LOG` prints it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import get_args

from commerce_evals.cases.model import Case
from commerce_evals.judging import STATUSES
from commerce_evals.reports.logs import PARTS, PRIORITIES, CaseResult, EpochResult, RunResults

DIFFICULTIES: tuple[str, ...] = get_args(Case.model_fields["difficulty"].annotation)


@dataclass(frozen=True)
class Rate:
    """`passes` of `n` (epochs or cases); n 0: nothing to rate."""

    passes: int
    n: int

    @property
    def value(self) -> float | None:
        return self.passes / self.n if self.n else None

    def describe(self) -> str:
        value = self.value
        return "n/a" if value is None else f"{value:.1%} ({self.passes} of {self.n})"


def epoch_rate(cases: Iterable[CaseResult], bit: Callable[[EpochResult], bool | None]) -> Rate:
    bits = [b for case in cases for e in case.epochs if (b := bit(e)) is not None]
    return Rate(sum(bits), len(bits))


def case_rate(cases: Iterable[CaseResult], bit: Callable[[EpochResult], bool | None]) -> Rate:
    """pass^k: a case counts as passing when every epoch with a bit passed."""
    per_case = [[b for e in case.epochs if (b := bit(e)) is not None] for case in cases]
    scored = [bits for bits in per_case if bits]
    return Rate(sum(all(bits) for bits in scored), len(scored))


def passed_bit(epoch: EpochResult) -> bool | None:
    # needs review is no pass (logs.epoch_result leaves it unscored for diff and gate)
    return False if epoch.needs_review else epoch.passed


def code_bit(epoch: EpochResult) -> bool | None:
    return epoch.passed_code


def part_bit(part: str) -> Callable[[EpochResult], bool | None]:
    def bit(epoch: EpochResult) -> bool | None:
        value = epoch.parts.get(part)
        return None if value is None or value != value else value == 1.0  # NaN: not asserted

    return bit


@dataclass(frozen=True)
class JudgeTally:
    """The judge's verdicts by status over every epoch, its calls and the cache's share."""

    statuses: dict[str, int]
    calls: int
    cached: int


def judge_tally(cases: Iterable[CaseResult]) -> JudgeTally:
    counts: Counter[str] = Counter()
    calls = cached = 0
    for case in cases:
        for epoch in case.epochs:
            for verdict in epoch.verdicts:
                counts[verdict.status] += 1
                calls += verdict.called
                cached += verdict.cached
    return JudgeTally({status: counts[status] for status in STATUSES}, calls, cached)


@dataclass(frozen=True)
class RunSummary:
    run: RunResults
    verdicts: dict[str, Rate]  # passed, passed^k, passed_code, passed_code^k
    parts: dict[str, Rate]  # over scored epochs
    by_priority: dict[str, tuple[Rate, Rate]]  # (epochs, cases pass^k)
    by_difficulty: dict[str, tuple[Rate, Rate]]
    judge: JudgeTally

    def ids(self, *statuses: str) -> list[str]:
        return [case.id for case in self.run.cases.values() if case.status in statuses]


def grouped(
    cases: Sequence[CaseResult], field: str, order: Sequence[str]
) -> dict[str, tuple[Rate, Rate]]:
    groups = [g for g in order if any(getattr(c, field) == g for c in cases)]
    groups += sorted({getattr(c, field) for c in cases} - set(groups))
    return {
        group: (epoch_rate(mine, passed_bit), case_rate(mine, passed_bit))
        for group in groups
        for mine in [[c for c in cases if getattr(c, field) == group]]
    }


def summarize(run: RunResults) -> RunSummary:
    cases = list(run.cases.values())
    return RunSummary(
        run=run,
        verdicts={
            "passed": epoch_rate(cases, passed_bit),
            "passed^k": case_rate(cases, passed_bit),
            "passed_code": epoch_rate(cases, code_bit),
            "passed_code^k": case_rate(cases, code_bit),
        },
        parts={part: epoch_rate(cases, part_bit(part)) for part in PARTS},
        by_priority=grouped(cases, "priority", PRIORITIES),
        by_difficulty=grouped(cases, "difficulty", DIFFICULTIES),
        judge=judge_tally(cases),
    )
