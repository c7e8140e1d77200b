"""The closed-world outcome: row diffs, normalisation, oracles and waivers."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from commerce_evals.cases.model import Expected
from commerce_evals.core.events import Event, ToolCallEvent, ToolResultEvent
from commerce_evals.domains.worlds import cached_world
from commerce_evals.grading.changes import (
    ChangeRules,
    ChangeSet,
    diff,
    difference,
    matches,
    renormalised,
    without,
)
from commerce_evals.grading.graders import DomainBrief, GradeContext, grade
from commerce_evals.harness.oracle import oracles
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
    [g] = [x for x in grade(expected, run, DomainBrief(), ctx) if x.key == "changes"]
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
    first, second = (o.changes for o in oracles(world, world.agents["shopper"].tools, case, None))
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


# ---- item 7: values compared as a reviewer would ----------------------------------------------

SUPPORT_RULES = cached_world("support", None, False).change_rules
REFUND = {"refund_id": "RF-NEW-1", "order_id": "R-1070", "item_ids": ["I-1", "I-2"]}


def _refund(**fields: object) -> dict:
    return diff({"refunds": []}, {"refunds": [{**REFUND, **fields}]}, SUPPORT_RULES)


def test_numbers_compare_by_value() -> None:
    oracle = _refund(amount=15)
    assert matches(_refund(amount=15.0), oracle)
    assert matches(_refund(amount="15"), oracle)
    assert not matches(_refund(amount=16), oracle)
    # a ZIP with a leading zero is text, not the number 2134
    assert not matches(_refund(amount="02134"), _refund(amount=2134))


def test_amounts_agree_within_a_cent() -> None:
    oracle = _refund(amount=104.0)
    assert matches(_refund(amount=104.004), oracle)
    assert matches(_refund(amount=103.995), oracle)
    assert not matches(_refund(amount=104.02), oracle)


def test_declared_list_fields_compare_as_sets_and_others_in_order() -> None:
    oracle = _refund(amount=104.0)
    assert matches(_refund(amount=104.0, item_ids=["I-2", "I-1"]), oracle)
    assert not matches(_refund(amount=104.0, item_ids=["I-1"]), oracle)
    ordered = ChangeRules()  # item_ids not declared a set: the order counts
    one = diff({"refunds": []}, {"refunds": [{"item_ids": ["I-1", "I-2"]}]}, ordered)
    other = diff({"refunds": []}, {"refunds": [{"item_ids": ["I-2", "I-1"]}]}, ordered)
    assert not matches(one, other)


def test_declared_text_fields_ignore_case_and_others_do_not() -> None:
    row = {"customer_id": "C-011", "street": "200 Middle St", "city": "Portland", "state": "ME"}
    oracle = diff({"addresses": []}, {"addresses": [row]}, SUPPORT_RULES)
    shouted = {**row, "street": "200 MIDDLE  ST", "city": "portland"}
    assert matches(diff({"addresses": []}, {"addresses": [shouted]}, SUPPORT_RULES), oracle)
    lower_state = {**row, "state": "me"}  # state is not declared caseless
    assert not matches(diff({"addresses": []}, {"addresses": [lower_state]}, SUPPORT_RULES), oracle)
    nested = {"order_id": "R-1171", "ship_to": {"street": "200 middle st", "city": "PORTLAND"}}
    wanted = {"order_id": "R-1171", "ship_to": {"street": "200 Middle St", "city": "Portland"}}
    assert matches(
        diff({"orders": []}, {"orders": [nested]}, SUPPORT_RULES),
        diff({"orders": []}, {"orders": [wanted]}, SUPPORT_RULES),
    )


def test_a_required_field_left_empty_fails_with_the_field_named() -> None:
    ticket = {"ticket_id": "T-NEW-1", "customer_id": "C-001", "order_id": "R-1", "summary": "x"}
    oracle = diff({"tickets": []}, {"tickets": [ticket]}, SUPPORT_RULES)
    for empty in (None, ""):
        run = diff({"tickets": []}, {"tickets": [{**ticket, "customer_id": empty}]}, SUPPORT_RULES)
        [line] = difference(run, oracle)
        assert line.startswith("differs: tickets added") and "customer_id left empty" in line
        assert '"C-001"' in line
    for empty in ("", "  "):  # free text is blanked, but not when there is none
        blank = diff({"tickets": []}, {"tickets": [{**ticket, "summary": empty}]}, SUPPORT_RULES)
        assert "summary left empty" in "".join(difference(blank, oracle))
    none_id = diff({"tickets": []}, {"tickets": [{**ticket, "ticket_id": None}]}, SUPPORT_RULES)
    assert "ticket_id left empty" in "".join(difference(none_id, oracle))


def test_normalising_twice_changes_nothing_and_old_oracles_read_as_new() -> None:
    row = {**REFUND, "amount": 104.0, "item_ids": ["I-2", "I-1"], "reason": "Leaks"}
    once = SUPPORT_RULES.normalise("refunds", row)
    assert SUPPORT_RULES.normalise("refunds", once) == once
    stored = {"refunds": {"added": [{**row, "refund_id": "<generated>"}], "removed": []}}
    assert renormalised(stored, SUPPORT_RULES) == {"refunds": {"added": [once], "removed": []}}


# ---- item 5: every write the run made, against the oracles' writes ----------------------------

SHOP = cached_world("shop", None, False)
SHOP_RULES = SHOP.change_rules
SHOP_WRITES = SHOP.brief("merchant").writes | SHOP.brief("shopper").writes


def _events(*calls: tuple[str, dict, str]) -> list[Event]:
    events: list[Event] = []
    for n, (tool, args, status) in enumerate(calls):
        events.append(ToolCallEvent(call_id=f"k{n}", tool=tool, args=args))
        events.append(
            ToolResultEvent.model_validate({"call_id": f"k{n}", "tool": tool, "status": status})
        )
    return events


def _writes_grade(
    calls: list[tuple[str, dict, str]],
    oracle_writes: list[list[str]] | None,
    rules: ChangeRules = SHOP_RULES,
    writes: frozenset[str] = SHOP_WRITES,
    waiver: dict | None = None,
) -> tuple[bool, str]:
    """`changes` for a run whose end state is the oracle's (nothing changed, both sides)."""
    run = make_run(("go", _events(*calls)), start={"cart": []}, end={"cart": []})
    expected = Expected.model_validate({"changes": waiver} if waiver else {})
    oracles_: tuple[ChangeSet, ...] = tuple({} for _ in oracle_writes or [[]])
    ctx = GradeContext(
        run=run,
        brief=DomainBrief(writes=writes),
        oracles=oracles_,
        oracle_writes=tuple(oracle_writes) if oracle_writes is not None else None,
        change_rules=rules,
    )
    [g] = [x for x in grade(expected, run, ctx.brief, ctx) if x.key == "changes"]
    return g.passed, g.reason


