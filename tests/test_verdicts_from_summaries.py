"""The reports read verdicts from Inspect's sample summaries and open a sample only where its
summary left out what they read: the same results as reading every sample."""

from __future__ import annotations

from commerce_evals.reports import logs
from commerce_evals.reports.frames import sample_frame
from tests.run_pattern_logs import cancelled_log, judged_log, sweep_dir


def by_samples(read: list) -> list:
    return [(path, logs.read_log(path, exclude=logs.TRANSCRIPT_FIELDS)) for path, _ in read]


def every_epoch(read: list) -> list[logs.EpochResult]:
    return [
        epoch
        for run in logs.results_by_model(read).values()
        for case in run.cases.values()
        for epoch in case.epochs
    ]


def read_as_written(log, copy) -> list:  # type: ignore[no-untyped-def]
    """`log` written to `copy` and read by the reports: the same from summaries as from samples."""
    from inspect_ai.log import write_eval_log

    write_eval_log(log, str(copy))
    read = logs.read_logs([copy], case_runs=True)
    assert repr(logs.results_by_model(read)) == repr(logs.results_by_model(by_samples(read)))
    return read


def test_a_sweep_with_failures_reads_the_same_from_summaries_as_from_its_samples() -> None:
    read = logs.read_logs([sweep_dir()], case_runs=True)
    whole = by_samples(read)
    assert logs.results_by_model(read) == logs.results_by_model(whole)
    # a failure's reasons are there in full, not the summary's "removed" note
    failures = [f for epoch in every_epoch(read) for f in epoch.failures]
    assert failures and all(logs.THINNED not in f.reason for f in failures)
    ours, theirs = (
        sample_frame([log for _, log in found]).sort_values(["id", "epoch"]).reset_index(drop=True)
        for found in (read, whole)
    )
    read_columns = [
        c for c in theirs.columns if c.removeprefix("metadata_") not in logs.UNREAD_METADATA
    ]
    assert ours[read_columns].astype(str).equals(theirs[read_columns].astype(str))


def test_an_unfinished_log_reads_its_samples() -> None:
    read = logs.read_logs([cancelled_log()], case_runs=True, latest=False)
    assert logs.results_by_model(read) == logs.results_by_model(by_samples(read))


def epochs(read: list) -> dict:
    """Each model's cases' epoch results (what a report reads, without where the log lies)."""
    return {
        model: {case_id: case.epochs for case_id, case in run.cases.items()}
        for model, run in logs.results_by_model(read).items()
    }


def test_a_json_log_reads_the_same_verdicts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from inspect_ai.log import read_eval_log, write_eval_log

    [(path, _)] = logs.read_logs([sweep_dir()], case_runs=True)[:1]
    copy = tmp_path / "run.json"
    write_eval_log(read_eval_log(str(path)), str(copy), format="json")
    # compared as text: a part not asserted is NaN, and NaN equals no other NaN
    assert repr(epochs(logs.read_logs([copy], case_runs=True))) == repr(
        epochs(logs.read_logs([path], case_runs=True))
    )


def test_a_sample_whose_summary_may_differ_is_read_itself(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """An error with an empty message (no error, read as a truth value) and a text Inspect cuts
    short in the summary: both read from the sample."""
    from inspect_ai.log import (
        EvalError,
        read_eval_log,
        read_eval_log_sample_summaries,
    )

    # a run with no grader bound: every summary holds all a report reads
    log = read_eval_log(str(judged_log(None)))
    assert all(logs._summary_sample(s) for s in read_eval_log_sample_summaries(log.location))
    # two passing samples: their summaries hold all a report reads until they are changed
    passing = [s for s in log.samples or [] if s.scores["commerce_case"].value["passed"] == 1.0]
    passing[0].error = EvalError(message="", traceback="", traceback_ansi="")
    passing[1].metadata = {**passing[1].metadata, "difficulty": "hard " * 400}
    read = read_as_written(log, tmp_path / "run.eval")
    assert "" in [epoch.error for epoch in every_epoch(read)]


def test_an_opened_sample_that_cannot_be_read_is_named(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The samples a report opens are read together; when one of them is cut short, the error
    names that sample, not the batch."""
    import zipfile

    import inspect_ai._util.zipfile  # noqa: F401  (reads Inspect's zstd entries)
    import pytest
    from inspect_ai.log import EvalError, read_eval_log, write_eval_log

    log = read_eval_log(str(judged_log(None)))
    samples = log.samples or []
    for sample in samples[:2]:  # an error: both are opened, not read from their summaries
        sample.error = EvalError(message="", traceback="", traceback_ansi="")
    written = tmp_path / "written.eval"
    write_eval_log(log, str(written))
    cut = f"samples/{samples[1].id}_epoch_1.json"
    copy = tmp_path / "run.eval"
    with zipfile.ZipFile(written) as src, zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == cut:
                data = data[: len(data) // 2]
            info.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(info, data)
    logs.read_logs([written], case_runs=True)  # read whole, the same log reads
    with pytest.raises(logs.LogReadError, match=f"sample {samples[1].id}, epoch 1: .*remove it"):
        logs.read_logs([copy], case_runs=True)


def judged_scores(summary) -> dict:  # type: ignore[no-untyped-def]
    return summary.scores["commerce_case"].metadata or {}


def test_a_judged_run_is_read_from_its_summaries_but_for_a_failed_verdicts_critique(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    """Each verdict is logged under its own key, within what a summary keeps: a judged sample
    is read from its summary, unless a verdict failed (its critique is a failure's reason, and a
    summary collapses and cuts a text). A passing critique too long for a summary, and a failing
    one over several lines, read the same as from the samples."""
    from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries

    passing = read_eval_log_sample_summaries(str(judged_log("commerce/judge")))
    judged = [s for s in passing if any(k.startswith("verdict/") for k in judged_scores(s))]
    assert judged and all(logs._summary_sample(s) for s in judged)
    failing = read_eval_log_sample_summaries(str(judged_log("commerce/judge-fail")))
    failed = [s for s in failing if any(k.startswith("critique/") for k in judged_scores(s))]
    assert failed and not any(logs._summary_sample(s) for s in failed)

    for grader in ("commerce/judge", "commerce/judge-fail"):
        log = read_eval_log(str(judged_log(grader)))
        for sample in log.samples or []:
            metadata = sample.scores["commerce_case"].metadata
            for key in [k for k in metadata if k.startswith("critique/")]:
                metadata[key] = "first line\n  then " + "a long critique " * 100
        read = read_as_written(log, tmp_path / f"{grader.split('/')[-1]}.eval")
        reasons = [f.reason for e in every_epoch(read) for f in e.failures if f.part == "rubric"]
        assert all(r.startswith("first line\n  then a long") for r in reasons)
        assert bool(reasons) is (grader == "commerce/judge-fail")
