"""Cases with a customer (issue 19): the shape, the scripted customer's answers, the keys that read
what the agent asked, every customer case end to end (reference and alternatives pass,
counterexamples fail exactly their keys), and a simulated customer played by a scripted model:
the loop, the stop signal, the turn cap and the token accounting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.log import EvalLog, EvalSample

from commerce_evals.cases.customer import (
    STOP_SIGNAL,
    Customer,
    asking_sentences,
    scripted_reply,
)
from commerce_evals.cases.model import Case, CaseFileError, load_case_sources, parse_case
from commerce_evals.domains.base import DATASETS
from commerce_evals.grading.graders import GradeContext, ToolRoles
from commerce_evals.grading.keys import AsksBefore
from commerce_evals.grading.reveals import asks_before, never_asks, reveal_record
from commerce_evals.harness.customer import customer_prompt
from commerce_evals.harness.events import Run
from commerce_evals.harness.flow_table import FLOWS
from commerce_evals.harness.flow_task import case_metadata, dataset_paths
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
    assert case.script("guesses-the-zip") == case.counterexamples[0].turns
    assert len(case.conversation(case.script("guesses-the-zip")).turns) == 2


# ---- the keys ------------------------------------------------------------------------------------

ZIP_RULE = [AsksBefore(tool="find_customer", reveals=["zip"])]


def _ctx(run: Run) -> GradeContext:
    return GradeContext(run=run, roles=ToolRoles(), customer=CUSTOMER)


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
