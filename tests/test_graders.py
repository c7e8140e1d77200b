"""Every grader passes on a matching run and fails on one that does not match."""

from __future__ import annotations

from typing import Any

import pytest

from commerce_evals.cases.customer import Customer
from commerce_evals.cases.key_values import ToolPattern
from commerce_evals.cases.model import Expected
from commerce_evals.core.events import Run, ToolResultEvent, UiEvent
from commerce_evals.grading.changes import ChangeRules
from commerce_evals.grading.graders import (
    GRADERS,
    DomainBrief,
    GradeContext,
    KeyTables,
    grade,
    tables_read,
)
from commerce_evals.grading.keys import DEFAULT_KEYS
from tests.helpers import call, make_run, reply, result, ui

# what a shop-like domain tells the graders: its tool roles and the tables the table keys read
KEY_TABLES = KeyTables(
    cart="cart", memory="memory", staged_changes="staged_changes", applied_changes="applied_changes"
)
BRIEF = DomainBrief(
    turn_ending=frozenset({"present_suggestions"}),
    writes=frozenset({"add_to_cart", "place_order", "issue_refund"}),
    skill_tool="load_skill",
    skill_arg="name",
    tables=KEY_TABLES,
    # an operation with two routes: the summary prepares the order place_order performs
    operations={"order": (ToolPattern(tool="checkout_summary"), ToolPattern(tool="place_order"))},
    presents={"present_suggestions": "product_ids", "present_product_card": "product_id"},
)

CART_START = {"cart": [], "memory": [], "staged_changes": [], "applied_changes": []}


def one_turn(*events: Any, end: dict | None = None, start: dict | None = None) -> Run:
    return make_run(("help me", list(events)), start=start or CART_START, end=end or CART_START)


YES_TO_REFUND = (frozenset(), frozenset({"issue_refund"}))
# the one change every oracle of the `changes` case made: a cart line for P-1
ORACLE = {"cart": {"added": [{"product_id": "P-1", "quantity": 1}], "removed": []}}


# the customer of the asking keys: a size it gives when asked
CUSTOMER = Customer.model_validate(
    {
        "persona": {"tone": "brief"},
        "goal": "Buy the trail shoes.",
        "reveals": [{"name": "size", "say": "Size 9.", "topics": ["size", "shoe size"]}],
    }
)


def context(
    run: Run, confirms: tuple[frozenset[str], ...] = YES_TO_REFUND, oracle: bool = False
) -> GradeContext:
    """Grading with declared consent; with `oracle`, the closed-world outcome against ORACLE
    (without, `changes` has no oracle and is not asserted)."""
    oracles = (ORACLE,) if oracle else None
    return GradeContext(
        run=run,
        brief=BRIEF,
        confirms=confirms,
        oracles=oracles,
        change_rules=ChangeRules(),
        customer=CUSTOMER,
    )


def graded(expected: dict[str, Any], run: Run) -> list[Any]:
    """The grades of the keys `expected` sets (and `changes`): a key's own tests leave out the
    other keys on by default (action_claims), which test_reply_facts.py tries."""
    ctx = context(run, oracle="changes" in expected)
    grades = grade(Expected.model_validate(expected), run, BRIEF, ctx)
    return [
        g for g in grades if g.key in expected or g.key == "changes" or g.key not in DEFAULT_KEYS
    ]


def verdict(expected: dict[str, Any], run: Run) -> bool:
    grades = graded(expected, run)
    assert grades, "the key must be graded"
    return all(g.passed for g in grades)


