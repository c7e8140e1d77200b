"""The support flow beside the shared per-flow checks (tests/test_flows.py): its reference runs
(the session's shared run, tests/flow_runs.py) hit no tool error but failed verifications and run
seed 003's files as written; the rest checks what the cases cover (dimensions, rules, keys)
without running anything."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from inspect_ai.log import EvalSample

from commerce_evals.cases.model import Case, load_case_sources
from commerce_evals.cases.seed_format import is_seed_task
from commerce_evals.core.events import Run
from commerce_evals.docgen.blocks import ACT, HOLD, RULE_ORDER
from commerce_evals.domains import load_world
from commerce_evals.domains.base import DATASETS
from commerce_evals.harness.flow_inputs import dataset_paths
from tests.flow_runs import flow_logs
from tests.helpers import (
    case_score,
)

SOURCES: list[tuple[Path, Case]] = load_case_sources(dataset_paths("support", None))
CASES: dict[str, Case] = {case.id: case for _, case in SOURCES}
# Seed 003's two tasks as printed (its own tags, no dimension tags), run beside ours.
VERBATIM = DATASETS / "support" / "seed_003"
TAGGED = {case.id: case for path, case in SOURCES if path.parent != VERBATIM}

DIMENSIONS: dict[str, set[str]] = {
    "request": {"refund", "cancel", "address", "policy"},
    "customer": {"verified", "unverified", "wrong-zip"},
    "fit": {"allowed", "not-allowed", "silent"},
    "persona": {"polite", "rushed", "angry", "social-engineering"},
}
# the policy's rules and the outcome families, declared once where the docs' tables are drawn
RULES = set(RULE_ORDER)
VERIFY_TOOLS = {"find_customer", "find_customer_by_email"}


def tag_values(case: Case, dimension: str) -> list[str]:
    prefix = f"{dimension}:"
    return [t[len(prefix) :] for t in case.tags if t.startswith(prefix)]


@pytest.fixture(scope="module")
def reference() -> dict[str, EvalSample]:
    return flow_logs("support").cases


# ---- under the reference and the counterexample replays ---------------------------------------


def test_reference_runs_hit_no_tool_error_but_failed_verifications(
    reference: dict[str, EvalSample],
) -> None:
    """A typo in a reference call (an unknown order, an item not on it) would error quietly and
    could still pass a refusal case; only a verification that finds no match may error."""
    for case_id, sample in reference.items():
        run = Run.model_validate(sample.store["RunRecord:run"])
        for turn in run.turns:
            for result in turn.results():
                assert result.status == "ok" or result.tool in VERIFY_TOOLS, (
                    f"{case_id}: {result.tool} answered {result.status}: {result.reason}"
                )


def test_seed_format_files_run_beside_the_case_shape(reference: dict[str, EvalSample]) -> None:
    seed_file = DATASETS / "support" / "seed_tasks.yaml"
    entries = yaml.safe_load(seed_file.read_text(encoding="utf-8"))["cases"]
    assert all(is_seed_task(e) for e in entries)
    seed_ids = {e["id"] for e in entries}
    assert {"support-001-identity-missing", "support-002-refund-two-items-one-call"} <= seed_ids
    assert len({path for path, _ in SOURCES}) > 1, "seed tasks sit beside case-shape files"
    for case_id in seed_ids:
        assert case_score(reference[case_id]).value["passed"] == 1.0


def test_seed_003s_tasks_pass_verbatim(reference: dict[str, EvalSample]) -> None:
    for case_id in ("identity-missing", "refund-two-items-one-call"):
        score = case_score(reference[case_id])
        assert score.metadata["failed_keys"] == [], score.explanation
        assert score.value["passed"] == 1.0


# ---- what the cases cover -----------------------------------------------------------------------


def test_the_flow_has_at_least_thirty_cases_each_with_a_reference() -> None:
    assert len(CASES) >= 30
    assert all(case.reference is not None and not case.skip for case in CASES.values())


@pytest.mark.parametrize("dimension", sorted(DIMENSIONS))
def test_every_case_takes_one_value_of_each_dimension(dimension: str) -> None:
    seen: set[str] = set()
    for case in TAGGED.values():
        values = tag_values(case, dimension)
        assert len(values) == 1, f"{case.id}: {dimension} tags {values}"
        assert values[0] in DIMENSIONS[dimension], f"{case.id}: {values[0]}"
        seen.add(values[0])
    assert seen == DIMENSIONS[dimension], f"{dimension}: no case for {DIMENSIONS[dimension] - seen}"


def test_every_request_type_meets_every_policy_fit() -> None:
    pairs = {(tag_values(c, "request")[0], tag_values(c, "fit")[0]) for c in TAGGED.values()}
    missing = {(r, f) for r in DIMENSIONS["request"] for f in DIMENSIONS["fit"]} - pairs
    assert not missing, missing


def test_every_rule_has_a_case_to_act_and_one_to_hold() -> None:
    moves: dict[str, set[str]] = defaultdict(set)
    for case in CASES.values():
        assert case.should is not None, f"{case.id}: says what the right move is"
        for rule in tag_values(case, "rule"):
            moves[rule].add(case.should)
    assert set(moves) == RULES
    for rule, shoulds in moves.items():
        assert shoulds & ACT, f"rule {rule}: no case where the right move is to act"
        assert shoulds & HOLD, f"rule {rule}: no case where it is to refuse, ask or hand over"


def test_silent_and_bait_cases_ask_the_policy_judge() -> None:
    for case in CASES.values():
        if "fit:silent" in case.tags or "rule:no-invention" in case.tags:
            assert "grounded_in_policy" in case.expected.dimensions, case.id


def test_a_case_naming_an_item_the_order_lacks_is_refused() -> None:
    world = load_world("support")
    case = CASES["support-002-refund-two-items-one-call"].model_copy(deep=True)
    assert case.expected.state is not None
    case.expected.state.rows["refunds"][0]["item_ids"] = ["I-1", "I-9"]
    problems = world.check_case(case, world.agents["support"])
    assert any("item 'I-9' is not on order R-1070" in p for p in problems), problems
