"""Judges inside real evals: verdicts beside the code parts, failures kept apart, and re-scoring
through Inspect's cache. Two evals per module (reference runs and counterexamples), then re-scores."""

from __future__ import annotations

import copy
import io
import math
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import score
from inspect_ai._eval.score import resolve_scorers
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log
from rich.console import Console
from typer.testing import CliRunner

from commerce_evals.checkout import checkout
from commerce_evals.cli.app import app
from commerce_evals.cli.commands.label import label_items, label_loop
from commerce_evals.grading.score_metadata import nested_judge
from commerce_evals.judging.labels import read_labels
from commerce_evals.reports.judge_records import read_judged
from commerce_evals.reports.logs import case_results
from commerce_evals.reports.summary import judge_tally
from commerce_evals.scoring.metrics import judge_row
from tests.conftest import DATA, MINI_SHOP
from tests.helpers import case_score, run_metrics, run_task, samples_by_id

CASES = DATA / "judges" / "cases.yaml"
JUDGED = ("checkout-101-budget-tradeoff", "checkout-102-updated-date")
CODE_ONLY = "checkout-103-code-only"
# rubric + budget_respected + tradeoff_stated, one rubric, and on each of the three cases the two
# dimensions every case gets when a grader is bound (claims_match_state, no_invented_facts)
NAMED_DIMENSIONS = 4
DIMENSIONS_JUDGED = NAMED_DIMENSIONS + 2 * 3


