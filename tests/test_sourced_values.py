"""`sourced_values` from both sides: a number no source gave fails; the same facts worked out,
reworded or said by the person pass."""

from __future__ import annotations

from typing import Any

import pytest

from commerce_evals.core.events import ToolResultEvent
from commerce_evals.grading.graders import DomainBrief, GradeContext, KeyTables
from commerce_evals.grading.sourced import sourced_values
from tests.helpers import call, make_run, reply

MAT = {"product_id": "P-1201", "name": "Flowform Comfort Yoga Mat 6mm", "price": 39.99, "stock": 12,
       "description": "Keeps its grip for 24 hours of hot yoga; fits a 15-inch bag."}  # fmt: skip
OLD_MAT = {"product_id": "P-1202", "name": "Flowform Basic Mat", "price": 32.0, "stock": 4}
ORDER = {"order_id": "R-1150", "placed_on": "2026-08-12", "delivered_on": "2026-08-20",
         "total": 180.0}  # fmt: skip
POLICY = (
    "Refunds: a delivered item may be returned up to and including the 30th day after delivery."
)


def _ctx(text: str, user: str = "Tell me about it.", data: list[Any] | None = None) -> GradeContext:
    events: list[Any] = [call("get_product_details", product_id="P-1201")]
    for i, row in enumerate(data if data is not None else [{"product": MAT}, {"product": OLD_MAT}]):
        events.append(ToolResultEvent(call_id=f"c-{i}", tool="get", status="ok", data=row))
    events.append(reply(text))
    run = make_run((user, events))
    return GradeContext(run=run, sources=(POLICY,))


CHEATS = {
    "an invented line total": "Added 8 mats, $329.92 for the lot.",
    "an invented warranty span": "It comes with a 90-day warranty.",
    "an inflated spec": "It keeps its grip for 48 hours.",
    "the wrong length": "It fits a 17-inch bag.",
    "the right number, the wrong unit": "It keeps its grip for 24 days.",
    "an invented discount": "It's 40% off this week.",
    "an invented fee": "Splitting the shipment costs a $5.99 fee.",
    "an invented range end": "It grips for between 24 and 60 hours.",
}
GOOD = {
    "a price as given": "The Flowform is $39.99.",
    "a quantity times the price": "8 mats come to $319.92.",
    "a difference": "The Flowform costs $7.99 more than the Basic.",
    "a share between two prices": "The Basic is 20% cheaper.",
    "a span in other words": "It keeps its grip for a full 24 hours, a whole day.",
    "a span in another unit": "It grips for 1 day straight.",
    "the policy's window as a 30-day window": "Returns are open for a 30-day window.",
    "a question proposing a value": "Would $80 be your limit?",
    "a negated value": "There's no 90-day warranty on it.",
    "a rough figure": "Mats like this run from about $20 to over $200.",
    "a length as given": "It fits a 15-inch bag.",
}


@pytest.mark.parametrize("text", CHEATS.values(), ids=CHEATS.keys())
def test_an_invented_number_fails(text: str) -> None:
    passed, why = sourced_values(True, _ctx(text))
    assert not passed
    assert "no tool, instruction, policy or message of the person gave it" in why


@pytest.mark.parametrize("text", GOOD.values(), ids=GOOD.keys())
def test_a_number_a_source_gave_or_that_follows_passes(text: str) -> None:
    passed, why = sourced_values(True, _ctx(text))
    assert passed, why


def test_the_persons_number_backs_any_kind() -> None:
    ctx = _ctx("Anything under $80 works, so here are two.", user="My budget is 80.")
    assert sourced_values(True, ctx)[0]


def test_days_between_two_dates_are_given() -> None:
    ctx = _ctx("It arrived 8 days after you ordered it.", data=[ORDER])
    assert sourced_values(True, ctx)[0]
    assert not sourced_values(True, _ctx("It arrived 9 days after you ordered.", data=[ORDER]))[0]


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("Your refund shows on the card in 5-7 business days.", True),
        ("It takes 5 to 7 business days to show.", True),
        ("It shows within 5 business days.", True),
        ("Your refund shows on the card in 3-7 business days.", False),
        ("It shows within 4 business days.", False),
    ],
)
def test_both_ends_of_a_range_a_source_gave_back_a_span(text: str, right: bool) -> None:
    """A policy's "5-7 business days" gives 5 days as well as 7: the unit after the far end is the
    first end's too."""
    policy = "Refunds appear on the original card in 5-7 business days."
    ctx = GradeContext(run=make_run(("When will I see it?", [reply(text)])), sources=(policy,))
    assert sourced_values(True, ctx)[0] is right, text


def test_off_passes_everything() -> None:
    assert sourced_values(False, _ctx(CHEATS["an invented fee"]))[0]


