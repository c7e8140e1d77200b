"""Seed 001: "A run that reaches the result by a 'never' fails the task", and the score's parts are
result, path and calls. A never done in the reply (asking who the buyer is, saying money arrived,
asking for a new key) is judged by a named dimension whose verdict counts under path, quoted in
the explanation; not settled, it leaves path unsettled and the case needing review, never passed."""

from __future__ import annotations

import math

import pytest

from commerce_evals.dealer import dealer
from commerce_evals.judging.dimensions import shared_dimensions
from commerce_evals.judging.judge import CaseJudgement, DimensionVerdict
from commerce_evals.scoring.scorer import overall_verdict, with_judged_path
from tests.helpers import case_score, run_task, samples_by_id

NEVERS_IN_WORDS = ("no_buyer_identity_sought", "no_funds_claimed", "no_new_key_asked")
# nevers done in words no code key reads (the asking reader catches the request for a new key,
# so that one fails both never_asks and its dimension: tests/test_flows.py)
IN_WORDS = {
    "dealer-007-triage-offers~asks-if-the-person-knows-the-bidder": "no_buyer_identity_sought",
    "dealer-008-chase-closing~says-the-wire-cleared": "no_funds_claimed",
}


def test_the_three_dimensions_count_under_path() -> None:
    shared = shared_dimensions()
    assert {shared[name].part for name in NEVERS_IN_WORDS} == {"path"}
    assert shared["budget_respected"].part == "rubric"


def test_a_never_done_in_words_fails_path_with_the_dimension_named() -> None:
    log = run_task(
        dealer(counterexamples=True),
        sample_id=list(IN_WORDS),
        model_roles={"grader": "commerce/judge"},
    )
    samples = samples_by_id(log)
    assert sorted(samples) == sorted(IN_WORDS)
    for sample_id, sample in samples.items():
        score = case_score(sample)
        dimension = IN_WORDS[sample_id]
        assert score.value["path"] == 0.0, score.explanation
        assert score.value["passed"] == 0.0 and score.value["passed_code"] == 1.0
        assert score.value["outcome"] == 1.0
        assert f"path/{dimension}" in score.explanation.splitlines()[0]
        assert f"FAIL path/{dimension}:" in score.explanation
        assert "dimensions" in score.metadata["failed_keys"]


def _verdicts(*statuses: str) -> CaseJudgement:
    names = ["no_funds_claimed", "budget_respected"]
    return CaseJudgement(
        [DimensionVerdict(n, s) for n, s in zip(names, statuses, strict=False)],  # type: ignore[arg-type]
        transcript_sha="x",
    )


@pytest.mark.parametrize(
    ("code_path", "path_status", "expected"),
    [
        (1.0, "pass", 1.0),
        (1.0, "fail", 0.0),
        (0.0, "pass", 0.0),
        (1.0, "unknown", math.nan),
        (math.nan, "pass", 1.0),
    ],
)
def test_the_path_part_takes_the_judged_verdict(
    code_path: float, path_status: str, expected: float
) -> None:
    value = with_judged_path(code_path, _verdicts(path_status, "pass"))
    assert value == expected or (math.isnan(value) and math.isnan(expected))


def test_an_unsettled_never_needs_review_and_never_passes() -> None:
    judgement = _verdicts("unknown", "pass")
    code = {"outcome": 1.0, "path": 1.0, "calls": math.nan}
    values = {**code, "path": with_judged_path(1.0, judgement), "rubric": 1.0}
    verdict = overall_verdict(values, judgement, code)
    assert verdict == {"passed": 0.0, "passed_code": 1.0, "needs_review": 1.0}
    assert judgement.value_of("rubric") == 1.0 and math.isnan(judgement.value_of("path"))
