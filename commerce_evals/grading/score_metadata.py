"""The metadata of a commerce_case score: written by the scorer, read back by every report.

One model instead of a contract of string keys. The scorer builds a ScoreMetadata and stores
`to_metadata()` on the Score, the same JSON the log has always held, so `inspect view` shows it
as before and logs written before this model read back through it.

Reading is lenient on purpose, because logs outlive the code that wrote them: a key an older
scorer did not write takes its default (no grades, no failed keys, no judge record, ...), a key
this model does not know is ignored, and metadata that is not a mapping at all, or whose values
have the wrong type, reads as an empty record with `unreadable` saying why (a report then shows
the score's pass/fail with no keys behind it rather than stopping). Writing is strict.

The judge's record is logged flat, one small key per verdict (`verdict/<dimension>`, its critique
apart under `critique/<dimension>`) beside what is left of it under `judge`: Inspect's sample
summaries keep a metadata value only up to 1 KB, and a case's verdicts together are over it, so a
report that reads verdicts from the summaries (reports/logs.py) would have to open every judged
sample. Logs written before keep every verdict under `judge.verdicts`; both read back the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score
from inspect_ai.util import StoreModel
from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

# The verdict's prompt fingerprint: written together, or only "fingerprint": null.
FINGERPRINT_FIELDS = ("model", "dimension_sha", "template_sha", "config_sha", "context_sha")


class Record(BaseModel):
    """Lenient on read (see the module docstring), frozen once read."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class GradeRecord(Record):
    """One code-graded key or invariant."""

    key: str
    part: str
    passed: bool
    reason: str = ""


