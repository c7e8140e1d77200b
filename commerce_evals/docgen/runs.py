"""Figures of offline runs: every flow once under the scripted models, as `commerce-evals cost`
runs it, and checkout's counterexamples code-only. What a run costs, how many metric rows a
flow's run reports, and the explanations the README shows come from these logs."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from functools import cached_property

from inspect_ai.log import EvalLog, EvalSample

from commerce_evals.core.flow_table import FLOWS
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.reports.cost import FlowCost, flow_cost, scripted_run

SCORER = "commerce_case"
COUNTEREXAMPLE_FLOWS = ("checkout",)  # the flows whose counterexample explanations a doc shows


class RunFacts:
    """Logs of the offline runs, read back whole (attachments resolved)."""

    def __init__(self, cases: Mapping[str, EvalLog], counterexamples: Mapping[str, EvalLog]):
        self.cases = dict(cases)  # each flow's cases, reference agent, scripted judge
        self.counterexamples = dict(counterexamples)  # code-only (`-T judge=off`)

    @classmethod
    def make(cls, flows: Iterable[str] = FLOWS) -> RunFacts:
        cases, counterexamples = {}, {}
        with tempfile.TemporaryDirectory(prefix="commerce-docgen-") as log_dir:
            for flow in flows:
                cases[flow] = scripted_run(flow_task(flow), log_dir)
                if flow in COUNTEREXAMPLE_FLOWS:
                    task = flow_task(flow, counterexamples=True, judge=False)
                    counterexamples[flow] = scripted_run(task, log_dir, judged=False)
        return cls(cases, counterexamples)

    @cached_property
    def costs(self) -> list[FlowCost]:
        return [flow_cost(flow, log) for flow, log in self.cases.items()]

    @property
    def metric_rows(self) -> int:
        """The rows of the metric table a flow's run prints (checkout's; each flow's are one
        block of the same metrics)."""
        results = self.cases["checkout"].results
        assert results is not None
        [block] = [score for score in results.scores if score.scorer == SCORER]
        return len(block.metrics)

    def sample(self, kind: str, flow: str, sample_id: str) -> EvalSample:
        log = (self.cases if kind == "cases" else self.counterexamples)[flow]
        for sample in log.samples or []:
            if sample.id == sample_id:
                return sample
        raise LookupError(f"{flow} {kind}: no sample {sample_id}")

    def explanation(self, kind: str, flow: str, sample_id: str) -> str:
        scores = self.sample(kind, flow, sample_id).scores or {}
        return scores[SCORER].explanation or ""
