"""Reading runs back from Inspect logs: the one place diff, gate, compare and trends load them.

A location is a log file or a folder of logs (searched recursively), as a local path or as any
URL Inspect reads logs from (`s3://bucket/prefix`, through fsspec and s3fs). In a folder, a task
run more than once for the same model and arguments (an eval-set retry, a re-run) counts once:
the newest log that finished, else the newest. The shards of one sweep (`-T shard=i/n`: logs of
the same task, model and arguments but the shard) are parts of one run: their cases are merged,
and the run is complete only when every shard's log is (`shard_gaps`). Samples are read in
(id, epoch) order, since Inspect writes them in completion order.

A case's result in a run is its epochs' verdicts from the `commerce_case` scorer. An epoch is
passed, failed, needs review (the judge left a rubric or dimension unsettled and no code part
failed: not a pass, not a fail), or unscored (a skipped case, no recorded run, or a sample error:
the provider's fault, kept apart from the agent's). Across epochs a case is `pass` (every scored
epoch passed: pass^k), `fail` (none did), `flaky` (the epochs disagree), `needs_review` (no epoch
failed and some need a person), `error` (no verdict, only sample errors) or `unscored` (skipped).

Each log's status and sample count are read too (`completeness`): a cancelled, errored or partial
log is named as such by every report, never read as a finished run.
"""

from __future__ import annotations

import gc
import json
import logging
import math
import os
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import fsspec
from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleSummary,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample,
    read_eval_log_sample_summaries,
    read_eval_log_samples_by_id,
)

from commerce_evals.cases.errors import InputError
from commerce_evals.grading.parts import PARTS as PARTS
from commerce_evals.grading.score_metadata import (
    CRITIQUE_PREFIX,
    VERDICT_PREFIX,
    ScoreMetadata,
    VerdictRecord,
)
from commerce_evals.harness.shards import Shard
from commerce_evals.reports.set_spec import CaseInfo, Priority

SCORER = "commerce_case"
# the scorers whose verdicts the reports read: a flow's, and the production task's judges
VERDICT_SCORERS = (SCORER, "production_judges")
PRIORITIES: tuple[Priority, ...] = ("critical", "high", "medium", "low")
Status = Literal["pass", "fail", "flaky", "needs_review", "error", "unscored"]


class LogReadError(InputError):
    """Paths that hold no logs, or logs that cannot be read as one run."""


@dataclass(frozen=True)
class Failure:
    """Why a key failed: a code grader's reason, or a judge's critique for a rubric dimension."""

    key: str
    part: str
    reason: str


@dataclass(frozen=True)
class EpochResult:
    epoch: int
    passed: bool | None  # None: unscored (skipped, no run, or a sample error)
    parts: dict[str, float] = field(default_factory=dict)
    failed_keys: tuple[str, ...] = ()
    failures: tuple[Failure, ...] = ()
    verdicts: tuple[VerdictRecord, ...] = ()
    error: str | None = None
    skipped: bool = False
    needs_review: bool = False  # the judge left an asserted rubric unsettled: not pass, not fail
    passed_code: bool | None = None  # the code-graded parts alone (None: none asserted or unscored)
    calls_made: int | None = None  # the run's tool calls, turn-ending ones left out


@dataclass
class CaseResult:
    id: str
    flow: str
    priority: str
    difficulty: str
    tags: tuple[str, ...]
    task: str
    log: str
    epochs: list[EpochResult] = field(default_factory=list)
    # priority or difficulty that a seed-format task did not carry and took a default for
    defaulted: tuple[str, ...] = ()

    @property
    def info(self) -> CaseInfo:
        return CaseInfo(self.id, self.flow, self.priority, self.tags)

    @property
    def bits(self) -> list[bool]:
        return [e.passed for e in self.epochs if e.passed is not None]

    @property
    def status(self) -> Status:
        bits = self.bits
        if bits and not all(bits):
            return "flaky" if any(bits) else "fail"
        if self.reviews:
            return "needs_review"
        if bits:
            return "pass"
        return "error" if self.errors else "unscored"

    @property
    def reviews(self) -> int:
        """Epochs that need a person (the judge did not settle the rubric)."""
        return sum(e.needs_review for e in self.epochs)

    @property
    def skipped(self) -> bool:
        return bool(self.epochs) and all(e.skipped for e in self.epochs)

    @property
    def errors(self) -> int:
        return sum(e.error is not None for e in self.epochs)

    @property
    def passes(self) -> int:
        return sum(self.bits)

    def failures(self) -> list[Failure]:
        """Each distinct failure over the epochs that failed, in key order of first appearance."""
        seen: dict[tuple[str, str], Failure] = {}
        for epoch in self.epochs:
            if epoch.passed is False:
                for failure in epoch.failures:
                    seen.setdefault((failure.key, failure.reason), failure)
        return list(seen.values())

    def failed_keys(self) -> list[str]:
        keys: dict[str, None] = {}
        for epoch in self.epochs:
            if epoch.passed is False:
                keys.update(dict.fromkeys(epoch.failed_keys))
        return list(keys)


