"""The flow scorer's metrics and its epoch reducer: one block of rows, one reduction.

Inspect computes metrics given per value key (a dict of metric lists) by deep-copying every
sample's score once per key, with the value cut down to that key, and prints each key as a block of
its own at the end of the run. Metrics given as a list read each sample's whole score, uncopied,
and make a single block. The live display recomputes the metrics again and again as samples
finish, so the flow's metrics are a list: each reads the keys it needs from a sample's value, and
the run's figures print as one block of rows named for what they are.

The block holds what a person reads at the end of a run, and no more: the verdict rates (`passed`,
`passed^k`, `passed_code`), how many samples `needs_review`, the four parts, and the judge's
verdicts by status (`judge_pass`, ...). The rates per priority and difficulty, pass^k per part and
the judge's calls are computed from the scores by the reports (`commerce-evals summary`, `compare`,
`gate`). One reducer gives both the epochs' mean and pass^k, so each sample is reduced once.

A key whose value is NaN in a sample (a part the case does not assert, a rubric not settled) is
left out of that key's rate, never counted as a pass; a rate over no value at all reads NaN.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    ScoreReducer,
    mean_score,
    metric,
    pass_k,
    score_reducer,
)

from commerce_evals.core.frozen import FrozenScore
from commerce_evals.grading.parts import PARTS
from commerce_evals.grading.score_metadata import verdicts_of
from commerce_evals.grading.verdict import VERDICT_KEY, reduce_verdicts
from commerce_evals.judging import STATUSES

# pass^k is reported under its own keys so its rows say what they are. Only the verdicts have
# one; pass^k per part is in `commerce-evals compare`, with intervals.
PASS_HAT_K_KEYS = ("passed", "passed_code")


def hat_k(key: str) -> str:
    return f"{key}^k"


def value_of(sample_score: SampleScore, key: str) -> float | None:
    """The key's value in a sample's score, or None when it has none (NaN included)."""
    value = sample_score.score.value
    item = value.get(key) if isinstance(value, dict) else None
    return float(item) if isinstance(item, int | float) and not math.isnan(item) else None


def values_of(scores: Iterable[SampleScore], key: str) -> list[float]:
    """The key's values over the samples that carry one (NaN left out)."""
    return [v for s in scores if (v := value_of(s, key)) is not None]


