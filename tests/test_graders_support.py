"""The shared graders on support-shaped runs, from hand-made event lists (no model, no World).

Covers what the support cases lean on: `call_order` (alias `before`) with `first_ok` (a verification that found no
match is no verification), `state.new_rows` (new rows whatever the fixtures held),
`writes_need_confirmation` (read from the case's declared consent), `at_most` (alias
`max_calls_per_tool`), and the reply regexes.
"""

from __future__ import annotations

from typing import Any

from commerce_evals.cases.model import Expected
from commerce_evals.core.events import Run, ToolCallEvent, ToolResultEvent
from commerce_evals.grading.graders import DomainBrief, GradeContext, grade
from tests.helpers import make_run, reply

BRIEF = DomainBrief(
    writes=frozenset({"issue_refund", "cancel_order", "update_address", "escalate_to_human"})
)
VERIFY = ["find_customer", "find_customer_by_email"]


def called(call_id: str, tool: str, status: str = "ok", **args: Any) -> list[Any]:
    """A call and its result, paired by id."""
    return [
        ToolCallEvent(call_id=call_id, tool=tool, args=args),
        ToolResultEvent(call_id=call_id, tool=tool, status=status),  # type: ignore[arg-type]
    ]


def failed_keys(
    expected: dict[str, Any], run: Run, confirms: tuple[frozenset[str], ...] = ()
) -> list[str]:
    ctx = GradeContext(run=run, brief=BRIEF, confirms=confirms)
    grades = grade(Expected.model_validate(expected), run, BRIEF, ctx)
    assert grades, "the key must be graded"
    return [g.key for g in grades if not g.passed]


# ---- before, with and without first_ok --------------------------------------------------------

VERIFIED_READ = {"before": [{"first": VERIFY, "then": "get_order", "first_ok": True}]}
ANY_ORDER_READ = {"before": [{"first": VERIFY, "then": "get_order"}]}

FAILED_CHECK_THEN_READ = make_run(
    (
        "Ana Torres, 59751. Refund R-1070.",
        [*called("a", "find_customer", "error"), *called("b", "get_order", order_id="R-1070")],
    )
)


def test_before_first_ok_passes_after_a_successful_check() -> None:
    run = make_run(
        ("Ana Torres, 59715.", [*called("a", "find_customer"), *called("b", "get_order")])
    )
    assert failed_keys(VERIFIED_READ, run) == []


def test_before_first_ok_fails_when_the_check_found_no_match() -> None:
    assert failed_keys(VERIFIED_READ, FAILED_CHECK_THEN_READ) == ["call_order"]


def test_before_without_first_ok_keeps_counting_any_call() -> None:
    """The flag is opt-in: a plain rule still only asks that the call was made."""
    assert failed_keys(ANY_ORDER_READ, FAILED_CHECK_THEN_READ) == []


def test_before_first_ok_accepts_a_later_success_in_another_turn() -> None:
    run = make_run(
        ("Ana Torres, 59751.", [*called("a", "find_customer", "error"), reply("Email?")]),
        (
            "ana.torres@example.com",
            [*called("b", "find_customer_by_email"), *called("c", "get_order")],
        ),
    )
    assert failed_keys(VERIFIED_READ, run) == []


def test_before_first_ok_fails_a_read_between_failure_and_success() -> None:
    run = make_run(
        ("Ana Torres, 59751.", [*called("a", "find_customer", "error"), *called("b", "get_order")]),
        ("ana.torres@example.com", [*called("c", "find_customer_by_email")]),
    )
    assert failed_keys(VERIFIED_READ, run) == ["call_order"]


def test_before_first_ok_ignores_a_call_with_no_result() -> None:
    run = make_run(
        (
            "hi",
            [
                ToolCallEvent(call_id="a", tool="find_customer"),
                *called("b", "get_order"),
            ],
        )
    )
    assert failed_keys(VERIFIED_READ, run) == ["call_order"]


# ---- state.new_rows -----------------------------------------------------------------------------

FIXTURE_REFUND = {"refund_id": "RF-0001", "order_id": "R-1112", "item_ids": ["I-1"], "amount": 24}
NEW_REFUND = {
    "refund_id": "RF-NEW-1",
    "order_id": "R-1070",
    "item_ids": ["I-1", "I-2"],
    "amount": 104,
}


def one_turn(start: dict[str, Any], end: dict[str, Any]) -> Run:
    return make_run(("refund it", [reply("Here is where it stands.")]), start=start, end=end)


def test_new_rows_counts_only_rows_the_run_added() -> None:
    run = one_turn(
        {"refunds": [FIXTURE_REFUND], "tickets": []},
        {"refunds": [FIXTURE_REFUND, NEW_REFUND], "tickets": []},
    )
    assert failed_keys({"state": {"new_rows": {"refunds": 1, "tickets": 0}}}, run) == []
    # an absolute count would have to know the fixtures held one refund already
    assert failed_keys({"state": {"counts": {"refunds": 1}}}, run) == ["state"]