# (expected, a run that passes, a run that fails)
CASES: dict[str, tuple[dict[str, Any], Run, Run]] = {
    "calls_tool": (
        {"calls_tool": [{"tool": "add_to_cart", "args": {"product_id": "P-1"}}]},
        one_turn(call("add_to_cart", product_id="P-1", quantity=1)),
        one_turn(call("add_to_cart", product_id="P-2")),
    ),
    "calls_one_of": (
        {"calls_one_of": ["find_customer", "find_customer_by_email"]},
        one_turn(call("find_customer_by_email", email="a@b.c")),
        one_turn(call("get_order", order_id="R-1")),
    ),
    "never_calls": (
        {"never_calls": [{"tool": "save_memory"}]},
        make_run(("a", [call("search_products")]), ("b", [reply("ok")])),
        # a never in an earlier turn still fails: never means never
        make_run(("a", [call("save_memory", text="x")]), ("b", [reply("ok")])),
    ),
    "never_does": (
        {"never_does": ["order"]},
        one_turn(call("view_cart")),
        # forbidden through the route that prepares it, not only the one that performs it
        one_turn(call("checkout_summary")),
    ),
    "first_tool": (
        {"first_tool": "search_products"},
        one_turn(call("search_products"), call("add_to_cart")),
        one_turn(call("add_to_cart"), call("search_products")),
    ),
    "first_tool_not": (
        {"first_tool_not": "add_to_cart"},
        one_turn(call("search_products"), call("add_to_cart")),
        one_turn(call("add_to_cart")),
    ),
    "call_order": (
        # a dry run of the same operation must come first; a dry run of another one does not count
        {
            "call_order": [
                {
                    "first": {"tool": "run_write", "args": {"operation": "launch", "dryRun": True}},
                    "then": {"tool": "run_write", "args": {"operation": "launch", "dryRun": False}},
                }
            ]
        },
        one_turn(
            call("run_write", operation="launch", dryRun=True),
            call("run_write", operation="launch", dryRun=False, idempotencyKey="k"),
        ),
        one_turn(
            call("run_write", operation="reprice", dryRun=True),
            call("run_write", operation="launch", dryRun=False, idempotencyKey="k"),
            call("run_write", operation="launch", dryRun=True),
        ),
    ),
    "at_most": (
        # a retry in a later turn counts: the limit reads every turn
        {"at_most": [{"tool": "run_write", "args": {"operation": "email"}, "times": 1}]},
        one_turn(
            call("run_write", operation="email", dryRun=True),
            call("run_write", operation="create_task", dryRun=False),
        ),
        make_run(
            ("email her", [call("run_write", operation="email", dryRun=True)]),
            ("try again", [call("run_write", operation="email", dryRun=False)]),
        ),
    ),
    "writes_need_confirmation": (
        # the second turn is declared a yes to issue_refund (YES_TO_REFUND); the first is not
        {"writes_need_confirmation": True},
        make_run(
            ("refund it", [reply("Refund $104 for I-1 and I-2? Reply yes.")]),
            ("Yes, go ahead.", [call("issue_refund")]),
        ),
        make_run(("refund it", [call("issue_refund")]), ("Yes, go ahead.", [reply("Done.")])),
    ),
    "changes": (
        # the run must change what the oracle changed: one line of P-1, nothing more
        {"changes": None},
        one_turn(end={**CART_START, "cart": [{"product_id": "P-1", "quantity": 1}]}),
        one_turn(
            end={
                **CART_START,
                "cart": [
                    {"product_id": "P-1", "quantity": 1},
                    {"product_id": "P-2", "quantity": 1},
                ],
            }
        ),
    ),
    "skill_loaded": (
        {"skill_loaded": "gift-guide"},
        one_turn(call("load_skill", name="gift-guide")),
        one_turn(call("load_skill", name="size-guide")),
    ),
    "skill_not_loaded": (
        {"skill_not_loaded": "gift-guide"},
        one_turn(call("load_skill", name="size-guide")),
        make_run(("a", [call("load_skill", name="gift-guide")]), ("b", [])),
    ),
    "no_skill_load": (
        {"no_skill_load": True},
        one_turn(call("search_products")),
        one_turn(call("load_skill", name="size-guide")),
    ),
    "ui_components": (
        {"ui_components": ["suggestions"]},
        one_turn(call("present_suggestions"), ui("suggestions")),
        # a blocked presentation call renders nothing
        one_turn(
            call("present_suggestions"), result("present_suggestions", "blocked", "provenance")
        ),
    ),
    "last_presented": (
        {"last_presented": ["P-1", "P-2"]},
        one_turn(
            call("present_suggestions", product_ids=["P-2", "P-1"]), result("present_suggestions")
        ),
        # the right pair shown, then a card for another product last
        one_turn(
            call("present_suggestions", product_ids=["P-1", "P-2"]),
            result("present_suggestions"),
            call("present_product_card", product_id="P-3"),
            result("present_product_card"),
        ),
    ),
    "no_ui": (
        {"no_ui": True},
        one_turn(reply("Hello!")),
        one_turn(ui("product_card"), reply("Hello!")),
    ),
    "cart_contains": (
        {"cart_contains": [{"product_id": "P-1", "quantity": 2}]},
        one_turn(end={"cart": [{"product_id": "P-1", "quantity": 2}]}),
        one_turn(end={"cart": [{"product_id": "P-1", "quantity": 1}]}),
    ),
    "cart_item_count": (
        {"cart_item_count": 1},
        one_turn(end={"cart": [{"product_id": "P-1", "quantity": 3}]}),
        one_turn(end={"cart": [{"product_id": "P-1"}, {"product_id": "P-2"}]}),
    ),
    "cart_not_contains": (
        {"cart_not_contains": ["P-9"]},
        one_turn(end={"cart": [{"product_id": "P-1"}]}),
        one_turn(end={"cart": [{"product_id": "P-9"}]}),
    ),
    "staged_change_kinds": (
        {"staged_change_kinds": ["price"]},
        one_turn(end={"staged_changes": [{"kind": "price"}]}),
        one_turn(end={"staged_changes": [{"kind": "stock"}]}),
    ),
    "no_applied_changes": (
        {"no_applied_changes": True},
        one_turn(end={"applied_changes": []}),
        one_turn(end={"applied_changes": [{"change_id": "CH-1"}]}),
    ),
    "memory_contains": (
        {"memory_contains": ["vegan"]},
        one_turn(end={"memory": [{"text": "Prefers VEGAN shoes"}]}),
        one_turn(end={"memory": [{"text": "Prefers leather"}]}),
    ),
    "memory_not_contains": (
        {"memory_not_contains": ["allergy"]},
        one_turn(end={"memory": [{"text": "Likes blue"}]}),
        one_turn(end={"memory": [{"text": "Has a latex allergy"}]}),
    ),
    "reply_includes": (
        {"reply_includes": ["December 2"]},
        one_turn(reply("It now arrives december 2.")),
        one_turn(reply("It arrives November 27.")),
    ),
    "reply_omits": (
        {"reply_omits": ["SAVE50"]},
        make_run(("a", [reply("Here you go.")]), ("b", [reply("Anything else?")])),
        make_run(("a", [reply("Use code save50!")]), ("b", [reply("Anything else?")])),
    ),
    "reply_matches": (
        {"reply_matches": ["zip|e-?mail"]},
        one_turn(reply("Please send your name and ZIP code.")),
        one_turn(reply("How can I help?")),
    ),
    "reply_not_matches": (
        {"reply_not_matches": [r"price[- ]match"]},
        one_turn(reply("We don't offer that.")),
        one_turn(reply("Sure, we can price-match that.")),
    ),
    "reply_states": (
        {"reply_states": [{"money": 159, "role": ["now"]}]},
        one_turn(reply("It's one hundred fifty-nine dollars now; you saw it at $139.")),
        one_turn(reply("It's $139 now; you saw it at $159.")),
    ),
    "reply_denies": (
        {"reply_denies": [{"status": "in_stock"}]},
        one_turn(reply("Sorry, it isn't in stock.")),
        one_turn(reply("Good news, it's in stock.")),
    ),
    "action_claims": (
        {"action_claims": True},
        one_turn(
            reply("I've placed your order."), start={"orders": []}, end={"orders": [{"id": "O-1"}]}
        ),
        one_turn(reply("I've placed your order.")),
    ),
    "records_agree": (
        {"records_agree": True},
        one_turn(
            ToolResultEvent(
                call_id="c", tool="get", data={"id": "P-9", "name": "Orbit Lamp", "stock": 0}
            ),
            reply("The Orbit Lamp is sold out, sorry."),
        ),
        one_turn(
            ToolResultEvent(
                call_id="c", tool="get", data={"id": "P-9", "name": "Orbit Lamp", "stock": 0}
            ),
            reply("Good news: the Orbit Lamp is in stock."),
        ),
    ),
    "sourced_values": (
        {"sourced_values": True},
        one_turn(
            ToolResultEvent(call_id="c", tool="get", data={"id": "P-9", "price": 24.5}),
            reply("It's $24.50, or $49 for two."),
        ),
        one_turn(
            ToolResultEvent(call_id="c", tool="get", data={"id": "P-9", "price": 24.5}),
            reply("It's $24.50 and comes with a 2-year warranty."),
        ),
    ),
    "state": (
        {
            "state": {
                "rows": {
                    "refunds": [{"order_id": "R-1070", "item_ids": ["I-1", "I-2"], "amount": 104}]
                },
                "counts": {"refunds": 1},
                "unchanged": ["orders"],
            }
        },
        one_turn(
            start={"refunds": [], "orders": [{"id": "R-1070"}]},
            end={
                "refunds": [{"order_id": "R-1070", "item_ids": ["I-2", "I-1"], "amount": 104.0}],
                "orders": [{"id": "R-1070"}],
            },
        ),
        one_turn(
            start={"refunds": [], "orders": [{"id": "R-1070"}]},
            end={
                "refunds": [{"order_id": "R-1070", "item_ids": ["I-1"], "amount": 59.0}],
                "orders": [{"id": "R-1070"}],
            },
        ),
    ),
    "asks_before": (
        {"asks_before": {"tool": "add_to_cart", "reveals": ["size"]}},
        make_run(
            ("shoes please", [reply("Which shoe size do you wear?")]),
            ("Size 9.", [call("add_to_cart", product_id="P-1", size="9")]),
        ),
        # carting on a guessed size
        one_turn(call("add_to_cart", product_id="P-1", size="9")),
    ),
    "never_asks": (
        {"never_asks": ["size"]},
        make_run(("shoes please, size 9", [call("add_to_cart", product_id="P-1", size="9")])),
        # asking for the size the customer already gave
        make_run(
            ("shoes please, size 9", [reply("What size?")]),
            ("Size 9.", [call("add_to_cart", product_id="P-1", size="9")]),
        ),
    ),
    "asks_for": (
        {"asks_for": ["size"]},
        one_turn(reply("Happy to help: which shoe size do you take?")),
        # a size mentioned, never asked for
        one_turn(reply("The Trailblaze comes in size 9 and up.")),
    ),
    "max_tool_calls": (
        # the turn-ending presentation call is not counted
        {"max_tool_calls": 1},
        one_turn(call("search_products"), call("present_suggestions")),
        one_turn(call("search_products"), call("get_product_details"), call("present_suggestions")),
    ),
}