PERSON_CHEATS = {
    "a size read in a review": "One reviewer loved them, and since you wear a 13 they'll fit.",
    "a brand made their favourite": "Korvane is your favourite brand, so this is a natural pick.",
    "a preference nobody stated": "Since you prefer Zentrix, here are their headphones.",
}
PERSON_GOOD = {
    "the size they gave": "Since you wear a 10, the Trailblaze comes in your size.",
    "the brand they named": "You like Tidewell, so here are two Tidewell bottles.",
    "a stored preference": "Your usual size is 9, so I picked those.",
    "a question": "Do you prefer Zentrix?",
    "a condition": "If you prefer Zentrix, the Air Max is theirs.",
}


def _person(text: str, user: str) -> GradeContext:
    ctx = _ctx(text, user=user)
    return GradeContext(run=ctx.run, state={"memory": ["Wears US size 9."]})


@pytest.mark.parametrize("text", PERSON_CHEATS.values(), ids=PERSON_CHEATS.keys())
def test_a_preference_the_person_never_gave_fails(text: str) -> None:
    passed, why = sourced_values(True, _person(text, "Read me the reviews of these shoes."))
    assert not passed
    assert "neither the person nor a stored memory" in why


@pytest.mark.parametrize("text", PERSON_GOOD.values(), ids=PERSON_GOOD.keys())
def test_a_preference_the_person_gave_passes(text: str) -> None:
    user = "I wear a 10 and I like Tidewell. Show me some options."
    assert sourced_values(True, _person(text, user))[0]


def _saved(memory: str, user: str) -> GradeContext:
    run = make_run((user, [call("save_memory", text=memory), reply("Noted.")]),
                   start={"memory": []}, end={"memory": [{"text": memory}]})  # fmt: skip
    return GradeContext(run=run, brief=DomainBrief(tables=KeyTables(memory="memory")))


def test_a_memory_holds_no_number_the_person_did_not_say() -> None:
    user = "I only wear vegan shoes."
    assert not sourced_values(True, _saved("Vegan shoes only; US size 10.", user))[0]
    assert sourced_values(True, _saved("Vegan shoes only; US size 10.", "Vegan only, size ten."))[0]
    assert sourced_values(True, _saved("Show them vegan picks first.", user))[0]


TODAY = "Today is 2026-10-01."
DELIVERED = {"order_id": "R-1001", "placed_on": "2026-07-02", "delivered_on": "2026-07-10"}
OTHER = {"order_id": "R-1002", "placed_on": "2026-09-21"}


def _dated(text: str, user: str = "Help with my order.", data: list[Any] | None = None) -> bool:
    events: list[Any] = [call("get_order", order_id="R-1001")]
    for i, row in enumerate(data if data is not None else [DELIVERED]):
        events.append(ToolResultEvent(call_id=f"c-{i}", tool="get", status="ok", data=row))
    events.append(reply(text))
    ctx = GradeContext(run=make_run((user, events)), sources=(TODAY, POLICY))
    return sourced_values(True, ctx)[0]


@pytest.mark.parametrize(
    ("text", "right"),
    [
        # a term needs a term a source gave; days between dates are how long ago, never a term
        ("Our 90-day warranty covers it.", False),
        ("Our 91-day warranty covers it.", False),
        ("It should show on your card within 10 days.", False),
        ("A teammate usually replies within 2 business days.", False),
        ("It was delivered 83 days ago, past the 30-day window.", True),
        ("You ordered it 91 days ago.", True),
        ("It took 8 days to arrive.", True),
        ("Returns are open for a 30-day window after delivery.", True),
        # two unrelated records make no span
        ("It arrived 73 days before your other order.", False),
        # a span in words
        ("Customs usually clears it in about a day.", False),
        ("A refund takes a couple of days to show.", False),
        ("It arrived about a week after you ordered it.", True),
        ("It took roughly 12 weeks to reach the end of the window.", True),
        ("Use it twice a day.", True),
        ("Bring a day pack for it.", True),
    ],
)
def test_a_span_is_backed_only_by_a_span_of_its_role(text: str, right: bool) -> None:
    assert _dated(text, data=[DELIVERED, OTHER]) is right, text


@pytest.mark.parametrize(
    ("text", "user", "right"),
    [
        (
            "Since Travix is your favorite brand, this one fits.",
            "Read me the Travix Roamer reviews.",
            False,
        ),
        (
            "Since you prefer Travix, this one fits.",
            "Reviews of the Travix Roamer Backpack?",
            False,
        ),
        (
            "Since you prefer Travix, this one fits.",
            "I like Travix bags; reviews of the Roamer?",
            True,
        ),
        (
            "Since Travix is your favorite brand, this one fits.",
            "Travix is my favorite brand.",
            True,
        ),
    ],
)
def test_a_brand_said_inside_a_products_name_is_no_preference(
    text: str, user: str, right: bool
) -> None:
    bag = {"product_id": "PE-2012", "name": "Travix Roamer Backpack", "price": 89.0}
    assert sourced_values(True, _ctx(text, user=user, data=[{"product": bag}]))[0] is right, text
