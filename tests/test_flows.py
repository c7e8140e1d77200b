"""The discovery, memory, merchant and injection flows under commerce/reference.

One in-process eval per flow runs its cases, its counterexamples and its alternatives together:
every case and every alternative must pass, every counterexample must fail exactly the keys it
names, and the counterexamples together must break every code-graded key the flow uses.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from importlib import import_module

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample

from commerce_evals.cases.model import Case, CaseFileError
from commerce_evals.grading.injection_metrics import (
    ATTACK_KEYS,
    ATTACK_SUCCESS,
    BENIGN_UTILITY,
    UTILITY_UNDER_ATTACK,
)
from tests.helpers import (
    SCRIPTED_JUDGE,
    alternative_ids,
    assert_fails_exactly_its_keys,
    assert_passes,
    case_score,
    keys_no_counterexample_breaks,
    samples_by_id,
)

FLOWS = ("discovery", "memory", "merchant", "injection")
INJECTION_FLOWS = ("merchant", "injection")


def task_fn(flow: str) -> Callable[..., Task]:
    return getattr(import_module(f"commerce_evals.{flow}"), flow)


class FlowRun:
    def __init__(self, flow: str) -> None:
        self.flow = flow
        make = task_fn(flow)
        # alternatives in a log of their own: the injection metrics read the counterexamples' log
        self.cases_log, self.cx_log, self.alt_log = eval(
            [make(), make(counterexamples=True, judge="off"), make(alternatives=True)],
            model="commerce/reference",
            model_roles=SCRIPTED_JUDGE,
            display="none",
            log_samples=True,
        )
        assert self.cases_log.status == "success", self.cases_log.error
        assert self.cx_log.status == "success", self.cx_log.error
        assert self.alt_log.status == "success", self.alt_log.error

    @property
    def cases(self) -> dict[str, EvalSample]:
        return samples_by_id(self.cases_log)

    @property
    def counterexamples(self) -> dict[str, EvalSample]:
        return samples_by_id(self.cx_log)

    @property
    def alternatives(self) -> dict[str, EvalSample]:
        return samples_by_id(self.alt_log)


@pytest.fixture(scope="module", params=FLOWS)
def flow_run(request: pytest.FixtureRequest) -> FlowRun:
    return FlowRun(request.param)


def case_of(sample: EvalSample) -> Case:
    return Case.model_validate(sample.metadata["case"])


def test_flow_has_at_least_25_cases(flow_run: FlowRun) -> None:
    assert len(flow_run.cases) >= 25


def test_every_case_passes_under_reference(flow_run: FlowRun) -> None:
    failing = {
        sample_id: case_score(sample).explanation
        for sample_id, sample in flow_run.cases.items()
        if case_score(sample).value["passed"] != 1.0
    }
    assert not failing, failing


def test_every_case_has_counterexamples(flow_run: FlowRun) -> None:
    with_counterexamples = {case_of(s).id for s in flow_run.counterexamples.values()}
    without = [
        i for i in flow_run.cases if case_of(flow_run.cases[i]).id not in with_counterexamples
    ]
    assert not without


def test_every_counterexample_fails_exactly_what_it_names(flow_run: FlowRun) -> None:
    for sample in flow_run.counterexamples.values():
        assert_fails_exactly_its_keys(sample)
    assert len(flow_run.counterexamples) >= len(flow_run.cases)


def test_every_alternative_passes(flow_run: FlowRun) -> None:
    cases = [case_of(s) for s in flow_run.cases.values()]
    assert sorted(flow_run.alternatives) == sorted(alternative_ids(cases))
    for sample in flow_run.alternatives.values():
        assert_passes(sample)


def test_counterexamples_together_break_every_key_the_flow_uses(flow_run: FlowRun) -> None:
    # the counterexample samples carry their cases whole (a run of the cases leaves them out)
    cases = {case_of(s).id: case_of(s) for s in flow_run.counterexamples.values()}
    assert keys_no_counterexample_breaks(cases.values()) == set()


def _metric(log: EvalLog, name: str, metric: str = "rate") -> float:
    assert log.results is not None
    for score in log.results.scores:
        if score.scorer == "injection_outcomes" and score.name == name:
            return next(v.value for k, v in score.metrics.items() if k.endswith(metric))
    raise AssertionError(f"no {name} metric")


def test_injection_metrics_under_reference(flow_run: FlowRun) -> None:
    if flow_run.flow not in INJECTION_FLOWS:
        pytest.skip("no injection metrics on this flow")
    log = flow_run.cases_log
    assert _metric(log, ATTACK_SUCCESS) == 0.0
    assert _metric(log, BENIGN_UTILITY) == 1.0
    assert _metric(log, UTILITY_UNDER_ATTACK) == 1.0
    poisoned = sum(1 for s in flow_run.cases.values() if "poisoned" in case_of(s).tags)
    benign = sum(1 for s in flow_run.cases.values() if "benign" in case_of(s).tags)
    assert _metric(log, ATTACK_SUCCESS, "cases") == poisoned >= 4
    assert _metric(log, BENIGN_UTILITY, "cases") == benign >= 4


def test_injection_metrics_move_under_counterexamples(flow_run: FlowRun) -> None:
    """A counterexample that breaks an attack key counts as a followed instruction; one over a
    benign case counts against benign utility."""
    if flow_run.flow not in INJECTION_FLOWS:
        pytest.skip("no injection metrics on this flow")
    followed: list[bool] = []
    for sample_id, sample in flow_run.counterexamples.items():
        values = sample.scores["injection_outcomes"].value
        tags = case_of(sample).tags
        if "poisoned" in tags:
            followed.append(bool(ATTACK_KEYS & set(sample.metadata["breaks"])))
            assert values[ATTACK_SUCCESS] == float(followed[-1]), sample_id
        elif "benign" in tags:
            assert values[BENIGN_UTILITY] == 0.0, sample_id
        else:
            assert all(math.isnan(v) for v in values.values()), sample_id
    assert any(followed)
    assert _metric(flow_run.cx_log, ATTACK_SUCCESS) == pytest.approx(sum(followed) / len(followed))
    assert _metric(flow_run.cx_log, BENIGN_UTILITY) == 0.0


def test_poisoned_false_leaves_out_eval_only_cases() -> None:
    task = task_fn("merchant")(poisoned=False)
    tags = [tag for sample in task.dataset for tag in sample.metadata["tags"]]
    assert "poisoned" not in tags and "benign" not in tags
    assert len(task.dataset) >= 19
    with pytest.raises(CaseFileError, match="needs the poisoned fixtures"):
        task_fn("injection")(poisoned=False)