def rate(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


@metric(name="verdict_rates")
def verdict_rates() -> Metric:
    """The verdicts first (the viewer's header shows a run's first five figures): `passed`,
    `passed^k`, `passed_code`, then how many samples `needs_review` (the judge left their rubric
    unsettled: a person must look).

    The flow's epochs are reduced by Inspect's mean, so a sample's `passed` is 1 exactly when
    every scored epoch passed: `passed^k` is the share of those (pass^k with k the epochs run).
    A reduction that carries its own `passed^k` (`--epochs-reducer pass_hat_k`, or a log scored
    with the reducer flows used before) is read as it is."""

    def compute(scores: list[SampleScore]) -> dict[str, float | int]:
        passed = values_of(scores, "passed")
        every_epoch = values_of(scores, hat_k("passed")) or [float(v == 1.0) for v in passed]
        return {
            "passed": rate(passed),
            hat_k("passed"): rate(every_epoch),
            "passed_code": rate(values_of(scores, "passed_code")),
            "needs_review": sum(v == 1.0 for v in values_of(scores, "needs_review")),
        }

    return compute


@metric(name="part_rates")
def part_rates() -> Metric:
    """The pass rate of each part."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {key: rate(values_of(scores, key)) for key in PARTS}

    return compute


def judge_row(status: str) -> str:
    """A verdict status's row: `judge_pass`, `judge_fail`, `judge_unknown`, `judge_failed`,
    `not_judged`."""
    return status if status.startswith(("judge_", "not_")) else f"judge_{status}"


@metric(name="judge_verdicts")
def judge_verdicts() -> Metric:
    """The judge's verdicts by status over the judged samples (see judge_row). Judge calls and
    the cache's share of them are in the reports (`commerce-evals summary`, `compare`)."""

    def compute(scores: list[SampleScore]) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for sample_score in scores:
            if value_of(sample_score, "judged") is None:
                continue  # not a judged case, or judge=off
            for verdict in verdicts_of(sample_score.score.metadata):
                counts[verdict.status] += 1
        return {judge_row(status): counts[status] for status in STATUSES}

    return compute


def flow_metrics() -> list[Metric]:
    """The flow scorer's metrics, in the order their rows print: what a person reads at the end
    of a run. The rates per priority and difficulty, pass^k per part and the judge calls are
    computed from the scores by the reports.

    Each gives its rows even over no scored sample (NaN rates, zero counts): Inspect names a
    metric with no rows after the metric itself, and the headline (`passed`) must be found from
    the first sample on."""
    return [verdict_rates(), part_rates(), judge_verdicts()]


def verdict_values(value: dict[str, Any]) -> dict[str, Any]:
    """The verdict keys of a score's value (those with a pass^k)."""
    return {key: value[key] for key in PASS_HAT_K_KEYS if key in value}


def hat_k_reduction() -> ScoreReducer:
    """The verdicts' pass^k over the epochs (k = the number run) under their `^k` keys."""
    # One Inspect pass_k reducer per k, made once: making one registers it, which reads its
    # signature, and the live display reduces every sample again each time it computes metrics.
    by_k: dict[int, ScoreReducer] = {}

    def reduce(scores: list[Score]) -> Score:
        k = len(scores)
        if k not in by_k:
            by_k[k] = pass_k(k)
        verdict_scores = [
            score.model_copy(update={"value": verdict_values(score.value)})
            if isinstance(score.value, dict)
            else score
            for score in scores
        ]
        reduced = by_k[k](verdict_scores)
        if not isinstance(reduced.value, dict):
            return reduced
        values = {hat_k(key): value for key, value in verdict_values(reduced.value).items()}
        return reduced.model_copy(update={"value": values, "metadata": None})

    return reduce


@score_reducer(name="pass_hat_k")
def pass_hat_k() -> ScoreReducer:
    """pass^k alone, with k = the number of epochs run: a case counts only if every epoch passed.
    The verdicts come back as `passed^k` and `passed_code^k` (see PASS_HAT_K_KEYS)."""
    hat = hat_k_reduction()

    def reduce(scores: list[Score]) -> Score:
        return FrozenScore.of(hat(scores), share=False)

    return reduce


@score_reducer(name="mean_and_pass_hat_k")
def mean_and_pass_hat_k() -> ScoreReducer:
    """Every key's mean over the epochs (Inspect's `mean`), and the verdicts' pass^k beside them
    as `passed^k` and `passed_code^k`; the viewer's grade (`verdict`) is reduced as pass^k reads
    it (grading/verdict.py). The result is frozen (core.frozen): any copy shares its parts.

    The flows' reducer until they took Inspect's own mean (whose name the viewer and the progress
    line leave out): kept registered so that `inspect score` reduces logs that name it, and for
    `--epochs-reducer`."""
    mean = mean_score()
    hat = hat_k_reduction()

    def reduce(scores: list[Score]) -> Score:
        reduced = mean(scores)
        if isinstance(reduced.value, dict):
            value = dict(reduced.value)
            hats = hat(scores).value
            if isinstance(hats, dict):
                value |= hats
            # Inspect's mean reads a grade as a number; the case's grade stays one
            verdict = reduce_verdicts(
                s.value.get(VERDICT_KEY) for s in scores if isinstance(s.value, dict)
            )
            if verdict is not None:
                value[VERDICT_KEY] = verdict
            reduced = reduced.model_copy(update={"value": value})
        return FrozenScore.of(reduced, share=False)

    return reduce
