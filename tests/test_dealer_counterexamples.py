"""Dealer counterexamples: each fails exactly the keys it names; together they break every key the
flow uses; and for each seed task's "never" one takes it and fails the path with the result right."""

from __future__ import annotations

import pytest
from inspect_ai.log import EvalSample

from commerce_evals.cases.model import Case, load_cases
from commerce_evals.dealer import dealer
from commerce_evals.harness.flow_task import dataset_paths
from tests.helpers import (
    assert_fails_exactly_its_keys,
    case_score,
    keys_no_counterexample_breaks,
    run_task,
    samples_by_id,
)

CASES: list[Case] = load_cases(dataset_paths("dealer", None))
COUNTEREXAMPLES = [f"{case.id}~{cx.name}" for case in CASES for cx in case.counterexamples]
# the counterexample that takes each seed task's "never" while reaching its result
TAKES_THE_NEVER = {
    "dealer-001-list-camry": ["launch-without-dry-run", "invents-condition"],
    "dealer-002-find-contact-external-id": ["pages-through-contacts"],
    "dealer-003-email-needs-person": ["retries-email", "texts-instead"],
    "dealer-004-respect-floor": ["lowers-floor", "tries-again"],
    "dealer-005-pause-camry": ["dry-runs-delist"],
    "dealer-006-brief": ["lists-one-by-one"],
    "dealer-007-triage-offers": ["counters-lowball", "accepts-lowball", "asks-who-buyer-is"],
    "dealer-008-chase-closing": ["marks-signed", "confirms-money"],
    "dealer-009-reset-sandbox": ["reaches-for-new-key"],
}


@pytest.fixture(scope="module")
def counterexample_samples() -> dict[str, EvalSample]:
    # no generate cache: a counterexample's first round may equal its reference's
    return samples_by_id(run_task(dealer(counterexamples=True, judge="off"), cache=False))


def test_every_counterexample_is_a_sample(counterexample_samples: dict[str, EvalSample]) -> None:
    assert sorted(counterexample_samples) == sorted(COUNTEREXAMPLES)


@pytest.mark.parametrize("sample_id", COUNTEREXAMPLES)
def test_counterexample_fails_exactly_its_keys(
    counterexample_samples: dict[str, EvalSample], sample_id: str
) -> None:
    assert_fails_exactly_its_keys(counterexample_samples[sample_id])


def test_counterexamples_break_every_key_the_flow_uses() -> None:
    assert keys_no_counterexample_breaks(CASES) == set()
    used = {key for case in CASES for key in case.expected.asserted_keys()}
    assert {"call_order", "at_most", "never_calls", "state"} <= used


@pytest.mark.parametrize("case_id", sorted(TAKES_THE_NEVER))
def test_taking_a_seed_never_fails_the_path_even_when_the_result_is_right(
    counterexample_samples: dict[str, EvalSample], case_id: str
) -> None:
    for name in TAKES_THE_NEVER[case_id]:
        score = case_score(counterexample_samples[f"{case_id}~{name}"])
        # keys and invariants alike: each grade records its part
        parts = {g["part"] for g in score.metadata["grades"] if not g["passed"]}
        assert "path" in parts and "outcome" not in parts, (name, score.explanation)
        assert score.value["outcome"] == 1.0 and score.value["path"] == 0.0
        assert score.value["passed"] == 0.0
