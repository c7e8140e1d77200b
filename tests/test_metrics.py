"""The flow's metrics: Inspect's figures, one block, read from each sample's whole value."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from inspect_ai.scorer import SampleScore, Score, accuracy, mean_score, pass_k

from commerce_evals.judging import STATUSES
from commerce_evals.scoring.metrics import (
    PARTS,
    flow_metrics,
    judge_verdicts,
    part_rates,
    pass_hat_k,
    verdict_rates,
)

NAN = math.nan
PRIORITIES = ("critical", "high", "medium", "low")
DIFFICULTIES = ("easy", "medium", "hard")


def sample(value: dict[str, Any], i: int, metadata: Any = None) -> SampleScore:
    return SampleScore(
        score=Score(value=value, metadata=metadata),
        sample_id=f"c-{i}",
        sample_metadata={"priority": PRIORITIES[i % 4], "difficulty": DIFFICULTIES[i % 3]},
    )


def a_run(n: int = 40, seed: int = 7) -> list[SampleScore]:
    """Scores as the flow's reducer leaves them: means over epochs, NaN where not asserted."""
    rng = random.Random(seed)
    scores = []
    for i in range(n):
        value = {key: rng.choice([0.0, 1.0, 1.0, 0.5, NAN]) for key in PARTS}
        value |= {
            "passed": rng.choice([0.0, 1.0, 1.0, 2 / 3, NAN]),
            "passed_code": rng.choice([0.0, 1.0]),
            "needs_review": rng.choice([0.0, 0.0, 1.0]),
            "judged": rng.choice([NAN, 1.0, 0.0]),
            "passed^k": rng.choice([0.0, 1.0]),
            "passed_code^k": rng.choice([0.0, 1.0]),
        }
        scores.append(sample(value, i))
    return scores


def inspects(scores: list[SampleScore], key: str, metric: Any) -> Any:
    """What Inspect computed when the metrics were given per key: its metric over a copy of each
    score cut down to that key, NaN values left out."""
    cut = [
        SampleScore(
            score=Score(value=s.score.value[key]),
            sample_id=s.sample_id,
            sample_metadata=s.sample_metadata,
        )
        for s in scores
        if not math.isnan(s.score.value[key])
    ]
    return metric(cut)


def rows(scores: list[SampleScore]) -> dict[str, float]:
    found: dict[str, float] = {}
    for metric in flow_metrics():
        found |= metric(scores)
    return found


def test_the_rates_are_inspects_accuracy_per_key_nan_left_out() -> None:
    scores = a_run()
    found = rows(scores)
    for key in ("passed", "passed_code", "passed^k", *PARTS):
        assert found[key] == pytest.approx(inspects(scores, key, accuracy())), key
    assert found["needs_review"] == sum(s.score.value["needs_review"] == 1.0 for s in scores)
    assert isinstance(found["needs_review"], int)


def test_the_block_holds_what_a_person_reads_at_the_end_of_a_run_in_that_order() -> None:
    """Issue 35's decision: verdict rates, needs review, the parts, the judge's verdict counts.
    The rates per priority and difficulty and the judge calls are the reports' (summary)."""
    found = rows(a_run())
    assert list(found) == [
        "passed",
        "passed^k",
        "passed_code",
        "needs_review",
        *PARTS,
        "judge_pass",
        "judge_fail",
        "judge_unknown",
        "judge_failed",
        "not_judged",
    ]


def test_over_no_scored_sample_every_row_keeps_its_name() -> None:
    """Inspect names a metric without rows after the metric, which loses the headline."""
    empty = rows([])
    assert math.isnan(empty["passed"]) and math.isnan(empty["outcome"])
    assert empty["needs_review"] == 0 and empty["judge_pass"] == 0
    assert math.isnan(empty["passed^k"])


def test_a_part_no_sample_asserts_reads_nan_and_a_missing_key_has_no_rate() -> None:
    scores = [sample({"passed": 1.0, "outcome": 1.0, "path": NAN}, i) for i in range(3)]
    found = part_rates()(scores) | verdict_rates()(scores)
    assert found["outcome"] == 1.0 and math.isnan(found["path"]) and math.isnan(found["calls"])
    assert math.isnan(found["passed_code"]) and found["passed^k"] == 1.0


@pytest.mark.parametrize("k", [1, 2, 3])
def test_pass_hat_k_read_off_inspects_mean_is_inspects_pass_k(k: int) -> None:
    """The flows reduce epochs with Inspect's mean; `passed^k` over those means is the share of
    cases whose every epoch passed, as Inspect's pass_k(k) computes it over the same epochs."""
    rng = random.Random(k)
    epochs = [
        [Score(value={"passed": rng.choice([0.0, 1.0, 1.0, 1.0])}) for _ in range(k)]
        for _ in range(60)
    ]
    means = [SampleScore(score=mean_score()(e), sample_id=f"c-{i}") for i, e in enumerate(epochs)]
    theirs = [float(pass_k(k)(e).value["passed"]) for e in epochs]  # type: ignore[index]
    assert verdict_rates()(means)["passed^k"] == pytest.approx(sum(theirs) / len(theirs))
    hats = [SampleScore(score=pass_hat_k()(e), sample_id=f"c-{i}") for i, e in enumerate(epochs)]
    assert verdict_rates()(hats)["passed^k"] == pytest.approx(sum(theirs) / len(theirs))


def test_the_viewers_grade_in_a_value_is_no_number_any_metric_reads() -> None:
    scores = [sample({"verdict": "C", "passed": 1.0, "outcome": 1.0}, 0)]
    scores.append(sample({"verdict": "I", "passed": 0.0, "outcome": 0.0}, 1))
    found = rows(scores)
    assert found["passed"] == 0.5 and found["outcome"] == 0.5 and "verdict" not in found


def test_verdicts_are_counted_over_judged_samples_only() -> None:
    verdict = {"dimension": "tradeoff_stated", "status": "fail", "called": True, "cached": False}
    metadata = {"judge": {"verdicts": [verdict]}}
    scores = [
        sample({"judged": 1.0}, 0, metadata),
        sample({"judged": NAN}, 1, metadata),  # judge=off: what it carries is not counted
        sample({"judged": 0.0}, 2, None),
    ]
    counts = judge_verdicts()(scores)
    assert len(counts) == len(STATUSES)
    assert counts["judge_fail"] == 1 and sum(counts.values()) == 1
