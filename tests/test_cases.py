"""Case files: each kind of bad input gives one clear error naming file, case and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from commerce_evals.cases.model import CaseFileError, load_cases
from commerce_evals.checkout import checkout
from tests.conftest import MINI_SHOP
from tests.helpers import case_score, run_task, samples_by_id

GOOD = """
- id: checkout-001-cart-seen
  priority: medium
  difficulty: medium
  state: {seen_products: [P-1]}
  turns: ["Add the Ridge shoe"]
  expected:
    cart_contains: [P-1]
  reference:
    - calls: [{tool: add_to_cart, args: {product_id: P-1}}]
      reply: Added.
"""


def write(tmp_path: Path, text: str, name: str = "cases.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def problems(path: Path) -> list[str]:
    with pytest.raises(CaseFileError) as info:
        load_cases([path])
    return info.value.problems


def test_good_file_loads(tmp_path: Path) -> None:
    [case] = load_cases([write(tmp_path, GOOD)])
    assert case.id == "checkout-001-cart-seen"
    assert case.expected.cart_contains[0].product_id == "P-1"


def test_json_is_accepted(tmp_path: Path) -> None:
    import json

    import yaml

    path = write(tmp_path, json.dumps(yaml.safe_load(GOOD)), "cases.json")
    assert len(load_cases([path])) == 1


def test_yaml_syntax_error_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "- id: checkout-001-x\n  turns: [unclosed\n")
    [problem] = problems(path)
    assert str(path) in problem and "not valid YAML" in problem


def test_unknown_key_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("cart_contains", "never_call"))
    [problem] = problems(path)
    assert str(path) in problem
    assert "case checkout-001-cart-seen" in problem
    assert "expected.never_call" in problem


def test_wrong_type_names_the_field(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("expected:", "expected:\n    max_tool_calls: lots"))
    [problem] = problems(path)
    assert "case checkout-001-cart-seen: expected.max_tool_calls" in problem


def test_duplicate_id(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + GOOD)
    [problem] = problems(path)
    assert "checkout-001-cart-seen: id: duplicate" in problem


def test_bad_id_shape(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("checkout-001-cart-seen", "cart seen"))
    [problem] = problems(path)
    assert "<flow>-<nnn>-<behavior>" in problem


def test_reference_must_cover_every_turn(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('turns: ["Add the Ridge shoe"]', 'turns: ["a", "b"]'))
    [problem] = problems(path)
    assert "reference" in problem


def test_counterexample_must_name_asserted_keys(tmp_path: Path) -> None:
    text = (
        GOOD + "  counterexamples:\n    - {name: bad, breaks: [never_calls], turns: [{reply: x}]}\n"
    )
    [problem] = problems(write(tmp_path, text))
    assert "never_calls" in problem and "not keys this case asserts" in problem


def test_every_problem_in_a_file_is_reported_at_once(tmp_path: Path) -> None:
    text = (
        GOOD
        + GOOD.replace("checkout-001-cart-seen", "checkout-002-x").replace(
            "cart_contains", "cart_contain"
        )
        + GOOD.replace("checkout-001-cart-seen", "checkout-003-y").replace("turns:", "turn:")
    )
    found = problems(write(tmp_path, text))
    assert len(found) >= 2
    assert any("checkout-002-x" in p for p in found)
    assert any("checkout-003-y" in p for p in found)


def test_an_id_not_in_the_fixtures_fails_at_task_load(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("cart_contains: [P-1]", "cart_contains: [P-404]"))
    with pytest.raises(CaseFileError) as info:
        checkout(dataset=str(path), fixtures=str(MINI_SHOP))
    [problem] = info.value.problems
    assert str(path) in problem
    assert "case checkout-001-cart-seen" in problem
    assert "expected.cart_contains[0].product_id" in problem and "P-404" in problem


def test_a_tool_the_agent_lacks_fails_at_task_load(tmp_path: Path) -> None:
    text = GOOD.replace("cart_contains: [P-1]", "never_calls: [issue_refund]")
    with pytest.raises(CaseFileError, match="issue_refund"):
        checkout(dataset=str(write(tmp_path, text)), fixtures=str(MINI_SHOP))


def test_bad_state_shape_fails_at_task_load(tmp_path: Path) -> None:
    text = GOOD.replace("state: {seen_products: [P-1]}", "state: {seen_product: [P-1]}")
    with pytest.raises(CaseFileError, match=r"state\.seen_product"):
        checkout(dataset=str(write(tmp_path, text)), fixtures=str(MINI_SHOP))


def test_skipped_case_is_loaded_not_run_and_reported(tmp_path: Path) -> None:
    skipped = GOOD.replace("checkout-001-cart-seen", "checkout-002-later").replace(
        "  state:", "  skip: waiting on the gift-card fixture\n  state:"
    )
    path = write(tmp_path, GOOD + skipped)
    log = run_task(checkout(dataset=str(path), fixtures=str(MINI_SHOP)))
    samples = samples_by_id(log)
    score = case_score(samples["checkout-002-later"])
    assert score.reason == "skipped"
    assert "waiting on the gift-card fixture" in score.explanation
    assert not samples["checkout-002-later"].output.choices  # no model call was made
    assert case_score(samples["checkout-001-cart-seen"]).value["passed"] == 1.0
