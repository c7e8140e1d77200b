"""The dealer flow beside the shared per-flow checks (tests/test_flows.py): the cases are the seed's
nine tasks, their checks and nevers, plus at least fifteen more; the instructions tell the rules."""

from __future__ import annotations

from string import Template

from commerce_evals import _registry
from commerce_evals.cases.model import Case, load_cases
from commerce_evals.dealer import dealer
from commerce_evals.domains import WORLDS, load_world
from commerce_evals.harness.chain import AFTER
from commerce_evals.harness.flow_inputs import dataset_paths

CASES: list[Case] = load_cases(dataset_paths("dealer", None))
BY_ID = {case.id: case for case in CASES}
SEED = [case for case in CASES if "seed" in case.tags]


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
        assert keys & {"never_calls", "never_does", "at_most"}, case.id
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