@dataclass(frozen=True)
class Completeness:
    """How much of a log's planned run is in it: its status and its samples."""

    status: str  # Inspect's: success, cancelled, error, started
    expected: int  # samples planned (dataset samples x epochs)
    present: int  # samples in the log

    @property
    def partial(self) -> bool:
        return self.status != "success" or self.present < self.expected

    def describe(self) -> str:
        state = self.status if self.status != "success" else "incomplete"
        return f"{state}, {self.present} of {self.expected} samples"


@dataclass(frozen=True)
class LogInfo:
    path: str
    task: str
    model: str
    grader: str | None
    epochs: int
    set: str | None
    created: str
    status: str
    task_args: dict[str, Any]
    completeness: Completeness | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # the model bound to the customer role (a simulated customer); None: the scripted customer
    customer: str | None = None

    @property
    def partial(self) -> bool:
        return self.completeness is not None and self.completeness.partial

    @property
    def judge_off(self) -> bool:
        """Run code-only on purpose (`-T judge=off`)."""
        return self.metadata.get("judge") == "off"


@dataclass
class RunResults:
    """One model's cases over one or more logs (one log per flow in a set run or a sweep)."""

    model: str
    logs: list[LogInfo]
    cases: dict[str, CaseResult]

    @property
    def epochs(self) -> int:
        return max((log.epochs for log in self.logs), default=1)

    @property
    def sets(self) -> list[str]:
        return sorted({log.set for log in self.logs if log.set})

    @property
    def partial_logs(self) -> list[LogInfo]:
        return [log for log in self.logs if log.partial]

    def partial_notes(self) -> list[str]:
        """One line per log that is not a finished, complete run, and per sharded run with a
        shard missing (not run, or not in these logs)."""
        return [
            *(
                f"{log.task}: {log.completeness.describe()} ({log.path})"
                for log in self.partial_logs
                if log.completeness is not None
            ),
            *shard_gaps(self.logs),
        ]

    @property
    def partial(self) -> bool:
        return bool(self.partial_notes())

    @property
    def judge_off(self) -> bool:
        return any(log.judge_off for log in self.logs)

    def review_ids(self) -> list[str]:
        return [case.id for case in self.cases.values() if case.status == "needs_review"]


def shard_gaps(logs: Sequence[LogInfo]) -> list[str]:
    """One line per sharded run (same task, model and arguments but the shard) with a shard that
    holds samples but has no log here, or whose logs are of different splits. Each shard's own
    log is checked like any other (`Completeness`)."""
    groups: dict[str, list[tuple[Shard, LogInfo]]] = defaultdict(list)
    for log in logs:
        try:
            shard = Shard.parse(log.metadata["shard"]) if log.metadata.get("shard") else None
        except ValueError:  # not written by this package's tasks: an ordinary log
            shard = None
        if shard is not None:
            args = {k: v for k, v in log.task_args.items() if k != "shard"}
            key = json.dumps([log.task, log.model, args], sort_keys=True, default=str)
            groups[key].append((shard, log))
    notes = []
    for parts in groups.values():
        shards = {shard for shard, _ in parts}
        counts = sorted({shard.count for shard in shards})
        first = parts[0][1]
        task = str(first.task_args.get("flow") or first.task)
        if len(counts) > 1:
            splits = ", ".join(f"{c} shards" for c in counts)
            notes.append(f"{task}: logs of different splits ({splits}); run one split")
            continue
        sizes = list(first.metadata.get("shard_sizes") or [])
        sizes += [1] * (counts[0] - len(sizes))  # sizes not recorded: every shard expected
        present = {shard.index for shard in shards}
        missing = [i for i in range(1, counts[0] + 1) if i not in present and sizes[i - 1] > 0]
        if missing:
            shown = ", ".join(f"{i}/{counts[0]} ({sizes[i - 1]} samples)" for i in missing)
            notes.append(f"{task}: sharded run missing shard {shown}; run it or add its logs")
    return notes


