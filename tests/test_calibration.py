"""Calibration against human labels: the math on a hand-computed example, the refusals, the labels
file format, and the calibrate command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.judging.calibration import (
    CalibrationRefused,
    Confusion,
    HumanLabel,
    JudgeVerdict,
    bootstrap_interval,
    calibrate_dimension,
    cohen_kappa,
    corrected_rate,
    in_test_split,
    percentile,
)
from commerce_evals.judging.labels import Label, LabelFileError, append_label, now, read_labels
from commerce_evals.reports import judge_records as records
from commerce_evals.reports.judge_records import JudgedItem

# ---- the hand-computed example -----------------------------------------------------------------
#
# Ana labels k0..k9: k0-k4 Pass, k5-k9 Fail. The judge passes k0-k3 and k9 and fails the rest:
#   TP = 4 (k0-k3), FN = 1 (k4), TN = 4 (k5-k8), FP = 1 (k9)  ->  TPR = 4/5 = 0.8, TNR = 0.8.
# The logs hold 20 Pass/Fail verdicts, 14 of them Pass  ->  p_obs = 0.7.
#   theta = (0.7 + 0.8 - 1) / (0.8 + 0.8 - 1) = 0.5 / 0.6 = 0.8333...
# Ana and Ben both label k0, k5, k6, k10, k11: Ana P F F P P, Ben P F F F P.
#   observed agreement 4/5 = 0.8; chance = 0.6 * 0.4 + 0.4 * 0.6 = 0.48
#   kappa = (0.8 - 0.48) / (1 - 0.48) = 0.32 / 0.52 = 0.61538...
# Left out: k10 (Ana and Ben split), k11 (no verdict in the logs), k12 (judge said Unknown),
# k13 (Ana skipped), k14 (labelled on an older run). Unknown verdicts in the logs: k12, u7, u8.

THETA = 0.5 / 0.6
KAPPA = 0.32 / 0.52


def hand_labels() -> list[HumanLabel]:
    ana = {f"k{i}": "Pass" for i in range(5)} | {f"k{i}": "Fail" for i in range(5, 10)}
    ana |= {"k10": "Pass", "k11": "Pass", "k12": "Pass", "k13": "Skip", "k14": "Pass"}
    ben = {"k0": "Pass", "k5": "Fail", "k6": "Fail", "k10": "Fail", "k11": "Pass"}
    labels = [HumanLabel(k, "Ana", v, "now" if k != "k14" else "old") for k, v in ana.items()]
    return labels + [HumanLabel(k, "Ben", v, "now") for k, v in ben.items()]


def hand_verdicts() -> list[JudgeVerdict]:
    status = {f"k{i}": "pass" for i in (0, 1, 2, 3, 9)} | {f"k{i}": "fail" for i in range(4, 9)}
    status |= {"k10": "pass", "k12": "unknown", "k13": "pass", "k14": "pass"}
    status |= {f"u{i}": "pass" for i in range(6)} | {"u6": "fail", "u7": "unknown", "u8": "unknown"}
    status |= {"u9": "judge_failed"}
    return [JudgeVerdict(k, s, "now") for k, s in status.items()]


def test_rates_corrected_rate_and_kappa_by_hand() -> None:
    pairs = [(True, True)] * 4 + [(True, False)] + [(False, False)] * 4 + [(False, True)]
    assert Confusion.of(pairs) == Confusion(tp=4, fn=1, tn=4, fp=1)
    assert Confusion.of(pairs).rates() == (0.8, 0.8)
    assert corrected_rate(0.7, 0.8, 0.8) == pytest.approx(THETA)
    assert cohen_kappa([True, False, False, True, True], [True, False, False, False, True]) == (
        pytest.approx(KAPPA)
    )
    assert corrected_rate(0.95, 0.8, 0.8) == 1.0  # (0.95 + 0.8 - 1) / 0.6 > 1: clipped
    assert corrected_rate(0.1, 0.8, 0.8) == 0.0  # (0.1 + 0.8 - 1) / 0.6 < 0: clipped
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5


def test_one_dimension_end_to_end_by_hand() -> None:
    report = calibrate_dimension("rubric", hand_labels(), hand_verdicts(), test_fraction=1.0)
    assert report.refused is None
    assert report.test == Confusion(tp=4, fn=1, tn=4, fp=1) and report.dev == Confusion()
    assert (report.tpr, report.tnr) == (0.8, 0.8)
    assert (report.judged, report.judged_pass, report.p_obs) == (20, 14, 0.7)
    assert report.theta == pytest.approx(THETA)
    assert (report.unknown, report.labelled_unknown, report.judge_failed) == (3, 1, 1)
    assert (report.disputed, report.unmatched, report.skipped, report.stale) == (1, 1, 1, 1)
    [kappa] = report.kappas
    assert kappa.labellers == ("Ana", "Ben") and kappa.items == 5
    assert kappa.kappa == pytest.approx(KAPPA)
    interval = report.interval
    assert interval is not None and interval.low is not None and interval.high is not None
    assert 0.0 <= interval.low <= report.theta <= interval.high <= 1.0
    assert interval.used + interval.dropped == 2000


def test_the_bootstrap_is_seeded_and_resamples_both_sets() -> None:
    pairs = [(True, True)] * 4 + [(True, False)] + [(False, False)] * 4 + [(False, True)]
    judged = [True] * 14 + [False] * 6
    assert bootstrap_interval(pairs, judged, seed=3) == bootstrap_interval(pairs, judged, seed=3)
    assert bootstrap_interval(pairs, judged, seed=3) != bootstrap_interval(pairs, judged, seed=4)
    # a perfect judge leaves only the judged set's sampling noise in the interval
    perfect = bootstrap_interval([(True, True), (False, False)] * 20, judged, seed=0)
    assert perfect.low is not None and perfect.high is not None and perfect.low < 0.7 < perfect.high
    # a less certain judge (fewer, noisier labels) widens the interval beyond the judged set's noise
    assert perfect.low > 0.0 and (only_width := perfect.high - perfect.low) > 0
    noisy = bootstrap_interval(pairs, judged, seed=0)
    assert noisy.low is not None and noisy.high is not None
    assert noisy.high - noisy.low > only_width


def test_the_split_is_seeded_stable_and_sized() -> None:
    keys = [f"rubric:s{i}#1" for i in range(2000)]
    test = [k for k in keys if in_test_split(k, seed=7, test_fraction=0.3)]
    assert 0.25 < len(test) / len(keys) < 0.35
    assert test == [k for k in keys if in_test_split(k, seed=7, test_fraction=0.3)]
    assert test != [k for k in keys if in_test_split(k, seed=8, test_fraction=0.3)]
    assert all(in_test_split(k, 0, 1.0) for k in keys[:50])


# ---- refusals ----------------------------------------------------------------------------------


def test_refuses_when_the_judge_is_no_better_than_chance() -> None:
    with pytest.raises(CalibrationRefused, match=r"TPR \+ TNR = 1.000 <= 1"):
        corrected_rate(0.5, 0.5, 0.5)
    with pytest.raises(CalibrationRefused, match="<= 1"):
        corrected_rate(0.5, 0.3, 0.4)


@pytest.mark.parametrize(
    ("pairs", "missing"), [([(False, False), (False, True)], "Pass"), ([(True, True)], "Fail")]
)
def test_refuses_when_a_class_is_missing(pairs: list[tuple[bool, bool]], missing: str) -> None:
    with pytest.raises(CalibrationRefused, match=f"labelled {missing}"):
        Confusion.of(pairs).rates()


def test_a_dimension_is_refused_not_guessed() -> None:
    labels = [HumanLabel(f"k{i}", "Ana", "Pass") for i in range(4)]
    verdicts = [JudgeVerdict(f"k{i}", "pass") for i in range(4)]
    report = calibrate_dimension("rubric", labels, verdicts, test_fraction=1.0)
    assert report.refused is not None and "labelled Fail" in report.refused
    assert report.theta is None and report.interval is None
    chance = [HumanLabel("a", "Ana", "Pass"), HumanLabel("b", "Ana", "Fail")]
    flipped = [JudgeVerdict("a", "fail"), JudgeVerdict("b", "pass")]
    report = calibrate_dimension("rubric", chance, flipped, test_fraction=1.0)
    assert report.refused is not None and "<= 1" in report.refused
    assert calibrate_dimension("rubric", chance, [], test_fraction=1.0).refused is not None


# ---- the labels file ---------------------------------------------------------------------------

LABEL = {
    "sample_id": "checkout-101-x",
    "dimension": "rubric",
    "verdict": "Pass",
    "labeller": "Ana",
    "time": "2026-11-29T18:00:00Z",
}


def test_labels_round_trip_in_jsonl_and_yaml(tmp_path: Path) -> None:
    for name in ("labels.jsonl", "labels.yaml"):
        path = tmp_path / name
        first = Label.model_validate(LABEL)
        append_label(path, first)
        append_label(path, first.model_copy(update={"verdict": "Fail", "labeller": "Ben"}))
        labels = read_labels(path)
        assert [(x.labeller, x.verdict) for x in labels] == [("Ana", "Pass"), ("Ben", "Fail")]
        assert labels[0].time.tzinfo is not None


def test_a_bad_label_is_named_by_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    good = json.dumps(LABEL)
    bad_verdict = json.dumps({**LABEL, "verdict": "Maybe"})
    no_name = json.dumps({**LABEL, "labeller": "  "})
    path.write_text(f"{good}\n\n{bad_verdict}\n{no_name}\n{{not json\n")
    with pytest.raises(LabelFileError) as raised:
        read_labels(path)
    assert raised.value.problems == [
        f"{path}:5: (label): not valid JSON: Expecting property name enclosed in double quotes (column 2)"
    ]
    path.write_text(f"{good}\n\n{bad_verdict}\n{no_name}\n")
    with pytest.raises(LabelFileError) as raised:
        read_labels(path)
    assert raised.value.problems[0].startswith(f"{path}:3: verdict: Input should be 'Pass'")
    assert raised.value.problems[1].startswith(f"{path}:4: labeller:")
    yaml_path = tmp_path / "labels.yaml"
    yaml_path.write_text(
        "labels:\n  - sample_id: a\n    dimension: rubric\n    verdict: Pass\n    labeller: Ana\n    time: 2026-11-29T18:00:00Z\n  - sample_id: b\n    dimension: Not A Name\n    verdict: Pass\n    labeller: Ana\n    time: 2026-11-29T18:00:00Z\n"
    )
    with pytest.raises(LabelFileError) as raised:
        read_labels(yaml_path)
    assert raised.value.problems[0].startswith(f"{yaml_path}:7: dimension:")


# ---- the command -------------------------------------------------------------------------------


def write_labels(path: Path, labels: list[HumanLabel]) -> None:
    for label in labels:
        sample_id, epoch = label.key.split("#") if "#" in label.key else (label.key, "1")
        append_label(
            path,
            Label(
                sample_id=sample_id,
                epoch=int(epoch),
                dimension="rubric",
                verdict=label.verdict,  # type: ignore[arg-type]
                labeller=label.labeller,
                time=now(),
                transcript_sha=label.transcript_sha,
            ),
        )


def fake_judged(
    monkeypatch: pytest.MonkeyPatch,
    verdicts: list[JudgeVerdict],
    criterion: str | dict[str, str] = "one-rubric-text",
) -> None:
    """The verdicts as logs hold them; `criterion`, the hash of the rubric text each was judged
    on (one for all, or by sample id)."""
    items = [
        JudgedItem(
            "log",
            v.key,
            1,
            "rubric",
            v.status,
            v.transcript_sha,
            "fp",
            criterion=criterion if isinstance(criterion, str) else criterion[v.key],
        )
        for v in verdicts
    ]
    asked = {item.sample_id: {1: {"rubric"}} for item in items}
    judged = records.JudgedLogs(items, asked)
    monkeypatch.setattr(records, "read_judged_logs", lambda paths: judged)  # read when it runs


def command_verdicts() -> list[JudgeVerdict]:
    """The hand-computed verdicts as a log holds them: calibrate refuses a label naming nothing
    of the logs, so k11 (labelled, no Pass or Fail) is a verdict the judge did not settle."""
    return [*hand_verdicts(), JudgeVerdict("k11", "not_judged", "now")]


def test_calibrate_prints_the_hand_computed_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels = tmp_path / "labels.jsonl"
    write_labels(labels, hand_labels())
    fake_judged(monkeypatch, command_verdicts())
    log = tmp_path / "run.eval"
    log.write_text("")
    result = CliRunner().invoke(
        app,
        ["calibrate", "--labels", str(labels), str(log), "--test-fraction", "1"]
        + ["--min-labels", "10"],
        terminal_width=200,
    )
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines() if line.strip().startswith("│ rubric"))
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    assert cells[1:8] == ["10/0", "0.800", "0.800", "20", "0.700", "0.833", cells[7]]
    assert cells[8] == "3"  # Unknown verdicts, counted and left out
    assert "0.615" in result.output and "Ana / Ben" in result.output
    assert "3 Unknown verdicts, 1 labelled but judged Unknown" in result.output


def test_calibrate_takes_a_folder_of_logs_as_the_other_commands_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels = tmp_path / "labels.jsonl"
    write_labels(labels, hand_labels())
    fake_judged(monkeypatch, command_verdicts())
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "run.eval").write_text("")
    args = ["calibrate", "--labels", str(labels), str(folder), "--test-fraction", "1"]
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "0.615" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    args = ["calibrate", "--labels", str(labels), str(empty)]
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 2 and "no Inspect logs in this folder" in result.output


def test_calibrate_refuses_with_a_clear_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels = tmp_path / "labels.jsonl"
    write_labels(labels, [HumanLabel("a", "Ana", "Pass"), HumanLabel("b", "Ana", "Pass")])
    fake_judged(monkeypatch, [JudgeVerdict("a", "pass", None), JudgeVerdict("b", "fail", None)])
    log = tmp_path / "run.eval"
    log.write_text("")
    result = CliRunner().invoke(
        app,
        ["calibrate", "--labels", str(labels), str(log), "--test-fraction", "1"],
        terminal_width=200,
    )
    assert result.exit_code == 1
    assert "rubric #1: refused: no item a person labelled Fail, so TNR is undefined" in (
        result.output
    )
    assert "rubric #1: the rubric of a and 1 more with the same text" in result.output


def test_calibrate_names_a_bad_labels_file(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({**LABEL, "time": "yesterday"}) + "\n")
    log = tmp_path / "run.eval"
    log.write_text("")
    result = CliRunner().invoke(
        app, ["calibrate", "--labels", str(labels), str(log)], terminal_width=200
    )
    assert result.exit_code == 2
    assert f"{labels}:1: time:" in result.output


# ---- one criterion at a time: each rubric text, or a group a person declares ------------------


def _two_rubrics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Cases x-001 and y-001 with rubrics of different texts: x's judge agrees with Ana on every
    item, y's on none, so pooled they would read as a coin."""
    labels = tmp_path / "labels.jsonl"
    x = [HumanLabel(f"x-001-a~{i}", "Ana", "Pass" if i % 2 else "Fail", "now") for i in range(8)]
    y = [HumanLabel(f"y-001-b~{i}", "Ana", "Pass" if i % 2 else "Fail", "now") for i in range(8)]
    write_labels(labels, x + y)
    verdicts = [JudgeVerdict(h.key, "pass" if h.verdict == "Pass" else "fail", "now") for h in x]
    verdicts += [JudgeVerdict(h.key, "fail" if h.verdict == "Pass" else "pass", "now") for h in y]
    fake_judged(
        monkeypatch,
        verdicts,
        {v.key: ("text-x" if v.key[0] == "x" else "text-y") for v in verdicts},
    )
    log = tmp_path / "run.eval"
    log.write_text("")
    return labels, log


