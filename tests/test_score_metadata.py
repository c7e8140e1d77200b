"""The score-metadata model writes the JSON logs have always held and reads old or odd logs."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import EvalSample
from inspect_ai.scorer import Score

from commerce_evals.grading.score_metadata import (
    PASSED_GRADES_KEY,
    CutRecord,
    GradeRecord,
    JudgeRecord,
    ScoreMetadata,
    VerdictRecord,
    verdicts_from,
)
from commerce_evals.judging.judge import CaseJudgement, DimensionVerdict
from commerce_evals.judging.prompt import Fingerprint
from commerce_evals.judging.transcript import Cut
from commerce_evals.reports.logs import epoch_result

FINGERPRINT = Fingerprint(
    model="anthropic/judge",
    dimension_sha="d1",
    template_sha="t1",
    config_sha="c1",
    context_sha=None,
)

RUBRIC_VERDICT = {
    "dimension": "rubric",
    "status": "fail",
    "verdict": "Fail",
    "reason": "",
    "called": True,
    "cached": False,
    "input_tokens": 900,
    "output_tokens": 40,
    "fingerprint": FINGERPRINT.value,
    "model": "anthropic/judge",
    "dimension_sha": "d1",
    "template_sha": "t1",
    "config_sha": "c1",
    "context_sha": None,
}
FAILED_JUDGE_VERDICT = {
    "dimension": "grounded_in_policy",
    "status": "judge_failed",
    "verdict": None,
    "reason": "timeout",
    "called": False,
    "cached": False,
    "input_tokens": 0,
    "output_tokens": 0,
    "fingerprint": None,
    "reply": "partial answ",
}
JUDGE_REST = {
    "rubric_reason": None,
    "off": False,
    "transcript_sha": "abc123",
    "cut": {
        "budget": 100,
        "original_chars": 150,
        "kept_chars": 90,
        "chars_dropped": 60,
        "turns_dropped": 1,
        "events_dropped": 2,
        "values_clipped": 0,
    },
}

# The layout the scorer writes (key order included): the failed grades, the passing ones by name
# (their records are in the sample's store; logs written before that hold every grade in `grades`:
# BEFORE_THE_SPLIT), and the judge's record flat, each verdict under its own key and its critique
# apart, so that each stays within what Inspect's sample summaries keep of a value.
LOGGED: dict[str, Any] = {
    "failed_keys": ["never_calls", "rubric"],
    "grades": [
        {"key": "never_calls", "part": "path", "passed": False, "reason": "called pay"},
    ],
    "passed_keys": ["outcome/final_cart"],
    "counterexample": "pays-anyway",
    "calls_made": 3,
    "alternative": None,
    "judge": JUDGE_REST,
    "verdict/rubric": RUBRIC_VERDICT,
    "critique/rubric": "paid without asking",
    "verdict/grounded_in_policy": FAILED_JUDGE_VERDICT,
    "judge_off": False,
}

# Logs written before the judge's record was logged flat: every verdict, critique inside, under
# `judge.verdicts`.
NESTED: dict[str, Any] = {
    **{k: v for k, v in LOGGED.items() if not k.startswith(("verdict/", "critique/"))},
    "judge": {
        "verdicts": [
            {**RUBRIC_VERDICT, "critique": "paid without asking"},
            {**FAILED_JUDGE_VERDICT, "critique": ""},
        ],
        **JUDGE_REST,
    },
}


def judgement() -> CaseJudgement:
    return CaseJudgement(
        verdicts=[
            DimensionVerdict(
                dimension="rubric",
                status="fail",
                verdict="Fail",
                critique="paid without asking",
                fingerprint=FINGERPRINT,
                called=True,
                tokens=(900, 40),
            ),
            DimensionVerdict(
                dimension="grounded_in_policy",
                status="judge_failed",
                reason="timeout",
                reply="partial answ",
            ),
        ],
        transcript_sha="abc123",
        cut=Cut(
            budget=100,
            original_chars=150,
            kept_chars=90,
            turns_dropped=1,
            events_dropped=2,
        ),
    )


def written() -> ScoreMetadata:
    return ScoreMetadata(
        failed_keys=("never_calls", "rubric"),
        grades=(GradeRecord(key="never_calls", part="path", passed=False, reason="called pay"),),
        passed_keys=("outcome/final_cart",),
        counterexample="pays-anyway",
        calls_made=3,
        judge=judgement().record(),
    )


def test_the_scorer_writes_the_json_logs_already_hold() -> None:
    metadata = written().to_metadata()
    assert metadata == LOGGED
    assert list(metadata) == list(LOGGED)
    for key in ("verdict/rubric", "verdict/grounded_in_policy"):
        assert list(metadata[key]) == list(LOGGED[key])


def test_what_is_written_reads_back_the_same_as_the_nested_layout_of_older_logs() -> None:
    assert ScoreMetadata.from_metadata(written().to_metadata()) == written()
    assert ScoreMetadata.from_metadata(NESTED) == written()
    read = ScoreMetadata.from_score(Score(value={"passed": 0.0}, metadata=LOGGED))
    assert read.unreadable is None
    assert [g.key for g in read.failed_grades()] == ["never_calls"]
    assert [v.status for v in read.verdicts] == ["fail", "judge_failed"]
    assert read.verdicts[0].critique == "paid without asking"
    assert read.failed_code_keys() == ["never_calls"]


def test_each_logged_verdict_fits_what_a_sample_summary_keeps() -> None:
    """Inspect's summaries drop a metadata value over 1 KB; a verdict with the longest model
    name and fingerprint a real judge gives, without its critique, stays well under it."""
    import json

    long_model = "openai-api/some-provider/" + "m" * 80
    verdict = DimensionVerdict(
        dimension="d" * 60,
        status="judge_failed",
        verdict=None,
        reason="r" * 200,
        fingerprint=Fingerprint(long_model, "a" * 16, "b" * 16, "c" * 16, "e" * 16),
        called=True,
        tokens=(123456, 7890),
    )
    logged = ScoreMetadata(
        judge=CaseJudgement(verdicts=[verdict], transcript_sha="f" * 16).record()
    ).to_metadata()
    assert len(json.dumps(logged["verdict/" + "d" * 60])) < 900
    assert len(json.dumps(logged["judge"])) < 400


def test_two_verdicts_on_one_dimension_are_refused_when_written() -> None:
    import pytest

    twice = JudgeRecord(verdicts=(VerdictRecord(dimension="rubric"),) * 2)
    with pytest.raises(ValueError, match="two verdicts on dimension 'rubric'"):
        ScoreMetadata(judge=twice).to_metadata()


BEFORE_THE_SPLIT = {
    **{k: v for k, v in LOGGED.items() if k != "passed_keys"},
    "grades": [
        *LOGGED["grades"],
        {"key": "final_cart", "part": "outcome", "passed": True, "reason": "holds P-1"},
    ],
}
PASSING = {"key": "final_cart", "part": "outcome", "passed": True, "reason": "holds P-1"}


def logged_sample(metadata: dict[str, Any], store: dict[str, Any]) -> EvalSample:
    score = Score(value={"passed": 0.0}, metadata=metadata)
    return EvalSample(
        id="c", epoch=1, input="x", target="", scores={"commerce_case": score}, store=store
    )


def test_the_passing_grades_are_read_back_from_the_store_and_old_logs_read_as_they_were() -> None:
    store = {PASSED_GRADES_KEY: [PASSING]}
    read = ScoreMetadata.of_sample(logged_sample(LOGGED, store))
    assert [(g.key, g.passed, g.reason) for g in read.grades] == [
        ("never_calls", False, "called pay"),
        ("final_cart", True, "holds P-1"),
    ]
    before = ScoreMetadata.of_sample(logged_sample(BEFORE_THE_SPLIT, {}))
    assert before.grades == read.grades and before.passed_keys == ()
    # re-scored (the store is as the run left it) or a record that does not read: named, no reason
    for odd_store in ({}, {PASSED_GRADES_KEY: "not a list"}, {PASSED_GRADES_KEY: [{"key": 1}]}):
        [passing] = ScoreMetadata.of_sample(logged_sample(LOGGED, odd_store)).grades[1:]
        assert (passing.key, passing.part, passing.passed, passing.reason) == (
            "final_cart",
            "outcome",
            True,
            "",
        )
    # and every report reads the same through it
    assert epoch_result(logged_sample(LOGGED, store)).failures[0].reason == "called pay"


def test_a_log_from_before_a_field_existed_reads_with_its_default() -> None:
    old = {"failed_keys": ["never_calls"], "grades": BEFORE_THE_SPLIT["grades"], "judge": None}
    read = ScoreMetadata.from_metadata(old)
    assert read.unreadable is None
    assert read.calls_made is None and read.judge_off is False and read.verdicts == ()
    assert read.failed_keys == ("never_calls",)
    # a verdict logged before tokens were counted
    legacy = {"dimension": "rubric", "status": "pass", "called": True, "fingerprint": None}
    assert verdicts_from([legacy])[0].input_tokens == 0


def test_unknown_keys_are_ignored_and_no_metadata_is_an_empty_record() -> None:
    read = ScoreMetadata.from_metadata({**LOGGED, "added_by_a_later_version": [1, 2]})
    assert read == ScoreMetadata.from_metadata(LOGGED)
    assert ScoreMetadata.from_score(Score.unscored(reason="skipped")) == ScoreMetadata()
    assert ScoreMetadata.from_score(None) == ScoreMetadata()


def test_metadata_of_the_wrong_shape_reads_as_unreadable_not_a_crash() -> None:
    read = ScoreMetadata.from_metadata({"grades": "not a list"})
    assert read.unreadable and "grades" in read.unreadable
    assert read.grades == () and read.failed_keys == ()
    assert ScoreMetadata.from_metadata(["a", "list"]).unreadable == (
        "score metadata is a list, not a mapping"
    )
    assert verdicts_from([{"called": "maybe not"}, "junk"]) == ()
    assert verdicts_from(None) == ()


def test_a_report_reads_an_unreadable_score_by_its_value_alone() -> None:
    sample = EvalSample(
        id="checkout-001",
        epoch=1,
        input="hi",
        target="",
        scores={
            "commerce_case": Score(
                value={"passed": 0.0, "passed_code": 0.0, "needs_review": 0.0, "path": 0.0},
                metadata={"grades": [{"key": 1}]},
            )
        },
    )
    result = epoch_result(sample)
    assert result.passed is False and result.failed_keys == () and result.failures == ()


def test_a_verdict_without_a_fingerprint_writes_no_fingerprint_parts() -> None:
    bare = VerdictRecord(dimension="rubric", status="not_judged")
    dumped = JudgeRecord(verdicts=(bare,), cut=CutRecord()).model_dump(mode="json")
    assert "model" not in dumped["verdicts"][0] and "reply" not in dumped["verdicts"][0]
    assert dumped["verdicts"][0]["fingerprint"] is None


def test_the_verdict_count_metric_reads_the_judge_part_of_any_metadata() -> None:
    from inspect_ai.scorer import SampleScore

    from commerce_evals.core.frozen import freeze
    from commerce_evals.scoring.metrics import judge_verdicts

    def sample(metadata: Any) -> SampleScore:
        value = {"judged": 0.0}
        return SampleScore(score=Score(value=value, metadata=metadata), sample_id="c")

    unreadable = {"judge": {"verdicts": "not a list"}}
    odd_entry = {"judge": {"verdicts": [{"status": ["not", "a", "status"]}]}}
    counts = judge_verdicts()(
        [
            sample(LOGGED),
            sample(freeze(LOGGED)),  # as the scorer stores it
            sample(NESTED),  # as older logs hold it
            sample(None),
            sample(unreadable),
            sample(odd_entry),
            sample({"grades": "not read by this metric"}),
        ]
    )
    assert counts["judge_fail"] == 3 and counts["judge_failed"] == 3
    assert sum(counts[row] for row in ("judge_pass", "judge_unknown", "not_judged")) == 0
