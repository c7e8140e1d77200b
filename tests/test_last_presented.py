"""Seed 000: "Grade the final tool arguments and the state they produced: the ids on the last
presentation call". `last_presented` reads the last presentation that went through in the graded
turn: the right products shown first and an over-budget one shown last fails."""

from __future__ import annotations

from typing import Any

from commerce_evals.cases.model import Expected
from commerce_evals.core.events import ToolCallEvent, ToolResultEvent
from commerce_evals.grading.graders import DomainBrief, GradeContext, grade
from tests.helpers import make_run

PRESENTS = {
    "present_suggestions": "product_ids",
    "present_comparison": "product_ids",
    "present_product_card": "product_id",
}
BRIEF = DomainBrief(turn_ending=frozenset({"present_suggestions"}), presents=PRESENTS)
RIGHT = ["P-1008", "P-1009", "P-1010"]
KEY = "last_presented"


def shown(n: int, tool: str, status: str = "ok", **args: Any) -> list[Any]:
    return [
        ToolCallEvent(call_id=f"c{n}", tool=tool, args=args),
        ToolResultEvent(call_id=f"c{n}", tool=tool, status=status),
    ]


def verdict(events: list[Any], value: Any = RIGHT) -> tuple[bool, str]:
    run = make_run(("Road shoes under $50.", events))
    return _graded(Expected(last_presented=value), run)


def _graded(expected: Expected, run: Any) -> tuple[bool, str]:
    [g] = [g for g in grade(expected, run, BRIEF, GradeContext(run, BRIEF)) if g.key == KEY]
    return g.passed, g.reason


def test_the_right_products_shown_last_pass_in_any_order() -> None:
    ok, why = verdict(shown(1, "present_suggestions", product_ids=["P-1010", "P-1008", "P-1009"]))
    assert ok, why


def test_right_products_then_one_over_budget_last_fails() -> None:
    events = [
        *shown(1, "present_suggestions", product_ids=RIGHT),
        *shown(2, "present_product_card", product_id="P-1007"),
    ]
    ok, why = verdict(events)
    assert not ok
    assert "present_product_card" in why and "P-1007" in why and "earlier" in why


def test_a_second_suggestion_set_with_a_wrong_product_fails() -> None:
    events = [
        *shown(1, "present_suggestions", product_ids=RIGHT),
        *shown(2, "present_suggestions", product_ids=["P-1008", "P-1009", "P-1007"]),
    ]
    assert not verdict(events)[0]


def test_a_wrong_set_corrected_by_a_right_one_last_passes() -> None:
    events = [
        *shown(1, "present_comparison", product_ids=["P-1007", "P-1008"]),
        *shown(2, "present_suggestions", product_ids=RIGHT),
    ]
    assert verdict(events)[0]


def test_a_blocked_presentation_showed_nothing() -> None:
    """A presentation the store blocked is not what the person sees: the one before it is."""
    events = [
        *shown(1, "present_suggestions", product_ids=RIGHT),
        *shown(2, "present_product_card", status="blocked", product_id="P-1001"),
    ]
    assert verdict(events)[0]
    ok, why = verdict(shown(1, "present_suggestions", status="refused", product_ids=RIGHT))
    assert not ok and "none went through" in why


def test_a_subset_or_a_superset_is_not_the_set() -> None:
    assert not verdict(shown(1, "present_suggestions", product_ids=RIGHT[:2]))[0]
    assert not verdict(shown(1, "present_suggestions", product_ids=[*RIGHT, "P-1007"]))[0]


def test_one_of_several_sets() -> None:
    sets = [["P-1115", "P-1116", "P-1123"], ["P-1115", "P-1116", "P-1124"]]
    assert verdict(shown(1, "present_suggestions", product_ids=sets[1][::-1]), sets)[0]
    assert not verdict(shown(1, "present_suggestions", product_ids=["P-1123", "P-1124"]), sets)[0]


def test_a_single_card_is_a_set_of_one() -> None:
    assert verdict(shown(1, "present_product_card", product_id="P-1097"), ["P-1097"])[0]


def test_nothing_presented_fails() -> None:
    ok, why = verdict([])
    assert not ok and "nothing was presented" in why


def test_an_earlier_turns_presentation_does_not_count() -> None:
    run = make_run(
        ("Road shoes under $50.", shown(1, "present_suggestions", product_ids=RIGHT)),
        ("Thanks!", []),
    )
    assert not _graded(Expected(last_presented=RIGHT), run)[0]