Location = str  # a local path or a URL Inspect reads logs from (s3://bucket/prefix)


def is_url(location: str) -> bool:
    return "://" in location and not location.startswith("file://")


def local_folder(location: Path | str) -> Path:
    """Where a report about logs at `location` goes by default: the folder itself, the log's
    folder, or the current folder for logs at a URL (a report is not written to a bucket)."""
    text = os.fspath(location)
    if is_url(text):
        return Path.cwd()
    path = Path(text.removeprefix("file://"))
    return path if path.is_dir() else path.parent


def _remote_files(location: str) -> list[str]:
    """Log files at a URL: the file itself, or every log under the folder (Inspect's listing)."""
    try:
        fs, root = fsspec.core.url_to_fs(location)
        if fs.isfile(root):
            return [location]
        if not fs.isdir(root):
            raise LogReadError(f"{location}: no such log file or folder")
        found = [info.name for info in list_eval_logs(location)]
    except LogReadError:
        raise
    except Exception as err:  # fsspec and s3fs raise many kinds (credentials, endpoint, bucket)
        detail = " ".join(str(err).split())[:200] or type(err).__name__
        raise LogReadError(f"{location}: cannot list logs there ({detail})") from err
    if not found:
        raise LogReadError(f"{location}: no Inspect logs in this folder")
    return sorted(found)


def log_files(paths: Sequence[Path | str]) -> list[Location]:
    """Every log file named or under a named folder or URL; a location with no log is an error."""
    files: list[Location] = []
    for raw in paths:
        text = os.fspath(raw)
        if is_url(text):
            files.extend(_remote_files(text))
            continue
        path = Path(text.removeprefix("file://"))
        if path.is_dir():
            found = [info.name.removeprefix("file://") for info in list_eval_logs(str(path))]
            if not found:
                raise LogReadError(f"{path}: no Inspect logs in this folder")
            files.extend(sorted(found))
        elif path.is_file():
            files.append(str(path))
        else:
            raise LogReadError(f"{path}: no such log file or folder")
    return list(dict.fromkeys(files))


def same_location(first: str, second: str) -> bool:
    """Whether two log arguments name one file or folder (one URL, or one local path however
    written: relative, absolute, through a symbolic link)."""
    if is_url(first) or is_url(second):
        return first.rstrip("/") == second.rstrip("/")
    one, other = (Path(p.removeprefix("file://")) for p in (first, second))
    try:
        return one.exists() and other.exists() and one.samefile(other)
    except OSError:
        return False


def scorer_names(log: EvalLog) -> set[str]:
    """The scorers a log's task declared (its header), else those its results name."""
    declared = {s.name for s in log.eval.scorers or []}
    reported = {s.name for s in (log.results.scores if log.results else [])}
    return {name.rsplit("/", 1)[-1] for name in declared | reported}


def check_verdicts(path: Path | Location, log: EvalLog, scorers: Sequence[str]) -> None:
    """A log this project's reports can read: its task was scored by one of `scorers`. A log of
    another task holds no verdict of ours, and reading it would report "nothing failed"."""
    names = scorer_names(log)
    if names & set(scorers):
        return
    scored = f"scored by {', '.join(sorted(names))}" if names else "no scorer"
    raise LogReadError(
        f"{path}: a log of task {log.eval.task!r} ({scored}) holds no commerce-evals verdict; "
        f"give logs of the tasks scored by {' or '.join(scorers)}"
    )


