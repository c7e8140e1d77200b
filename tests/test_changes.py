"""The closed-world outcome: row diffs, normalisation, oracles and waivers."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from commerce_evals.cases.model import Expected
from commerce_evals.grading.changes import ChangeRules, diff, difference, matches, without
from commerce_evals.grading.graders import GradeContext, ToolRoles, grade
from commerce_evals.grading.oracle import oracle_changes
from commerce_evals.harness.flow_task import cached_world
from tests.helpers import make_run

RULES = ChangeRules(
    volatile={"tickets": frozenset({"ticket_id"})},
    free_text={"tickets": frozenset({"summary"}), "changes": frozenset({"new_value"})},
)
TICKET = {"ticket_id": "T-NEW-1", "order_id": "R-1", "summary": "Over the limit."}


def test_a_diff_lists_rows_added_and_removed_per_table() -> None:
    start = {"cart": [{"p": "A", "q": 1}], "memory": []}
    end = {"cart": [{"p": "A", "q": 2}], "memory": []}
    assert diff(start, end, RULES) == {
        "cart": {"added": [{"p": "A", "q": 2}], "removed": [{"p": "A", "q": 1}]}
    }
    assert diff(start, start, RULES) == {}


def test_generated_ids_and_free_text_are_blanked_but_numbers_are_compared() -> None:
    one = diff({"tickets": []}, {"tickets": [TICKET]}, RULES)
    other = diff(
        {"tickets": []}, {"tickets": [{**TICKET, "ticket_id": "T-NEW-7", "summary": "x"}]}, RULES
    )
    assert matches(one, other)
    price = diff({"changes": []}, {"changes": [{"new_value": 28.0}]}, RULES)
    assert not matches(price, diff({"changes": []}, {"changes": [{"new_value": 29.0}]}, RULES))
    copy = diff({"changes": []}, {"changes": [{"new_value": "New copy"}]}, RULES)
    assert matches(copy, diff({"changes": []}, {"changes": [{"new_value": "Other copy"}]}, RULES))


def test_a_duplicate_is_an_extra_row() -> None:
    oracle = diff({"tickets": []}, {"tickets": [TICKET]}, RULES)
    twice = diff({"tickets": []}, {"tickets": [TICKET, {**TICKET, "ticket_id": "T-NEW-2"}]}, RULES)
    assert difference(twice, oracle) == [
        'extra: tickets added {"order_id": "R-1", "summary": "<text>", "ticket_id": "<generated>"}'
    ]


def _changes_grade(run_end: dict, oracles: tuple, waiver: dict | None = None) -> tuple[bool, str]:
    run = make_run(("hi", []), start={"tickets": []}, end=run_end)
    expected = Expected.model_validate({"changes": waiver} if waiver else {})
    ctx = GradeContext(run=run, oracles=oracles, change_rules=RULES)
    [g] = [x for x in grade(expected, run, ToolRoles(), ctx) if x.key != "action_claims"]
    return g.passed, g.reason


def test_a_run_passes_when_it_matches_any_oracle() -> None:
    none = diff({"tickets": []}, {"tickets": []}, RULES)
    one = diff({"tickets": []}, {"tickets": [TICKET]}, RULES)
    assert _changes_grade({"tickets": [TICKET]}, (none, one))[0]
    passed, reason = _changes_grade({"tickets": [TICKET, TICKET]}, (none, one))
    assert not passed and "extra: tickets added" in reason


def test_a_waived_table_is_not_compared() -> None:
    waiver = {"any": ["tickets"], "reason": "the handover may or may not open a ticket"}
    assert _changes_grade({"tickets": [TICKET, TICKET]}, ({},), waiver)[0]
    assert without({"tickets": {"added": [TICKET], "removed": []}}, {"*"}) == {}
    assert (
        "changes"
        not in Expected.model_validate(
            {"changes": {"any": ["*"], "reason": "compares nothing here"}}
        ).asserted_keys()
    )


def test_oracle_changes_replay_the_reference_and_each_alternative() -> None:
    from commerce_evals.cases.model import Case

    world = cached_world("shop", None, True)
    case = Case.model_validate(
        {
            "id": "checkout-900-oracles",
            "priority": "medium",
            "difficulty": "medium",
            "state": {"seen_products": ["P-1145"]},
            "turns": ["add the bottle"],
            "expected": {},
            "reference": [{"calls": [{"tool": "add_to_cart", "args": {"product_id": "P-1145"}}]}],
            "alternatives": [
                {
                    "name": "two",
                    "turns": [
                        {
                            "calls": [
                                {
                                    "tool": "add_to_cart",
                                    "args": {"product_id": "P-1145", "quantity": 2},
                                }
                            ]
                        }
                    ],
                }
            ],
        }
    )
    first, second = oracle_changes(world, world.agents["shopper"].tools, case, None)
    assert first["cart"]["added"][0]["quantity"] == 1
    assert second["cart"]["added"][0]["quantity"] == 2


ROW = st.fixed_dictionaries({"id": st.sampled_from("abc"), "qty": st.integers(0, 2)})


@settings(max_examples=300, deadline=None)
@given(before=st.lists(ROW, max_size=6), after=st.lists(ROW, max_size=6))
def test_a_diff_is_the_multiset_difference_of_the_two_tables(
    before: list[dict[str, object]], after: list[dict[str, object]]
) -> None:
    """Rows left where they were are skipped before serialising: the result must not change."""
    key = lambda row: json.dumps(row, sort_keys=True)  # noqa: E731
    old, new = Counter(map(key, before)), Counter(map(key, after))
    found = diff({"t": before}, {"t": after}, ChangeRules()).get("t", {"added": [], "removed": []})
    assert sorted(map(key, found["added"])) == sorted((new - old).elements())
    assert sorted(map(key, found["removed"])) == sorted((old - new).elements())
