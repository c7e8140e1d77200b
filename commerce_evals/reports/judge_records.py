"""Verdicts and runs read back from Inspect logs, for calibration and labelling."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.scorer import Score

from commerce_evals.cases.model import Case
from commerce_evals.core.events import Run
from commerce_evals.grading.score_metadata import ScoreMetadata
from commerce_evals.judging.prompt import judge_key
from commerce_evals.reports.logs import LogReadError, read_logs
from commerce_evals.reports.logs import read_log as read_any_log
from commerce_evals.scoring.run_record import logged_run

SCORER = "commerce_case"


@dataclass(frozen=True)
class JudgedItem:
    """One dimension's verdict on one sample (one epoch) of one log."""

    log: str
    sample_id: str
    epoch: int
    dimension: str
    status: str  # pass, fail, unknown, judge_failed, not_judged
    transcript_sha: str | None
    fingerprint: str | None
    judge: str = ""  # judging.prompt.judge_key: verdicts of different judges are never pooled
    criterion: str | None = None  # a hash of the text the judge read (a rubric differs per case)

    @property
    def key(self) -> tuple[str, int]:
        return (self.sample_id, self.epoch)


def _with_samples(path: Path | str, log: EvalLog) -> EvalLog:
    if log.samples is None:
        raise LogReadError(f"{path}: the log holds no samples (was it run with --no-log-samples?)")
    return log


def read_log(path: Path | str) -> EvalLog:
    """One log (a local path or a URL) with its samples."""
    return _with_samples(path, read_any_log(path))


def read_sample_logs(locations: Sequence[Path | str]) -> list[tuple[str, EvalLog]]:
    """Every log named or under a named folder or URL (one per task, model and arguments, so a
    sweep's shards are all read), each with its samples."""
    return [(path, _with_samples(path, log)) for path, log in read_logs(locations, whole=True)]


def case_score(sample: EvalSample) -> Score | None:
    """The commerce_case score of a sample (the last one when a re-score appended another)."""
    scores = sample.scores or {}
    names = [n for n in scores if n == SCORER or n.startswith(f"{SCORER}-")]
    return scores[names[-1]] if names else None


def judged_items(log: EvalLog, path: str = "") -> Iterator[JudgedItem]:
    for sample in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch)):
        score = case_score(sample)
        judge = ScoreMetadata.from_score(score).judge
        if judge is None:
            continue
        for verdict in judge.verdicts:
            yield JudgedItem(
                log=path,
                sample_id=str(sample.id),
                epoch=sample.epoch,
                dimension=verdict.dimension,
                status=verdict.status,
                transcript_sha=judge.transcript_sha,
                fingerprint=verdict.fingerprint,
                judge=judge_key(verdict),
                criterion=verdict.dimension_sha,
            )


def read_judged(paths: Sequence[Path | str]) -> list[JudgedItem]:
    """Every verdict in the logs (files, folders or URLs; a sweep's shards together)."""
    return read_judged_logs(paths).items


@dataclass(frozen=True)
class JudgedLogs:
    """Every verdict in some logs, and what the judge was asked on each run of them."""

    items: list[JudgedItem]
    # sample id -> epoch -> dimensions the judge was asked about (empty: none, or no judge record)
    asked: dict[str, dict[int, set[str]]]


def read_judged_logs(paths: Sequence[Path | str]) -> JudgedLogs:
    items: list[JudgedItem] = []
    asked: dict[str, dict[int, set[str]]] = {}
    for path, log in read_sample_logs(paths):
        for sample in log.samples or []:
            asked.setdefault(str(sample.id), {}).setdefault(sample.epoch, set())
        for item in judged_items(log, path):
            items.append(item)
            asked[item.sample_id][item.epoch].add(item.dimension)
    return JudgedLogs(items, asked)


def sample_run(sample: EvalSample) -> Run | None:
    return logged_run(sample.store)


def sample_case(sample: EvalSample) -> Case:
    return Case.model_validate((sample.metadata or {})["case"])