class VerdictRecord(Record):
    """One judge verdict on one dimension (judging.judge.DimensionVerdict, as logged)."""

    dimension: str = "rubric"
    status: str = "not_judged"  # one of judging.judge.STATUSES
    verdict: str | None = None
    critique: str = ""
    reason: str = ""
    called: bool = False
    cached: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    fingerprint: str | None = None
    model: str | None = None
    dimension_sha: str | None = None
    template_sha: str | None = None
    config_sha: str | None = None
    context_sha: str | None = None
    reply: str | None = None  # only for a judge failure: what the judge said

    @model_serializer(mode="wrap")
    def _as_logged(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.fingerprint is None:
            for name in FINGERPRINT_FIELDS:
                data.pop(name, None)
        if self.reply is None:
            data.pop("reply", None)
        return data


class CutRecord(Record):
    """How the transcript the judge read was cut to its budget."""

    budget: int = 0
    original_chars: int = 0
    kept_chars: int = 0
    chars_dropped: int = 0
    turns_dropped: int = 0
    events_dropped: int = 0
    values_clipped: int = 0


class JudgeRecord(Record):
    """The judge's part of a score: every verdict, and why the rubric is unsettled if it is."""

    verdicts: tuple[VerdictRecord, ...] = ()
    rubric_reason: str | None = None
    off: bool = False
    transcript_sha: str | None = None
    cut: CutRecord | None = None


class ConversationRecord(Record):
    """A case with a customer: who played it, how the conversation ended, which reveals the agent
    drew out (the 0-based turn it first asked) and which it never asked for."""

    mode: str = "scripted"
    model: str | None = None
    ended: str | None = None
    turns: int = 0
    drawn_out: dict[str, int] = {}
    never_asked: tuple[str, ...] = ()


VERDICT_PREFIX = "verdict/"
CRITIQUE_PREFIX = "critique/"


def flat_judge(metadata: dict[str, Any]) -> dict[str, Any]:
    """A record's dumped metadata as a score logs it: `judge` without its verdicts, then each
    verdict under its own key and its critique, when it has one, under another."""
    logged: dict[str, Any] = {}
    for name, value in metadata.items():
        if name != "judge" or not isinstance(value, dict):
            logged[name] = value
            continue
        logged["judge"] = {k: v for k, v in value.items() if k != "verdicts"}
        for verdict in value.get("verdicts", ()):
            dimension = verdict["dimension"]
            if VERDICT_PREFIX + dimension in logged:
                raise ValueError(f"two verdicts on dimension {dimension!r} in one score")
            logged[VERDICT_PREFIX + dimension] = {
                k: v for k, v in verdict.items() if k != "critique"
            }
            if verdict.get("critique"):
                logged[CRITIQUE_PREFIX + dimension] = verdict["critique"]
    return logged


def nested_judge(metadata: dict[str, Any]) -> dict[str, Any]:
    """A score's metadata with a flat-logged judge record put back under `judge.verdicts`, in the
    order the verdicts were logged; metadata logged nested (older logs) is returned as it is.
    A verdict entry that is not a mapping is kept for the record's validation to refuse."""
    flat = [name for name in metadata if name.startswith(VERDICT_PREFIX)]
    if not flat:
        return metadata
    nested = {
        name: value
        for name, value in metadata.items()
        if not name.startswith((VERDICT_PREFIX, CRITIQUE_PREFIX))
    }
    judge = metadata.get("judge")
    verdicts = []
    for name in flat:
        entry = metadata[name]
        if isinstance(entry, dict):
            dimension = name.removeprefix(VERDICT_PREFIX)
            entry = {**entry, "critique": metadata.get(CRITIQUE_PREFIX + dimension, "")}
        verdicts.append(entry)
    nested["judge"] = {**(judge if isinstance(judge, dict) else {}), "verdicts": verdicts}
    return nested


class PassedGrades(StoreModel):
    """The full records of a sample's passing grades, in its store beside the Run: written once
    by the task's cleanup (scoring/run_record.py, bound like `store_as`). The score names them in
    `passed_keys`; `ScoreMetadata.of_sample` reads them back."""

    records: list[dict[str, Any]] | None = None


# the store key PassedGrades keeps `records` under, and the one logs written before it used
PASSED_GRADES_KEY = f"{PassedGrades.__name__}:records"
LEGACY_PASSED_GRADES_KEY = "ScoreMetadata:passed_grades"


def grade_name(grade: GradeRecord) -> str:
    """A grade by name, as explanations and `passed_keys` write it: `part/key`."""
    return f"{grade.part}/{grade.key}"


class ScoreMetadata(Record):
    """What a commerce_case score holds besides its values and explanation.

    Inspect keeps every score until a run ends, so the score keeps what the reports read: the
    failed grades with their reasons (`grades`), the passing ones by name (`passed_keys`, as
    `part/key`), the judge's record, and the rest below. The passing grades' full records are in
    the sample's store (PassedGrades); `of_sample` puts them back, and every report reads a
    sample's metadata through it. In logs written before the split, `grades` holds every grade
    and `passed_keys` is empty."""

    failed_keys: tuple[str, ...] = ()
    grades: tuple[GradeRecord, ...] = ()
    passed_keys: tuple[str, ...] = ()
    # the passing grades that held only because nothing happened (`part/key`): not asserted, so
    # left out of the injection rates; written only when there is one, absent from older logs
    not_asserted: tuple[str, ...] = ()
    counterexample: str | None = None
    # the calls part's count beside its pass/fail (turn-ending tools not counted); None in logs
    # written before it was recorded
    calls_made: int | None = None
    alternative: str | None = None
    judge: JudgeRecord | None = None
    judge_off: bool = False
    # only for a case with a customer (left out of the stored JSON otherwise)
    customer: ConversationRecord | None = None
    # set on read only, never written: why the stored metadata could not be read
    unreadable: str | None = None

    @classmethod
    def from_score(cls, score: Score | None) -> ScoreMetadata:
        return cls.from_metadata(score.metadata if score is not None else None)

    @classmethod
    def of_sample(cls, sample: Any, scorer: str = "commerce_case") -> ScoreMetadata:
        """A logged sample's score metadata with every grade: the failed ones from the score,
        the passing ones' records from the store. A passing key the store has no record of (the
        log was re-scored: `inspect score` keeps the store as the run left it) reads with no
        reason."""
        metadata = cls.from_score((sample.scores or {}).get(scorer))
        return metadata.with_passed(getattr(sample, "store", None) or {})

    def with_passed(self, store: Mapping[str, Any]) -> ScoreMetadata:
        if not self.passed_keys:
            return self
        stored = {}
        # read tolerantly by key (a log's store is JSON): an odd record is skipped, not fatal
        raw = store.get(PASSED_GRADES_KEY, store.get(LEGACY_PASSED_GRADES_KEY))
        for item in raw if isinstance(raw, list) else []:
            try:
                record = GradeRecord.model_validate(item)
            except ValidationError:
                continue
            stored[grade_name(record)] = record
        passed = tuple(
            stored.get(name) or GradeRecord(key=key, part=part, passed=True)
            for name in self.passed_keys
            for part, _, key in [name.partition("/")]
        )
        return self.model_copy(update={"grades": (*self.grades, *passed)})

    @classmethod
    def from_metadata(cls, metadata: Any) -> ScoreMetadata:
        if metadata is None:
            return cls()
        if not isinstance(metadata, dict):
            return cls(unreadable=f"score metadata is a {type(metadata).__name__}, not a mapping")
        try:
            return cls.model_validate(nested_judge(metadata))
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            return cls(unreadable=f"score metadata {where}: {first['msg']}")

    def to_metadata(self) -> dict[str, Any]:
        """The JSON stored on the Score (and so in the log)."""
        left_out = (
            {"unreadable"}
            | ({"customer"} if self.customer is None else set())
            | ({"not_asserted"} if not self.not_asserted else set())
        )
        return flat_judge(self.model_dump(mode="json", exclude=left_out))

    @property
    def verdicts(self) -> tuple[VerdictRecord, ...]:
        return self.judge.verdicts if self.judge else ()

    def failed_grades(self) -> list[GradeRecord]:
        return [g for g in self.grades if not g.passed]

    def failed_code_keys(self) -> list[str]:
        """The failed keys the code graders own (the judge's `rubric`/`dimensions` left out)."""
        return [k for k in self.failed_keys if k not in {"rubric", "dimensions"}]


def verdicts_of(metadata: Any) -> tuple[VerdictRecord, ...]:
    """A score's judge verdicts, read from its metadata alone (logged flat or nested): a metric
    that counts verdicts over every sample, each time Inspect computes metrics, and the analysis
    data frames then read no grade."""
    if not isinstance(metadata, dict):
        return ()
    judge = nested_judge(metadata).get("judge")
    return verdicts_from(judge.get("verdicts") if isinstance(judge, dict) else None)


def verdicts_from(raw: Any) -> tuple[VerdictRecord, ...]:
    """Verdicts read from a `judge.verdicts` list; an entry that does not read as a verdict is
    left out, as in ScoreMetadata.from_metadata an unreadable record is."""
    if not isinstance(raw, list):
        return ()
    verdicts = []
    for item in raw:
        try:
            verdicts.append(VerdictRecord.model_validate(item))
        except ValidationError:
            continue
    return tuple(verdicts)


class ProductionScoreMetadata(Record):
    """What a production_judges score holds: the same judge record and failed keys (every one a
    `dimensions/<name>`), with the conversation it judged and the dimensions it could not."""

    conversation: str = ""
    captured_at: str = ""
    judge: JudgeRecord | None = None
    not_applicable: tuple[str, ...] = ()
    failed_keys: tuple[str, ...] = ()

    @classmethod
    def from_metadata(cls, metadata: Any) -> ProductionScoreMetadata:
        """Read strictly, unlike ScoreMetadata: its one reader (authoring notes) reads logs of
        the production task, whose metadata this model wrote (flat or, before, nested)."""
        return cls.model_validate(nested_judge(metadata if isinstance(metadata, dict) else {}))

    def to_metadata(self) -> dict[str, Any]:
        return flat_judge(self.model_dump(mode="json"))
