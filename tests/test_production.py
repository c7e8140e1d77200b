"""Production traffic: a traffic file validates line by line (a bad line is reported and skipped),
the production task replays conversations without calling a model and judges them with the
shared dimensions through the grader role, and `commerce-evals trends` plots the rates over time."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, resolve_sample_attachments
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.judging import shared_dimensions
from commerce_evals.production import EXAMPLE_TRAFFIC
from commerce_evals.reports.logs import log_files, sorted_samples
from commerce_evals.reports.traffic import load_traffic
from commerce_evals.reports.trends import _dedupe, trends
from tests.run_pattern_logs import production_dir

SPLIT = "2026-11-25"  # conversations before it are judged Pass, from it on Fail
PNG = b"\x89PNG\r\n\x1a\n"


def example_lines() -> list[dict]:
    return [json.loads(line) for line in EXAMPLE_TRAFFIC.read_text().splitlines() if line.strip()]


def bad_lines(good: dict) -> list[tuple[str, str]]:
    """(line text, the field its problem names), one problem each."""
    no_time = {k: v for k, v in good.items() if k != "captured_at"}
    bad_event = json.loads(json.dumps(good))
    bad_event["turns"][0]["events"][0]["type"] = "tool_cal"
    return [
        ("{not json", "(line)"),
        (json.dumps({**no_time, "id": "conv-no-time"}), "captured_at"),
        (json.dumps({**bad_event, "id": "conv-bad-event"}), "turns.0.events.0"),
        (json.dumps(good), "id"),  # the same id again
        (json.dumps({**good, "id": "conv-bank", "domain": "bank"}), "domain"),
        (
            json.dumps({**good, "id": "conv-naive", "captured_at": "2026-11-22T09:14:03"}),
            "captured_at",
        ),
    ]


@pytest.fixture(scope="module")
def traffic(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[tuple[int, str]]]:
    """An early file (good lines then bad ones) and a late file, split at SPLIT."""
    folder = tmp_path_factory.mktemp("traffic")
    early = [c for c in example_lines() if c["captured_at"] < SPLIT]
    late = [c for c in example_lines() if c["captured_at"] >= SPLIT]
    bad = bad_lines(early[0])
    lines = [json.dumps(c) for c in early] + [text for text, _ in bad]
    expected = [(len(early) + 1 + i, field) for i, (_, field) in enumerate(bad)]
    (folder / "early.jsonl").write_text("\n".join(lines) + "\n\n")
    (folder / "late.jsonl").write_text("\n".join(json.dumps(c) for c in late) + "\n")
    return folder / "early.jsonl", folder / "late.jsonl", expected


@pytest.fixture(scope="module")
def early_log(traffic: tuple[Path, Path, list]) -> EvalLog:
    [path] = log_files([production_dir(str(traffic[0]), "commerce/judge-pass")])
    return read_eval_log(str(path))


@pytest.fixture(scope="module")
def late_log(traffic: tuple[Path, Path, list]) -> EvalLog:
    [path] = log_files([production_dir(str(traffic[1]), "commerce/judge-fail")])
    return read_eval_log(str(path))


def test_the_example_traffic_file_is_valid_and_spans_several_days() -> None:
    conversations, problems = load_traffic(EXAMPLE_TRAFFIC)
    assert problems == []
    assert len(conversations) >= 12
    assert len({c.captured_at.date() for c in conversations}) >= 5
    assert {c.domain for c in conversations} == {"shop", "support"}


def test_each_bad_line_is_reported_with_file_line_and_field(
    traffic: tuple[Path, Path, list],
) -> None:
    early, _, expected = traffic
    conversations, problems = load_traffic(early)
    assert [(p.line, p.field) for p in problems] == expected
    assert all(p.file == str(early) for p in problems)
    assert "already on line 1" in problems[3].message
    assert len(conversations) == len([c for c in example_lines() if c["captured_at"] < SPLIT])


def test_the_task_skips_bad_lines_and_runs_the_rest(
    early_log: EvalLog, traffic: tuple[Path, Path, list]
) -> None:
    skipped = early_log.eval.metadata["skipped_lines"]
    assert [(s["line"], s["field"]) for s in skipped] == traffic[2]
    ids = {str(s.id) for s in early_log.samples or []}
    assert ids == {c["id"] for c in example_lines() if c["captured_at"] < SPLIT}


def by_id(log: EvalLog) -> dict[str, EvalSample]:
    return {str(s.id): s for s in sorted_samples(log)}


def test_no_model_but_the_grader_is_called(early_log: EvalLog) -> None:
    # usage lists only calls the cache did not answer (another test may have judged this traffic
    # with the same judge first); the events list every call, cached or not
    assert set(early_log.stats.model_usage) <= {"commerce/judge-pass"}
    for sample in early_log.samples or []:
        models = {e.model for e in sample.events if isinstance(e, ModelEvent)}
        assert models == {"commerce/judge-pass"}


def test_a_known_conversation_is_replayed_and_judged_on_every_dimension(early_log: EvalLog) -> None:
    captured = next(c for c in example_lines() if c["id"] == "conv-2026-11-23-0012")  # support
    sample = by_id(early_log)["conv-2026-11-23-0012"]
    # the transcript holds the captured conversation, and the judge read it
    reply = next(e["text"] for e in captured["turns"][-1]["events"] if e["type"] == "reply")
    assert sample.messages[0].text == captured["turns"][0]["user"]
    assert sample.messages[-1].text == reply
    events = resolve_sample_attachments(sample).events
    prompts = [e.input[-1].text for e in events if isinstance(e, ModelEvent)]
    # every shared dimension a rubric's verdict counts under (the path-part ones, a domain's
    # nevers done in words, are asked for by name)
    rubric_dimensions = [n for n, d in shared_dimensions().items() if d.part == "rubric"]
    assert len(prompts) == len(rubric_dimensions)
    assert all(reply[:60] in prompt for prompt in prompts)
    score = sample.scores["production_judges"]
    assert score.value == {name: 1.0 for name in rubric_dimensions} | {"passed": 1.0}
    assert sample.store["RunRecord:run"]["turns"][0]["user"] == captured["turns"][0]["user"]


def test_a_dimension_needing_a_policy_does_not_apply_to_the_shop(
    early_log: EvalLog, late_log: EvalLog
) -> None:
    shop = by_id(early_log)["conv-2026-11-22-0007"].scores["production_judges"]
    assert math.isnan(shop.value["grounded_in_policy"])
    assert shop.metadata["not_applicable"] == ["grounded_in_policy"]
    assert shop.value["passed"] == 1.0
    failed = by_id(late_log)["conv-2026-11-25-0026"].scores["production_judges"]
    assert failed.value["no_invented_availability"] == 0.0 and failed.value["passed"] == 0.0
    assert "dimensions/no_invented_availability" in failed.metadata["failed_keys"]


def test_trends_per_day_follow_the_verdicts(
    early_log: EvalLog, late_log: EvalLog, traffic: tuple
) -> None:
    dirs = [
        production_dir(str(traffic[0]), "commerce/judge-pass"),
        production_dir(str(traffic[1]), "commerce/judge-fail"),
    ]
    result = trends(dirs, "day")
    days = list(result.rates.index)
    assert days == sorted({c["captured_at"][:10] for c in example_lines()})
    # two judges, never pooled: each dimension has one series per judge
    columns = {c for c in result.rates.columns if c.startswith("no_invented_availability")}
    passing = next(c for c in columns if "commerce/judge-pass" in c)
    failing = next(c for c in columns if "commerce/judge-fail" in c)
    assert columns == {passing, failing}
    for day in days:
        early = day < SPLIT
        assert result.rates.loc[day, passing if early else failing] == (1.0 if early else 0.0)
        assert math.isnan(result.rates.loc[day, failing if early else passing])
    # grounded_in_policy is judged on support conversations only
    support_days = {c["captured_at"][:10] for c in example_lines() if c["domain"] == "support"}
    grounded = [c for c in result.rates.columns if c.startswith("grounded_in_policy")]
    for day in days:
        judged = any(not math.isnan(result.rates.loc[day, c]) for c in grounded)
        assert judged == (day in support_days)


def test_trends_cli_prints_the_table_and_writes_a_chart(traffic: tuple, tmp_path: Path) -> None:
    dirs = [
        production_dir(str(traffic[0]), "commerce/judge-pass"),
        production_dir(str(traffic[1]), "commerce/judge-fail"),
    ]
    chart = tmp_path / "trends.png"
    result = CliRunner().invoke(
        app, ["trends", *map(str, dirs), "--out", str(chart), "--period", "week"]
    )
    assert result.exit_code == 0, result.output
    assert "2026-W47" in result.output and "2026-W48" in result.output  # Sun 22 Nov; 23-28 Nov
    data = chart.read_bytes()
    assert data.startswith(PNG) and len(data) > 5_000


def test_a_conversation_judged_twice_counts_once_by_its_newest_log() -> None:
    verdicts = pd.DataFrame(
        [
            {
                "id": "c1",
                "epoch": 1,
                "dimension": "d",
                "status": "pass",
                "judge": "j1",
                "captured": "2026-11-22T10:00:00Z",
                "created": "2026-11-29T10:00:00+00:00",
            },
            {
                "id": "c1",
                "epoch": 1,
                "dimension": "d",
                "status": "fail",
                "judge": "j1",
                "captured": "2026-11-22T10:00:00Z",
                "created": "2026-11-30T10:00:00+00:00",
            },
            {
                "id": "case",
                "epoch": 1,
                "dimension": "d",
                "status": "pass",
                "judge": "j1",
                "captured": None,
                "created": "2026-11-29T10:00:00+00:00",
            },
            {
                "id": "case",
                "epoch": 1,
                "dimension": "d",
                "status": "fail",
                "judge": "j1",
                "captured": None,
                "created": "2026-11-30T10:00:00+00:00",
            },
        ]
    )
    kept = _dedupe(verdicts)
    assert sorted(kept[kept["id"] == "c1"]["status"]) == ["fail"]
    assert sorted(kept[kept["id"] == "case"]["status"]) == ["fail", "pass"]  # two runs over time


def test_a_dimension_named_twice_is_judged_once() -> None:
    """A score holds one verdict per dimension: `-T dimensions=a,a` asks for `a` once (a repeated
    verdict made every sample an error once each verdict became a metadata key of its own)."""
    from commerce_evals.production import dimension_names

    assert dimension_names("claims_match_state, claims_match_state,no_invented_facts") == [
        "claims_match_state",
        "no_invented_facts",
    ]
