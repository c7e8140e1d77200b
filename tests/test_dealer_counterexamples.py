"""Dealer counterexamples beside the shared per-flow checks (tests/test_flows.py): for each seed
task's "never" one takes it and fails the path with the result right."""

from __future__ import annotations

import pytest

from commerce_evals.cases.model import Case, load_cases
from commerce_evals.harness.flow_inputs import dataset_paths
from tests.flow_runs import flow_logs
from tests.helpers import case_score

CASES: list[Case] = load_cases(dataset_paths("dealer", None))
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


def test_the_dealer_cases_use_the_order_budget_never_and_state_keys() -> None:
    used = {key for case in CASES for key in case.expected.asserted_keys()}
    assert {"call_order", "at_most", "never_calls", "state"} <= used


@pytest.mark.parametrize("case_id", sorted(TAKES_THE_NEVER))
def test_taking_a_seed_never_fails_the_path_even_when_the_result_is_right(
    case_id: str,
) -> None:
    counterexample_samples = flow_logs("dealer").counterexamples
    for name in TAKES_THE_NEVER[case_id]:
        score = case_score(counterexample_samples[f"{case_id}~{name}"])
        # keys and invariants alike: each grade records its part
        parts = {g["part"] for g in score.metadata["grades"] if not g["passed"]}
        assert "path" in parts and "outcome" not in parts, (name, score.explanation)
        assert score.value["outcome"] == 1.0 and score.value["path"] == 0.0
        assert score.value["passed"] == 0.0
