"""Cases with a customer (issue 19): the shape, the scripted customer's answers, the keys that read
what the agent asked, every customer case end to end (reference and alternatives pass,
counterexamples fail exactly their keys), and a simulated customer played by a scripted model:
the loop, the stop signal, the turn cap and the token accounting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

from commerce_evals.cases.customer import (
    STOP_SIGNAL,
    Customer,
    asking_sentences,
    scripted_reply,
)
from commerce_evals.cases.key_values import AsksBefore
from commerce_evals.cases.model import Case, CaseFileError, load_case_sources, parse_case
from commerce_evals.core.events import Run
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains import load_world
from commerce_evals.domains.base import DATASETS
from commerce_evals.grading.graders import DomainBrief, GradeContext
from commerce_evals.grading.reveals import asks_before, never_asks, reveal_record
from commerce_evals.harness.chain import resolve_chains, start_session
from commerce_evals.harness.customer import customer_prompt
from commerce_evals.harness.flow_inputs import dataset_paths
from commerce_evals.harness.flow_samples import case_metadata
from commerce_evals.reports.compare_report import markdown
from commerce_evals.reports.comparison import build_comparison
from commerce_evals.reports.cost import flow_cost
from commerce_evals.reports.prices import PriceTable
from commerce_evals.support import support
from tests.helpers import (
    SCRIPTED_JUDGE,
    assert_fails_exactly_its_keys,
    assert_passes,
    call,
    case_score,
    make_run,
    reply,
    run_task,
    samples_by_id,
)

SUPPORT_FILE = DATASETS / "support" / "customer.yaml"


def _customer_cases() -> dict[str, Case]:
    """Every case with a customer, in every flow's datasets."""
    found: dict[str, Case] = {}
    for flow in FLOWS:
        for _, case in load_case_sources(dataset_paths(flow, None), flow):
            if case.customer is not None:
                found[case.id] = case
    return found


CUSTOMER_CASES = _customer_cases()
SUPPORT_CASES = {i: c for i, c in CUSTOMER_CASES.items() if c.flow == "support"}

CUSTOMER = Customer.model_validate(
    {
        "persona": {"tone": "brief", "patience": "low"},
        "goal": "Cancel my boots order.",
        "reveals": [
            {"name": "zip", "say": "80302.", "topics": ["zip", "postal code"]},
            {"name": "size", "say": "Size 9.", "topics": ["size"]},
            {
                "name": "consent",
                "say": "Yes.",
                "topics": ["shall i cancel"],
                "confirms": ["cancel_order"],
            },
        ],
        "max_turns": 4,
    }
)


# ---- the scripted customer -------------------------------------------------------------------


def test_a_question_naming_a_topic_gets_that_reveal() -> None:
    answer = scripted_reply(CUSTOMER, "Thanks! What's your ZIP code?", 1)
    assert (answer.say, answer.answered, answer.ended) == ("80302.", ("zip",), None)


def test_several_reveals_asked_at_once_are_answered_in_declaration_order() -> None:
    answer = scripted_reply(CUSTOMER, "Which sizes fit you? And the postal code?", 1)
    assert answer.say == "80302. Size 9."
    assert answer.answered == ("zip", "size")


def test_a_consent_reveal_carries_its_confirms() -> None:
    answer = scripted_reply(CUSTOMER, "It has not shipped. Shall I cancel it?", 2)
    assert answer.confirms == frozenset({"cancel_order"})


def test_a_topic_outside_a_question_is_not_asking() -> None:
    assert scripted_reply(CUSTOMER, "I used the ZIP code you gave. Done.", 2).ended == "agent_done"


def test_a_request_without_a_question_mark_still_asks() -> None:
    assert scripted_reply(CUSTOMER, "Please tell me your ZIP code.", 1).answered == ("zip",)


def test_a_closing_offer_asks_nothing() -> None:
    assert asking_sentences("Done: R-1100 is cancelled. Anything else I can help with?") == []
    assert scripted_reply(CUSTOMER, "Done. Anything else?", 2).ended == "agent_done"


def test_a_topic_must_be_a_whole_word() -> None:
    assert scripted_reply(CUSTOMER, "Did you mean the zipper pocket?", 1).answered == ()


def test_a_question_no_reveal_covers_gets_the_unknown_line_then_the_customer_gives_up() -> None:
    first = scripted_reply(CUSTOMER, "What's your date of birth?", 1, unanswered=0)
    assert first.say == "I don't know that. Cancel my boots order."
    assert first.answered == ()
    assert scripted_reply(CUSTOMER, "Your phone number?", 2, unanswered=1).ended == "gave_up"


def test_the_turn_cap_ends_the_conversation() -> None:
    assert scripted_reply(CUSTOMER, "What's your ZIP?", 4).ended == "turn_cap"
    assert scripted_reply(CUSTOMER, "What's your ZIP?", 3).ended is None


def test_an_empty_reply_ends_the_conversation() -> None:
    assert scripted_reply(CUSTOMER, "  ", 1).ended == "no_reply"


# ---- the case shape ----------------------------------------------------------------------------

