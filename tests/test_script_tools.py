"""A scripted run (reference, alternative, counterexample) that calls a tool the agent is not
offered is an error when the task loads and a lint finding, never a call Inspect quietly refuses
and a case that passes anyway."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from commerce_evals.cases.model import CaseFileError
from commerce_evals.checkout import checkout
from commerce_evals.cli.app import app
from tests.conftest import MINI_SHOP

CASE = """
- id: checkout-001-cart-seen
  priority: medium
  difficulty: medium
  state: {seen_products: [P-1]}
  turns: ["Add the Ridge shoe", "Thanks"]
  expected:
    cart_contains: [P-1]
  reference:
    - calls: [{tool: add_to_cart, args: {product_id: P-1}}]
      reply: Added.
    - reply: You're welcome.
  alternatives:
    - name: checks-the-cart
      turns:
        - calls: [{tool: REFERENCE_TOOL}]
          reply: Still there.
  counterexamples:
    - name: wrong-argument-type
      breaks: [cart_contains, changes]
      note: Inspect refuses the argument; that is allowed
      turns:
        - calls: [{tool: add_to_cart, args: {product_id: P-1, quantity: many}}]
          reply: Added.
        - reply: You're welcome.
"""


def write(tmp_path: Path, tool: str) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(CASE.replace("REFERENCE_TOOL", tool))
    return path


def load_problems(path: Path) -> list[str]:
    with pytest.raises(CaseFileError) as info:
        checkout(dataset=str(path), fixtures=str(MINI_SHOP))
    return info.value.problems


def test_a_tool_of_another_agent_is_an_error_at_load(tmp_path: Path) -> None:
    path = write(tmp_path, "stage_change")
    [problem] = load_problems(path)
    assert problem == (
        f"{path}: case checkout-001-cart-seen: alternatives.checks-the-cart turn 2: calls "
        "'stage_change', a tool of the merchant agent, not offered to the shopper agent"
    )


def test_a_tool_that_does_not_exist_is_an_error_at_load(tmp_path: Path) -> None:
    path = write(tmp_path, "veiw_cart")
    [problem] = load_problems(path)
    assert problem.startswith(
        f"{path}: case checkout-001-cart-seen: alternatives.checks-the-cart turn 2: calls "
        "'veiw_cart', no tool of shop (the shopper agent is offered: add_to_cart, "
    )


def test_the_error_is_one_error_line_under_inspect(tmp_path: Path) -> None:
    path = write(tmp_path, "issue_refund")
    message = str(CaseFileError(load_problems(path)))
    assert message.count("issue_refund") == 1 and "turn 2" in message


def test_an_offered_tool_with_arguments_inspect_refuses_loads(tmp_path: Path) -> None:
    # the counterexample's `quantity: many` is refused by Inspect at run time, not at load
    task = checkout(dataset=str(write(tmp_path, "view_cart")), fixtures=str(MINI_SHOP))
    assert len(task.dataset) == 1


def test_lint_reports_the_tool_naming_file_case_script_and_turn(tmp_path: Path) -> None:
    path = write(tmp_path, "veiw_cart")
    result = CliRunner().invoke(app, ["lint", str(path)])
    assert result.exit_code == 1, result.output
    shown = os.path.relpath(path)
    line = next(line for line in result.output.splitlines() if "veiw_cart" in line)
    assert line.startswith(f"{shown}: case checkout-001-cart-seen: [ids-exist]")
    assert "alternatives.checks-the-cart turn 2: calls 'veiw_cart', no tool of shop" in line