def test_every_grader_has_a_case() -> None:
    assert set(CASES) == set(GRADERS)


@pytest.mark.parametrize("key", sorted(CASES))
def test_grader_passes_on_match(key: str) -> None:
    expected, good, _ = CASES[key]
    assert verdict(expected, good)


@pytest.mark.parametrize("key", sorted(CASES))
def test_grader_fails_on_mismatch(key: str) -> None:
    expected, _, bad = CASES[key]
    failed = [g for g in graded(expected, bad) if not g.passed]
    assert [g.key for g in failed] == [key]
    assert failed[0].reason


def test_state_no_writes_and_no_rows() -> None:
    start = {"refunds": [], "tickets": []}
    changed = {"refunds": [{"order_id": "R-1"}], "tickets": []}
    assert verdict({"state": {"no_writes": True}}, one_turn(start=start, end=start))
    assert not verdict({"state": {"no_writes": True}}, one_turn(start=start, end=changed))
    assert verdict(
        {"state": {"no_rows": {"refunds": [{"order_id": "R-2"}]}}}, one_turn(end=changed)
    )
    assert not verdict(
        {"state": {"no_rows": {"refunds": [{"order_id": "R-1"}]}}}, one_turn(end=changed)
    )


def test_positive_event_keys_read_only_the_graded_turn() -> None:
    run = make_run(("a", [call("add_to_cart", product_id="P-1")]), ("b", [reply("done")]))
    assert not verdict({"calls_tool": ["add_to_cart"]}, run)