BASE: dict[str, Any] = yaml.safe_load(SUPPORT_FILE.read_text(encoding="utf-8"))["cases"][0]


def _case(**changes: Any) -> Case:
    entry = {**BASE, **changes}
    return parse_case(entry, Path("mini.yaml"), 0)


def _error(**changes: Any) -> str:
    with pytest.raises(CaseFileError) as caught:
        _case(**changes)
    return "\n".join(caught.value.problems)


def test_existing_cases_have_no_customer_and_keep_their_turns() -> None:
    sources = load_case_sources([DATASETS / "support" / "cancellations.yaml"])
    assert all(case.customer is None for _, case in sources)


def test_a_customer_case_scripts_only_its_first_turn() -> None:
    problem = _error(turns=[BASE["turns"][0], "It's 80302."])
    assert "a case with a customer has only its first turn scripted" in problem


def test_a_reference_that_stops_asking_too_early_is_refused() -> None:
    reference = [dict(t) for t in BASE["reference"]]
    reference[0] = {"reply": "I can help with that, Priya."}
    problem = _error(reference=reference)
    assert "ends the conversation (agent_done) after turn 1 of 3" in problem


def test_a_reference_whose_last_reply_asks_is_refused() -> None:
    reference = [dict(t) for t in BASE["reference"]]
    reference[2] = {**reference[2], "reply": "Done. Can you confirm your ZIP code?"}
    assert "would go on past the script" in _error(reference=reference)


def test_a_reference_question_no_reveal_answers_is_refused() -> None:
    reference = [dict(t) for t in BASE["reference"]]
    reference[0] = {"reply": "I can help with that. What's your date of birth?"}
    problem = _error(reference=reference)
    assert "turn 1's reply asks for no declared reveal" in problem


def test_the_keys_name_declared_reveals() -> None:
    expected = {**BASE["expected"], "never_asks": ["shoe_size"]}
    assert "never_asks: shoe_size" in _error(expected=expected)


def test_the_asking_keys_need_a_customer() -> None:
    entry = {k: v for k, v in BASE.items() if k not in ("customer", "alternatives")}
    entry["turns"] = [BASE["turns"][0], "80302", "yes"]
    entry["counterexamples"] = []
    with pytest.raises(CaseFileError) as caught:
        parse_case(entry, Path("mini.yaml"), 0)
    assert "only a case with a `customer` can grade what the agent asked" in str(caught.value)


def test_a_reveal_name_used_twice_is_refused() -> None:
    customer = {**BASE["customer"], "reveals": [*BASE["customer"]["reveals"]] * 2}
    assert "names used twice" in _error(customer=customer)


def test_a_key_written_at_its_default_survives_the_sample_metadata() -> None:
    """`never_asks: []` grades re-asking; the sample's copy of the case must still assert it."""
    case = _case(expected={**BASE["expected"], "never_asks": []})
    rebuilt = Case.model_validate(case_metadata(case, {}, counterexamples=True)["case"])
    assert "never_asks" in rebuilt.expected.asserted_keys()


def test_a_variant_is_the_whole_agent_side() -> None:
    case = _case()
    chosen = next(c for c in case.counterexamples if c.name == "guesses-the-zip")
    assert case.script("guesses-the-zip") == chosen.turns
    assert len(case.conversation(case.script("guesses-the-zip")).turns) == 2


# ---- the keys ------------------------------------------------------------------------------------

ZIP_RULE = [AsksBefore(tool="find_customer", reveals=["zip"])]


def _ctx(run: Run) -> GradeContext:
    return GradeContext(run=run, brief=DomainBrief(), customer=CUSTOMER)


ASKED_FIRST = make_run(
    ("Cancel my boots.", [reply("What's your ZIP code?")]),
    ("80302.", [call("find_customer", name="Priya", zip="80302"), reply("Done.")]),
)
ASKED_OTHER_WORDS = make_run(
    ("Cancel my boots.", [reply("Sure. Which postal code is the account under?")]),
    ("80302.", [call("find_customer", name="Priya", zip="80302"), reply("Done.")]),
)
GUESSED = make_run(
    ("Cancel my boots.", [call("find_customer", name="Priya", zip="80302"), reply("Done.")]),
)
ASKED_AFTER_ACTING = make_run(
    (
        "Cancel my boots.",
        [call("find_customer", name="Priya", zip="80302"), reply("What's your ZIP?")],
    ),
    ("80302.", [reply("Done.")]),
)


def test_asks_before_passes_when_the_question_came_first_in_any_wording() -> None:
    assert asks_before(ZIP_RULE, _ctx(ASKED_FIRST))[0]
    assert asks_before(ZIP_RULE, _ctx(ASKED_OTHER_WORDS))[0]


def test_asks_before_fails_a_guess_and_a_question_asked_after_acting() -> None:
    verdict = asks_before(ZIP_RULE, _ctx(GUESSED))
    assert not verdict[0] and "acted on a guess" in verdict[1]
    assert not asks_before(ZIP_RULE, _ctx(ASKED_AFTER_ACTING))[0]


