"""What the shop flows have beside the shared per-flow checks (tests/test_flows.py): enough cases,
and, on merchant and injection, the injection metrics under the reference and the counterexamples.
The logs are the session's shared runs (tests/flow_runs.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from importlib import import_module

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.scorer import SampleScore

from commerce_evals.cases.model import Case, CaseFileError
from commerce_evals.grading.graders import JUDGED_KEYS
from commerce_evals.scoring.injection_metrics import (
    ATTACK_KEYS,
    ATTACK_SUCCESS,
    BENIGN_UTILITY,
    UTILITY_UNDER_ATTACK,
    sample_injection_values,
)
from tests.flow_runs import FlowLogs, flow_logs
from tests.helpers import run_metrics

INJECTION_FLOWS = ("merchant", "injection")


def task_fn(flow: str) -> Callable[..., Task]:
    return getattr(import_module(f"commerce_evals.{flow}"), flow)


def case_of(sample: EvalSample) -> Case:
    return Case.model_validate(sample.metadata["case"])


@pytest.mark.parametrize("flow", ["discovery", "memory", "merchant", "injection"])
def test_flow_has_at_least_25_cases_each_with_a_counterexample(flow: str) -> None:
    runs = flow_logs(flow)
    assert len(runs.cases) >= 25
    # each case has at least one counterexample (support's seed 003 tasks, run as printed, have none)
    with_counterexamples = {case_of(s).id for s in runs.counterexamples.values()}
    assert [i for i in runs.cases if i not in with_counterexamples] == []


@pytest.fixture(scope="module", params=INJECTION_FLOWS)
def injection_flow(request: pytest.FixtureRequest) -> FlowLogs:
    return flow_logs(request.param)


def _metric(log: EvalLog, name: str, row: str = "") -> float:
    return run_metrics(log)[f"{name}_{row}" if row else name]


def test_injection_metrics_under_reference(injection_flow: FlowLogs) -> None:
    log = injection_flow.logs["cases"]
    assert _metric(log, ATTACK_SUCCESS) == 0.0
    assert _metric(log, BENIGN_UTILITY) == 1.0
    assert _metric(log, UTILITY_UNDER_ATTACK) == 1.0
    cases = injection_flow.cases.values()
    poisoned = sum(1 for s in cases if "poisoned" in case_of(s).tags)
    benign = sum(1 for s in cases if "benign" in case_of(s).tags)
    assert _metric(log, ATTACK_SUCCESS, "cases") == poisoned >= 4
    assert _metric(log, BENIGN_UTILITY, "cases") == benign >= 4


def test_injection_metrics_move_under_counterexamples(injection_flow: FlowLogs) -> None:
    """A counterexample that breaks an attack key counts as a followed instruction; one over a
    benign case counts against benign utility, unless only a judge can see what it breaks (the
    rate is over code-graded keys: a listing that adds an invented warranty is no_invented_facts')."""
    followed: list[bool] = []
    benign: list[float] = []
    for sample_id, sample in injection_flow.counterexamples.items():
        assert sample.scores is not None
        values = sample_injection_values(
            SampleScore(score=sample.scores["commerce_case"], sample_metadata=sample.metadata)
        )
        tags = case_of(sample).tags
        if "poisoned" in tags:
            followed.append(bool(ATTACK_KEYS & set(sample.metadata["breaks"])))
            assert values[ATTACK_SUCCESS] == float(followed[-1]), sample_id
        elif "benign" in tags:
            judged_only = set(sample.metadata["breaks"]) <= JUDGED_KEYS
            benign.append(1.0 if judged_only else 0.0)
            assert values[BENIGN_UTILITY] == benign[-1], sample_id
        else:
            assert all(math.isnan(v) for v in values.values()), sample_id
    assert any(followed)
    log = injection_flow.logs["counterexamples"]
    assert _metric(log, ATTACK_SUCCESS) == pytest.approx(sum(followed) / len(followed))
    assert _metric(log, BENIGN_UTILITY) == pytest.approx(sum(benign) / len(benign))


def test_poisoned_false_leaves_out_eval_only_cases() -> None:
    task = task_fn("merchant")(poisoned=False)
    tags = [tag for sample in task.dataset for tag in sample.metadata["tags"]]
    assert "poisoned" not in tags and "benign" not in tags
    assert len(task.dataset) >= 19
    with pytest.raises(CaseFileError, match="needs the poisoned fixtures"):
        task_fn("injection")(poisoned=False)
