"""Literal keys read polarity where a case forbids a word, and codes however they are spaced."""

from __future__ import annotations

import pytest

from commerce_evals.grading.graders import (
    DomainBrief,
    GradeContext,
    KeyTables,
    memory_contains,
    reply_includes,
    reply_not_matches,
    reply_omits,
)
from tests.helpers import make_run, reply


def _ctx(text: str, memory: list[str] | None = None) -> GradeContext:
    end = {"memory": [{"text": m} for m in memory or []]}
    brief = DomainBrief(tables=KeyTables(memory="memory"))
    return GradeContext(run=make_run(("hi", [reply(text)]), end=end), brief=brief)


@pytest.mark.parametrize(
    "text",
    ["I won't guess at any fee or timeline.", "There's no fee I can find in the policy."],
)
def test_a_forbidden_word_said_under_a_negation_is_not_said(text: str) -> None:
    assert reply_not_matches([r"\bfee\b"], _ctx(text))[0]
    assert reply_omits(["fee"], _ctx(text))[0]


def test_a_forbidden_word_said_as_so_still_fails() -> None:
    assert not reply_not_matches([r"\bfee\b"], _ctx("Splitting it has a fee."))[0]
    # a negation in another clause does not reach it
    assert not reply_omits(["fee"], _ctx("It isn't free, because there's a fee."))[0]


@pytest.mark.parametrize("written", ["PACK FREE 100", "pack-free-100", "P-A-C-K FREE 1 0 0"])
def test_a_code_counts_however_it_is_spaced(written: str) -> None:
    assert not reply_omits(["PACKFREE100"], _ctx(f"Use {written} at checkout."))[0]
    # and a code the case wants is found the same way
    assert reply_includes(["PACKFREE100"], _ctx(f"The code is {written}."))[0]


def test_a_wanted_topic_named_under_a_negation_still_counts() -> None:
    assert reply_includes(["price match"], _ctx("We don't price match."))[0]


@pytest.mark.parametrize(
    "saved", ["prefers natural rubber over TPE", "avoid TPE mats", "no TPE, ever"]
)
def test_a_memory_that_sets_the_word_against_another_does_not_hold_it(saved: str) -> None:
    assert not memory_contains(["TPE"], _ctx("Noted.", [saved]))[0]


@pytest.mark.parametrize("saved", ["Prefers TPE mats.", "TPE over natural rubber", "likes TPE"])
def test_a_memory_that_says_the_word_as_so_holds_it(saved: str) -> None:
    assert memory_contains(["TPE"], _ctx("Noted.", [saved]))[0]
