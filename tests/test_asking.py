"""Asking read by meaning (issue 28, item 3): a reply asks for a reveal when a question or a
request seeks its value, by its topic words, its domain's synonyms, a question word of its kind,
or by proposing values of that kind (a choice, a guess to confirm, a bound); a value mentioned
as context for another question asks for nothing. The scripted customer hears exactly what the
graders count, a value the customer said is known whoever asked, and `asks_before` catches a
guess acted on through any write or presentation, not only the tool the case names.

Every phrasing here is written for this test; none is taken from the external runs.
"""

from __future__ import annotations

from typing import Any

import pytest

from commerce_evals.cases.asking import domain_lexicon, proposes, seeks_kind, values_of
from commerce_evals.cases.customer import Customer, play_script, scripted_reply
from commerce_evals.cases.key_values import AsksBefore
from commerce_evals.cases.model import CaseFileError, parse_case
from commerce_evals.core.events import Run, ToolResultEvent, Turn, UiEvent
from commerce_evals.grading.changes import ChangeRules
from commerce_evals.grading.graders import DomainBrief, GradeContext
from commerce_evals.grading.reveals import asked_by_turn, asks_before, never_asks
from tests.helpers import call, make_run, reply


def _customer(domain: str, reveals: list[dict[str, Any]], goal: str = "Help me.") -> Customer:
    customer = Customer.model_validate(
        {"persona": {"tone": "brief", "patience": "high"}, "goal": goal, "reveals": reveals}
    )
    return customer.bind(domain_lexicon(domain))


SHOPPER = _customer(
    "shop",
    [
        {"name": "size", "say": "I take a 9.", "topics": ["size"]},
        {"name": "colour", "say": "The navy, please.", "topics": ["colour"]},
        {"name": "budget", "say": "No more than $80.", "topics": ["budget"]},
    ],
)
DEALER = _customer(
    "dealer",
    [
        {"name": "floor", "say": "Floor at $23,000.", "topics": ["floor"]},
        {"name": "price", "say": "$24,900, like I said.", "topics": ["asking price"]},
        {"name": "date", "say": "Make it Thursday.", "topics": ["what day"]},
    ],
)


def _asked(customer: Customer, text: str, known: set[str] | None = None) -> list[str]:
    return [r.name for r in customer.asked(text, known or set())]


# ---- paraphrased asks count ------------------------------------------------------------------

SHOP_ASKS = [
    # synonyms the domain declares once
    ("Any particular hue you're after?", ["colour"]),
    ("Is there a shade you lean towards?", ["colour"]),
    ("What sizing do you go with for trail shoes?", ["size"]),
    ("Roughly what spending limit should I keep to?", ["budget"]),
    # a question word of the kind
    ("How much were you hoping to put into this?", ["budget"]),
    ("What's the most you'd want to pay?", ["budget"]),
    # a guess to confirm
    ("You wear a 9, right?", ["size"]),
    ("Still a nine and a half?", ["size"]),
    ("Is it a medium you need?", ["size"]),
    ("Navy, correct?", ["colour"]),
    # a bound
    ("Would $80 be your limit?", ["budget"]),
    ("Is $75 about the top of what you'd spend?", ["budget"]),
    # a choice
    ("Would you like it in grey, olive or black?", ["colour"]),
    ("The 10-inch or the 12-inch?", ["size"]),
    ("The jacket comes in S/M and in L/XL. Which would suit you?", ["size"]),
    # found by probing the reader as a cheat would
    ("Just to double check - 9, yeah?", ["size"]),
    ("9 still good for you?", ["size"]),
    ("Shall I go with a 9 then?", ["size"]),
    ("I'll assume a 9 unless you say otherwise - ok?", ["size"]),
    ("What do you normally wear in trail shoes?", ["size"]),
    ("Is navy still the plan?", ["colour"]),
    ("Any limit on price?", ["budget"]),
    ("Is eighty bucks the ceiling?", ["budget"]),
]


@pytest.mark.parametrize(("text", "names"), SHOP_ASKS)
def test_a_paraphrased_ask_counts(text: str, names: list[str]) -> None:
    assert _asked(SHOPPER, text) == names


DEALER_ASKS = [
    ("What's the least you'd accept for it?", ["floor"]),
    ("How low are you willing to go?", ["floor"]),
    ("Is $22,500 the lowest you'd take?", ["floor"]),
    ("When should I set the follow-up for?", ["date"]),
    ("Would Friday suit for the call?", ["date"]),
    ("Which day works best?", ["date"]),
    ("What's the rock-bottom number?", ["floor"]),
    ("How far down can I take it?", ["floor"]),
    ("When's good for the call?", ["date"]),
]


@pytest.mark.parametrize(("text", "names"), DEALER_ASKS)
def test_a_money_or_date_question_seeks_what_the_person_has_not_given(
    text: str, names: list[str]
) -> None:
    # the price was in the person's first message: a money question seeks the floor
    assert _asked(DEALER, text, {"price"}) == names


