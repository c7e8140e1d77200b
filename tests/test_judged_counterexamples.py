"""Bad runs only a judge can catch (a planted claim repeated in other words, values in swapped
roles that code sees only as present): each names `dimensions`, its case names the shared
dimension that catches it, and with a grader bound that dimension's Fail is what fails the case.

The scripted judge (commerce/judge) fails a counterexample's graded reply on the judged parts its
`breaks` names and passes it on the others, so this checks the wiring (which dimension is asked,
which key its verdict fails), not the judgement.
"""

from __future__ import annotations

from importlib import import_module

import pytest

from commerce_evals.cases.model import Case, load_cases
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.grading.graders import JUDGED_KEYS
from commerce_evals.grading.score_metadata import nested_judge
from commerce_evals.harness.flow_inputs import dataset_paths
from commerce_evals.harness.flow_samples import samples_for
from commerce_evals.judging.dimensions import EVERY_CASE
from tests.helpers import case_score, run_task, samples_by_id

CASES: dict[str, list[Case]] = {flow: load_cases(dataset_paths(flow, None)) for flow in FLOWS}
JUDGED: dict[str, list[str]] = {
    flow: [
        f"{case.id}~{cx.name}"
        for case in cases
        for cx in case.counterexamples
        if set(cx.breaks) & JUDGED_KEYS
    ]
    for flow, cases in CASES.items()
}


def test_judge_only_bad_runs_name_a_dimension_of_their_case() -> None:
    for cases in CASES.values():
        for case in cases:
            for cx in case.counterexamples:
                if "dimensions" in cx.breaks:
                    assert case.expected.dimensions, case.id


@pytest.mark.parametrize("flow", [flow for flow, ids in JUDGED.items() if ids])
def test_the_named_dimension_fails_the_case_when_judged(flow: str) -> None:
    task = getattr(import_module(f"commerce_evals.{flow}"), flow)(counterexamples=True)
    log = run_task(task, sample_id=JUDGED[flow], model_roles={"grader": "commerce/judge"})
    samples = samples_by_id(log)
    assert sorted(samples) == sorted(JUDGED[flow])
    for sample in samples.values():
        score = case_score(sample)
        assert set(score.metadata["failed_keys"]) == set(sample.metadata["breaks"])
        assert score.value["passed"] == 0.0
        verdicts = {
            v["dimension"]: v["status"] for v in nested_judge(score.metadata)["judge"]["verdicts"]
        }
        named = Case.model_validate(sample.metadata["case"]).expected.dimensions
        breaks = set(sample.metadata["breaks"])
        # the scripted judge fails exactly the judged parts the counterexample names
        shared = "fail" if "dimensions" in breaks else "pass"
        assert all(verdicts[name] == shared for name in named if name in EVERY_CASE)
        if "rubric" in verdicts:
            assert verdicts["rubric"] == ("fail" if "rubric" in breaks else "pass")


def test_alternatives_become_samples_beside_counterexamples() -> None:
    [case] = [c for c in CASES["checkout"] if c.alternatives and c.counterexamples][:1]
    both = samples_for([case], True, {}, alternatives=True)
    names = [s.metadata.get("alternative") or s.metadata.get("counterexample") for s in both]
    assert names == [cx.name for cx in case.counterexamples] + [a.name for a in case.alternatives]
    only = samples_for([case], False, {}, alternatives=True)
    assert [s.id for s in only] == [f"{case.id}~{a.name}" for a in case.alternatives]
    assert all("breaks" not in s.metadata for s in only)