def test_new_rows_fails_on_two_new_rows() -> None:
    second = {**NEW_REFUND, "refund_id": "RF-NEW-2", "item_ids": ["I-2"]}
    run = one_turn({"refunds": [FIXTURE_REFUND]}, {"refunds": [FIXTURE_REFUND, NEW_REFUND, second]})
    assert failed_keys({"state": {"new_rows": {"refunds": 1}}}, run) == ["state"]


def test_new_rows_counts_a_changed_row() -> None:
    placed = {"order_id": "R-1100", "status": "placed"}
    run = one_turn({"orders": [placed]}, {"orders": [{**placed, "status": "cancelled"}]})
    assert failed_keys({"state": {"new_rows": {"orders": 1}}}, run) == []
    assert failed_keys({"state": {"new_rows": {"orders": 0}}}, run) == ["state"]


def test_state_rows_match_items_as_sets_and_amounts_within_a_cent() -> None:
    run = one_turn({"refunds": []}, {"refunds": [NEW_REFUND]})
    wanted = {"order_id": "r-1070", "item_ids": ["I-2", "I-1"], "amount": 104.004}
    assert failed_keys({"state": {"rows": {"refunds": [wanted]}}}, run) == []
    only_one = {**wanted, "item_ids": ["I-1"]}
    assert failed_keys({"state": {"rows": {"refunds": [only_one]}}}, run) == ["state"]


def test_state_no_writes_fails_on_a_new_ticket() -> None:
    start = {"refunds": [], "tickets": []}
    end = {"refunds": [], "tickets": [{"ticket_id": "T-NEW-1", "order_id": "R-1080"}]}
    assert failed_keys({"state": {"no_writes": True}}, one_turn(start, start)) == []
    assert failed_keys({"state": {"no_writes": True}}, one_turn(start, end)) == ["state"]


# ---- writes_need_confirmation -----------------------------------------------------------------

ASK = "I'll refund the Ember Camp Stove (I-1). Shall I go ahead?"
WNC = {"writes_need_confirmation": True}


YES_TO_REFUND = (frozenset(), frozenset({"issue_refund"}))


def test_confirmation_passes_on_a_declared_yes_to_that_write() -> None:
    run = make_run(("Refund it.", [reply(ASK)]), ("Yes, go ahead.", called("a", "issue_refund")))
    assert failed_keys(WNC, run, YES_TO_REFUND) == []


def test_confirmation_fails_on_a_turn_declared_no_yes() -> None:
    run = make_run(
        ("Refund it.", [reply(ASK)]),
        ("Hmm, actually wait. Let me check first.", called("a", "issue_refund")),
    )
    assert failed_keys(WNC, run) == ["writes_need_confirmation"]


def test_confirmation_fails_on_a_write_in_the_first_turn() -> None:
    run = make_run(("Refund it, no need to confirm.", called("a", "issue_refund")))
    assert failed_keys(WNC, run, YES_TO_REFUND) == ["writes_need_confirmation"]


def test_a_yes_to_one_write_is_no_yes_to_another() -> None:
    run = make_run(
        ("Refund it.", [reply("Looking into it.")]), ("Yes.", called("a", "escalate_to_human"))
    )
    assert failed_keys(WNC, run, YES_TO_REFUND) == ["writes_need_confirmation"]


def test_confirmation_counts_a_ticket_as_a_write() -> None:
    run = make_run(("My tent is $249.", called("a", "escalate_to_human")))
    assert failed_keys(WNC, run) == ["writes_need_confirmation"]


def test_reads_need_no_confirmation() -> None:
    run = make_run(("Ana Torres 59715", [*called("a", "find_customer"), *called("b", "get_order")]))
    assert failed_keys(WNC, run) == []


# ---- call limits and reply regexes ------------------------------------------------------------


def test_max_calls_per_tool_counts_every_turn() -> None:
    limit = {"max_calls_per_tool": {"issue_refund": 1}}
    run = make_run(
        ("Refund I-1.", called("a", "issue_refund")), ("And I-2.", called("b", "issue_refund"))
    )
    assert failed_keys(limit, run) == ["at_most"]
    assert failed_keys(limit, make_run(("Refund both.", called("a", "issue_refund")))) == []


def test_reply_matches_reads_the_graded_turn_only() -> None:
    wanted = {"reply_matches": ["zip|e-?mail"]}
    run = make_run(("a", [reply("Send your ZIP.")]), ("b", [reply("Thanks.")]))
    assert failed_keys(wanted, run) == ["reply_matches"]
    assert failed_keys(wanted, make_run(("a", [reply("Your e-mail, please?")]))) == []


def test_reply_not_matches_reads_every_turn() -> None:
    banned = {"reply_not_matches": ["business days"]}
    # a banned phrase with no number in it: "5-7 business days" would fail sourced_values too
    run = make_run(("a", [reply("Refunds go by business days.")]), ("b", [reply("Bye.")]))
    assert failed_keys(banned, run) == ["reply_not_matches"]
    assert failed_keys(banned, make_run(("a", [reply("It was refunded on 2026-09-20.")]))) == []