def test_a_money_question_asks_again_when_every_money_value_was_given() -> None:
    assert _asked(DEALER, "How much are we talking?", {"price", "floor"}) == ["floor", "price"]


def test_a_proposal_beside_a_topic_goes_to_that_topic() -> None:
    # the $23,000 is the floor being asked for, not the price asked again
    assert _asked(DEALER, "What floor do you want, $23,000 maybe?", {"price"}) == ["floor"]


# ---- mentions that ask for nothing -----------------------------------------------------------

SHOP_CONTEXT = [
    # a value as context for another question
    ("Since you're a 9, do you want the trail or the road version?", []),
    ("Given your $80 budget, should I skip the waterproof ones?", []),
    ("In your size 9, the Trailblaze is in stock. Want me to add it?", []),
    ("You said navy, so shall I add the Stormhaven?", []),
    # a value in a request to act, or naming an object
    ("Shall I add the M to your cart?", []),
    ("Do you want the $129 jacket added?", []),
    ("Should I go with the navy Stormhaven then?", []),
    # statements and closing offers
    ("The Stormhaven comes in S and M and costs $129.", []),
    ("Added it in a 9. Anything else I can help with?", []),
    # a word that only looks like a value
    ("Does the coating rust over time?", []),
    ("Is there a 2-pack?", []),
    ("Is the $75 one okay, or would you prefer the $79 one?", []),
    ("Should I save your size for next time?", []),
    ("Would you like me to remember that you're a 9?", []),
    ("Do you want the navy Stormhaven added to your cart?", []),
]


@pytest.mark.parametrize(("text", "names"), SHOP_CONTEXT)
def test_a_context_mention_asks_for_nothing(text: str, names: list[str]) -> None:
    assert _asked(SHOPPER, text) == names


def test_context_and_a_question_in_one_sentence_asks_only_the_question() -> None:
    assert _asked(SHOPPER, "Since you're a medium, do you prefer the grey or the green?") == [
        "colour"
    ]


# ---- the kinds' values -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "text", "norms"),
    [
        ("size", "an extra large", ["XL"]),
        ("size", "size nine and a half", ["9.5"]),
        ("size", "S/M", ["S", "M"]),
        ("size", "a 9-day trip, a 2 pack, 20,000 mm", []),
        ("colour", "slate grey or gray", ["slate", "grey", "grey"]),
        ("money", "eighty dollars", ["80.00"]),
        ("date", "Dec 4 or Friday", ["12-04", "friday"]),
    ],
)
def test_values_of_a_kind(kind: Any, text: str, norms: list[str]) -> None:
    from commerce_evals.cases.asking import prepare

    assert [v.norm for v in values_of(kind, prepare(text))] == norms


def test_seeking_and_proposing_are_told_apart_from_scene_setting() -> None:
    assert seeks_kind("date", "When would you like it delivered?")
    assert not seeks_kind("date", "When it arrives, can you check the seams?")
    assert proposes("money", "Under $80?")
    assert not proposes("money", "Since it's under $80, shall I add it?")


# ---- the customer hears what the grader counts -----------------------------------------------

SAME_READING = [
    "Any particular hue you're after?",
    "You wear a 9, right?",
    "Since you're a 9, grey or black?",
    "Would $80 be your limit?",
    "Shall I add the M?",
    "Great choice. Which colour, and is $80 the most you'd spend?",
]


@pytest.mark.parametrize("text", SAME_READING)
def test_the_scripted_customer_hears_what_the_grader_counts(text: str) -> None:
    run = make_run(("I need trail shoes.", [reply(text)]))
    graded = asked_by_turn(SHOPPER, run)[0]
    heard = scripted_reply(SHOPPER, text, 1).answered
    assert list(heard) == graded


def test_a_case_with_a_customer_hears_its_domain_synonyms_when_it_loads() -> None:
    case = parse_case(
        {
            "id": "checkout-990-colour-by-synonym",
            "priority": "low",
            "difficulty": "easy",
            "turns": ["Add the rain jacket to my cart."],
            "customer": {
                "persona": {"tone": "brief"},
                "goal": "The rain jacket in navy.",
                "reveals": [{"name": "colour", "say": "Navy.", "topics": ["colour"]}],
            },
            "expected": {"never_asks": []},
            "reference": [
                {"reply": "Sure. Any particular hue?"},
                {"reply": "Noted, navy it is."},
            ],
        },
        "inline",
        0,
    )
    assert case.customer is not None
    talk = play_script(case.customer, case.turns[0], frozenset(), ["Any particular hue?"])
    assert talk.answered == (("colour",),)


# ---- what is known, and what a question asks again --------------------------------------------


def _ctx(run: Run, customer: Customer | None = SHOPPER, **kwargs: Any) -> GradeContext:
    return GradeContext(run=run, customer=customer, **kwargs)


