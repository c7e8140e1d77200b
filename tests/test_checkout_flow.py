"""The checkout flow end to end, offline, through `inspect_ai.eval` in-process.

Every case passes its own graders under its reference run and under each of its alternatives;
every counterexample fails exactly the keys it names; and the counterexamples together break every
code-graded key the flow's cases use.
"""

from __future__ import annotations

import pytest
from inspect_ai.log import EvalSample

from commerce_evals.cases.model import Case, load_cases
from commerce_evals.checkout import checkout
from commerce_evals.harness.flow_task import dataset_paths
from tests.helpers import (
    alternative_ids,
    assert_fails_exactly_its_keys,
    assert_passes,
    case_score,
    keys_no_counterexample_breaks,
    run_task,
    samples_by_id,
)

CASES: list[Case] = load_cases(dataset_paths("checkout", None))
RUNNABLE = [case for case in CASES if not case.skip]
COUNTEREXAMPLES = [f"{case.id}~{cx.name}" for case in RUNNABLE for cx in case.counterexamples]
ALTERNATIVES = alternative_ids(RUNNABLE)


# Inspect's generate cache keys on the conversation, not on the sample's script: with a cache on,
# a counterexample whose first round matches the reference would be served the reference's answer.
@pytest.fixture(scope="module")
def reference_samples() -> dict[str, EvalSample]:
    return samples_by_id(run_task(checkout(), cache=False))


@pytest.fixture(scope="module")
def counterexample_samples() -> dict[str, EvalSample]:
    return samples_by_id(run_task(checkout(counterexamples=True, judge="off"), cache=False))


@pytest.fixture(scope="module")
def alternative_samples() -> dict[str, EvalSample]:
    return samples_by_id(run_task(checkout(alternatives=True), cache=False))


@pytest.mark.parametrize("sample_id", ALTERNATIVES)
def test_alternative_passes(alternative_samples: dict[str, EvalSample], sample_id: str) -> None:
    assert sorted(alternative_samples) == sorted(ALTERNATIVES)
    assert_passes(alternative_samples[sample_id])


def test_every_case_is_a_sample(reference_samples: dict[str, EvalSample]) -> None:
    assert sorted(reference_samples) == sorted(case.id for case in CASES)


@pytest.mark.parametrize("case_id", [case.id for case in RUNNABLE])
def test_case_passes_its_reference_run(
    reference_samples: dict[str, EvalSample], case_id: str
) -> None:
    score = case_score(reference_samples[case_id])
    assert score.value["passed"] == 1.0, score.explanation


def test_every_counterexample_is_a_sample(counterexample_samples: dict[str, EvalSample]) -> None:
    assert sorted(counterexample_samples) == sorted(COUNTEREXAMPLES)


@pytest.mark.parametrize("sample_id", COUNTEREXAMPLES)
def test_counterexample_fails_exactly_its_keys(
    counterexample_samples: dict[str, EvalSample], sample_id: str
) -> None:
    assert_fails_exactly_its_keys(counterexample_samples[sample_id])


def test_counterexamples_break_every_key_the_flow_uses() -> None:
    assert keys_no_counterexample_breaks(RUNNABLE) == set()


def test_every_case_names_its_niche_and_has_a_counterexample() -> None:
    assert len(CASES) >= 28
    assert [case.id for case in CASES if not case.niche] == []
    assert [case.id for case in RUNNABLE if not case.counterexamples] == []


# ---- what the viewer shows first ----------------------------------------------------------------


def test_passed_is_the_first_score_value_and_the_explanation_opens_with_the_verdict(
    reference_samples: dict[str, EvalSample], counterexample_samples: dict[str, EvalSample]
) -> None:
    for sample in [*reference_samples.values(), *counterexample_samples.values()]:
        score = case_score(sample)
        if not isinstance(score.value, dict):
            continue  # a skipped case is unscored
        assert list(score.value)[:3] == ["passed", "passed_code", "needs_review"]
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