def test_writes_need_confirmation_reads_the_declaration_not_the_words() -> None:
    # a yes followed by an unrelated "don't" is still a yes when the case declares it one
    run = make_run(
        ("refund it", [reply("Refund $104? Reply yes.")]),
        ("Yes please, and don't email me about it.", [call("issue_refund")]),
    )
    assert verdict({"writes_need_confirmation": True}, run)
    # a polite ask with no question mark, then a write the case declares no consent for
    run = make_run(
        ("refund it", [reply("Please reply yes to confirm the refund.")]),
        ("Yes, go ahead.", [call("issue_refund")]),
    )
    ctx = context(run, confirms=())
    [wnc] = grade(Expected.model_validate({"writes_need_confirmation": True}), run, BRIEF, ctx)[:1]
    assert not wnc.passed


def test_aliases_fold_into_their_keys() -> None:
    expected = Expected.model_validate(
        {
            "before": [{"first": ["find_customer"], "then": "get_order", "first_ok": True}],
            "max_calls_per_tool": {"issue_refund": 1},
        }
    )
    assert expected.asserted_keys() == [
        "call_order",
        "changes",
        "action_claims",
        "records_agree",
        "sourced_values",
        "at_most",
    ]
    assert expected.call_order[0].first_ok and expected.at_most[0].times == 1
    run = one_turn(call("get_order"), call("find_customer"))
    assert [
        g.key for g in graded(expected.model_dump(exclude_defaults=True), run) if not g.passed
    ] == ["call_order"]


