"""Questions the asking reader still mis-hears, found by probing it as a cheat would (issue 28,
item 3). Each is a strict xfail naming the mechanism, so a fix shows up as an unexpected pass.
Every phrasing here is written for this test."""

from __future__ import annotations

import pytest

from commerce_evals.cases.asking import domain_lexicon
from commerce_evals.cases.customer import Customer

SHOPPER = Customer.model_validate(
    {
        "persona": {"tone": "brief"},
        "goal": "Trail shoes.",
        "reveals": [
            {"name": "size", "say": "I'm a 9.", "topics": ["size"]},
            {"name": "colour", "say": "Navy, please.", "topics": ["colour"]},
            {"name": "budget", "say": "Up to $80.", "topics": ["budget"]},
        ],
    }
).bind(domain_lexicon("shop"))
KNOWN = {"size", "colour", "budget"}


@pytest.mark.xfail(
    strict=True,
    reason="a topic after 'on the' is read as context (as in 'ship it to the address'), even "
    "when the sentence asks about nothing else",
)
def test_a_question_whose_topic_follows_a_preposition() -> None:
    assert [r.name for r in SHOPPER.asked("Refresh my memory on the budget?", KNOWN)] == ["budget"]


@pytest.mark.xfail(
    strict=True,
    reason="an amount said without a unit ('around eighty') is no money value, and a bare "
    "number is taken for a size by its magnitude alone",
)
def test_a_bound_said_without_a_currency() -> None:
    asked = [r.name for r in SHOPPER.asked("I'll keep it around eighty, sound right?", KNOWN)]
    assert asked == ["budget"]


@pytest.mark.xfail(
    strict=True,
    reason="a guess to confirm is heard only when the rest of its clause is words of asking; "
    "'set on', 'let me know if ... is still right' are outside them",
)
@pytest.mark.parametrize(
    "text", ["Is it the navy you're set on?", "Let me know if 9 is still right."]
)
def test_a_guess_in_words_outside_the_asking_vocabulary(text: str) -> None:
    assert SHOPPER.asked(text, KNOWN)
