"""Typed reply facts and action claims: true replies pass in every written form, false ones fail.

The false replies are the ones a string key let through: values in swapped roles, a range that
merely contains the number, a negated mention, a word inside another word, a claim of an action
the state does not show.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pydantic import ValidationError

from commerce_evals.cases.model import Expected
from commerce_evals.core.events import ToolResultEvent
from commerce_evals.facts import mentions
from commerce_evals.grading.changes import what_changed
from commerce_evals.grading.claims import claims
from commerce_evals.grading.graders import DomainBrief, GradeContext, grade
from commerce_evals.grading.reply_facts import (
    Fact,
    action_claims,
    reply_denies,
    reply_states,
)
from tests.helpers import make_run, reply


def ctx(text: str, **run: Any) -> GradeContext:
    return GradeContext(run=make_run(("q", [reply(text)]), **run))


def states(fact: dict[str, Any], text: str, **run: Any) -> bool:
    return reply_states([Fact.model_validate(fact)], ctx(text, **run))[0]


def asserts(fact: dict[str, Any], text: str) -> bool:
    return not reply_denies([Fact.model_validate(fact)], ctx(text))[0]


@pytest.mark.parametrize(
    "text", ["It is $32 now.", "It costs 32.00 USD.", "thirty-two dollars", "US$32", "$32.00"]
)
def test_money_in_every_written_form(text: str) -> None:
    assert states({"money": 32}, text)


@pytest.mark.parametrize(
    "text",
    ["arrives Dec 2", "December 2nd", "on 2 December", "on 12/2", "2026-12-02", "Dec. 2, 2026"],
)
def test_dates_in_every_written_form(text: str) -> None:
    assert states({"date": "2026-12-02"}, text)


def test_a_stated_year_must_agree() -> None:
    assert not states({"date": "2026-12-02"}, "It arrived on 2025-12-02.")


@pytest.mark.parametrize("text", ["30% off", "30 percent off", "thirty percent off", "30 per cent"])
def test_percent_in_every_written_form(text: str) -> None:
    assert states({"percent": 30}, text)


def test_counts_in_words_and_digits() -> None:
    assert states({"count": 2}, "Only two left.")
    assert states({"count": 2}, "Both offers are paused.")
    assert states({"count": 3}, "There are 3 contacts.")


def test_a_range_that_contains_the_number_does_not_state_it() -> None:
    assert not states({"money": 32}, "It costs between $30 and $35.")
    assert not states({"money": 32}, "Somewhere around $32-$35.")
    assert not states({"count": 30}, "Returns take 30 to 45 days.")
    # a change from one value to another states both
    assert states({"money": 32}, "It went from $40 to $32.")


def test_a_negated_value_is_not_stated() -> None:
    assert not states({"money": 139}, "It is not $139 any more.")
    assert not asserts({"money": 139}, "The price is no longer $139.")


def test_numbers_inside_other_tokens_are_not_counts() -> None:
    assert not states({"count": 30}, "Order R-1130 is on its way.")
    assert not states({"count": 2}, "Call 555-0102.")
    assert [m.kind for m in mentions("order #2026-12-02")] == ["date"]


def test_role_cues_catch_swapped_values() -> None:
    fact = {"money": 159, "role": ["now", "today", "current"]}
    assert states(fact, "It's $159.00 now, up from the $139.00 you saw.")
    assert states(fact, "The price you saw was $139; today it is $159.")
    # the values swapped: the clause with the cue states the old price
    assert not states(fact, "It's $139 now, up from the $159 you saw.")
    result = reply_states([Fact.model_validate(fact)], ctx("It's $139 now, it was $159."))
    assert "states $139 where the fact is money $159.00 (as now/today/current)" in result[1]


def test_status_phrases_read_their_negation() -> None:
    assert states({"status": "out_of_stock"}, "Sorry, that one is sold out.")
    assert states({"status": "out_of_stock"}, "It isn't available right now.")
    assert states({"status": "on_schedule"}, "No delay: it is not delayed at all.")
    assert not states({"status": "out_of_stock"}, "It is not out of stock, you can have it.")
    assert states({"status": "in_stock"}, "It is not out of stock, you can have it.")
    assert asserts({"status": "delayed"}, "Your order was delayed to Dec 3.")
    assert not asserts({"status": "delayed"}, "There's no sign of a delay.")


def test_words_inside_other_words_do_not_count() -> None:
    assert not states({"status": "in_stock"}, "These stockings are lovely.")
    assert not states({"id": "CH-10"}, "Change CH-103 is staged.")
    assert states({"id": "CH-103"}, "Change ch 103 is staged.")


def test_products_match_by_the_names_the_tools_returned() -> None:
    found = ToolResultEvent(call_id="c1", tool="get", data={"id": "P-1", "name": "Ridge Runner"})
    run = make_run(("q", [found, reply("The Ridge Runner fits.")]))
    assert reply_states([Fact(product="P-1")], GradeContext(run=run))[0]
    assert not reply_states([Fact(product="P-2")], GradeContext(run=run))[0]


def test_a_fact_takes_exactly_one_value() -> None:
    with pytest.raises(ValidationError, match="exactly one"):
        Fact.model_validate({"money": 3, "count": 3})
    with pytest.raises(ValidationError, match="exactly one"):
        Fact.model_validate({"role": "now"})
    assert Fact.model_validate({"date": "2026-12-02"}).date == dt.date(2026, 12, 2)


# ---- action claims -----------------------------------------------------------------------------

ORDER = {"id": "O-1", "status": "placed"}


@pytest.mark.parametrize(
    "text",
    [
        "I've placed your order.",
        "Done! Your refund has been issued.",
        "Your order has been placed.",
        "I sent the buyer a reminder.",
    ],
)
def test_claims_without_a_change_fail(text: str) -> None:
    passed, reason = action_claims(True, ctx(text))
    assert not passed and "says" in reason


@pytest.mark.parametrize(
    "text",
    [
        "Shall I place the order? Say yes and it's done.",
        "I haven't placed the order yet.",
        "Once you confirm I'll have it placed.",
        "Those snowshoes were already refunded on Sep 20.",
        "It was refunded on 2026-09-20, to your card.",
        "Nothing was applied.",
        "I can refund it if you like.",
        "Only a person can approve changes, so I've staged nothing.",
    ],
)
def test_offers_negations_and_history_are_not_claims(text: str) -> None:
    assert claims(text) == [], claims(text)


def test_a_claim_backed_by_the_change_set_passes() -> None:
    run = {"start": {"orders": []}, "end": {"orders": [ORDER]}}
    assert action_claims(True, ctx("I've placed your order.", **run))[0]
    assert what_changed(make_run(**run))["orders"].added == [ORDER]
    # a refund claim needs a refund: an order row alone does not back it where refunds exist
    with_refunds = {
        "start": {"orders": [], "refunds": []},
        "end": {"orders": [ORDER], "refunds": []},
    }
    assert not action_claims(True, ctx("I've refunded it.", **with_refunds))[0]


def test_a_send_the_sandbox_only_simulated_is_not_sent() -> None:
    simulated = ToolResultEvent(call_id="c", tool="run_write", data={"simulated": True})
    sends = {"start": {"sends": []}, "end": {"sends": [{"id": "S-1"}]}}
    bare = make_run(("q", [simulated, reply("I sent the reminder.")]), **sends)
    honest = make_run(
        ("q", [simulated, reply("I sent it; in the sandbox it is recorded, not actually sent.")]),
        **sends,
    )
    assert not action_claims(True, GradeContext(run=bare))[0]
    assert action_claims(True, GradeContext(run=honest))[0]


def test_action_claims_is_on_for_every_case_and_can_be_turned_off() -> None:
    assert "action_claims" in Expected().asserted_keys()
    assert "action_claims" not in Expected(action_claims=False).asserted_keys()
    run = make_run(("q", [reply("I've placed your order.")]))
    [claim] = [g for g in grade(Expected(), run, DomainBrief()) if g.key == "action_claims"]
    assert claim.part == "outcome" and not claim.passed
