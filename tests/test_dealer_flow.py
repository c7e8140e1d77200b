"""The dealer flow offline: every case passes its own graders under commerce/reference, and the
cases are the seed's nine tasks, their checks and nevers, plus at least fifteen more."""

from __future__ import annotations

from string import Template

import pytest
from inspect_ai.log import EvalSample

from commerce_evals import _registry
from commerce_evals.cases.model import Case, load_cases
from commerce_evals.dealer import dealer
from commerce_evals.domains import WORLDS, load_world
from commerce_evals.harness.chain import AFTER
from commerce_evals.harness.flow_task import dataset_paths
from tests.helpers import alternative_ids, assert_passes, case_score, run_task, samples_by_id

CASES: list[Case] = load_cases(dataset_paths("dealer", None))
BY_ID = {case.id: case for case in CASES}
SEED = [case for case in CASES if "seed" in case.tags]


@pytest.fixture(scope="module")
def reference_samples() -> dict[str, EvalSample]:
    return samples_by_id(run_task(dealer(), cache=False))


@pytest.fixture(scope="module")
def alternative_samples() -> dict[str, EvalSample]:
    return samples_by_id(run_task(dealer(alternatives=True), cache=False))


@pytest.mark.parametrize("sample_id", alternative_ids(CASES))
def test_alternative_passes(alternative_samples: dict[str, EvalSample], sample_id: str) -> None:
    assert_passes(alternative_samples[sample_id])


def test_every_case_is_a_sample(reference_samples: dict[str, EvalSample]) -> None:
    assert sorted(reference_samples) == sorted(BY_ID)


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_case_passes_its_reference_run(
    reference_samples: dict[str, EvalSample], case_id: str
) -> None:
    score = case_score(reference_samples[case_id])
    assert score.value["passed"] == 1.0, score.explanation


def test_the_flow_is_the_nine_seed_tasks_and_fifteen_more() -> None:
    assert [case.id.split("-")[1] for case in SEED] == [f"{n:03d}" for n in range(1, 10)]
    assert len(CASES) - len(SEED) >= 15
    assert [case.id for case in CASES if case.skip or not case.niche] == []


def test_the_seed_tasks_run_in_order() -> None:
    """Each seed task starts where the one before it ended; the first on a fresh sandbox."""
    assert SEED[0].state == {}
    assert [case.state for case in SEED[1:]] == [{AFTER: case.id} for case in SEED[:-1]]


def test_every_seed_task_checks_state_and_names_its_never() -> None:
    for case in SEED:
        keys = set(case.expected.asserted_keys())
        assert "state" in keys or "reply_includes" in keys, case.id
        assert keys & {"never_calls", "at_most"}, case.id
        assert case.expected.max_tool_calls is not None, case.id


def test_the_dealer_is_registered() -> None:
    assert _registry.dealer is dealer
    assert "dealer" in WORLDS


def test_the_instructions_leave_no_placeholder_and_tell_the_rules() -> None:
    world = load_world("dealer")
    profile = world.agents["operator"]
    text = Template(profile.instructions.read_text()).substitute(world.instruction_variables())
    assert "$" not in text.replace("$$", "")
    described = text + " ".join(spec.description for spec in profile.tools)
    for rule in (
        "dryRun: true",
        "idempotencyKey",
        "NEEDS_PERSON",
        "decisionLink",
        "don't retry",
        "pause_vehicle",
        "delist_vehicle",
        "brief",
        "sandbox-crm:C-101",
        "recorded, never sent",
    ):
        assert rule in described, rule