def test_each_rubric_text_is_calibrated_apart_and_too_few_labels_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels, log = _two_rubrics(tmp_path, monkeypatch)
    args = ["calibrate", "--labels", str(labels), str(log), "--test-fraction", "1"]
    result = CliRunner().invoke(app, args, terminal_width=220)
    # the judge of x is right on every item and the judge of y wrong on every one: apart, x's
    # rates are 1.000 and y is refused (TPR + TNR = 0); pooled, both would read 0.5
    assert "rubric #1: the rubric of x-001-a" in result.output
    assert "rubric #2: the rubric of y-001-b" in result.output
    row_x = next(line for line in result.output.splitlines() if "│ rubric #1" in line)
    assert row_x.count("1.000") == 2  # TPR and TNR
    assert "rubric #2: refused: TPR + TNR = 0.000 <= 1" in result.output
    assert (
        "rubric #1: too few labels to trust: 8 labelled item(s) with a judge verdict, "
        "fewer than 20" in result.output
    )
    result = CliRunner().invoke(app, [*args, "--min-labels", "8"], terminal_width=220)
    assert "too few labels" not in result.output


def test_a_declared_group_pools_rubrics_a_person_calls_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels, log = _two_rubrics(tmp_path, monkeypatch)
    groups = tmp_path / "groups.yaml"
    groups.write_text("groups:\n  both: [x-001-*, y-001-b]\n")
    args = ["calibrate", "--labels", str(labels), str(log), "--test-fraction", "1"]
    result = CliRunner().invoke(app, [*args, "--groups", str(groups)], terminal_width=220)
    row = next(line for line in result.output.splitlines() if "│ rubric[both]" in line)
    assert "16/0" in row
    assert "rubric[both]: refused: TPR + TNR = 1.000 <= 1" in result.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("groups:\n  both: x-001-a\n")
    result = CliRunner().invoke(app, [*args, "--groups", str(bad)], terminal_width=220)
    assert result.exit_code == 2 and f"error: {bad}: groups.both:" in result.output