def check_case_runs(path: Path | Location, log: EvalLog) -> None:
    """A log of the cases themselves, not of their scripted variants: a counterexample is a bad
    run written to fail (an alternative, a good one written to pass), so a gate, a diff or a rate
    over them says nothing about an agent."""
    metadata = log.eval.metadata or {}
    for variant in ("counterexamples", "alternatives"):
        if metadata.get(variant, log.eval.task_args.get(variant)) in (True, "true", "True"):
            raise LogReadError(
                f"{path}: a log of the {variant} of {log.eval.task}'s cases (-T {variant}=true): "
                "scripted runs written to "
                + ("fail" if variant == "counterexamples" else "pass")
                + ", not an agent's; give logs of runs of the cases (without -T "
                f"{variant})"
            )


def _run_key(log: EvalLog) -> str:
    """What makes logs the same run: a run with a simulated customer is another run."""
    spec = log.eval
    parts = [spec.task, spec.model, spec.task_args, spec.model_args]
    customer = _role_model(log, "customer")
    return json.dumps(parts + [customer] if customer else parts, sort_keys=True, default=str)


def latest_per_run(logs: list[tuple[Location, EvalLog]]) -> list[tuple[Location, EvalLog]]:
    """The newest finished log of each (task, model, arguments, customer model), else the newest
    of any status.
    Shards differ in their arguments, so each shard of a sweep keeps its own newest log."""
    groups: dict[str, list[tuple[Location, EvalLog]]] = defaultdict(list)
    for item in logs:
        groups[_run_key(item[1])].append(item)
    kept = []
    for items in groups.values():
        items.sort(key=lambda item: item[1].eval.created)
        finished = [item for item in items if item[1].status == "success"]
        kept.append((finished or items)[-1])
    return sorted(kept, key=lambda item: (item[1].eval.model, item[1].eval.task, str(item[0])))


# What a report of verdicts does not read of a sample: the transcript, the store and the output
# are most of a sample's bytes and none of its verdict (id, epoch, metadata, scores, error and
# usage are what the reports read). Inspect skips them while parsing (`exclude_fields`).
TRANSCRIPT_FIELDS = frozenset({"messages", "events", "store", "attachments", "output"})


def read_log(
    path: Path | Location, header_only: bool = False, exclude: frozenset[str] = frozenset()
) -> EvalLog:
    """One log, local or at a URL, without the sample fields in `exclude`; a file that is not a
    readable Inspect log (zero bytes, truncated, corrupt, another kind of file, no permission)
    is a LogReadError naming it, never a traceback."""
    try:
        return read_eval_log(
            os.fspath(path), header_only=header_only, exclude_fields=set(exclude) or None
        )
    except Exception as err:  # Inspect raises many kinds (zip, JSON, pydantic, OS errors)
        detail = " ".join(str(err).split())[:200] or type(err).__name__
        local = None if is_url(os.fspath(path)) else Path(path)
        if local is not None and local.is_file() and local.stat().st_size == 0:
            detail = "the file is empty"
        raise LogReadError(
            f"{path}: not a readable Inspect log ({detail}); re-run it or remove it"
        ) from err


def read_logs(
    paths: Sequence[Path | str],
    latest: bool = True,
    scorers: Sequence[str] = VERDICT_SCORERS,
    case_runs: bool = False,
    whole: bool = False,
) -> list[tuple[Location, EvalLog]]:
    """Logs with their samples' verdicts (`whole`: with their transcripts and stores too); with
    `latest`, one per (task, model, arguments). Every log must be of a task scored by one of
    `scorers` (check_verdicts), and with `case_runs` a run of the cases themselves
    (check_case_runs: the reports over an agent's runs)."""
    files = log_files(paths)
    headers = [(path, read_log(path, header_only=True)) for path in files]
    for path, header in headers:
        check_verdicts(path, header, scorers)
        if case_runs:
            check_case_runs(path, header)
    if latest:
        headers = latest_per_run(headers)
    if whole:
        return [(path, read_log(path)) for path, _ in headers]
    return [(path, _with_verdict_samples(path, header)) for path, header in headers]


# Where Inspect's sample summaries leave out a value over 1 KB, they say so with this text.
THINNED = "Key removed from summary (> 1k)"
# The sample metadata no verdict report reads (the case's dump, its oracles): left out of a
# summary without loss.
UNREAD_METADATA = frozenset({"case", "oracle_changes", "oracle_writes", "known_bad_replies"})


