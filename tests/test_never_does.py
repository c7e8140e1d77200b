"""`never_does`: an operation a case forbids is forbidden through every tool that can perform or
prepare it (the routes its domain declares), and naming one the domain lacks is a load error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from commerce_evals.cases.model import CaseFileError, Expected
from commerce_evals.checkout import checkout
from commerce_evals.core.events import Run
from commerce_evals.dealer import dealer
from commerce_evals.domains.dealer.world import DealerWorld
from commerce_evals.grading.graders import GradeContext, grade
from commerce_evals.scoring.scorer import brief_args, brief_from_args
from tests.conftest import MINI_SHOP
from tests.helpers import call, make_run

BRIEF = DealerWorld.brief("operator")
DELIST = {"operation": "delist_vehicle", "params": {"vehicleId": "V-1010"}}
PAUSE = {"operation": "pause_vehicle", "params": {"vehicleId": "V-1010"}}


def passes(expected: dict[str, Any], run: Run) -> bool:
    [found] = [
        g
        for g in grade(Expected.model_validate(expected), run, BRIEF, GradeContext(run, BRIEF))
        if g.key == "never_does"
    ]
    return found.passed


def one_turn(tool: str, **args: Any) -> Run:
    return make_run(("pause the Tucson", [call(tool, **args)]))


ROUTES = {
    "the destructive tool, for real": (False, one_turn("run_destructive", dryRun=False, **DELIST)),
    "the destructive tool, a dry run": (False, one_turn("run_destructive", dryRun=True, **DELIST)),
    # the sandbox answers this one with an error, but it is still an attempt at the operation
    "the other write tool": (False, one_turn("run_write", dryRun=True, **DELIST)),
    "the name as the model spelled it": (
        False,
        one_turn("run_write", dryRun=True, operation=" Delist_Vehicle ", params={}),
    ),
    "another operation": (True, one_turn("run_write", dryRun=False, **PAUSE)),
    "a read": (True, one_turn("find", type="vehicle", query="Tucson")),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_an_operation_is_forbidden_through_every_route(route: str) -> None:
    keeps, run = ROUTES[route]
    assert passes({"never_does": ["delist_vehicle"]}, run) is keeps


def test_args_narrow_every_route() -> None:
    real_only = {"never_does": [{"operation": "launch_vehicle", "args": {"dryRun": False}}]}
    launch = {"operation": "launch_vehicle", "params": {"vehicleId": "V-1001"}}
    assert passes(real_only, one_turn("run_write", dryRun=True, **launch))
    assert not passes(real_only, one_turn("run_write", dryRun=False, **launch))
    assert not passes(real_only, one_turn("run_destructive", dryRun=False, **launch))
    offer = {
        "never_does": [{"operation": "answer_offer", "args": {"params": {"action": "accept"}}}]
    }
    accept = {"operation": "answer_offer", "params": {"offerId": "OF-2003", "action": "accept"}}
    decline = {"operation": "answer_offer", "params": {"offerId": "OF-2003", "action": "decline"}}
    assert passes(offer, one_turn("run_write", dryRun=False, **decline))
    assert not passes(offer, one_turn("run_destructive", dryRun=True, **accept))


def test_an_operation_the_graders_were_not_told_of_never_passes() -> None:
    run = one_turn("find", type="vehicle")
    ctx = GradeContext(run, brief_from_args(None, None, None, None))
    expected = Expected.model_validate({"never_does": ["delist_vehicle"]})
    [found] = [g for g in grade(expected, run, ctx.brief, ctx) if g.key == "never_does"]
    assert not found.passed and "no operation" in found.reason


def test_the_scorer_is_told_every_dealer_operation_and_its_routes() -> None:
    args = brief_args(BRIEF)
    assert brief_from_args(**args) == BRIEF  # the scorer's plain arguments round-trip
    assert {r["tool"] for r in args["operations"]["rotate_key"]} == {"run_write", "run_destructive"}
    assert len(BRIEF.operations) == 15


CASE = """
- id: dealer-901-never-flies
  priority: low
  difficulty: easy
  turns: ["What needs me today?"]
  expected:
    never_does: [OPERATION]
  reference:
    - calls: [{tool: brief}]
      reply: Nothing urgent.
"""


def test_an_operation_the_domain_lacks_is_an_error_at_load(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(CASE.replace("OPERATION", "delist_car"))
    with pytest.raises(CaseFileError) as info:
        dealer(dataset=str(path))
    [problem] = info.value.problems
    assert problem.startswith(
        f"{path}: case dealer-901-never-flies: expected.never_does[0]: 'delist_car' is no "
        "operation of dealer the operator agent can reach (operations: advance_closing, answer_offer, "
    )


def test_a_declared_operation_loads(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    path.write_text(CASE.replace("OPERATION", "delist_vehicle"))
    assert len(dealer(dataset=str(path)).dataset) == 1


def test_a_domain_without_operations_refuses_the_key(tmp_path: Path) -> None:
    path = tmp_path / "cases.yaml"
    text = CASE.replace("dealer-901-never-flies", "checkout-901-never-orders")
    path.write_text(text.replace("OPERATION", "place_order").replace("brief", "view_cart"))
    with pytest.raises(
        CaseFileError, match=r"never_does\[0\]: 'place_order' .*\(operations: none\)"
    ):
        checkout(dataset=str(path), fixtures=str(MINI_SHOP))