def _effects(rules: ChangeRules, *calls: tuple[str, dict]) -> list[str]:
    return sorted({e for tool, args in calls for e in rules.effects(tool, args)})


STAGE: tuple[str, dict[str, Any], str] = (
    "stage_change",
    {"kind": "price", "product_id": "P-1145", "new_value": 22.4},
    "ok",
)
DROP: tuple[str, dict[str, Any], str] = ("drop_staged_change", {"change_id": "CH-NEW-1"}, "ok")


def test_a_write_undone_later_in_the_run_fails_and_is_named() -> None:
    passed, reason = _writes_grade([STAGE, DROP], [[]])
    assert not passed
    assert "the end state matches an oracle run's" in reason
    assert 'stage_change{"kind": "price", "new_value": 22.4, "product_id": "P-1145"}' in reason
    assert "drop_staged_change" in reason


def test_reads_and_writes_that_did_not_run_are_not_writes() -> None:
    read = ("get_product_details", {"product_id": "P-1145"}, "ok")
    assert _writes_grade([read], [[]])[0]
    for status in ("blocked", "error", "refused", "needs_person"):
        assert _writes_grade([read, (*STAGE[:2], status)], [[]])[0], status


def test_an_oracle_write_made_again_or_with_other_arguments_is_the_same_write() -> None:
    oracle = _effects(SHOP_RULES, ("add_to_cart", {"product_id": "P-1145", "quantity": 2}))
    retried = ("add_to_cart", {"product_id": "P-1145", "quantity": 2}, "ok")
    assert _writes_grade([retried, retried], [oracle])[0]
    in_two_steps: list[tuple[str, dict, str]] = [
        ("add_to_cart", {"product_id": "P-1145"}, "ok"),
        ("update_cart_quantity", {"product_id": " p-1145 ", "quantity": 2}, "ok"),
    ]
    assert _writes_grade(in_two_steps, [oracle])[0]
    noted = [("stage_change", {**STAGE[1], "note": "Asked for it.", "new_value": "22.40"}, "ok")]
    assert _writes_grade(noted, [_effects(SHOP_RULES, STAGE[:2])])[0]


