"""Several models' runs side by side: the case matrix, the failure sets, rates, tokens and cost.

Per-case results (pass^k across epochs) come from commerce_evals/reports/logs.py, as in diff and gate;
rates, verdicts and token usage come from Inspect's analysis data frames (commerce_evals/reports/frames.py),
which the charts are drawn from too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from commerce_evals.reports.fingerprints import differences
from commerce_evals.reports.frames import (
    dimension_rates,
    eval_frame,
    judge_tokens,
    part_counts,
    part_rates,
    priority_counts,
    priority_rates,
    sample_frame,
    token_usage,
)
from commerce_evals.reports.logs import (
    PRIORITIES,
    CaseResult,
    RunResults,
    read_logs,
    results_by_model,
    shard_gaps,
)
from commerce_evals.reports.prices import PriceTable


def _rank(case: CaseResult) -> tuple[int, str]:
    priority = PRIORITIES.index(case.priority) if case.priority in PRIORITIES else len(PRIORITIES)
    return priority, case.id


@dataclass(frozen=True)
class Comparison:
    runs: dict[str, RunResults]
    parts: pd.DataFrame
    priorities: pd.DataFrame
    dimensions: pd.DataFrame
    usage: pd.DataFrame
    currency: str
    # long form (model, group, passes, n): what the interval charts are drawn from
    part_counts: pd.DataFrame = field(default_factory=pd.DataFrame)
    priority_counts: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def models(self) -> list[str]:
        return list(self.runs)

    def case_ids(self) -> list[str]:
        cases: dict[str, CaseResult] = {}
        for run in self.runs.values():
            for case_id, case in run.cases.items():
                cases.setdefault(case_id, case)
        return [c.id for c in sorted(cases.values(), key=_rank)]

    def case(self, model: str, case_id: str) -> CaseResult | None:
        return self.runs[model].cases.get(case_id)

    def info(self, case_id: str) -> CaseResult:
        return next(run.cases[case_id] for run in self.runs.values() if case_id in run.cases)

    def failure_set(self, model: str) -> list[str]:
        """Cases that did not pass every epoch under the model (failed or flaky)."""
        return [
            case_id
            for case_id in self.case_ids()
            if (case := self.case(model, case_id)) and case.status in ("fail", "flaky")
        ]

    def failing_anywhere(self) -> list[str]:
        failing = {case_id for model in self.models for case_id in self.failure_set(model)}
        return [case_id for case_id in self.case_ids() if case_id in failing]

    def failing_everywhere(self) -> list[str]:
        sets = [set(self.failure_set(model)) for model in self.models]
        common = set.intersection(*sets) if sets else set()
        return [case_id for case_id in self.case_ids() if case_id in common]

    def failing_only(self, model: str) -> list[str]:
        others = {c for m in self.models if m != model for c in self.failure_set(m)}
        return [c for c in self.failure_set(model) if c not in others]

    def needs_review(self, model: str) -> list[str]:
        """Cases with no verdict under the model because the judge did not settle them."""
        return [
            case_id
            for case_id in self.case_ids()
            if (case := self.case(model, case_id)) and case.status == "needs_review"
        ]

    def coverage(self, model: str) -> str:
        """Empty for a complete run over every case of the comparison; else what is off."""
        run = self.runs[model]
        marks = []
        partial = [log.completeness.describe() for log in run.partial_logs if log.completeness]
        partial += shard_gaps(run.logs)
        if partial:
            marks.append("partial: " + "; ".join(partial))
        total = len(self.case_ids())
        if len(run.cases) < total:
            marks.append(f"{len(run.cases)} of {total} cases")
        if run.judge_off:
            marks.append("code-only")
        if self.simulated and self.customer(model) == "scripted":
            # a simulated run's name carries its customer model; a scripted one says so here
            marks.append("customer: scripted")
        return ", ".join(marks)

    def customer(self, model: str) -> str:
        """Who played the customer in the model's run: `scripted`, or the customer model(s)."""
        bound = sorted({log.customer for log in self.runs[model].logs if log.customer})
        return ", ".join(bound) or "scripted"

    @property
    def simulated(self) -> bool:
        """Whether any run had a simulated customer (then every run says who played it)."""
        return any(self.customer(m) != "scripted" for m in self.models)

    def pass_hat_k(self, model: str) -> tuple[int, int]:
        """Cases that passed every scored epoch, of the cases with a scored epoch (pass^k)."""
        scored = [case for case in self.runs[model].cases.values() if case.bits]
        return sum(all(case.bits) for case in scored), len(scored)

    def failure_reasons(self, model: str) -> list[tuple[str, str, str]]:
        """(case, part/key, reason) for each distinct failure of each failing case."""
        return [
            (case_id, f"{f.part}/{f.key}", " ".join(f.reason.split()))
            for case_id in self.failure_set(model)
            if (case := self.case(model, case_id))
            for f in case.failures()
        ]

    def label(self, model: str) -> str:
        """The model's name as tables and charts show it, with its coverage marks."""
        marks = self.coverage(model)
        return f"{model} [{marks}]" if marks else model

    def differences(self) -> list[str]:
        """What differs between the first model's run and each other's, besides the model."""
        if len(self.models) < 2:
            return []
        first = self.models[0]
        return [
            f"{other}: {line}"
            for other in self.models[1:]
            for line in differences(self.runs[first], self.runs[other], (first, other))
        ]


def _with_judge_tokens(usage: pd.DataFrame, judged: pd.DataFrame) -> pd.DataFrame:
    """The usage table with the judge's calls and tokens counted from the verdicts beside it."""
    if usage.empty or judged.empty:
        return usage
    return usage.join(judged, how="left").fillna({column: 0 for column in judged.columns})


def build_comparison(paths: Sequence[Path | str], prices: PriceTable) -> Comparison:
    logs = read_logs(paths, case_runs=True)
    files = [path for path, _ in logs]
    samples = sample_frame([log for _, log in logs])
    evals = eval_frame(files)
    return Comparison(
        runs=results_by_model(logs),
        parts=part_rates(samples),
        priorities=priority_rates(samples),
        dimensions=dimension_rates(samples),
        usage=_with_judge_tokens(token_usage(evals, prices), judge_tokens(samples)),
        currency=prices.currency,
        part_counts=part_counts(samples),
        priority_counts=priority_counts(samples),
    )
