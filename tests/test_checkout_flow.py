"""The checkout flow beside the shared per-flow checks (tests/test_flows.py): every case names its
niche, and what the viewer shows first (the score's order and its explanation's first line),
read from the session's shared runs (tests/flow_runs.py).
"""

from __future__ import annotations

from commerce_evals.cases.model import Case, load_cases
from commerce_evals.harness.flow_inputs import dataset_paths
from tests.flow_runs import flow_logs
from tests.helpers import case_score

CASES: list[Case] = load_cases(dataset_paths("checkout", None))
RUNNABLE = [case for case in CASES if not case.skip]


def test_every_case_names_its_niche_and_has_a_counterexample() -> None:
    assert len(CASES) >= 28
    assert [case.id for case in CASES if not case.niche] == []
    assert [case.id for case in RUNNABLE if not case.counterexamples] == []


# ---- what the viewer shows first ----------------------------------------------------------------


def test_the_grade_is_the_first_score_value_and_the_explanation_opens_with_the_verdict() -> None:
    runs = flow_logs("checkout")
    grades = {"PASS": "C", "NEEDS REVIEW": "N", "FAIL on": "I"}
    for sample in [*runs.cases.values(), *runs.counterexamples.values()]:
        score = case_score(sample)
        if not isinstance(score.value, dict):
            continue  # a skipped case is unscored
        assert list(score.value)[:4] == ["verdict", "passed", "passed_code", "needs_review"]
        opening = score.explanation.splitlines()[0]
        assert [g for start, g in grades.items() if opening.startswith(start)] == [
            score.value["verdict"]
        ], opening
        first, second = score.explanation.splitlines()[:2]
        assert second.startswith("parts: outcome ")
        if score.value["passed"] == 1.0:
            assert first == "PASS", first
        elif score.value["needs_review"] == 1.0:
            assert first.startswith("NEEDS REVIEW: "), first
        else:
            assert first.startswith("FAIL on "), first
            for key in score.metadata["failed_keys"]:
                assert f"/{key}" in first, (key, first)
