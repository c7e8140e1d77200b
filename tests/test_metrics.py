"""The flow's metrics: Inspect's figures, one block, read from each sample's whole value."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from inspect_ai.scorer import SampleScore, Score, accuracy, grouped, stderr

from commerce_evals.grading.metrics import (
    PARTS,
    by_difficulty,
    by_priority,
    flow_metrics,
    part_rates,
    verdict_counts,
    verdict_rates,
)
from commerce_evals.judging import STATUSES

NAN = math.nan
PRIORITIES = ("critical", "high", "medium", "low")
DIFFICULTIES = ("easy", "medium", "hard")


def sample(value: dict[str, float], i: int, metadata: Any = None) -> SampleScore:
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


def test_the_rates_are_inspects_accuracy_and_stderr_per_key_nan_left_out() -> None:
    scores = a_run()
    found = rows(scores)
    for key in ("passed", "passed_code", "passed^k", "passed_code^k", *PARTS, "judged"):
        assert found[key] == pytest.approx(inspects(scores, key, accuracy())), key
    for key in ("passed", "passed^k"):
        assert found[f"{key}_stderr"] == pytest.approx(inspects(scores, key, stderr())), key
    assert found["needs_review"] == sum(s.score.value["needs_review"] == 1.0 for s in scores)


def test_priority_and_difficulty_rows_are_inspects_grouped_accuracy_in_the_case_order() -> None:
    scores = a_run()
    found = by_priority()(scores) | by_difficulty()(scores)
    for field, prefix, order in (
        ("priority", "pri", PRIORITIES),
        ("difficulty", "dif", DIFFICULTIES),
    ):
        theirs = inspects(scores, "passed", grouped(accuracy(), field, all=False))
        assert [k for k in found if k.startswith(prefix)] == [f"{prefix}_{g}" for g in order]
        for group in order:
            assert found[f"{prefix}_{group}"] == pytest.approx(theirs[group])


def test_over_no_scored_sample_every_row_keeps_its_name() -> None:
    """Inspect names a metric without rows after the metric, which loses the headline."""
    empty = rows([])
    assert math.isnan(empty["passed"]) and math.isnan(empty["outcome"])
    assert empty["needs_review"] == 0 and empty["n_pass"] == 0
    assert [k for k in empty if k.startswith("pri_")] == [f"pri_{p}" for p in PRIORITIES]
    assert "passed^k" not in empty  # only a pass^k reduction has those rows


def test_a_part_no_sample_asserts_reads_nan_and_a_missing_key_has_no_rate() -> None:
    scores = [sample({"passed": 1.0, "outcome": 1.0, "path": NAN}, i) for i in range(3)]
    found = part_rates()(scores) | verdict_rates()(scores)
    assert found["outcome"] == 1.0 and math.isnan(found["path"]) and math.isnan(found["calls"])
    assert math.isnan(found["passed_code"]) and "passed^k" not in found


def test_verdicts_are_counted_over_judged_samples_only() -> None:
    verdict = {"dimension": "tradeoff_stated", "status": "fail", "called": True, "cached": False}
    metadata = {"judge": {"verdicts": [verdict]}}
    scores = [
        sample({"judged": 1.0}, 0, metadata),
        sample({"judged": NAN}, 1, metadata),  # judge=off: what it carries is not counted
        sample({"judged": 0.0}, 2, None),
    ]
    counts = verdict_counts()(scores)
    assert list(counts) == [f"n_{s}" for s in (*STATUSES, "calls", "cached")]
    assert counts["n_fail"] == 1 and counts["n_calls"] == 1 and counts["n_cached"] == 0