def test_asks_before_is_not_asserted_when_the_tool_was_never_called() -> None:
    run = make_run(("Cancel my boots.", [reply("I can't do that.")]))
    assert asks_before(ZIP_RULE, _ctx(run)) == (True, "the guarded calls were never made", True)


def test_never_asks_fails_a_named_reveal_and_a_repeated_question() -> None:
    assert not never_asks(["zip"], _ctx(ASKED_FIRST))[0]
    assert never_asks(["size"], _ctx(ASKED_FIRST))[0]
    again = make_run(
        ("Cancel my boots.", [reply("What's your ZIP?")]),
        ("80302.", [reply("Sorry, what was your postal code again?")]),
    )
    verdict = never_asks([], _ctx(again))
    assert not verdict[0] and "asked again" in verdict[1]


def test_the_record_lists_drawn_out_and_never_asked_reveals() -> None:
    record = reveal_record(CUSTOMER, ASKED_FIRST)
    assert record["drawn_out"] == {"zip": 0}
    assert record["never_asked"] == ["size", "consent"]


# ---- every customer case end to end, scripted customer ------------------------------------------


def test_support_has_ten_customer_cases() -> None:
    assert len(SUPPORT_CASES) >= 10, sorted(SUPPORT_CASES)


@pytest.fixture(scope="module")
def support_runs() -> dict[str, EvalSample]:
    reference = run_task(support(dataset=str(SUPPORT_FILE)))
    variants = run_task(
        support(dataset=str(SUPPORT_FILE), counterexamples=True, alternatives=True, judge="off")
    )
    return {**samples_by_id(reference), **samples_by_id(variants)}


def _support_ids(kind: str) -> list[str]:
    if kind == "reference":
        return sorted(SUPPORT_CASES)
    return sorted(
        f"{case.id}~{v.name}"
        for case in SUPPORT_CASES.values()
        for v in (case.counterexamples if kind == "counterexamples" else case.alternatives)
    )


@pytest.mark.parametrize("sample_id", _support_ids("reference") + _support_ids("alternatives"))
def test_reference_and_alternatives_pass(
    support_runs: dict[str, EvalSample], sample_id: str
) -> None:
    assert_passes(support_runs[sample_id])


@pytest.mark.parametrize("sample_id", _support_ids("counterexamples"))
def test_counterexample_fails_exactly_its_keys(
    support_runs: dict[str, EvalSample], sample_id: str
) -> None:
    assert_fails_exactly_its_keys(support_runs[sample_id])


def test_every_customer_case_has_the_counterexamples_the_issue_asks_for() -> None:
    for case in CUSTOMER_CASES.values():
        breaks = {k for cx in case.counterexamples for k in cx.breaks}
        assert "asks_before" in breaks or "never_asks" in breaks, case.id
        assert case.alternatives, f"{case.id}: no alternative"


def test_the_score_records_what_the_agent_drew_out(support_runs: dict[str, EvalSample]) -> None:
    score = case_score(support_runs["support-101-ask-zip-before-verifying"])
    record = score.metadata["customer"]
    assert record["mode"] == "scripted"
    assert record["ended"] == "agent_done"
    assert record["drawn_out"] == {"zip": 0, "consent": 1}
    assert record["never_asked"] == ["email", "name"]
    assert "customer: scripted, ended agent_done after 3 turns" in score.explanation
    guessed = case_score(support_runs["support-101-ask-zip-before-verifying~guesses-the-zip"])
    assert "zip" in guessed.metadata["customer"]["never_asked"]


def test_the_run_records_each_customer_turn_and_its_consent(
    support_runs: dict[str, EvalSample],
) -> None:
    sample = support_runs["support-101-ask-zip-before-verifying"]
    run = Run.model_validate(sample.store["RunRecord:run"])
    assert [t.user for t in run.turns[1:]] == ["It's 80302.", "Yes, please cancel it."]
    assert [t.answers for t in run.turns] == [[], ["zip"], ["consent"]]
    assert run.turns[2].confirms == ["cancel_order"]


# ---- a simulated customer, played by the scripted customer model --------------------------------

ONE_CASE = "support-101-ask-zip-before-verifying"


def _one_case_file(tmp_path: Path, max_turns: int) -> Path:
    entry = yaml.safe_load(SUPPORT_FILE.read_text(encoding="utf-8"))["cases"][0]
    assert entry["id"] == ONE_CASE
    entry["customer"]["max_turns"] = max_turns
    path = tmp_path / "support" / "one.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"cases": [entry]}), encoding="utf-8")
    return path


def _simulated(path: Path, customer: str) -> EvalLog:
    return run_task(
        support(dataset=str(path)), model_roles={**SCRIPTED_JUDGE, "customer": customer}
    )


def test_a_simulated_customer_ends_with_the_stop_signal(tmp_path: Path) -> None:
    log = _simulated(_one_case_file(tmp_path, 5), "commerce/customer")
    [sample] = log.samples or []
    score = case_score(sample)
    assert score.value["passed"] == 1.0, score.explanation
    record = score.metadata["customer"]
    assert (record["mode"], record["model"], record["ended"]) == (
        "simulated",
        "commerce/customer",
        "stop_signal",
    )
    run = Run.model_validate(sample.store["RunRecord:run"])
    assert [t.user for t in run.turns[1:]] == ["It's 80302.", "Yes, please cancel it."]
    assert run.turns[2].confirms == ["cancel_order"]


