"""The flow scorer's metrics and its epoch reducer: one block of rows, one reduction.

Inspect computes metrics given per value key (a dict of metric lists) by deep-copying every
sample's score once per key, with the value cut down to that key, and prints each key as a block of
its own at the end of the run. Metrics given as a list read each sample's whole score, uncopied,
and make a single block. The live display recomputes the metrics again and again as samples
finish, so the flow's metrics are a list: each reads the keys it needs from a sample's value, and
the run's figures print as one block of rows named for what they are (`passed`, `passed^k`,
`outcome`, `pri_high`, `n_pass`, ...). One reducer gives both the epochs' mean and pass^k, so each
sample is reduced once.

A key whose value is NaN in a sample (a part the case does not assert, a rubric not settled) is
left out of that key's rate, never counted as a pass; a rate over no value at all reads NaN.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, get_args

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

from commerce_evals.cases.model import Case
from commerce_evals.grading.score_metadata import verdicts_of
from commerce_evals.harness.frozen import FrozenScore
from commerce_evals.judging import STATUSES

PARTS = ("outcome", "path", "calls", "rubric")
# pass^k is reported under its own keys so its rows say what they are. Only the verdicts have
# one; pass^k per part is in `commerce-evals compare`, with intervals.
PASS_HAT_K_KEYS = ("passed", "passed_code")
PRIORITIES: tuple[str, ...] = get_args(Case.model_fields["priority"].annotation)
DIFFICULTIES: tuple[str, ...] = get_args(Case.model_fields["difficulty"].annotation)


def hat_k(key: str) -> str:
    return f"{key}^k"


VERDICT_ROWS = tuple(name for key in PASS_HAT_K_KEYS for name in (key, hat_k(key)))


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


def standard_error(values: Sequence[float]) -> float:
    """Inspect's `stderr()`: the sample standard deviation over the square root of n."""
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


@metric(name="verdict_rates")
def verdict_rates() -> Metric:
    """The verdicts first (the viewer shows a run's first five figures): `passed`, `passed^k`,
    `passed_code`, `passed_code^k`, how many samples `needs_review` (the judge left their rubric
    unsettled: a person must look), then the standard errors of `passed` and `passed^k`. The pass^k
    rows are there when the epochs were reduced with pass^k (the flow's reducer)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        found = {key: values_of(scores, key) for key in (*VERDICT_ROWS, "needs_review")}
        rows = {
            key: rate(found[key]) for key in VERDICT_ROWS if key in PASS_HAT_K_KEYS or found[key]
        }
        rows["needs_review"] = sum(v == 1.0 for v in found["needs_review"])
        for key in ("passed", hat_k("passed")):
            if key in rows:
                rows[f"{key}_stderr"] = standard_error(found[key])
        return rows

    return compute


@metric(name="part_rates")
def part_rates() -> Metric:
    """The pass rate of each part and of `judged` (was every dimension settled?)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {key: rate(values_of(scores, key)) for key in (*PARTS, "judged")}

    return compute


def grouped_rates(
    scores: list[SampleScore], field: str, order: Sequence[str], prefix: str
) -> dict[str, float]:
    """`passed` per value of a sample metadata field, in the field's own order."""
    groups: dict[str, list[float]] = {}
    for sample_score in scores:
        passed = value_of(sample_score, "passed")
        if passed is not None:
            group = str((sample_score.sample_metadata or {}).get(field))
            groups.setdefault(group, []).append(passed)
    ranked = sorted(groups, key=lambda g: order.index(g) if g in order else len(order))
    # with nothing scored yet, every group, so the rows keep their names (see flow_metrics)
    return {f"{prefix}_{group}": rate(groups.get(group, [])) for group in ranked or order}


@metric(name="by_priority")
def by_priority() -> Metric:
    """`passed` per priority: rows `pri_critical`, `pri_high`, ..."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return grouped_rates(scores, "priority", PRIORITIES, "pri")

    return compute


@metric(name="by_difficulty")
def by_difficulty() -> Metric:
    """`passed` per difficulty: rows `dif_easy`, `dif_medium`, `dif_hard`."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return grouped_rates(scores, "difficulty", DIFFICULTIES, "dif")

    return compute


@metric(name="verdict_counts")
def verdict_counts() -> Metric:
    """Judge verdicts by status over the judged samples, judge calls made, and how many of them
    the cache answered: rows `n_pass`, `n_fail`, ..., `n_calls`, `n_cached`."""

    def compute(scores: list[SampleScore]) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for sample_score in scores:
            if value_of(sample_score, "judged") is None:
                continue  # not a judged case, or judge=off
            for verdict in verdicts_of(sample_score.score.metadata):
                counts[verdict.status] += 1
                counts["calls"] += verdict.called
                counts["cached"] += verdict.cached
        return {f"n_{key}": counts[key] for key in (*STATUSES, "calls", "cached")}

    return compute


def flow_metrics() -> list[Metric]:
    """The flow scorer's metrics, in the order their rows print.

    Each gives its rows even over no scored sample (NaN rates, zero counts): Inspect names a
    metric with no rows after the metric itself, and the headline (`passed`) must be found from
    the first sample on."""
    return [
        verdict_rates(),
        part_rates(),
        by_priority(),
        by_difficulty(),
        verdict_counts(),
    ]


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
    """The flow's reducer: every key's mean over the epochs (Inspect's `mean`), and the verdicts'
    pass^k beside them as `passed^k` and `passed_code^k`.

    One reducer, not `mean` and `pass_hat_k` side by side: Inspect reduces every sample once per
    reducer each time it computes metrics, and prints each reducer's view as blocks of its own.
    The result is frozen (harness.frozen): any copy of it shares its parts."""
    mean = mean_score()
    hat = hat_k_reduction()

    def reduce(scores: list[Score]) -> Score:
        reduced = mean(scores)
        if isinstance(reduced.value, dict):
            hats = hat(scores).value
            if isinstance(hats, dict):
                reduced = reduced.model_copy(update={"value": {**reduced.value, **hats}})
        return FrozenScore.of(reduced, share=False)

    return reduce