def _with_verdict_samples(path: Path | Location, header: EvalLog) -> EvalLog:
    """The log with its samples' verdicts, read from Inspect's sample summaries (one small file
    per log) wherever a summary holds everything a report reads, and from the sample itself,
    without its transcript, where it does not (a failure's reasons over 1 KB, an error, a limit).
    A log whose summaries cannot be read is read sample by sample, as is a `.json` log (one
    document: a sample is read by reading all of it). A sample that is not opened is not read at
    all, so damage to its entry alone goes unseen here (its verdict is in its summary); `inspect
    view` or a report that reads transcripts (judge records, notes) names it."""
    if not os.fspath(path).endswith(".eval"):
        return read_log(path, exclude=TRANSCRIPT_FIELDS)
    try:
        summaries = read_eval_log_sample_summaries(os.fspath(path))
    except Exception:  # an unfinished or older log: the samples themselves
        return read_log(path, exclude=TRANSCRIPT_FIELDS)
    samples = [_summary_sample(summary) for summary in summaries]
    missing = [
        (s.id, s.epoch) for s, sample in zip(summaries, samples, strict=True) if sample is None
    ]
    if missing:
        found = iter(_open_samples(path, missing))
        samples = [next(found) if sample is None else sample for sample in samples]
    return header.model_copy(update={"samples": samples})


def _open_samples(path: Path | Location, keys: list[tuple[int | str, int]]) -> list[EvalSample]:
    """The samples named, without their transcripts, read together (the zip's directory is
    parsed once, not once a sample). When one cannot be read, the error names it."""
    location = os.fspath(path)
    asyncio_log = logging.getLogger("asyncio")
    level = asyncio_log.level
    # a sample that fails to parse leaves Inspect's other reads cancelled, which asyncio reports
    # as "Task exception was never retrieved": noise beside the error below
    asyncio_log.setLevel(logging.CRITICAL)
    try:
        return read_eval_log_samples_by_id(location, keys, exclude_fields=set(TRANSCRIPT_FIELDS))
    except Exception as err:
        batch = err
        gc.collect()  # the abandoned tasks are reported when collected: while the log is quiet
    finally:
        asyncio_log.setLevel(level)
    for id, epoch in keys:  # which one: read them one by one
        try:
            read_eval_log_sample(
                location, id=id, epoch=epoch, exclude_fields=set(TRANSCRIPT_FIELDS)
            )
        except Exception as err:
            raise _unreadable(path, f"sample {id}, epoch {epoch}", err) from err
    raise _unreadable(path, f"{len(keys)} samples", batch) from batch


def _unreadable(path: Path | Location, where: str, err: Exception) -> LogReadError:
    detail = " ".join(str(err).split())[:200] or type(err).__name__
    return LogReadError(
        f"{path}: not a readable Inspect log ({where}: {detail}); re-run it or remove it"
    )


def _thinned(value: Any) -> bool:
    """Whether a summary's value may not be the sample's: left out, or a text cut short (Inspect
    shortens a text to about 1,000 characters and ends it with "...")."""
    return (
        value == THINNED or isinstance(value, str) and (len(value) >= 900 or value.endswith("..."))
    )


def _summary_sample(summary: EvalSampleSummary) -> EvalSample | None:
    """The sample as a verdict report reads it, when its summary holds all of that: finished,
    no error, limit or retry, and no score field or read metadata left out for its size."""
    if not summary.completed or summary.error is not None or summary.limit or summary.retries:
        return None
    metadata = summary.metadata or {}
    if any(_thinned(v) for k, v in metadata.items() if k not in UNREAD_METADATA):
        return None
    scores = {}
    for name, score in (summary.scores or {}).items():
        kept = _verdict_reading(score.metadata or {})
        if kept is None or _thinned(score.reason) or any(_thinned(v) for v in kept.values()):
            return None
        scores[name] = score.model_copy(update={"metadata": kept})
    return EvalSample(
        id=summary.id,
        epoch=summary.epoch,
        input=summary.input,
        target=summary.target,
        metadata={k: v for k, v in metadata.items() if v != THINNED},
        scores=scores,
        model_usage=summary.model_usage,
        role_usage=summary.role_usage,
        started_at=summary.started_at,
        completed_at=summary.completed_at,
        total_time=summary.total_time,
        working_time=summary.working_time,
        uuid=summary.uuid,
        turn_count=summary.turn_count,
        error_retries=[] if summary.retries == 0 else None,
    )