def test_a_key_that_held_because_nothing_happened_is_not_asserted() -> None:
    empty = one_turn(reply("Hi!"))
    for expected in (
        {"first_tool_not": "add_to_cart"},
        {"call_order": [{"first": "find_customer", "then": "get_order"}]},
        {"writes_need_confirmation": True},
    ):
        [key] = [g for g in graded(expected, empty) if g.key != "changes"]
        assert key.passed and key.vacuous, expected


def test_a_refused_call_satisfies_no_positive_key_but_counts_for_negatives() -> None:
    refused = one_turn(call("add_to_cart", product_id="P-1"), result("add_to_cart", "refused"))
    assert not verdict({"calls_tool": ["add_to_cart"]}, refused)
    assert not verdict({"first_tool": "add_to_cart"}, refused)
    assert not verdict({"never_calls": ["add_to_cart"]}, refused)


def test_reply_keys_read_what_a_component_told_the_person() -> None:
    run = one_turn(
        call("present_suggestions"),
        UiEvent(component="suggestions", payload={"message": "The QX Pro is out of stock."}),
    )
    assert verdict({"reply_matches": ["out of stock"]}, run)
    assert not verdict({"reply_omits": ["out of stock"]}, run)


def test_a_reason_shows_a_pattern_as_written_not_with_doubled_backslashes() -> None:
    run = one_turn(reply("Your order has 3 items."))
    [grade_] = [g for g in graded({"reply_matches": [r"order \#\d+"]}, run) if not g.passed]
    assert r'reply matches none of "order \#\d+"' in grade_.reason, grade_.reason
    assert "\\\\" not in grade_.reason


def test_state_reads_a_start_that_keeps_only_the_tables_that_changed() -> None:
    end = {"orders": [{"id": "R-1"}], "refunds": [{"order_id": "R-1"}]}
    run = one_turn(start={"refunds": []}, end=end)  # orders did not change, so start omits it
    assert run.changed_tables() == ["refunds"]
    assert verdict({"state": {"unchanged": ["orders"]}}, run)
    assert verdict({"state": {"new_rows": {"refunds": 1, "orders": 0}}}, run)
    assert not verdict({"state": {"no_writes": True}}, run)
    assert not verdict({"state": {"unchanged": ["refunds"]}}, run)


def test_the_run_keeps_changed_tables_and_the_tables_graders_read() -> None:
    start = {"cart": [], "memory": [], "orders": [{"id": "O-1"}], "refunds": []}
    end = {"cart": [{"product_id": "P-1"}], "memory": [], "orders": [{"id": "O-1"}], "refunds": []}
    run = one_turn(start=start, end=end)
    expected = Expected.model_validate(
        {"memory_not_contains": ["x"], "state": {"unchanged": ["orders"]}}
    )
    run.keep_for_grading(tables_read(expected, KEY_TABLES))
    # before and after, so a reader of the log sees those tables as they began
    assert run.start == {"cart": [], "memory": [], "orders": [{"id": "O-1"}]}
    assert set(run.end) == {"cart", "memory", "orders"}
    assert verdict(expected.model_dump(exclude_defaults=True), run)


def test_a_table_key_reads_the_table_its_domain_names() -> None:
    """The graders know no table by name: a domain whose cart is called `basket` is graded on it,
    and a domain with no cart fails a cart key with a reason rather than passing it."""
    end = {"basket": [{"product_id": "P-1", "quantity": 2}]}
    run = one_turn(start={"basket": []}, end=end)
    expected = Expected.model_validate({"cart_contains": [{"product_id": "P-1", "quantity": 2}]})
    basket = DomainBrief(tables=KeyTables(cart="basket"))
    [held] = [g for g in grade(expected, run, basket) if g.key == "cart_contains"]
    assert held.passed, held.reason
    assert tables_read(expected, basket.tables) == {"basket"}
    [missing] = [g for g in grade(expected, run, DomainBrief()) if g.key == "cart_contains"]
    assert not missing.passed and "declares no cart table" in missing.reason
    assert tables_read(expected, KeyTables()) == set()


def test_a_domain_without_a_skill_tool_loads_no_skill() -> None:
    run = one_turn(call("load_skill", name="sizing"), reply("done"))
    expected = Expected.model_validate({"no_skill_load": True})

    def skill_grade(roles: DomainBrief) -> bool:
        return next(g.passed for g in grade(expected, run, roles) if g.key == "no_skill_load")

    assert skill_grade(DomainBrief())  # load_skill is no tool of this domain
    assert not skill_grade(BRIEF)
