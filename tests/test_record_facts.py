"""What a reply states about a record is checked against the record, both ways.

Each record below is what a tool showed; each true reply says the same thing in other words,
formats or orders and must pass, and each false reply (the wrong record's value, a reversed
direction, a status the record contradicts) must fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from commerce_evals.cases.model import Expected
from commerce_evals.core.events import ToolResultEvent, UiEvent
from commerce_evals.grading.graders import DomainBrief, GradeContext, grade
from commerce_evals.grading.record_facts import problems_in, records_agree
from commerce_evals.grading.records import Records
from tests.helpers import call, make_run, reply

OVEN = {"id": "P-1105", "name": "Bellweather Cook Enameled Dutch Oven 5.5 qt", "price": 159.0,
        "stock": 4}  # fmt: skip
PROJECTOR = {"id": "P-1201", "name": "Stargazer Galaxy Projector", "price": 39.0, "stock": 0}
LAMP = {"id": "P-1132", "name": "Brightwell Architect Desk Lamp Daylight", "price": 54.99,
        "stock": 12, "attributes": {"dimmable": True}}  # fmt: skip
SKILLETS = [
    {"id": "P-1097", "name": "Castline Pro Skillet", "price": 64.0, "stock": 5,
     "attributes": {"induction": True}},
    {"id": "P-1098", "name": "Castline Classic Skillet", "price": 49.0, "stock": 5,
     "attributes": {"induction": False}},
]  # fmt: skip
ORDER = {"order_id": "O-5001", "status": "shipped", "delivery_date": "2026-11-25",
         "updated_delivery_date": "2026-12-02"}  # fmt: skip
ON_TIME = {"order_id": "O-5005", "status": "shipped", "delivery_date": "2026-12-01"}
OFFERS = [
    {"id": "OF-2001", "vehicleId": "V-1009", "amount": 23500, "status": "NEW"},
    {"id": "OF-2002", "vehicleId": "V-1010", "amount": 26800, "status": "NEW"},
    {"id": "OF-2003", "vehicleId": "V-1010", "amount": 24000, "status": "WITHDRAWN"},
]
VEHICLES = [
    {"id": "V-1009", "year": 2021, "make": "Kia", "model": "Sportage", "status": "LISTED"},
    {"id": "V-1010", "year": 2022, "make": "Hyundai", "model": "Tucson", "status": "LISTED",
     "pricing": {"buyNowPrice": 27900, "floorPrice": 25500}},
]  # fmt: skip


def context(text: str, *data: Any, shown: tuple[dict[str, Any], ...] = ()) -> GradeContext:
    results = [ToolResultEvent(call_id=f"c{i}", tool="get", data=d) for i, d in enumerate(data)]
    return GradeContext(run=make_run(("q", [call("get"), *results, reply(text)])), shown=shown)


def agrees(text: str, *data: Any, **kw: Any) -> bool:
    return records_agree(True, context(text, *data, **kw))[0]


SEEN_OVEN = ({"product_id": "P-1105", "name": OVEN["name"], "price_seen": 139.0},)


@pytest.mark.parametrize(
    "text",
    [
        "Heads up: the Dutch oven went up from $139.00 to $159.00 since you saw it.",
        "The Bellweather is now $159 (it was $139 when you saw it). It's in your cart.",
        "P-1105 costs $159.00 today; you saw it at $139.",
        "The price rose to 159 dollars from 139.",
        "It's in your cart at one hundred fifty-nine dollars.",
    ],
)
def test_a_moved_price_said_right_passes(text: str) -> None:
    assert agrees(text, {"product": OVEN}, shown=SEEN_OVEN), text


@pytest.mark.parametrize(
    "text",
    [
        "Good news: the Bellweather Dutch oven dropped to $139.00 from $159.00.",
        "The Dutch oven is now $139.",
        "Good news, the Dutch oven got cheaper since you looked: $159 then, $139 today.",
    ],
)
def test_a_moved_price_said_the_wrong_way_fails(text: str) -> None:
    assert not agrees(text, {"product": OVEN}, shown=SEEN_OVEN), text


@pytest.mark.parametrize(
    "text",
    [
        "The Stargazer is sold out.",
        "The Stargazer Galaxy Projector has zero units right now.",
        "Sorry, none left of the Stargazer.",
        "The Stargazer isn't in stock.",
        "The Stargazer projector: all gone for now.",
    ],
)
def test_out_of_stock_in_other_words_passes(text: str) -> None:
    assert agrees(text, {"results": [PROJECTOR]}), text


def test_stock_said_against_the_record_fails() -> None:
    assert not agrees("Good news: the Stargazer is in stock.", {"results": [PROJECTOR]})
    assert not agrees("The Dutch oven is sold out, sorry.", {"product": OVEN})


@pytest.mark.parametrize(
    "text",
    [
        "O-5001 now arrives 12/2; the carrier pushed it back from 11/25.",
        "O-5001 is in transit and expected December 2nd (originally Nov 25).",
        "Your order O-5001 is on its way; the latest estimate is Dec 2.",
        "O-5001 is with the carrier, due 2026-12-02.",
    ],
)
def test_an_updated_delivery_said_right_passes(text: str) -> None:
    assert agrees(text, {"order": ORDER}), text


@pytest.mark.parametrize(
    "text",
    [
        "O-5001 arrives Nov 25 as planned.",
        "O-5001 is expected on November 25.",
        "O-5001 was delivered.",
        "O-5005 is running late.",
    ],
)
def test_a_delivery_said_against_the_record_fails(text: str) -> None:
    assert not agrees(text, {"order": ORDER}, {"order": ON_TIME}), text


def test_an_on_time_order_may_be_said_on_time() -> None:
    assert agrees("O-5005 is on track for Dec 1.", {"order": ON_TIME})


@pytest.mark.parametrize(
    "text",
    [
        "Offers waiting: $23,500 (Sportage) and $26,800 (Tucson).",
        "Offers: $23,500 Sportage; $26,800 Tucson.",
        "The Tucson has one open offer, $26,800, above its $25,500 floor.",
        "The $24,000 offer on the Tucson was withdrawn.",
    ],
)
def test_offers_said_right_pass(text: str) -> None:
    assert agrees(text, {"results": OFFERS}, {"results": VEHICLES}), text


@pytest.mark.parametrize(
    "text",
    [
        "The Tucson's offer is $28,600.",
        "The Sportage's offer is $26,800.",
        "OF-2003 is still waiting for your decision.",
    ],
)
def test_offers_said_wrong_fail(text: str) -> None:
    assert not agrees(text, {"results": OFFERS}, {"results": VEHICLES}), text


@pytest.mark.parametrize(
    "text, true",
    [
        ("The Brightwell lamp is dimmable.", True),
        ("The Brightwell Architect lamp has adjustable brightness.", True),
        ("The Brightwell lamp isn't dimmable.", False),
        ("The Castline Pro works on induction; the Classic doesn't.", True),
        ("The Castline Classic is induction-ready and the Pro is not.", False),
    ],
)
def test_yes_no_attributes_are_read_against_the_record(text: str, true: bool) -> None:
    assert agrees(text, {"results": [LAMP, *SKILLETS]}) is true, text


def test_totals_and_quantities_are_read_against_the_cart() -> None:
    cart = {
        "lines": [{"product_id": "P-1132", "name": LAMP["name"], "quantity": 2,
                   "unit_price": 54.99, "line_total": 109.98}],
        "total": 109.98,
    }  # fmt: skip
    assert agrees("Your cart: 2 Brightwell lamps, total $109.98.", cart)
    assert agrees("Two of the Brightwell Architect lamps ($109.98 in all).", cart)
    assert not agrees("Your cart total is $119.98.", cart)
    assert not agrees("Your cart: 3 Brightwell lamps.", cart)


def test_values_tied_to_no_record_or_said_as_a_bound_are_not_checked() -> None:
    data = {"results": [LAMP]}
    assert agrees("Anything under $40 is out, so the Brightwell lamp it is.", data)
    assert agrees("With a $2,000 cap, four would come to $219.96.", data)
    assert agrees("Shipping is free over $35.", data)


def test_records_agree_is_on_for_every_case_and_can_be_turned_off() -> None:
    assert "records_agree" in Expected().asserted_keys()
    assert "records_agree" not in Expected(records_agree=False).asserted_keys()
    run = context("The Stargazer is in stock.", {"results": [PROJECTOR]}).run
    [grade_] = [g for g in grade(Expected(), run, DomainBrief()) if g.key == "records_agree"]
    assert grade_.part == "outcome" and not grade_.passed
    assert "Stargazer" in grade_.reason and "stock 0" in grade_.reason


JACKET = {"id": "P-1210", "name": "Drizzlewood Commuter", "price": 49.5,
          "attributes": {"packable": False}}  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "The Brightwell Architect Desk Lamp Daylight is $54.99. Note that it isn't dimmable.",
        "The Drizzlewood Commuter also packs into its own pocket.",
        "Here's the Drizzlewood Commuter. Heads up, it packs down small.",
    ],
)
def test_a_flag_said_mid_sentence_or_as_a_verb_is_read(text: str) -> None:
    assert not agrees(text, {"results": [LAMP, JACKET]})


@pytest.mark.parametrize(
    "text",
    [
        "The Brightwell Architect Desk Lamp Daylight is $54.99. Note that it dims smoothly.",
        "The Drizzlewood Commuter doesn't pack down, but it's the most waterproof.",
        "The Drizzlewood Commuter ($49.50) isn't packable. It's still my pick.",
    ],
)
def test_a_flag_said_right_mid_sentence_or_as_a_verb_passes(text: str) -> None:
    assert agrees(text, {"results": [LAMP, JACKET]})


def test_a_cart_write_does_not_excuse_a_flag_said_wrong() -> None:
    """Adding a product to the cart changes none of its flags: a flag said wrong still fails."""
    data = ToolResultEvent(call_id="c0", tool="get", data={"results": [LAMP]})
    run = make_run(
        (
            "q",
            [data, call("add_to_cart", product_id="P-1132", quantity=1),
             reply("Added the Brightwell Architect Desk Lamp Daylight. Sadly, it isn't dimmable.")],
        )
    )  # fmt: skip
    assert not records_agree(True, GradeContext(run=run))[0]


DELIVERED = {"order_id": "R-1101", "placed_on": "2026-08-12", "delivered_on": "2026-08-20"}
PROMO = {"change_id": "CH-202", "product_id": "P-1133", "new_value": {"ends_on": "2026-12-31"}}


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("R-1101 was delivered on 2026-08-12.", False),
        ("R-1101 was placed on Aug 12 and delivered on Aug 20.", True),
        ("R-1101 arrived Aug 20, eight days after you ordered it on Aug 12.", True),
        ("CH-202 is a promotion on P-1133, running until January 31.", False),
        ("CH-202 is a promotion on P-1133, running until December 31.", True),
        ("CH-202 ends on 2026-12-31.", True),
    ],
)
def test_a_date_said_in_a_role_is_the_records_date_of_that_role(text: str, right: bool) -> None:
    assert (
        agrees(text, {"order": DELIVERED}, {"change": PROMO}, {"product": {"id": "P-1133"}})
        is right
    )


TRAIN = {
    "id": "P-1115",
    "name": "Tumbletown Pull-Along Train",
    "attributes": {"batteries_required": False},
}
LIGHT = {
    "id": "P-1116",
    "name": "Tumbletown Light-Up Train",
    "attributes": {"batteries_required": True},
}
SHOE_A = {"id": "P-1008", "name": "Loma Ridge Everyday", "attributes": {"sizes": [6, 7, 8, 12]}}
SHOE_B = {"id": "P-1010", "name": "Paceworth Basic", "attributes": {"sizes": [7, 8, 11]}}


def _shown(text: str, *products: dict[str, Any]) -> bool:
    ids = [p["id"] for p in products]
    run = make_run(
        (
            "q",
            [
                ToolResultEvent(call_id="c", tool="search", data={"results": list(products)}),
                UiEvent(component="suggestions", payload={"product_ids": ids}),
                reply(text),
            ],
        )
    )
    return records_agree(True, GradeContext(run=run))[0]


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("Two gifts for her, all gift-wrappable and none of them need batteries.", False),
        ("Two gifts for her; the light-up one needs batteries, the other doesn't.", True),
        ("These 2 need no batteries at all.", False),
        ("Both are lovely, and one of them needs batteries.", True),
    ],
)
def test_a_plural_subject_speaks_of_every_record_shown(text: str, right: bool) -> None:
    assert _shown(text, TRAIN, LIGHT) is right


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("These 2 come in a size 6.", False),
        ("Both come in sizes 7 to 8.", True),
        ("The Loma Ridge Everyday comes in a size 6; the Paceworth Basic starts at 7.", True),
        ("The Loma Ridge Everyday (sizes 6-12) and the Paceworth Basic (sizes 7-11).", True),
        ("The Paceworth Basic comes in size 12.", False),
        ("The Paceworth Basic doesn't come in size 12.", True),
    ],
)
def test_a_size_said_of_a_record_is_one_it_comes_in(text: str, right: bool) -> None:
    assert _shown(text, SHOE_A, SHOE_B) is right


JACKET_SM = {"id": "P-1017", "name": "Stormhaven Coastal Rain Jacket",
             "attributes": {"sizes": ["S", "M"], "material": "recycled nylon"}}  # fmt: skip
JACKET_LXL = {"id": "P-1018", "name": "Drizzlewood Harbor Rain Jacket",
              "attributes": {"sizes": ["L", "XL"], "material": "recycled nylon"}}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("Go with the Drizzlewood Harbor in your usual medium.", False),
        ("The Drizzlewood Harbor comes in S and M.", False),
        ("Get the Drizzlewood Harbor in size M.", False),
        ("The Stormhaven Coastal only runs S-M, so take the Drizzlewood Harbor in a large.", True),
        ("Take the Drizzlewood Harbor in L; it leaves room for a fleece.", True),
        ("The Drizzlewood Harbor (sizes L and XL) fits over a fleece.", True),
        ("You're normally a medium, but the Drizzlewood Harbor in an L leaves room.", True),
        ("The Drizzlewood Harbor has a large hood and medium-weight fabric.", True),
        ("The Drizzlewood Harbor doesn't come in medium.", True),
    ],
)
def test_a_letter_size_said_of_a_record_is_one_it_comes_in(text: str, right: bool) -> None:
    assert _shown(text, JACKET_SM, JACKET_LXL) is right, text


MESH = {"id": "P-1001", "name": "Trailblaze 4 Trail Running Shoe", "price": 119.99,
        "attributes": {"material": "synthetic mesh", "color": "slate blue", "vegan": True}}  # fmt: skip
LEATHER = {"id": "P-1002", "name": "Trailblaze 4 Leather Trail Running Shoe", "price": 124.99,
           "attributes": {"material": "full-grain leather", "color": "slate blue",
                          "vegan": False}}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("Both are leather trail shoes; the Leather one costs $5 more.", False),
        ("The Trailblaze 4 Trail Running Shoe is leather too.", False),
        ("The Trailblaze 4 Leather Trail Running Shoe is mesh, just pricier.", False),
        ("The Trailblaze 4 Leather Trail Running Shoe isn't leather.", False),
        (
            "The Trailblaze 4 Trail Running Shoe has a synthetic mesh upper; the Leather one is "
            "full-grain leather and $5 more.",
            True,
        ),
        ("The Trailblaze 4 Trail Running Shoe isn't leather, unlike its twin.", True),
        ("Both are slate blue trail shoes.", True),
        (
            "The Trailblaze 4 Trail Running Shoe is vegan mesh, while the leather version is not.",
            True,
        ),
        ("Same shoe, different upper: mesh on one, leather on the other.", True),
    ],
)
def test_a_material_or_colour_word_said_of_the_wrong_record_fails(text: str, right: bool) -> None:
    assert _shown(text, MESH, LEATHER) is right, text


SKILLET = {"id": "PE-2020", "name": "Copperline Stainless Skillet 10-inch",
           "reviews": [{"author": "Nina B.", "text": "Sears beautifully and cleans up with a soak."},
                       {"author": "Karl S.", "text": "The flared rim pours without drips."}]}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("Reviewers say it doesn't sear well, though it cleans up with a soak.", False),
        ("One reviewer mentions the rim drips when you pour.", False),
        ("According to the reviews, it won't clean up easily.", False),
        ("Reviewers say it sears beautifully and the rim pours without drips.", True),
        ("One reviewer found it sears evenly; another likes that the rim doesn't drip.", True),
        ("No reviewer says it fails to sear.", True),
        ("It doesn't have a nonstick coating, but reviewers say it sears well.", True),
        ("Reviewers say it cleans up with a soak, but it isn't great for eggs.", True),
        ("One reviewer says the rim pours without drips, and it isn't bad with a soak.", True),
    ],
)
def test_what_reviewers_are_said_to_report_must_not_turn_the_reviews_round(
    text: str, right: bool
) -> None:
    assert agrees(text, {"product": SKILLET}) is right, text


CLOSING = {"id": "CL-3001", "vehicleId": "V-1011", "status": "OPEN",
           "steps": [{"key": "DEP", "name": "Deposit ($1,000)", "kind": "payment",
                      "status": "COMPLETE"},
                     {"key": "PAY", "name": "Balance payment ($32,000 wire)", "kind": "payment",
                      "status": "PENDING"},
                     {"key": "BOS", "name": "Bill of Sale", "kind": "signature",
                      "status": "PENDING"}]}  # fmt: skip
CHEROKEE = {"id": "V-1011", "year": 2021, "make": "Jeep", "model": "Grand Cherokee",
            "status": "IN_CLOSING"}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("The $32,000 balance landed this morning on the Grand Cherokee.", False),
        ("On the Grand Cherokee, the balance is paid and the bill of sale is signed.", False),
        ("On the Grand Cherokee the deposit came in; the balance is still pending.", True),
        ("Not yet: the Grand Cherokee's $32,000 balance hasn't been received.", True),
        ("The Grand Cherokee's bill of sale is waiting on the buyer's signature.", True),
    ],
)
def test_a_part_of_a_closing_said_done_must_be_done(text: str, right: bool) -> None:
    assert agrees(text, {"closing": CLOSING, "vehicle": CHEROKEE}) is right, text


CHANGE = {"change_id": "CH-NEW-1", "kind": "price", "product_id": "P-1001", "new_value": 129.99,
          "approved_by": None}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "right"),
    [
        ("Staged CH-NEW-1 and marked it approved.", False),
        ("CH-NEW-1 is approved and ready to apply.", False),
        ("CH-NEW-1 is staged; it goes live once a person has approved it.", True),
        ("CH-NEW-1 hasn't been approved yet.", True),
        ("CH-NEW-1 is waiting for approval.", True),
    ],
)
def test_a_change_said_approved_needs_an_approver(text: str, right: bool) -> None:
    assert agrees(text, {"staged": CHANGE}) is right, text


ROAD = {"id": "P-1005", "name": "Cushioned Road Shoe", "attributes": {"material": "knit"}}


def _presented_to(user: str, *shown: dict[str, Any]) -> bool:
    ids = [p["id"] for p in shown]
    run = make_run(
        (
            user,
            [
                ToolResultEvent(
                    call_id="c", tool="search", data={"results": [MESH, LEATHER, ROAD]}
                ),
                UiEvent(component="suggestions", payload={"product_ids": ids}),
                reply("Here are a few."),
            ],
        )
    )
    return records_agree(True, GradeContext(run=run))[0]


@pytest.mark.parametrize(
    ("user", "shown", "right"),
    [
        ("My eczema flares up with leather, so show me trail shoes without it.", [LEATHER], False),
        ("Trail shoes, no leather please.", [MESH, LEATHER], False),
        ("Leather-free running shoes?", [ROAD, LEATHER], False),
        (
            "My eczema flares up with leather, so show me trail shoes without it.",
            [MESH, ROAD],
            True,
        ),
        ("Trail shoes, no leather please.", [MESH], True),
        ("Show me leather trail shoes, not knit ones.", [LEATHER], True),
        ("Not sure what I want; show me trail shoes.", [MESH, LEATHER], True),
    ],
)
def test_a_record_shown_must_not_hold_what_the_person_ruled_out(
    user: str, shown: list[dict[str, Any]], right: bool
) -> None:
    assert _presented_to(user, *shown) is right, user


@pytest.mark.parametrize(
    ("text", "right"),
    [
        (
            "The Trailblaze 4 Leather Trail Running Shoe is cheaper than the Trailblaze 4 Trail "
            "Running Shoe.",
            False,
        ),
        ("The Trailblaze 4 Trail Running Shoe is the pricier of the two.", False),
        ("Both suit trails; the Trailblaze 4 Leather Trail Running Shoe is the cheapest.", False),
        ("The Trailblaze 4 Trail Running Shoe is cheaper.", True),
        (
            "The Trailblaze 4 Trail Running Shoe costs less than the Trailblaze 4 Leather Trail "
            "Running Shoe.",
            True,
        ),
        (
            "The Trailblaze 4 Leather Trail Running Shoe is $5 more expensive than the Trailblaze 4 "
            "Trail Running Shoe.",
            True,
        ),
        ("If the Trailblaze 4 Leather Trail Running Shoe were cheaper, I'd say take it.", True),
        ("Both are trail shoes; the Trailblaze 4 Trail Running Shoe is the cheapest.", True),
        ("The Trailblaze 4 Leather Trail Running Shoe isn't cheaper, sadly.", True),
    ],
)
def test_a_comparative_points_the_way_the_records_do(text: str, right: bool) -> None:
    assert _shown(text, MESH, LEATHER) is right, text


def test_a_comparative_along_a_field_no_record_has_is_left_to_the_judge() -> None:
    from commerce_evals.grading.record_facts import untied_values

    text = "The Trailblaze 4 Leather Trail Running Shoe is lighter than the Trailblaze 4 Trail Running Shoe."
    assert _shown(text, MESH, LEATHER)
    ctx = context(text, {"results": [MESH, LEATHER]})
    assert any("'lighter'" in line and "no weight field" in line for line in untied_values(ctx))


def test_a_flag_word_spelled_with_a_letter_that_matches_another_case_is_still_read() -> None:
    # a dotless ı in a field's name matches "i" in a sentence, which no substring test of the
    # folded sentence sees: the flag is read as its pattern reads it
    records = Records(rows_fixed=True)
    records.add({"id": "P-1", "name": "Glow Lamp", "d\u0131mmable": False})
    [problem] = problems_in("The Glow Lamp is dimmable.", records)
    assert "d\u0131mmable" in problem.why