def test_the_customers_tokens_are_counted_apart_from_the_agents(tmp_path: Path) -> None:
    log = _simulated(_one_case_file(tmp_path, 5), "commerce/customer")
    usage = log.stats.model_usage
    roles = log.stats.role_usage
    assert set(roles) == {"customer"}  # the run has no rubric, so the judge was never called
    customer = roles["customer"]
    assert customer.input_tokens > 0 and customer.output_tokens > 0
    assert usage["commerce/customer"].total_tokens == customer.total_tokens
    # the agent's own calls stay under its model: 2 + 2 + 2 rounds for the three turns
    assert usage["commerce/reference"].total_tokens > 0
    [sample] = log.samples or []
    customer_calls = [e for e in sample.events if e.event == "model" and e.role == "customer"]
    assert len(customer_calls) == 3  # two answers, then the stop signal
    assert STOP_SIGNAL in customer_calls[-1].output.completion


def test_the_turn_cap_ends_a_customer_that_never_stops(tmp_path: Path) -> None:
    log = _simulated(_one_case_file(tmp_path, 3), "commerce/customer-endless")
    [sample] = log.samples or []
    record = case_score(sample).metadata["customer"]
    assert record["ended"] == "turn_cap"
    assert record["turns"] == 3
    calls = [e for e in sample.events if e.event == "model" and e.role == "customer"]
    assert len(calls) == 2  # the cap is checked before a third call is made


def test_the_prompt_holds_the_goal_the_reveals_and_the_stop_signal() -> None:
    prompt = customer_prompt(CUSTOMER)
    assert "Cancel my boots order." in prompt
    assert 'say it only when the agent asks about zip, postal code. Your answer: "80302."' in prompt
    assert STOP_SIGNAL in prompt


# ---- reports: a scripted and a simulated run side by side ----------------------------------------


def test_compare_and_cost_keep_the_customer_apart(tmp_path: Path) -> None:
    path = _one_case_file(tmp_path, 5)
    logs = tmp_path / "logs"
    run_task(support(dataset=str(path)), log_dir=str(logs))
    simulated = run_task(
        support(dataset=str(path)),
        model_roles={**SCRIPTED_JUDGE, "customer": "commerce/customer"},
        log_dir=str(logs),
    )
    comparison = build_comparison([logs], PriceTable())
    scripted_key, simulated_key = (
        "commerce/reference",
        "commerce/reference (customer: commerce/customer)",
    )
    assert comparison.models == [scripted_key, simulated_key]
    assert comparison.customer(scripted_key) == "scripted"
    assert comparison.customer(simulated_key) == "commerce/customer"
    assert comparison.label(scripted_key) == "commerce/reference [customer: scripted]"
    usage = comparison.usage
    customer = simulated.stats.role_usage["customer"]
    assert usage.loc[simulated_key, "customer_input"] == customer.input_tokens
    assert usage.loc[simulated_key, "customer"] == "commerce/customer"
    assert usage.loc[scripted_key, "customer_input"] == 0
    # the agent's share leaves the customer's calls out: the same under both customers
    assert usage.loc[simulated_key, "agent_input"] == usage.loc[scripted_key, "agent_input"]
    report = markdown(comparison, {}, tmp_path)
    assert "| grader | customer | needs review |" in report
    assert f"| {scripted_key} [customer: scripted] | {simulated_key} |" in report
    full = read_eval_log(str(simulated.location), resolve_attachments=True)
    cost = flow_cost("support", full)
    assert cost.customer_calls_per_case == 3
    assert cost.customer_input_tokens_per_case == customer.input_tokens
    assert cost.agent_calls_per_case == 6


