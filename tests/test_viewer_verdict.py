"""The verdict Inspect's viewer colours (issue 31, item 5): every score's first value is Inspect's
CORRECT, INCORRECT or NOANSWER, agreeing with `passed` and `needs_review`, epoch by epoch; and
the run's header names no reducer (issue 31, item 6), its `passed^k` agreeing with the reports."""

from __future__ import annotations

import math

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score

from commerce_evals.grading.verdict import reduce_verdicts, verdict_of
from commerce_evals.reports.logs import load_run
from commerce_evals.scoring.metrics import mean_and_pass_hat_k
from tests.helpers import case_score, run_metrics
from tests.run_pattern_logs import A_FAIL, A_FLAKY, EPOCHS, RUBRIC_CASES, judged_log, sweep_log


@pytest.mark.parametrize(
    ("values", "grade"),
    [
        ({"passed": 1.0, "needs_review": 0.0}, CORRECT),
        ({"passed": 0.0, "needs_review": 0.0}, INCORRECT),
        ({"passed": 0.0, "needs_review": 1.0}, NOANSWER),  # a missing verdict is never a pass
        ({"passed": math.nan, "needs_review": 0.0}, NOANSWER),  # nothing asserted
        ({}, NOANSWER),
    ],
)
def test_the_grade_of_one_epoch(values: dict[str, float], grade: str) -> None:
    assert verdict_of(values) == grade


def test_over_epochs_the_grade_reads_as_pass_hat_k() -> None:
    assert reduce_verdicts([CORRECT, CORRECT]) == CORRECT
    assert reduce_verdicts([CORRECT, INCORRECT]) == INCORRECT  # flaky: not a pass
    assert reduce_verdicts([CORRECT, NOANSWER]) == NOANSWER
    assert reduce_verdicts([1.0, None]) is None  # reductions of logs before the verdict
    reduced = mean_and_pass_hat_k()(
        [Score(value={"verdict": v, "passed": float(v == CORRECT)}) for v in (CORRECT, INCORRECT)]
    )
    assert reduced.value["verdict"] == INCORRECT and reduced.value["passed"] == 0.5  # type: ignore[index]


def test_every_epoch_of_a_sweep_carries_the_grade_first() -> None:
    log = read_eval_log(str(sweep_log("commerce/flawed-a")))
    grades: dict[str, list[str]] = {}
    for sample in log.samples or []:
        value = case_score(sample).value
        assert next(iter(value)) == "verdict"
        assert value["verdict"] == (CORRECT if value["passed"] == 1.0 else INCORRECT)
        grades.setdefault(str(sample.id), []).append(value["verdict"])
    for case_id in A_FAIL:
        assert grades[case_id] == [INCORRECT] * EPOCHS
    [flaky] = A_FLAKY
    assert sorted(grades[flaky]) == [CORRECT, INCORRECT]
    assert sum(g == [CORRECT] * EPOCHS for g in grades.values()) == len(grades) - 3


def test_a_case_needing_review_is_noanswer_in_the_list() -> None:
    log = read_eval_log(str(judged_log(None)))
    for sample in log.samples or []:
        value = case_score(sample).value
        expected = NOANSWER if sample.id in RUBRIC_CASES else CORRECT
        assert value["verdict"] == expected, sample.id
        assert (value["needs_review"] == 1.0) == (expected == NOANSWER)


def test_the_header_names_no_reducer_and_its_pass_hat_k_is_the_reports() -> None:
    path = sweep_log("commerce/flawed-a")
    header = read_eval_log(str(path), header_only=True)
    assert header.results is not None
    [block] = [s for s in header.results.scores if s.scorer == "commerce_case"]
    assert block.reducer is None  # the viewer prints a named reducer under every figure
    assert header.eval.config.epochs_reducer is None
    cases = load_run([path]).cases.values()
    passing = sum(case.status == "pass" for case in cases) / len(cases)
    assert run_metrics(header)["passed^k"] == pytest.approx(passing)
    assert run_metrics(header)["passed^k"] < run_metrics(header)["passed"]  # the flaky case
