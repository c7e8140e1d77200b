"""Verdicts and runs read back from Inspect logs, for calibration and labelling."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.scorer import Score
from inspect_ai.util import Store

from commerce_evals.agent import RunRecord
from commerce_evals.cases import Case
from commerce_evals.events import Run
from commerce_evals.judging.prompt import judge_key

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

    @property
    def key(self) -> tuple[str, int]:
        return (self.sample_id, self.epoch)


def read_log(path: Path | str) -> EvalLog:
    log = read_eval_log(str(path))
    if log.samples is None:
        raise ValueError(f"{path}: the log holds no samples (was it run with --no-log-samples?)")
    return log


def case_score(sample: EvalSample) -> Score | None:
    """The commerce_case score of a sample (the last one when a re-score appended another)."""
    scores = sample.scores or {}
    names = [n for n in scores if n == SCORER or n.startswith(f"{SCORER}-")]
    return scores[names[-1]] if names else None


def judged_items(log: EvalLog, path: str = "") -> Iterator[JudgedItem]:
    for sample in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch)):
        score = case_score(sample)
        judge = (score.metadata or {}).get("judge") if score else None
        if not judge:
            continue
        for verdict in judge.get("verdicts", []):
            yield JudgedItem(
                log=path,
                sample_id=str(sample.id),
                epoch=sample.epoch,
                dimension=verdict["dimension"],
                status=verdict["status"],
                transcript_sha=judge.get("transcript_sha"),
                fingerprint=verdict.get("fingerprint"),
                judge=judge_key(verdict),
            )


def read_judged(paths: list[Path]) -> list[JudgedItem]:
    return [item for path in paths for item in judged_items(read_log(path), str(path))]


def sample_run(sample: EvalSample) -> Run | None:
    return RunRecord(store=Store(sample.store)).run


def sample_case(sample: EvalSample) -> Case:
    return Case.model_validate((sample.metadata or {})["case"])