def test_a_write_any_oracle_made_is_allowed() -> None:
    stage = _effects(SHOP_RULES, STAGE[:2])
    drop = _effects(SHOP_RULES, DROP[:2])
    assert _writes_grade([STAGE, DROP], [stage, drop])[0]
    assert not _writes_grade([STAGE, DROP], [stage])[0]


def test_removing_a_line_the_customer_asked_to_remove_is_an_oracle_write() -> None:
    remove = ("remove_from_cart", {"product_id": "P-1104"}, "ok")
    oracle = _effects(SHOP_RULES, remove[:2])
    assert _writes_grade([("view_cart", {}, "ok"), remove], [oracle])[0]
    unwanted = [
        ("add_to_cart", {"product_id": "P-1132"}, "ok"),
        ("remove_from_cart", {"product_id": "P-1132"}, "ok"),
        remove,
    ]
    passed, reason = _writes_grade(unwanted, [oracle])
    assert not passed and 'add_to_cart{"product_id": "P-1132"}' in reason
    # a line the case wants, taken out and put back, is still only that line written
    wanted = _effects(SHOP_RULES, ("add_to_cart", {"product_id": "P-1145"}))
    churn = [
        ("add_to_cart", {"product_id": "P-1145"}, "ok"),
        ("remove_from_cart", {"product_id": "P-1145"}, "ok"),
        ("add_to_cart", {"product_id": "P-1145"}, "ok"),
    ]
    assert _writes_grade(churn, [wanted])[0]


def test_refunds_and_addresses_compare_by_what_they_target() -> None:
    rules = SUPPORT_RULES
    writes = cached_world("support", None, False).brief("support").writes
    oracle = _effects(
        rules, ("issue_refund", {"order_id": "R-1070", "item_ids": ["I-1", "I-2"], "reason": "x"})
    )
    other_order = {"order_id": "r-1070", "item_ids": ["I-2", "I-1"], "reason": "Customer request"}
    assert _writes_grade([("issue_refund", other_order, "ok")], [oracle], rules, writes)[0]
    fewer = ("issue_refund", {"order_id": "R-1070", "item_ids": ["I-1"], "reason": "x"}, "ok")
    assert not _writes_grade([fewer], [oracle], rules, writes)[0]
    # one call changing both addresses is the two changes the oracle made in two calls
    address = {"street": "1 A St", "city": "Portland", "state": "ME", "zip": "04101"}
    both = ("update_address", {**address, "customer_id": "C-011", "order_id": "R-1171"}, "ok")
    two_calls = _effects(
        rules,
        ("update_address", {**address, "customer_id": "C-011"}),
        ("update_address", {**address, "order_id": "R-1171"}),
    )
    assert _writes_grade([both], [two_calls], rules, writes)[0]
    order_only = _effects(rules, ("update_address", {**address, "order_id": "R-1171"}))
    passed, reason = _writes_grade([both], [order_only], rules, writes)
    assert not passed and "C-011" in reason


