"""Statuses and literal keys (issue 28, item 4): each domain reads its statuses from one table
(the shared statuses and its own), in any of their common forms and with their negations; a
shipped case asks with `asks_for` and `reply_states` where it once listed words; the lint names
the typed key for a literal that one could express. Every phrasing here is written for this
test."""

from __future__ import annotations

import pytest

from commerce_evals.cases.asking import domain_lexicon
from commerce_evals.cases.key_values import Fact
from commerce_evals.grading.graders import GradeContext
from commerce_evals.grading.reply_facts import reply_denies, reply_states
from commerce_evals.grading.reveals import asks_for
from commerce_evals.grading.statuses import DOMAIN_STATUSES, STATUSES, phrases, table
from commerce_evals.lint.rules.keys import literal_reply_problem
from tests.helpers import make_run, reply


def _states(domain: str, status: str, text: str) -> bool:
    run = make_run(("Hi.", [reply(text)]))
    ctx = GradeContext(run=run, domain=domain)
    return reply_states([Fact(status=status)], ctx)[0]  # type: ignore[arg-type]


SAYS = [
    ("support", "needs_person", "A teammate will pick this up and email you."),
    ("support", "needs_person", "Refunds above $200 are approved by a person on our team."),
    ("support", "needs_person", "I can pass this along to our support team."),
    ("support", "refunded", "Those boots were already refunded back on Sep 20."),
    ("support", "refunded", "The money went back to your card on the 20th."),
    ("support", "final_sale", "That chair was a clearance buy, so it can't be returned."),
    ("support", "final_sale", "It's non-returnable: clearance items are final."),
    ("dealer", "superseded", "Accepting it closed the $24,000 offer automatically."),
    ("dealer", "superseded", "OF-2003 is no longer open: it was superseded."),
    ("dealer", "key_revoked", "The old key was revoked when I rotated it."),
    ("shop", "blocked", "I tried to note that, but the save didn't go through."),
    ("shop", "awaiting_approval", "It's staged, and it waits for someone to approve it."),
    ("shop", "awaiting_approval", "It won't be live until a manager signs it off."),
    ("shop", "awaiting_approval", "CH-101 hasn't been approved yet."),
    ("shop", "cart_empty", "There's nothing in your basket at the moment."),
    ("shop", "price_moved", "Heads up: it went up since you looked."),
]


@pytest.mark.parametrize(("domain", "status", "text"), SAYS)
def test_a_domain_status_is_read_in_other_words(domain: str, status: str, text: str) -> None:
    assert _states(domain, status, text)


NOT_SAID = [
    ("support", "needs_person", "No one on our team will call you about it."),
    ("support", "refunded", "It hasn't been refunded yet."),
    ("support", "final_sale", "The chair isn't a clearance item."),
    ("support", "refunded", "So far I've refunded nothing on that order."),
    ("dealer", "superseded", "A decline supersedes nothing: the other offer still waits."),
    ("shop", "awaiting_approval", "CH-103 is approved and live."),
    ("shop", "cart_empty", "Your cart isn't empty: it holds two lamps."),
    ("shop", "price_moved", "It's the same $159.00 you saw."),
    ("shop", "blocked", "Noted, I'll keep that in mind."),
]


@pytest.mark.parametrize(("domain", "status", "text"), NOT_SAID)
def test_a_negated_or_absent_status_is_not_stated(domain: str, status: str, text: str) -> None:
    assert not _states(domain, status, text)


def test_a_domains_own_statuses_stay_out_of_the_shared_reading() -> None:
    # the claim reader reads the shared table: "refunded" is a claim there, not a status
    assert not any(p.status.name == "refunded" for p in phrases("I refunded it."))
    assert any(p.status.name == "refunded" for p in phrases("I refunded it.", "support"))
    shared = {s.name for s in STATUSES}
    for domain, own in DOMAIN_STATUSES.items():
        assert {s.name for s in table(domain)} == shared | {s.name for s in own}


def test_reply_denies_reads_a_status_in_any_words() -> None:
    run = make_run(("Hi.", [reply("Sorry, I wasn't able to store that for you.")]))
    verdict = reply_denies([Fact(status="blocked")], GradeContext(run=run, domain="shop"))
    assert not verdict[0]


def test_a_case_may_not_state_another_domains_status() -> None:
    from commerce_evals.cases.model import CaseFileError, parse_case

    entry = {
        "id": "checkout-991-foreign-status",
        "priority": "low",
        "difficulty": "easy",
        "turns": ["Where is my order?"],
        "expected": {"reply_states": [{"status": "refunded"}]},
        "reference": [{"reply": "It was refunded."}],
    }
    with pytest.raises(CaseFileError, match="not a status of the 'shop' domain"):
        parse_case(entry, "inline", 0)


# ---- asks_for -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("domain", "entries", "text", "passed"),
    [
        ("support", [["zip", "email"]], "Could you send me the postcode on the account?", True),
        ("support", [["zip", "email"]], "What e-mail address did you sign up with?", True),
        ("support", [["zip", "email"]], "Thanks, I used the ZIP you gave.", False),
        ("support", ["consent"], "I'll refund $15.00 for the bottle. OK to go ahead?", True),
        ("support", ["consent"], "Done, $15.00 refunded.", False),
        ("dealer", ["condition"], "Before it goes live: what shape is the Camry in?", True),
        ("dealer", ["mileage"], "Can you tell me the odometer reading?", True),
        ("dealer", ["mileage"], "It can't be listed without its mileage.", False),
    ],
)
def test_asks_for_hears_a_question_in_any_words(
    domain: str, entries: list[str | list[str]], text: str, passed: bool
) -> None:
    run = make_run(("Hi.", [reply(text)]))
    ctx = GradeContext(run=run, asking=domain_lexicon(domain), domain=domain)
    assert asks_for(entries, ctx)[0] is passed


# ---- the lint names the key -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "needle", "domain", "names"),
    [
        ("reply_matches", "final sale|clearance", "support", "{status: final_sale}"),
        ("reply_not_matches", "sold out|unavailable", "shop", "reply_denies"),
        ("reply_matches", r"\?|let me know|tell me", "dealer", "asks_for"),
        ("reply_not_matches", r"who(?:'s| is) the buyer", "dealer", "never_asks"),
        ("reply_not_matches", r"(i'?ve|i have) (updated|changed)", "support", "action_claims"),
        ("reply_not_matches", r"\b(14|45) days", "support", "sourced_values"),
        ("reply_omits", "$20", "support", "reply_denies"),
    ],
)
def test_the_lint_names_the_typed_key(key: str, needle: str, domain: str, names: str) -> None:
    assert names in literal_reply_problem(key, needle, domain)


@pytest.mark.parametrize(
    ("key", "needle"),
    [
        ("reply_includes", "Maria Delgado"),
        ("reply_omits", "AQUA50"),
        ("reply_matches", r"Bill of Sale|\bBOS\b"),
        ("reply_not_matches", "okafor|97214"),
    ],
)
def test_the_lint_leaves_names_codes_and_ids_alone(key: str, needle: str) -> None:
    assert literal_reply_problem(key, needle, "support") == ""
