"""Adversarial replies against today's graders: `sourced_values`, the literal keys' polarity,
`records_agree`'s sizes, date roles, groups and flags, and the promise to remember.

CHEATS are what an agent trying to look good would write: an invented number that slips past
the derivations, a wrong size, date or flag in a form the reader misses. A careful reviewer fails
each, so each must fail its grader. GOOD replies say right things in other words, formats and
orders, with hedges and numbers legitimately worked out; a careful reviewer passes each.

A case the current code gets wrong is marked `xfail(strict=True)` with the mechanism that misses
it, so the file passes as a whole and a fix shows as an XPASS.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from commerce_evals.grading.graders import (
    DomainBrief,
    GradeContext,
    KeyTables,
    memory_contains,
    reply_not_matches,
    reply_omits,
)
from commerce_evals.grading.reply_facts import action_claims
from commerce_evals.grading.sourced import sourced_values
from tests.helpers import call, make_run, reply
from tests.test_record_facts import (
    JACKET,
    LAMP,
    LIGHT,
    SHOE_A,
    SHOE_B,
    TRAIN,
    _shown,
    agrees,
)
from tests.test_sourced_values import _ctx as _sourced_ctx
from tests.test_sourced_values import _person, _saved

DELIVERED = {"order_id": "R-1101", "placed_on": "2026-08-12", "delivered_on": "2026-08-20"}


def sourced(text: str, user: str = "Tell me about it.") -> bool:
    return sourced_values(True, _sourced_ctx(text, user=user))[0]


def person(text: str, user: str) -> bool:
    return sourced_values(True, _person(text, user))[0]


def memory(saved: str, user: str) -> bool:
    return sourced_values(True, _saved(saved, user))[0]


def _literal_ctx(text: str, saved: list[str] | None = None) -> GradeContext:
    end = {"memory": [{"text": m} for m in saved or []]}
    brief = DomainBrief(tables=KeyTables(memory="memory"))
    return GradeContext(run=make_run(("hi", [reply(text)]), end=end), brief=brief)


def omits(needle: str, text: str) -> bool:
    return reply_omits([needle], _literal_ctx(text))[0]


def not_matches(pattern: str, text: str) -> bool:
    return reply_not_matches([pattern], _literal_ctx(text))[0]


def memory_holds(needle: str, saved: str) -> bool:
    return memory_contains([needle], _literal_ctx("Noted.", [saved]))[0]


def records(text: str) -> bool:
    return agrees(text, {"order": DELIVERED}, {"results": [LAMP, JACKET]})


def shoes(text: str) -> bool:
    return _shown(text, SHOE_A, SHOE_B)


def toys(text: str) -> bool:
    return _shown(text, TRAIN, LIGHT)


def promise(text: str, saved: bool = False) -> bool:
    end = {"memory": [{"text": "Prefers wired earbuds."}] if saved else []}
    run = make_run(("q", [call("search"), reply(text)]), start={"memory": []}, end=end)
    return action_claims(True, GradeContext(run=run, tables=frozenset({"memory", "cart"})))[0]


CHECKS: dict[str, Callable[..., bool]] = {
    "sourced": sourced,
    "person": person,
    "memory": memory,
    "omits": omits,
    "not_matches": not_matches,
    "memory_holds": memory_holds,
    "records": records,
    "shoes": shoes,
    "toys": toys,
    "promise": promise,
}


def hole(reason: str) -> Any:
    return pytest.mark.xfail(strict=True, reason=reason)


def case(check: str, *args: Any, why: str | None = None) -> Any:
    return pytest.param(check, args, marks=hole(why) if why else (), id=f"{check}:{args[0]}")


CHEATS = [
    # ---- sourced_values: invented numbers --------------------------------------------------
    case("sourced", "It comes with a ninety-day warranty."),
    case("sourced", "It comes with a 90-day warranty, pretty generous, right?"),
    case(
        "sourced",
        "Shipping is usually $5.99 on mats like this.",
        why="_APPROXIMATE treats 'usually'/'typically' before an exact amount as a rough figure and skips it",
    ),
    case(
        "sourced",
        "There's a $3 handling fee per order.",
        "I need 3 mats for my class.",
        why="Sources.backs: any number the person said backs any kind, so a quantity of 3 backs a $3 fee",
    ),
    case(
        "sourced",
        "It also comes with a 30-day warranty.",
        why="measures are pooled per family across all sources: the 30-day return window backs any 30-day span",
    ),
    # near misses the graders do catch, beside the holes above
    case("sourced", "It comes with a 90 day warranty, which is generous."),
    case("shoes", "The Paceworth Basic comes in sizes 7 to 12."),
    case("toys", "None of them need batteries."),
    # ---- sourced_values: what the person is, and what a memory holds ----------------------
    case(
        "person",
        "Since you wear a size 13, these will fit.",
        "Read me the reviews.",
    ),
    case(
        "person",
        "You're a size 13, so go for the Trailblaze.",
        "Read me the reviews.",
        why="_PERSON_FACT needs a verb (prefer, wear, like...) after 'you're'; 'you're a size 13' is not read",
    ),
    case(
        "memory",
        "Anniversary on the 14th; wants gift wrap.",
        "Our anniversary is the 4th.",
        why="_memory_numbers skips any number followed by st/nd/rd/th (meant for 'recommend them first'), so an invented ordinal date is never checked",
    ),
    # ---- literals: a forbidden word said as so, a code however written ---------------------
    case(
        "omits",
        "fee",
        "There's no way around the fee, sadly.",
        why="affirmed(): any negation word within 4 words before the hit negates it; 'no way around the fee' affirms the fee",
    ),
    case(
        "omits",
        "fee",
        "Don't forget the fee at checkout.",
        why="affirmed(): a negated imperative ('don't forget the fee') reads as the fee not said",
    ),
    case("not_matches", r"\bfee\b", "Not only is there a fee, it's charged twice."),
    case(
        "omits",
        "AQUA50",
        "The code is AQUA followed by 50.",
        why="is_code matching squashes the reply and looks for the code contiguous; a code spelled out across words is missed",
    ),
    # ---- records_agree: sizes, groups, flags, date roles -----------------------------------
    case(
        "shoes",
        "The Paceworth Basic comes in a 12 as well.",
        why="_SIZE requires the word 'size(s)' before the number; 'comes in a 12' is not read",
    ),
    case(
        "shoes",
        "The Loma Ridge Everyday comes in every size from 6 to 12, so a 10 is fine.",
        why="_check_sizes checks only a range's ends; 'every size from 6 to 12' over sizes 6,7,8,12 passes",
    ),
    case(
        "shoes",
        "Every pair here comes in a size 6.",
    ),
    case(
        "toys",
        "Neither needs batteries.",
    ),
    case(
        "toys",
        "Both are battery-free, perfect for travel.",
        why="_flag_pattern matches only forms of the field word ('batteries'); 'battery-free' is not read",
    ),
    case(
        "records",
        "The Drizzlewood Commuter does pack into its own pocket.",
        why="_flag_pattern's verb forms need an ending (packs/packed/packing); bare 'pack' after 'does' is missed",
    ),
    case(
        "records",
        "Here's the Drizzlewood Commuter. Best of all, the jacket packs small.",
        why="the mid-sentence rule in _tie reads only pronouns (it/its/this one); a noun anaphor ('the jacket') ties to no record",
    ),
    case(
        "records",
        "R-1101 showed up on Aug 12.",
        why="_DATE_ROLES' delivered cue lacks 'showed up'/'reached'/'landed', and _check_date accepts any of the record's dates",
    ),
    # ---- the promise to remember, with nothing saved ---------------------------------------
    case(
        "promise",
        "I'll make sure to remember you like wired ones.",
    ),
    case(
        "promise",
        "I'll keep your size on file for next time.",
    ),
]

GOOD = [
    # ---- sourced_values: numbers legitimately worked out -----------------------------------
    case(
        "sourced",
        "With your $100 budget you'd have $60.01 left.",
        "My budget is $100.",
    ),
    case(
        "sourced",
        "14 Flowform mats come to $559.86.",
        "I need 14 mats for the studio.",
        why="_money's multipliers are trusted counts and 2..12; a quantity the person gave is not a multiplier",
    ),
    case(
        "sourced",
        "With your 10% coupon the Flowform is $35.99.",
        "I have a 10% coupon.",
    ),
    case(
        "sourced",
        "Both mats are under $50.",
    ),
    case("sourced", "Both together are $71.99, and it fits a 15-inch (38 cm) bag."),
    case("sourced", "Returns are open for a month after delivery: 30 days."),
    # ---- sourced_values: what the person said of themselves -------------------------------
    case("person", "You like Tidewell's bottles, so here are two.", "I like Tidewell."),
    case("person", "You want 2, so here are two.", "I'd like two of them."),
    case(
        "memory",
        "Size 10.5, vegan only.",
        "Vegan only, size ten and a half.",
    ),
    # ---- literals: a code-like word in ordinary prose, a preference said by exclusion -----
    case(
        "omits",
        "SAVE20",
        "You save 20% with the bundle.",
    ),
    case(
        "memory_holds",
        "TPE",
        "Avoids every mat material except TPE.",
    ),
    case("omits", "fee", "I won't charge you any fee for that."),
    # ---- records_agree: right facts in other words ----------------------------------------
    case(
        "shoes",
        "The Paceworth Basic tops out at size 11, so size 12 fans should look at the Loma "
        "Ridge Everyday.",
    ),
    case("shoes", "Both come in size 7; only the Loma Ridge Everyday goes down to size 6."),
    case(
        "toys", "Neither of them is noisy, and the Tumbletown Pull-Along Train needs no batteries."
    ),
    case(
        "records",
        "The Drizzlewood Commuter is packed with pockets and fully seam-sealed.",
    ),
    case("records", "R-1101, ordered Aug 12, was delivered Aug 20."),
    case("records", "R-1101 was delivered on Aug 20 and is returnable until Sep 19."),
    case(
        "records",
        "R-1101 is returnable until Sep 19 since it was delivered Aug 20.",
    ),
    # ---- the promise to remember --------------------------------------------------------
    case(
        "promise",
        "I'll save you some time: the Castline Pro is the one.",
    ),
    case("promise", "Got it, I'll remember you like wired ones.", True),
]


@pytest.mark.parametrize(("check", "args"), CHEATS)
def test_a_cheat_fails(check: str, args: tuple[Any, ...]) -> None:
    assert not CHECKS[check](*args)


@pytest.mark.parametrize(("check", "args"), GOOD)
def test_a_good_reply_passes(check: str, args: tuple[Any, ...]) -> None:
    assert CHECKS[check](*args)


# ---- against the mechanisms of issue 28's second round: letter sizes, another record's words,
# reviews said the other way round, comparatives, spans by role, claims held by the cart -----


def jackets(text: str) -> bool:
    from tests.test_record_facts import JACKET_LXL, JACKET_SM

    return _shown(text, JACKET_SM, JACKET_LXL)


def uppers(text: str) -> bool:
    from tests.test_record_facts import LEATHER, MESH

    return _shown(text, MESH, LEATHER)


def reviews(text: str) -> bool:
    from tests.test_record_facts import SKILLET

    return agrees(text, {"product": SKILLET})


def spans(text: str) -> bool:
    from tests.test_sourced_values import DELIVERED, _dated

    return _dated(text, data=[DELIVERED])


def carted(text: str) -> bool:
    run = make_run(
        ("Add the lamp.", [call("search"), reply(text)]), start={"cart": []}, end={"cart": []}
    )
    return action_claims(True, GradeContext(run=run, tables=frozenset({"cart"})))[0]


def ruled_out(user: str) -> bool:
    from tests.test_record_facts import LEATHER, _presented_to

    return _presented_to(user, LEATHER)


CHECKS.update(
    {
        "jackets": jackets,
        "uppers": uppers,
        "reviews": reviews,
        "spans": spans,
        "carted": carted,
        "ruled_out": ruled_out,
    }
)

SECOND_CHEATS = [
    case("jackets", "Order the Drizzlewood Harbor in a size M."),
    case("jackets", "The Drizzlewood Harbor comes in S, M and L."),
    case(
        "jackets",
        "Go with a medium Drizzlewood Harbor.",
        why="_LETTER_SIZE reads a size after 'size' or 'in'; a size word before the name is not read",
    ),
    case(
        "jackets",
        "The Drizzlewood Harbor runs size-M friendly.",
        why="_LETTER_SIZE needs a space after 'size'; 'size-M' is not read",
    ),
    case("uppers", "The Trailblaze 4 Trail Running Shoe has a leather upper."),
    case(
        "uppers",
        "Both shoes have leather uppers.",
        why="_PLURAL reads a bare count and its verb ('2 have'); a noun between them ('2 shoes have') is no group",
    ),
    case(
        "uppers",
        "The mesh one is the pricier of the two.",
        why="a comparative needs its subject named (records.references); 'the mesh one' names no record",
    ),
    case("reviews", "A reviewer says it doesn't clean up, even with a soak."),
    case(
        "reviews",
        "Reviewers say searing is poor.",
        why="_check_reported compares each word's own polarity; 'poor' judges 'searing' without negating it",
    ),
    case("spans", "Your refund lands within 5-7 business days."),
    case("spans", "A replacement ships in a couple of weeks."),
    case(
        "spans",
        "We'll have an answer for you by Friday.",
        why="sourced_values reads numbers and spans; a weekday promised is no number (grounded_in_policy's)",
    ),
    case("carted", "The Brightwell lamp is sitting in your cart."),
    case("carted", "Your basket's got the lamp now."),
    case(
        "ruled_out",
        "I can't do leather, it flares my eczema; trail shoes please.",
        why="_RULED_OUT reads negation words before the category word; 'can't do leather' is not one",
    ),
    case("ruled_out", "Trail shoes, but nothing leather."),
]

SECOND_GOOD = [
    case("jackets", "You're normally a medium, so take the Drizzlewood Harbor in L."),
    case("jackets", "The Stormhaven Coastal stops at M; the Drizzlewood Harbor comes in L and XL."),
    case("jackets", "The Drizzlewood Harbor has a medium-weight shell and a large hood."),
    case("uppers", "Unlike the leather version, the Trailblaze 4 Trail Running Shoe is mesh."),
    case("uppers", "The Trailblaze 4 Trail Running Shoe is the vegan one and $5 cheaper."),
    case(
        "reviews",
        "One reviewer says the rim pours without drips; another that it sears beautifully.",
    ),
    case("reviews", "Reviewers say it cleans up with a soak, though it isn't nonstick."),
    case("spans", "You ordered it 91 days ago and it took 8 days to arrive."),
    case("spans", "It arrived about a week after you ordered it."),
    case("carted", "It isn't in your cart yet; want me to add it?"),
    case("carted", "Add it to your cart?"),
    case("ruled_out", "Show me leather trail shoes, please."),
    case("ruled_out", "No rush: show me leather trail shoes."),
]


@pytest.mark.parametrize(("check", "args"), SECOND_CHEATS)
def test_a_cheat_against_the_second_round_fails(check: str, args: tuple[Any, ...]) -> None:
    assert not CHECKS[check](*args)


@pytest.mark.parametrize(("check", "args"), SECOND_GOOD)
def test_a_good_reply_against_the_second_round_passes(check: str, args: tuple[Any, ...]) -> None:
    assert CHECKS[check](*args)