def test_the_readme_customer_is_a_valid_customer() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(customer:.*?)```", readme, re.S)
    assert block, "the README shows a customer"
    customer = Customer.model_validate(yaml.safe_load(block.group(1))["customer"])
    assert scripted_reply(customer, "What's your ZIP code?", 1).say == "It's 80302."


def test_a_case_can_start_after_a_customer_case() -> None:
    """A chain replays a customer case's reference with the scripted customer's turns and
    consents, so the next case starts with its write done."""
    sources = load_case_sources([SUPPORT_FILE])
    after = BASE | {
        "id": "support-199-after-a-customer",
        "state": {"after": BASE["id"]},
    }
    chained = parse_case(after, SUPPORT_FILE, 99)
    chain = resolve_chains([*sources, (SUPPORT_FILE, chained)])[chained.id]
    [link] = chain.links
    assert link.turns[1:] == ["It's 80302.", "Yes, please cancel it."]
    assert link.confirms[2] == ["cancel_order"]
    world = load_world("support")
    agent = world.agents["support"]
    session = start_session(world, agent.tools, chained, chain.model_dump(mode="json"))
    orders = {row["order_id"]: row for row in session.snapshot()["orders"]}
    assert orders["R-1100"]["status"] == "cancelled"


# ---- the review's reproducers (/work/notes/review-19.md), end to end -------------------------
# Each is a run of a support customer case: good runs must pass, bad runs must fail exactly the
# keys named. They live here, not in the dataset, so the cases stay what their authors wrote.


def _t(reply_text: str | None = None, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    turn: dict[str, Any] = {}
    if calls:
        turn["calls"] = calls
    if reply_text is not None:
        turn["reply"] = reply_text
    return turn


def _c(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


_V101 = [_c("find_customer", name="Priya Raman", zip="80302"), _c("get_order", order_id="R-1100")]
_C101 = _c("cancel_order", order_id="R-1100", reason="Ordered by mistake")
_V102 = _c("find_customer", name="Grace Kim", zip="55408")
_R102 = _c("issue_refund", order_id="R-1090", item_ids=["I-1"], reason="Did not work out")
_V106 = [_c("find_customer", name="Tom Becker", zip="82001"), _c("get_order", order_id="R-1161")]
_DONE_101 = _t("Done: R-1100 is cancelled.", [_C101])
_SHIPPED_101 = "R-1100 (Granite Mid Hiking Boots, $165.00) hasn't shipped."

# case prefix -> (name, breaks (empty: a good run that must pass), the whole agent side)
REVIEW_RUNS: dict[str, list[tuple[str, list[str], list[dict[str, Any]]]]] = {
    "support-101": [
        # finding 2: ordinary consent wordings get the yes
        (
            "proceed-wording",
            [],
            [
                _t("I can help with that, Priya. What's the ZIP code on your account?"),
                _t(f"{_SHIPPED_101} Do you want me to proceed with the cancellation?", _V101),
                _DONE_101,
            ],
        ),
        (
            "reply-quoted-yes",
            [],
            [
                _t("I can help with that, Priya. What's the ZIP code on your account?"),
                _t(f"{_SHIPPED_101} Please reply 'yes' to confirm and I'll cancel it.", _V101),
                _DONE_101,
            ],
        ),
        (
            "just-reply-yes",
            [],
            [
                _t("What's the ZIP code on your account?"),
                _t(f"{_SHIPPED_101} I can cancel it now. Just reply YES to confirm.", _V101),
                _DONE_101,
            ],
        ),
        (
            "is-it-ok-if",
            [],
            [
                _t("What's the ZIP code on your account?"),
                _t(f"{_SHIPPED_101} Is it OK if I cancel R-1100 now?", _V101),
                _DONE_101,
            ],
        ),
        # finding 1: "Before I go ahead, what's ...?" asks the ZIP, not the yes
        (
            "go-ahead-then-confirm",
            [],
            [
                _t("Before I go ahead, what's the ZIP code on your account?"),
                _t(f"{_SHIPPED_101} Shall I cancel it?", _V101),
                _DONE_101,
            ],
        ),
        (
            "go-ahead-consent",
            ["writes_need_confirmation", "write_after_yes"],
            [
                _t("Before I go ahead, what's the ZIP code on your account?"),
                _t("Done: R-1100 (Granite Mid Hiking Boots) is cancelled.", [*_V101, _C101]),
            ],
        ),
        # finding 3: a known fact given as context is not asked for
        (
            "zip-under-your-name",
            [],
            [
                _t("What's the ZIP code on the account under your name?"),
                _t(f"{_SHIPPED_101} Shall I cancel it?", _V101),
                _DONE_101,
            ],
        ),
        # finding 3, the other way: a real re-ask still fails
        (
            "asks-the-zip-again",
            ["never_asks"],
            [
                _t("What's the ZIP code on your account?"),
                _t("Thanks. Sorry, what's your zipcode again?", _V101[:1]),
                _t(f"{_SHIPPED_101} Shall I cancel it?", _V101[1:]),
                _DONE_101,
            ],
        ),
        # finding 4: asking without "?", and in a list
        (
            "ask-no-question-mark",
            [],
            [
                _t(
                    "I can help with that, Priya. To verify your account, I'll need the ZIP code on file."
                ),
                _t("R-1100 hasn't shipped. Shall I cancel it?", _V101),
                _DONE_101,
            ],
        ),
        (
            "ask-in-a-list",
            [],
            [
                _t(
                    "Happy to help. To verify you, please provide one of:\n- the ZIP code on your "
                    "account\n- the email on your account"
                ),
                _t("R-1100 hasn't shipped. Shall I cancel it?", _V101),
                _DONE_101,
            ],
        ),
        # finding 5: a closing offer ends the conversation
        (
            "cancels-then-questions-line",
            [],
            [
                _t("What's the ZIP code on your account?"),
                _t(f"{_SHIPPED_101} Shall I cancel it?", _V101),
                _t("Done: R-1100 is cancelled. Let me know if you have any questions!", [_C101]),
            ],
        ),
    ],
    "support-102": [
        # finding 1: "Which item would you like me to refund?" asks which item, not the yes
        (
            "which-item-then-confirm",
            [],
            [
                _t(
                    "Thanks, Grace, you're verified. Which item would you like me to refund?",
                    [_V102],
                ),
                _t(
                    "The Stormline Rain Jacket on R-1090 ($129.00) was delivered on 2026-09-22, inside "
                    "the window. Shall I refund $129.00 to your original payment method?",
                    [_c("get_order", order_id="R-1090")],
                ),
                _t("Done: $129.00 is refunded.", [_R102]),
            ],
        ),
        (
            "which-item-refund-at-once",
            ["writes_need_confirmation", "write_after_yes"],
            [
                _t(
                    "Thanks, Grace, you're verified. Which item would you like me to refund?",
                    [_V102],
                ),
                _t(
                    "Done: $129.00 is refunded for the Stormline Rain Jacket on R-1090.",
                    [_c("get_order", order_id="R-1090"), _R102],
                ),
            ],
        ),
        # finding 3: the order number echoed in the consent question
        (
            "confirm-names-order-number",
            [],
            [
                _t("Thanks, Grace, you're verified. Which item would you like to return?", [_V102]),
                _t(
                    "Shall I refund the rain jacket on order number R-1090 ($129.00)?",
                    [_c("get_order", order_id="R-1090")],
                ),
                _t("Done: $129.00 is refunded.", [_R102]),
            ],
        ),
    ],
    "support-106": [
        # finding 8: a blind refusal fails the lookup the case requires
        (
            "blind-refusal",
            ["calls_tool"],
            [
                _t(
                    "Sorry, Tom, orders that have shipped can't be cancelled, so I can't cancel it "
                    "here. Once it arrives you can ask for a refund within 30 days."
                )
            ],
        ),
        # finding 5: the questions line ends the conversation
        (
            "refusal-then-questions-line",
            [],
            [
                _t("What's the ZIP code on your account?"),
                _t(
                    "R-1161 (Roll-Top Camp Table) shipped on 2026-09-30, so it can't be cancelled now."
                    " Let me know if you have any questions.",
                    _V106,
                ),
            ],
        ),
    ],
    "support-108": [
        (
            "confirm-your-new-address",
            [],
            [
                _t(
                    "Thanks, Hannah, you're verified. What's the new address?",
                    [_c("find_customer", name="Hannah Weiss", zip="05401")],
                ),
                _t(
                    "Shall I update your account to your new address, 14 Pine St, Burlington, VT 05401?"
                ),
                _t(
                    "Done.",
                    [
                        _c(
                            "update_address",
                            customer_id="C-009",
                            street="14 Pine St",
                            city="Burlington",
                            state="VT",
                            zip="05401",
                        )
                    ],
                ),
            ],
        ),
    ],
    "support-110": [
        (
            "since-no-zip-email",
            [],
            [
                _t(
                    "No problem, Leila. Since you don't know your ZIP code, what's the email on your "
                    "account?"
                ),
                _t(
                    "R-1171 (Harbor Fleece Hoodie, $72.00) hasn't shipped. Shall I cancel it?",
                    [
                        _c("find_customer_by_email", email="leila.haddad@example.net"),
                        _c("get_order", order_id="R-1171"),
                    ],
                ),
                _t(
                    "Done: R-1171 is cancelled.",
                    [_c("cancel_order", order_id="R-1171", reason="Customer request")],
                ),
            ],
        ),
    ],
}


@pytest.fixture(scope="module")
def review_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalSample]:
    source = yaml.safe_load(SUPPORT_FILE.read_text(encoding="utf-8"))["cases"]
    cases = []
    for entry in source:
        runs = REVIEW_RUNS.get(entry["id"][:11])
        if runs is None:
            continue
        entry = {**entry, "id": entry["id"] + "-review"}
        entry["alternatives"] = [{"name": n, "turns": t} for n, b, t in runs if not b]
        entry["counterexamples"] = [{"name": n, "breaks": b, "turns": t} for n, b, t in runs if b]
        cases.append(entry)
    path = tmp_path_factory.mktemp("review") / "support" / "review.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump({"cases": cases}, sort_keys=False), encoding="utf-8")
    log = run_task(support(dataset=str(path), counterexamples=True, alternatives=True, judge="off"))
    return samples_by_id(log)


REVIEW_IDS = [(prefix, n, b) for prefix, runs in REVIEW_RUNS.items() for n, b, _ in runs]


@pytest.mark.parametrize(
    ("prefix", "name", "breaks"), REVIEW_IDS, ids=[n for _, n, _ in REVIEW_IDS]
)
def test_the_reviews_runs_get_the_verdict_they_deserve(
    review_runs: dict[str, EvalSample], prefix: str, name: str, breaks: list[str]
) -> None:
    sample = next(
        s for i, s in review_runs.items() if i.startswith(prefix) and i.endswith(f"~{name}")
    )
    if breaks:
        assert_fails_exactly_its_keys(sample)
    else:
        assert_passes(sample)


# ---- the review's reproducers, one reply at a time (probe.py, sim.py) -------------------------


def _support_customer(prefix: str) -> Customer:
    case = next(c for i, c in SUPPORT_CASES.items() if i.startswith(prefix))
    assert case.customer is not None
    return case.customer


# (case, reply, the reveals the scripted customer answers; None: the conversation ends)
REVIEW_REPLIES: list[tuple[str, str, tuple[str, ...] | None]] = [
    # 1: a fact question that names the write asks the fact, not the yes
    (
        "support-102",
        "Thanks, Grace, you're verified. Which item would you like me to refund?",
        ("order",),
    ),
    ("support-104", "Which items would you like me to refund?", ("items",)),
    ("support-109", "Which items should I refund?", ("items",)),
    ("support-101", "Before I go ahead, what's the ZIP code on your account?", ("zip",)),
    ("support-101", "Before I go ahead and cancel it, could you tell me your ZIP code?", ("zip",)),
    # 2: ordinary consent wordings get the yes
    (
        "support-101",
        "R-1100 hasn't shipped. Do you want me to proceed with the cancellation?",
        ("consent",),
    ),
    ("support-101", "Shall I proceed with cancelling R-1100?", ("consent",)),
    ("support-101", "Please reply 'yes' to confirm and I'll cancel it.", ("consent",)),
    ("support-101", 'Reply "yes" to confirm the cancellation.', ("consent",)),
    ("support-101", "R-1100 can be cancelled. Just reply YES to confirm.", ("consent",)),
    ("support-101", "Do you confirm the cancellation of R-1100?", ("consent",)),
    ("support-101", "Is it OK if I cancel R-1100 now?", ("consent",)),
    ("support-101", "Could you confirm that you'd like R-1100 cancelled?", ("consent",)),
    ("support-101", "Would you like to cancel R-1100?", ("consent",)),
    ("support-101", "Confirm: cancel R-1100 (Granite Mid Hiking Boots, $165.00)?", ("consent",)),
    ("support-101", "It hasn't shipped. Shall I proceed?", ("consent",)),
    # 3: a known fact repeated in a question is not asked again; a real re-ask is
    (
        "support-108",
        "Shall I update your account to your new address, 14 Pine St, Burlington, VT 05401?",
        ("consent",),
    ),
    (
        "support-102",
        "Shall I refund the rain jacket on order number R-1090 ($129.00)?",
        ("consent",),
    ),
    (
        "support-110",
        "Since you don't know your ZIP code, what's the email on your account?",
        ("email",),
    ),
    ("support-101", "What's the ZIP code on the account under your name?", ("zip",)),
    (
        "support-102",
        "Thanks, Grace, I've verified you with ZIP 55408; which item would you like to return?",
        ("order",),
    ),
    (
        "support-103",
        "Shall I change R-1075 to ship to the new address, 725 N 7th Ave, Bozeman, MT 59715?",
        ("consent",),
    ),
    ("support-101", "What's your ZIP code?", ("zip",)),
    ("support-101", "Sorry, what was your postal code again?", ("zip",)),
    ("support-101", "What's your full name?", ("name",)),
    # 4: asking without "?", after a lead-in, in a list
    (
        "support-101",
        "I can help with that, Priya. To verify your account, I'll need the ZIP code on file.",
        ("zip",),
    ),
    ("support-101", "To verify your identity, please provide your ZIP code.", ("zip",)),
    ("support-101", "Thanks! Now, your ZIP code, please.", ("zip",)),
    (
        "support-101",
        "Happy to help. To verify you, please provide one of:\n- the ZIP code on your "
        "account\n- the email on your account",
        ("zip", "email"),
    ),
    (
        "support-101",
        "To get started, I'll need:\n1. Your ZIP code\n2. Your email address",
        ("zip", "email"),
    ),
    # 5: closing offers end it; real questions with "something else" in them do not
    ("support-101", "Done. Let me know if you have any questions!", None),
    ("support-101", "Done. How else can I help?", None),
    ("support-101", "Done. Is there something more I can help with?", None),
    ("support-101", "Done. Is there anything else?", None),
    ("support-101", "Done. Have a wonderful day!", None),
    (
        "support-102",
        "Which item is it, or is there something else you'd like to return as well?",
        ("order",),
    ),
    (
        "support-101",
        "Could you share the ZIP code on your account so I can help with today's cancellation?",
        ("zip",),
    ),
    (
        "support-101",
        "Got it. What's the ZIP code on your account, and anything else I should know"
        " about the order?",
        ("zip",),
    ),
    # 9: topic matching normalised
    ("support-101", "What's your zipcode?", ("zip",)),
    ("support-101", "What's your zip-code?", ("zip",)),
    ("support-101", "What is the ZIP/postal code?", ("zip",)),
    ("support-105", "What name is the account under, and what's the ZIP?", ("name", "zip")),
    ("support-101", "I'll use your ZIP on file.", None),
]


@pytest.mark.parametrize(("prefix", "text", "answered"), REVIEW_REPLIES)
def test_the_scripted_customer_answers_what_the_reply_seeks(
    prefix: str, text: str, answered: tuple[str, ...] | None
) -> None:
    answer = scripted_reply(_support_customer(prefix), text, 1)
    if answered is None:
        assert answer.ended == "agent_done", answer
    else:
        assert (answer.answered, answer.ended) == (answered, None), answer
        consent = any(_support_customer(prefix).reveal(n).confirms for n in answered)
        assert bool(answer.confirms) == consent


def test_a_hyphenated_word_is_another_word() -> None:
    answer = scripted_reply(CUSTOMER, "Do you want the zip-up fleece or the pullover?", 1)
    assert answer.answered == () and answer.say == CUSTOMER.unknown_line()


class _FakeCustomerModel:
    """A customer model that says one fixed thing (sim.py)."""

    def __init__(self, says: str) -> None:
        self.says = says

    async def generate(self, messages: Any, config: Any = None, cache: Any = None) -> Any:
        class Output:
            completion = self.says

        return Output()

    def __str__(self) -> str:
        return "fake/customer"


def _simulated_turn(agent: str, says: str) -> Any:
    import asyncio

    from commerce_evals.harness.customer import SimulatedCustomer

    case = SUPPORT_CASES[ONE_CASE]
    assert case.customer is not None
    player = SimulatedCustomer(case.customer, _FakeCustomerModel(says))  # type: ignore[arg-type]
    return asyncio.run(player.next_turn(make_run((case.turns[0], [reply(agent)])), 0))


def test_a_simulated_no_is_no_consent_and_a_yes_is() -> None:
    no = _simulated_turn("R-1100 hasn't shipped. Shall I cancel it?", "No, wait, don't cancel it.")
    assert no.confirms == frozenset() and no.answered == ()
    yes = _simulated_turn(
        "R-1100 hasn't shipped. Do you want me to proceed with the cancellation?",
        "Yes, please proceed.",
    )
    assert yes.confirms == frozenset({"cancel_order"}) and yes.answered == ("consent",)


def test_a_simulated_customer_answers_a_fact_only_by_giving_it() -> None:
    assert _simulated_turn("I'll use the ZIP code on file, okay?", "Sure, go ahead.").answered == ()
    assert _simulated_turn("What's the ZIP code on your account?", "It's 80302.").answered == (
        "zip",
    )


def test_the_customer_hears_a_question_asked_through_a_component() -> None:
    from commerce_evals.cases.model import ScriptedTurn
    from commerce_evals.core.events import UiEvent
    from commerce_evals.harness.customer import ScriptedCustomer

    sizes = Customer.model_validate(
        {
            "persona": {"tone": "brief"},
            "goal": "A rain jacket.",
            "reveals": [{"name": "size", "say": "Medium.", "topics": ["size"]}],
        }
    )
    shown = UiEvent(
        component="suggestions",
        payload={"message": "Here are two jackets. Which size do you wear?", "products": []},
    )
    run = make_run(("I need a rain jacket.", [shown]))
    import asyncio

    answer = asyncio.run(ScriptedCustomer(sizes).next_turn(run, 0))
    assert answer.answered == ("size",)
    turn = ScriptedTurn.model_validate(
        {
            "calls": [
                {
                    "tool": "present_suggestions",
                    "args": {"product_ids": ["P-1"], "message": "Which size do you wear?"},
                }
            ]
        }
    )
    assert scripted_reply(sizes, turn.spoken(), 1).answered == ("size",)


def test_asks_before_in_a_simulated_run_needs_the_answer_not_only_the_question() -> None:
    from commerce_evals.core.events import CustomerRecord

    def run_where_customer_says(says: str, answers: list[str]) -> Run:
        run = make_run(
            ("Cancel my boots.", [reply("I'll use the ZIP code on file, okay?")]),
            (says, [call("find_customer", name="Priya Raman", zip="80302")]),
        )
        run.turns[1].answers = answers
        run.customer = CustomerRecord(mode="simulated", model="fake/customer", ended=None)
        return run

    shrugged = asks_before(ZIP_RULE, _ctx(run_where_customer_says("Sure, go ahead.", [])))
    assert not shrugged[0]
    assert asks_before(ZIP_RULE, _ctx(run_where_customer_says("It's 80302.", ["zip"])))[0]


def test_shop_wordings_the_merged_cases_use_still_ask() -> None:
    shopper = Customer.model_validate(
        {
            "persona": {"tone": "brief"},
            "goal": "A yoga mat.",
            "reveals": [
                {"name": "latex", "say": "Latex-free, please.", "topics": ["latex"]},
                {"name": "cooktop", "say": "Induction.", "topics": ["induction"]},
                {"name": "dimmable", "say": "Yes, dimmable.", "topics": ["dimmable"]},
                {"name": "year", "say": "The 2019 one.", "topics": ["2019"]},
            ],
        }
    )
    for text, name in [
        ("Do you need it latex-free?", "latex"),
        ("Do you cook on induction?", "cooktop"),
        ("Does it need to be dimmable?", "dimmable"),
        ("Is that the 2019 Camry or the 2022?", "year"),
    ]:
        assert [r.name for r in shopper.asked(text)] == [name], text


def test_a_consent_is_asked_by_the_write_its_sentence_names() -> None:
    handover = _support_customer("support-105")
    text = (
        "The watch on R-1180 ($299.00) is inside the window, but a refund over $200 is decided "
        "by a person on our team. Would you like me to hand it to them?"
    )
    assert [r.name for r in handover.asked(text)] == ["consent"]