def _verdict_reading(metadata: dict[str, Any]) -> dict[str, Any] | None:
    """A summary's score metadata as the reports read it: the critiques of verdicts that did
    not fail left out (no report shows them: EpochResult drops them too); None when a failed
    verdict has a critique, which is a failure's reason and must be read whole from the sample
    (a summary collapses a text's white space, and cuts it at 1,000 characters)."""
    kept = {}
    for name, value in metadata.items():
        if name.startswith(CRITIQUE_PREFIX):
            verdict = metadata.get(VERDICT_PREFIX + name.removeprefix(CRITIQUE_PREFIX))
            if not isinstance(verdict, dict) or verdict.get("status") == "fail":
                return None
            continue
        kept[name] = value
    return kept


def reported_verdict(verdict: VerdictRecord) -> VerdictRecord:
    """A verdict as a report keeps it: its critique only where it is a failure's reason."""
    return verdict if verdict.status == "fail" else verdict.model_copy(update={"critique": ""})


def sorted_samples(log: EvalLog) -> list[EvalSample]:
    return sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch))


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _failures(metadata: ScoreMetadata) -> tuple[Failure, ...]:
    failures = [Failure(g.key, g.part, g.reason) for g in metadata.failed_grades()]
    for verdict in metadata.verdicts:
        if verdict.status == "fail":
            dimension = verdict.dimension
            key = "rubric" if dimension == "rubric" else f"dimensions/{dimension}"
            failures.append(Failure(key, "rubric", verdict.critique or "judge: Fail"))
    return tuple(failures)


def epoch_result(sample: EvalSample, scorer: str = SCORER) -> EpochResult:
    score = (sample.scores or {}).get(scorer)
    error = sample.error.message if sample.error else None
    if score is None:
        return EpochResult(sample.epoch, None, error=error or f"no {scorer} score")
    value = score.value
    metadata = ScoreMetadata.of_sample(sample, scorer)
    verdicts = tuple(reported_verdict(v) for v in metadata.verdicts)
    if not isinstance(value, dict) or _is_nan(value.get("passed", math.nan)):
        return EpochResult(
            sample.epoch,
            None,
            verdicts=verdicts,
            error=error,
            skipped=score.reason == "skipped",
        )
    parts: dict[str, float] = {part: float(value[part]) for part in PARTS if part in value}
    code = value.get("passed_code")
    passed_code = None if code is None or _is_nan(code) else float(code) == 1.0
    if float(value.get("needs_review", 0.0)) == 1.0:
        return EpochResult(
            sample.epoch,
            None,
            parts=parts,
            verdicts=verdicts,
            error=error,
            needs_review=True,
            passed_code=passed_code,
            calls_made=metadata.calls_made,
        )
    return EpochResult(
        sample.epoch,
        float(value["passed"]) == 1.0,
        parts=parts,
        failed_keys=metadata.failed_keys,
        failures=_failures(metadata),
        verdicts=verdicts,
        error=error,
        passed_code=passed_code,
        calls_made=metadata.calls_made,
    )


def _grader(log: EvalLog) -> str | None:
    return _role_model(log, "grader")


def _role_model(log: EvalLog, role: str) -> str | None:
    roles = log.eval.model_roles or {}
    bound = roles.get(role)
    if isinstance(bound, list):
        bound = bound[0] if bound else None
    return bound.model if bound is not None else None


def agent_label(metadata: dict[str, Any] | None) -> str | None:
    """The agent a log's run was made by, when not the flows' built-in one: an Inspect agent
    (`-T agent=`) or the agent of recorded runs (`-T recorded=`). None: the built-in agent (and
    logs written before agents could be swapped)."""
    agent = (metadata or {}).get("agent_under_test")
    return str(agent) if agent and agent != "built-in" else None