def test_a_dealer_dry_run_is_no_write_and_a_replayed_key_is_the_same_write() -> None:
    dealer = cached_world("dealer", None, False)
    rules, writes = dealer.change_rules, dealer.brief("operator").writes
    pause = {"operation": "pause_vehicle", "params": {"vehicleId": "V-1001"}, "dryRun": False}
    oracle = _effects(rules, ("run_write", {**pause, "idempotencyKey": "a"}))
    dry_delist = {"operation": "delist_vehicle", "params": {"vehicleId": "V-1001"}, "dryRun": True}
    run = [
        ("run_destructive", dry_delist, "ok"),
        ("run_write", {**pause, "idempotencyKey": "mine"}, "ok"),
        ("run_write", {**pause, "idempotencyKey": "mine"}, "ok"),
    ]
    assert _writes_grade(run, [oracle], rules, writes)[0]
    other_car = {**pause, "params": {"vehicleId": "V-1002"}}
    assert not _writes_grade([("run_write", other_car, "ok")], [oracle], rules, writes)[0]
    declined = {"operation": "answer_offer", "params": {"offerId": "OF-2001", "action": "decline"}}
    accepted = {"operation": "answer_offer", "params": {"offerId": "OF-2001", "action": "accept"}}
    assert not _writes_grade(
        [("run_write", {**declined, "dryRun": False}, "ok")],
        [_effects(rules, ("run_write", {**accepted, "dryRun": False}))],
        rules,
        writes,
    )[0]


def test_a_waived_table_waives_its_writes_and_old_logs_compare_the_end_only() -> None:
    waiver = {"any": ["staged_changes"], "reason": "the queue may be tidied"}
    assert _writes_grade([STAGE, DROP], [[]], waiver=waiver)[0]
    assert not _writes_grade(
        [STAGE, DROP], [[]], waiver={"any": ["cart"], "reason": "the cart may change"}
    )[0]
    assert _writes_grade([STAGE, DROP], None)[0]  # a log from before writes were kept


def test_every_write_tool_of_every_domain_declares_what_it_changes() -> None:
    from commerce_evals.domains import WORLDS

    undeclared = {
        (domain, spec.name)
        for domain, world in WORLDS.items()
        for agent in world.agents.values()
        for spec in agent.tools
        if spec.writes and spec.name not in world.change_rules.writes
    }
    assert undeclared == set()


def test_an_undeclared_write_tool_is_told_apart_by_all_its_arguments() -> None:
    bare = ChangeRules()
    assert bare.effects("save_memory", {"text": "a"}) != bare.effects("save_memory", {"text": "b"})
    assert bare.effects("save_memory", {"text": "a"}) == bare.effects("save_memory", {"text": "a"})


def test_oracle_replays_record_the_writes_that_ran() -> None:
    from commerce_evals.cases.model import Case

    merchant = SHOP.agents["merchant"].tools
    case = Case.model_validate(
        {
            "id": "merchant-900-oracle-writes",
            "priority": "medium",
            "difficulty": "medium",
            "turns": ["lower the bottle"],
            "expected": {},
            "reference": [
                {
                    "calls": [
                        {"tool": "get_product_details", "args": {"product_id": "P-1145"}},
                        # over the cap: refused by the gate, so no write
                        {"tool": "stage_change", "args": dict(STAGE[1], new_value=1)},
                        {"tool": "stage_change", "args": STAGE[1]},
                        {"tool": "drop_staged_change", "args": DROP[1]},
                    ]
                }
            ],
        }
    )
    [oracle] = oracles(SHOP, merchant, case, None)
    assert oracle.changes == {}
    assert oracle.writes == _effects(SHOP_RULES, STAGE[:2], DROP[:2])


def test_an_optional_note_written_or_left_out_is_the_same_change() -> None:
    """A staged change's note is the operator's own text, and the tool does not require it: a
    change staged without a note is the change an oracle staged with one. A required id left
    empty still differs."""
    from commerce_evals.domains.shop.world import ShopWorld
    from commerce_evals.domains.support.world import SupportWorld

    rules = ShopWorld.change_rules
    with_note = {"change_id": "CH-NEW-1", "kind": "price", "product_id": "PE-2020",
                 "new_value": 62, "note": "competitor match", "approved_by": None}  # fmt: skip
    without = {**with_note, "note": ""}
    assert rules.normalise("staged_changes", with_note) == rules.normalise(
        "staged_changes", without
    )
    ticket = {"ticket_id": "T-1", "customer_id": "C-002", "order_id": "R-1080", "summary": "x"}
    blank = {**ticket, "customer_id": None}
    support = SupportWorld.change_rules
    assert support.normalise("tickets", ticket) != support.normalise("tickets", blank)