@dataclass
class Logs:
    reference: EvalLog
    counterexamples: EvalLog
    calls_during_evals: int
    cache_dir: Path


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logs]:
    cache_dir = tmp_path_factory.mktemp("judge-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(cache_dir))
        roles = {"grader": "commerce/judge"}
        reference = run_task(
            checkout(dataset=str(CASES), fixtures=str(MINI_SHOP)),
            model_roles=roles,
            log_dir=str(tmp_path_factory.mktemp("judge-logs")),
        )
        counterexamples = run_task(
            checkout(dataset=str(CASES), fixtures=str(MINI_SHOP), counterexamples=True),
            model_roles=roles,
        )
        yield Logs(reference, counterexamples, judge_calls(reference), cache_dir)


def rescore(log: EvalLog, **kwargs: Any) -> EvalLog:
    """Re-score the way `inspect score` does: the scorers the log recorded, rebuilt by name."""
    return score(log, resolve_scorers(log), action="overwrite", display="none", **kwargs)


def judge_metrics(log: EvalLog) -> dict[str, float]:
    """The judge's verdicts by status and its `calls` and `cached`, as the reports count them
    from the scores (`commerce-evals summary`); the run's own block agrees on the statuses."""
    tally = judge_tally(case_results(log.location, log).values())
    rows = run_metrics(log)
    assert {s: rows[judge_row(s)] for s in tally.statuses} == tally.statuses
    return {**tally.statuses, "calls": tally.calls, "cached": tally.cached}


def part(log: EvalLog, name: str) -> float:
    return run_metrics(log)[name]


def needs_review_count(log: EvalLog) -> float:
    return run_metrics(log)["needs_review"]


def judge_calls(log: EvalLog, model: str | None = None) -> int:
    """Judge calls that reached the provider, read from the log's model events: a call answered
    from the cache is logged with cache="read". Scoring a log again replaces its scoring events,
    so a re-scored log counts the calls of that scoring alone."""
    return sum(
        1
        for sample in log.samples or []
        for event in sample.events
        if isinstance(event, ModelEvent)
        and (event.model == model if model else event.model.startswith("commerce/judge"))
        and event.cache != "read"
    )


# ---- the first run -----------------------------------------------------------------------------


def test_rubric_verdicts_sit_beside_the_code_parts(logs: Logs) -> None:
    samples = samples_by_id(logs.reference)
    for sample_id in JUDGED:
        value = case_score(samples[sample_id]).value
        assert (value["rubric"], value["judged"], value["passed"]) == (1.0, 1.0, 1.0)
    code_only = case_score(samples[CODE_ONLY]).value
    # a case naming no dimension is still judged on the two every case gets
    assert (code_only["rubric"], code_only["judged"]) == (1.0, 1.0)
    assert code_only["outcome"] == 1.0
    metrics = judge_metrics(logs.reference)
    assert metrics["pass"] == metrics["calls"] == DIMENSIONS_JUDGED
    assert metrics["cached"] == 0 and metrics["fail"] == metrics["judge_failed"] == 0
    assert part(logs.reference, "rubric") == 1.0


def test_every_verdict_carries_its_fingerprint(logs: Logs) -> None:
    score_ = case_score(samples_by_id(logs.reference)[JUDGED[0]])
    verdicts = nested_judge(score_.metadata)["judge"]["verdicts"]
    assert [v["dimension"] for v in verdicts] == [
        "rubric",
        "budget_respected",
        "tradeoff_stated",
        "claims_match_state",
        "no_invented_facts",
    ]
    for verdict in verdicts:
        assert verdict["model"] == "commerce/judge"
        assert verdict["fingerprint"] and verdict["template_sha"] and verdict["dimension_sha"]
    assert len({v["fingerprint"] for v in verdicts}) == 5
    assert nested_judge(score_.metadata)["judge"]["cut"]["chars_dropped"] == 0


def test_a_rubric_fail_fails_the_case_and_the_injection_does_not_flip_it(logs: Logs) -> None:
    samples = samples_by_id(logs.counterexamples)
    injected = samples["checkout-101-budget-tradeoff~injected-verdict"]
    score_ = case_score(injected)
    assert score_.value["outcome"] == 1.0  # the code parts pass: only the judge sees the problem
    assert (score_.value["rubric"], score_.value["passed"]) == (0.0, 0.0)
    assert {v["status"] for v in nested_judge(score_.metadata)["judge"]["verdicts"]} == {"fail"}
    assert set(score_.metadata["failed_keys"]) == set(injected.metadata["breaks"])
    stale = case_score(samples["checkout-102-updated-date~stale-date"])
    assert (stale.value["rubric"], stale.value["passed"]) == (0.0, 0.0)
    assert "FAIL rubric/rubric" in stale.explanation
    judged = nested_judge(case_score(samples[f"{CODE_ONLY}~carts-wrong"]).metadata)["judge"][
        "verdicts"
    ]
    assert [v["dimension"] for v in judged] == ["claims_match_state", "no_invented_facts"]


def test_the_first_run_calls_the_judge_once_per_judged_dimension(logs: Logs) -> None:
    assert logs.calls_during_evals == DIMENSIONS_JUDGED


# ---- re-scoring through the cache --------------------------------------------------------------


def test_a_second_scoring_of_the_same_log_makes_no_judge_calls(logs: Logs) -> None:
    rescored = rescore(logs.reference)
    assert judge_calls(rescored) == 0
    metrics = judge_metrics(rescored)
    assert metrics["cached"] == metrics["calls"] == DIMENSIONS_JUDGED
    old, new = samples_by_id(logs.reference), samples_by_id(rescored)
    for sample_id in old:
        assert case_score(new[sample_id]).value.keys() == case_score(old[sample_id]).value.keys()
        for key, value in case_score(old[sample_id]).value.items():
            again = case_score(new[sample_id]).value[key]
            assert value == again or (value != value and again != again), key  # NaN: NaN


def test_inspect_score_on_the_command_line_rejudges_nothing(logs: Logs, tmp_path: Path) -> None:
    out = tmp_path / "rescored.eval"
    env = {**os.environ, "INSPECT_CACHE_DIR": str(logs.cache_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "score", logs.reference.location, "--action",
         "overwrite", "--output-file", str(out), "--display", "none"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    metrics = judge_metrics(read_eval_log(str(out)))
    assert metrics["cached"] == metrics["calls"] == DIMENSIONS_JUDGED


def test_a_changed_rubric_rejudges_only_the_case_it_touches(logs: Logs) -> None:
    log = copy.deepcopy(logs.reference)
    [sample] = [s for s in log.samples or [] if s.id == JUDGED[1]]
    expected = sample.metadata["case"]["expected"]
    expected["rubric"] = expected["rubric"].replace("December 2", "Dec 2 (December 2)")
    rescored = rescore(log)
    assert judge_calls(rescored) == 1
    metrics = judge_metrics(rescored)
    assert (metrics["calls"], metrics["cached"]) == (DIMENSIONS_JUDGED, DIMENSIONS_JUDGED - 1)
    old = nested_judge(case_score(samples_by_id(logs.reference)[JUDGED[1]]).metadata)["judge"][
        "verdicts"
    ][0]
    new = nested_judge(case_score(samples_by_id(rescored)[JUDGED[1]]).metadata)["judge"][
        "verdicts"
    ][0]
    assert (
        new["dimension_sha"] != old["dimension_sha"] and new["template_sha"] == old["template_sha"]
    )


def test_a_changed_judge_model_rejudges_everything(logs: Logs) -> None:
    rescored = rescore(logs.reference, model_roles={"grader": "commerce/judge-echo"})
    assert judge_calls(rescored, "commerce/judge-echo") == judge_calls(rescored)
    assert judge_calls(rescored) == DIMENSIONS_JUDGED
    verdicts = nested_judge(case_score(samples_by_id(rescored)[JUDGED[0]]).metadata)["judge"][
        "verdicts"
    ]
    assert {v["model"] for v in verdicts} == {"commerce/judge-echo"}
    assert judge_metrics(rescored)["pass"] == DIMENSIONS_JUDGED


def test_a_changed_template_rejudges_everything(
    logs: Logs, monkeypatch: pytest.MonkeyPatch
) -> None:
    from commerce_evals.judging import judge

    template = judge.default_template() + "\nBe brief."
    monkeypatch.setattr(judge, "default_template", lambda: template)
    rescored = rescore(logs.reference)
    assert judge_calls(rescored) == DIMENSIONS_JUDGED
    assert judge_metrics(rescored)["cached"] == 0


# ---- judge faults are not agent failures -------------------------------------------------------


@pytest.mark.parametrize(
    ("grader", "status", "reason"),
    [
        ("commerce/judge-garbage", "judge_failed", "no verdict"),
        ("commerce-test/judge-error", "judge_failed", "error: RuntimeError"),
        ("commerce/judge-refuse", "judge_failed", "refusal"),
        ("commerce/judge-unknown", "unknown", ""),
    ],
)
def test_a_judge_that_does_not_settle_leaves_the_agent_parts_alone(
    logs: Logs, grader: str, status: str, reason: str
) -> None:
    rescored = rescore(logs.reference, model_roles={"grader": grader})
    assert rescored.status == "success"
    metrics = judge_metrics(rescored)
    assert metrics[status] == DIMENSIONS_JUDGED and metrics["pass"] == metrics["fail"] == 0
    assert math.isnan(part(rescored, "rubric"))
    assert {case_score(s).value["judged"] for s in rescored.samples or []} == {0.0}
    old, new = samples_by_id(logs.reference), samples_by_id(rescored)
    for sample_id in JUDGED:
        before, after = case_score(old[sample_id]), case_score(new[sample_id])
        for key in ("outcome", "path", "calls", "passed_code"):
            a, b = before.value[key], after.value[key]
            assert (math.isnan(a) and math.isnan(b)) or a == b, key
        assert math.isnan(after.value["rubric"])
        # a missing verdict is never a pass: the case needs review, its code result shown apart
        assert (after.value["passed"], after.value["needs_review"]) == (0.0, 1.0)
        assert nested_judge(after.metadata)["judge"]["rubric_reason"] == status
        assert all(reason in v["reason"] for v in nested_judge(after.metadata)["judge"]["verdicts"])
        assert f"unscored ({status})" in after.explanation and "NEEDS REVIEW" in after.explanation
    # with a grader bound, the code-only case is judged on the two evidence dimensions too, so a
    # judge that settles nothing leaves it needing review as well: never a pass
    assert needs_review_count(rescored) == len(JUDGED) + 1
    assert part(rescored, "passed_code") == 1.0 and part(rescored, "passed") < 1.0
    code_only = case_score(new[CODE_ONLY]).value
    assert (code_only["passed"], code_only["needs_review"]) == (0.0, 1.0)


def test_with_no_grader_role_the_rubric_is_not_judged_and_nothing_self_grades(logs: Logs) -> None:
    log = copy.deepcopy(logs.reference)
    log.eval.model_roles = None
    rescored = rescore(log)
    assert judge_calls(rescored) == 0
    metrics = judge_metrics(rescored)
    # with no grader bound, only the dimensions the cases name are recorded (as not judged)
    assert metrics["not_judged"] == NAMED_DIMENSIONS and metrics["calls"] == 0
    after = case_score(samples_by_id(rescored)[JUDGED[0]])
    assert math.isnan(after.value["rubric"]) and after.value["passed"] == 0.0
    assert (after.value["needs_review"], after.value["passed_code"]) == (1.0, 1.0)
    assert "no_grader_role" in after.explanation and "NEEDS REVIEW" in after.explanation
    assert needs_review_count(rescored) == len(JUDGED)


def test_judge_off_is_a_code_only_run_that_says_so(tmp_path: Path) -> None:
    log = run_task(
        checkout(dataset=str(CASES), fixtures=str(MINI_SHOP), judge="off"),
        model_roles={"grader": "commerce/judge"},
        log_dir=str(tmp_path),
    )
    assert judge_calls(log) == 0  # a bound grader is not called
    assert log.eval.metadata["judge"] == "off" and log.eval.task_args["judge"] == "off"
    for sample_id in JUDGED:
        score_ = case_score(samples_by_id(log)[sample_id])
        assert (score_.value["passed"], score_.value["needs_review"]) == (1.0, 0.0)
        assert math.isnan(score_.value["rubric"]) and score_.metadata["judge_off"] is True
        assert "judge=off" in score_.explanation
    assert needs_review_count(log) == 0


# ---- reading verdicts back, and labelling them by hand -----------------------------------------


def test_verdicts_are_read_back_from_the_log(logs: Logs) -> None:
    items = read_judged([Path(logs.reference.location)])
    every_case = ["claims_match_state", "no_invented_facts"]
    assert [(i.sample_id, i.dimension, i.status) for i in items] == [
        *((JUDGED[0], d, "pass") for d in ["rubric", "budget_respected", "tradeoff_stated"]),
        *((JUDGED[0], d, "pass") for d in every_case),
        *((JUDGED[1], d, "pass") for d in ["rubric", *every_case]),
        *((CODE_ONLY, d, "pass") for d in every_case),
    ]
    assert all(i.transcript_sha and i.fingerprint for i in items)


def test_labelling_records_what_the_person_answers(logs: Logs, tmp_path: Path) -> None:
    items = label_items(Path(logs.reference.location))
    assert [(i.sample_id, i.dimension) for i in items][:2] == [
        (JUDGED[0], "rubric"),
        (JUDGED[0], "budget_respected"),
    ]
    assert "PASS if every suggested shoe" in items[0].criterion
    assert "## Examples" not in items[1].criterion and "## Fail" in items[1].criterion
    answers = iter(["x", "v", "p", "f", "s", "q"])
    asked: list[str] = []

    def person(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    out = tmp_path / "labels.jsonl"
    counts = label_loop(items, "Ana", out, person, Console(file=io.StringIO(), width=120))
    assert counts == {"Pass": 1, "Fail": 1, "Skip": 1} and len(asked) == 6
    labels = read_labels(out)
    assert [(x.dimension, x.verdict, x.labeller) for x in labels] == [
        ("rubric", "Pass", "Ana"),
        ("budget_respected", "Fail", "Ana"),
        ("tradeoff_stated", "Skip", "Ana"),
    ]
    assert {x.transcript_sha for x in labels} == {items[0].transcript_sha}


def test_label_refuses_without_a_person_at_a_terminal(logs: Logs, tmp_path: Path) -> None:
    out = tmp_path / "labels.jsonl"
    result = CliRunner().invoke(
        app, ["label", logs.reference.location, "--labels", str(out)], input="Ana\np\np\n"
    )
    assert result.exit_code == 2
    assert "run it in a terminal" in result.output
    assert not out.exists()
