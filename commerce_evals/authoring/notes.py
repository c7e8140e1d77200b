"""Notes on runs (seed 003, step 3): one note per failure, written by a person, kept beside the log.

`commerce-evals notes LOG` writes `LOG.notes.jsonl`, one note a line:

    {"log": "logs/run.eval", "run_id": "Xc3...", "sample_id": "support-014-...", "epoch": 1,
     "transcript_sha": "389e57b6b2dfb9be", "passed": false, "failed_keys": ["never_calls"],
     "failed_dimensions": [], "note": "refunded a clearance item", "author": "Ana",
     "time": "2026-11-30T18:02:11+00:00"}

`transcript_sha` ties the note to the exact run it was written about. A note on a run that passed is
a failure no grader caught. A `production` log's judged conversations are runs like a flow's: a
real failure noted there becomes a case by `draft failure` (seed 003: "If you have real users,
start from real transcripts instead").
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from inspect_ai.log import EvalSample
from pydantic import Field, ValidationError, field_validator

from commerce_evals.authoring.skeletons import case_id
from commerce_evals.cases.model import Case
from commerce_evals.cases.reading import ReadError, parse_json, read_text
from commerce_evals.core.events import Run
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.core.strict import Strict
from commerce_evals.grading.score_metadata import ProductionScoreMetadata, ScoreMetadata
from commerce_evals.judging.prompt import sha
from commerce_evals.reports.judge_records import case_score, read_log, sample_case, sample_run
from commerce_evals.reports.traffic import Conversation


class Note(Strict):
    log: str
    run_id: str
    sample_id: str = Field(min_length=1)
    epoch: int = Field(default=1, ge=1)
    transcript_sha: str
    passed: bool
    failed_keys: list[str] = Field(default_factory=list)
    failed_dimensions: list[str] = Field(default_factory=list)
    note: str = Field(min_length=1)
    author: str = Field(min_length=1)
    time: datetime

    @field_validator("note", "author")
    @classmethod
    def _words(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("must not be blank")
        return value

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.log, self.sample_id, self.epoch)


class NotesFileError(ValueError):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def notes_path(log: Path | str) -> Path:
    """Where a log's notes live: beside it (a log read from a URL keeps its notes locally)."""
    log = Path(str(log).removeprefix("file://"))
    return log.with_name(log.name + ".notes.jsonl")


def read_notes(path: Path) -> list[Note]:
    """Every note in a notes file (none when it does not exist); problems name file, line, field."""
    if not path.exists():
        return []
    notes: list[Note] = []
    problems: list[str] = []
    try:
        text = read_text(path, what="notes file")
    except ReadError as err:
        raise NotesFileError(err.problems) from err
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            notes.append(Note.model_validate(parse_json(line, f"{path}:{number}: (note)")))
        except ReadError as err:
            problems.extend(err.problems)
        except ValidationError as err:
            problems.extend(
                f"{path}:{number}: {'.'.join(str(p) for p in e['loc']) or '(note)'}: {e['msg']}"
                for e in err.errors(include_url=False)
            )
    if problems:
        raise NotesFileError(problems)
    return notes


def append_note(path: Path, note: Note) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(note.model_dump_json() + "\n")


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True)
class RunItem:
    """One scored run of a log, as the note-taking screen shows it."""

    log: str
    run_id: str
    sample_id: str
    epoch: int
    passed: bool
    failed_keys: list[str]
    failed_dimensions: list[str]
    explanation: str
    case: Case
    run: Run
    transcript_sha: str
    production: bool = False  # a captured conversation (no case file, no reference run)

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.log, self.sample_id, self.epoch)


PRODUCTION_SCORER = "production_judges"


def production_case(conversation: Conversation, flow: str | None = None) -> Case:
    """A captured conversation as the case a note or a draft starts from: its user turns, no
    reference (a person writes one), in `flow` or the first flow of its domain."""
    flow = flow or next(name for name, spec in FLOWS.items() if spec.domain == conversation.domain)
    where = ", ".join(p for p in (conversation.channel, conversation.served_by) if p)
    return Case.model_validate(
        {
            "id": case_id(flow, 0, ["production", conversation.id]),
            "priority": "medium",
            "difficulty": "medium",
            "defaulted": ["priority", "difficulty"],
            "tags": ["production"],
            "skip": "a captured production conversation: no reference run",
            "purpose": (
                f"Production conversation {conversation.id} captured "
                f"{conversation.captured_at.isoformat()}" + (f" ({where})" if where else "")
            ),
            "turns": [turn.user for turn in conversation.turns],
            "expected": {},
        }
    )


def _production_item(log_path: Path, run_id: str, sample: EvalSample) -> RunItem | None:
    """A judged production conversation as a run to note or draft from: it passed when every
    dimension the judge was asked passed (an unsettled one is no pass)."""
    score = (sample.scores or {}).get(PRODUCTION_SCORER)
    run = sample_run(sample)
    if score is None or run is None or not isinstance(score.value, dict):
        return None
    conversation = Conversation.model_validate((sample.metadata or {})["conversation"])
    meta = ProductionScoreMetadata.from_metadata(score.metadata)
    verdicts = meta.judge.verdicts if meta.judge else ()
    return RunItem(
        log=str(log_path),
        run_id=run_id,
        sample_id=str(sample.id),
        epoch=sample.epoch,
        passed=score.value.get("passed") == 1.0,
        failed_keys=[],
        failed_dimensions=[v.dimension for v in verdicts if v.status == "fail"],
        explanation=score.explanation or "",
        case=production_case(conversation),
        run=run,
        transcript_sha=sha(run.model_dump(mode="json")),
        production=True,
    )


def run_items(log_path: Path) -> list[RunItem]:
    """Every scored run of the log (skipped cases and runs with no record left out): a flow's
    cases, or the conversations of a `production` log, judged."""
    log = read_log(log_path)
    items: list[RunItem] = []
    for sample in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch)):
        if "conversation" in (sample.metadata or {}):
            found = _production_item(log_path, log.eval.run_id, sample)
            if found is not None:
                items.append(found)
            continue
        score = case_score(sample)
        run = sample_run(sample)
        if score is None or run is None or not isinstance(score.value, dict):
            continue
        passed = score.value.get("passed")
        if not isinstance(passed, int | float) or passed != passed:  # unscored (NaN)
            continue
        meta = ScoreMetadata.of_sample(sample)
        dims = [v.dimension for v in meta.verdicts if v.status == "fail"]
        code = meta.failed_code_keys()
        items.append(
            RunItem(
                log=str(log_path),
                run_id=log.eval.run_id,
                sample_id=str(sample.id),
                epoch=sample.epoch,
                passed=passed == 1.0,
                failed_keys=code,
                failed_dimensions=dims,
                explanation=score.explanation or "",
                case=sample_case(sample),
                run=run,
                transcript_sha=sha(run.model_dump(mode="json")),
            )
        )
    return items


def to_walk(items: list[RunItem], passed_sample: int, seed: int = 0) -> list[RunItem]:
    """The failed runs, then a seeded sample of `passed_sample` passed runs (failures no grader
    caught hide there)."""
    failed = [i for i in items if not i.passed]
    passed = [i for i in items if i.passed]
    chosen = random.Random(seed).sample(passed, min(passed_sample, len(passed)))
    return failed + sorted(chosen, key=lambda i: (i.sample_id, i.epoch))