def run_key(model: str, customer: str | None, agent: str | None = None) -> str:
    """How reports name a run: the agent's model, with the agent when it is not the built-in
    one and the customer model when one played the customer (a simulated customer), so runs of
    one model by two agents, or with a scripted and a simulated customer, stand side by side
    instead of merging."""
    marks = [f"agent: {agent}"] if agent else []
    marks += [f"customer: {customer}"] if customer else []
    return f"{model} ({'; '.join(marks)})" if marks else model


def completeness(log: EvalLog) -> Completeness:
    """A log's status and how many of its planned samples it holds."""
    spec = log.eval
    epochs = spec.config.epochs or 1
    planned = len(spec.dataset.sample_ids or []) or (spec.dataset.samples or 0)
    if spec.config.limit is not None and isinstance(spec.config.limit, int):
        planned = min(planned, spec.config.limit)
    present = len(log.samples or [])
    if log.results is not None and log.results.total_samples:
        planned = max(planned * epochs, log.results.total_samples)
    else:
        planned *= epochs
    return Completeness(status=log.status, expected=planned, present=present)


def log_info(path: Path | Location, log: EvalLog) -> LogInfo:
    spec = log.eval
    return LogInfo(
        path=str(path),
        task=spec.task,
        model=spec.model,
        grader=_grader(log),
        customer=_role_model(log, "customer"),
        epochs=spec.config.epochs or 1,
        set=(spec.metadata or {}).get("set") or (spec.task_args or {}).get("set"),
        created=spec.created,
        status=log.status,
        task_args=dict(spec.task_args or {}),
        completeness=completeness(log),
        metadata=dict(spec.metadata or {}),
    )


def case_results(
    path: Path | Location, log: EvalLog, scorer: str = SCORER
) -> dict[str, CaseResult]:
    cases: dict[str, CaseResult] = {}
    for sample in sorted_samples(log):
        sample_id = str(sample.id)
        meta = sample.metadata or {}
        if sample_id not in cases:
            info = CaseInfo.from_metadata(sample_id, meta)
            cases[sample_id] = CaseResult(
                id=sample_id,
                flow=info.flow,
                priority=info.priority,
                difficulty=str(meta.get("difficulty", "")),
                tags=info.tags,
                task=log.eval.task,
                log=str(path),
                defaulted=tuple(str(d) for d in meta.get("defaulted") or ()),
            )
        cases[sample_id].epochs.append(epoch_result(sample, scorer))
    return cases


def results_by_model(logs: Sequence[tuple[Path | Location, EvalLog]]) -> dict[str, RunResults]:
    """Each model's run: its logs' cases merged (a sweep's shards, a set's flows; a case id in
    two logs: the newer log wins)."""
    runs: dict[str, RunResults] = {}
    for path, log in sorted(logs, key=lambda item: item[1].eval.created):
        key = run_key(log.eval.model, _role_model(log, "customer"), agent_label(log.eval.metadata))
        run = runs.setdefault(key, RunResults(key, [], {}))
        run.logs.append(log_info(path, log))
        run.cases.update(case_results(path, log))
    for run in runs.values():
        run.cases = dict(sorted(run.cases.items()))
    return dict(sorted(runs.items()))


def load_run(
    paths: Sequence[Path | str], model: str | None = None, flag: str = "--model"
) -> RunResults:
    """One run (one model) from log files or folders; `model` picks one out of a sweep, and
    `flag` is the command's option that does so (named when the logs hold several models)."""
    runs = results_by_model(read_logs(paths, scorers=(SCORER,), case_runs=True))
    where = ", ".join(str(p) for p in paths)
    if model is not None:
        if model not in runs:
            raise LogReadError(f"{where}: no log of model {model!r}; models: {sorted(runs)}")
        return runs[model]
    if len(runs) != 1:
        raise LogReadError(
            f"{where}: logs of {len(runs)} models ({', '.join(runs)}); pick one with {flag}"
        )
    return next(iter(runs.values()))


def load_runs(paths: Sequence[Path | str]) -> dict[str, RunResults]:
    """Every model's run in the logs (a sweep)."""
    return results_by_model(read_logs(paths, case_runs=True))