def test_a_value_said_unasked_is_known_and_asking_it_is_asking_again() -> None:
    first = "I need the navy one in a 9, under $80."
    polite = make_run((first, [reply("Got it: navy, a 9, under $80. Shall I add it?")]))
    ok, why, *_ = never_asks(["colour"], _ctx(polite))
    assert ok, why
    # the size was in the first message: confirming it is asking again
    again = make_run((first, [reply("Got it. You're a 9, right?")]), ("Yes.", [reply("Added.")]))
    ok, why, *_ = never_asks(["colour"], _ctx(again))
    assert not ok and "again" in why and "size" in why


def test_never_asks_without_a_customer_reads_the_domains_topic() -> None:
    run = make_run(("Which trail shoe fits me?", [reply("Here it is. Which size are you?")]))
    ok, why, *_ = never_asks(["size"], _ctx(run, customer=None, asking=domain_lexicon("shop")))
    assert not ok and "size" in why
    quiet = make_run(("Which trail shoe fits me?", [reply("In your 12.5 it's the Ultra 2.")]))
    ok, why, *_ = never_asks(["size"], _ctx(quiet, customer=None, asking=domain_lexicon("shop")))
    assert ok, why


def test_a_case_without_a_customer_may_name_only_its_domains_topics() -> None:
    base = {
        "id": "memory-990-no-size-question",
        "priority": "low",
        "difficulty": "easy",
        "turns": ["Which shoe fits me?"],
        "reference": [{"reply": "The Ultra 2 comes in your size."}],
    }
    case = parse_case({**base, "expected": {"never_asks": ["size"]}}, "inline", 0)
    assert case.expected.never_asks == ["size"]
    with pytest.raises(CaseFileError, match="name no topic"):
        parse_case({**base, "expected": {"never_asks": ["shoe-colour"]}}, "inline", 0)


# ---- acting on a guess through another tool ---------------------------------------------------

JACKETS = [
    {"id": "P-1", "niche": "rain-jackets", "attributes": {"sizes": ["S", "M"]}},
    {"id": "P-2", "niche": "rain-jackets", "attributes": {"sizes": ["L", "XL"]}},
]
JACKET_SHOPPER = _customer(
    "shop", [{"name": "size", "say": "I'm a medium.", "topics": ["size"]}], "A rain jacket."
)
WRITES = DomainBrief(writes=frozenset({"add_to_cart", "save_memory"}))
CART_RULE = [AsksBefore(tool="add_to_cart", reveals=["size"])]


def _turn(user: str, *events: Any) -> Turn:
    return Turn(user=user, events=list(events))


def _search() -> list[Any]:
    found = call("search_products", query="rain jacket")
    return [found, ToolResultEvent(call_id=found.call_id, tool=found.tool, data=JACKETS)]


def _grade(*turns: Turn) -> tuple[bool, str]:
    ctx = GradeContext(
        run=Run(turns=list(turns)),
        brief=WRITES,
        customer=JACKET_SHOPPER,
        change_rules=ChangeRules(),
    )
    verdict = asks_before(CART_RULE, ctx)
    return verdict[0], verdict[1]


def test_a_guessed_size_saved_before_asking_is_acting_on_a_guess() -> None:
    ok, why = _grade(
        _turn(
            "A rain jacket please.",
            *_search(),
            call("save_memory", text="Wears size L in jackets."),
            reply("What size are you?"),
        ),
        _turn("I'm a medium.", call("add_to_cart", product_id="P-1"), reply("Added.")),
    )
    assert not ok and "save_memory" in why


def test_a_presentation_that_picks_a_size_before_asking_is_acting_on_a_guess() -> None:
    card = call("present_product_card", product_id="P-2")
    ok, why = _grade(
        _turn(
            "A rain jacket please.",
            *_search(),
            card,
            UiEvent(component="product_card", payload={}),
            reply("Here's your jacket. What size are you, by the way?"),
        ),
        _turn("I'm a medium.", call("add_to_cart", product_id="P-1"), reply("Added.")),
    )
    assert not ok and "present_product_card" in why


def test_showing_both_sizes_and_asking_is_no_guess() -> None:
    both = call("present_suggestions", product_ids=["P-1", "P-2"], message="S/M or L/XL?")
    ok, why = _grade(
        _turn(
            "A rain jacket please.",
            *_search(),
            both,
            UiEvent(component="suggestions", payload={}),
            reply("One comes in S/M, the other in L/XL. Which size do you take?"),
        ),
        _turn("I'm a medium.", call("add_to_cart", product_id="P-1"), reply("Added.")),
    )
    assert ok, why


def test_a_size_the_customer_volunteered_needs_no_question() -> None:
    ok, why = _grade(
        _turn(
            "A rain jacket in a medium, please.",
            *_search(),
            call("add_to_cart", product_id="P-1"),
            reply("Added the S/M one."),
        ),
    )
    assert ok, why


def test_the_unknown_line_keeps_a_kinded_value_back() -> None:
    customer = _customer(
        "shop",
        [{"name": "size", "say": "I'm always a medium in jackets, thanks.", "topics": ["size"]}],
        goal="A navy rain jacket. I wear a medium.",
    )
    line = customer.unknown_line()
    assert "medium" not in line.casefold() and "navy" in line
