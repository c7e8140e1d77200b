"""Judging one case: one call per dimension through the `grader` role, each call caught and recorded.

Nothing here can fail a case's code parts: every fault of the judge (no role bound, a timeout, a
refusal, an exception, a reply with no verdict) becomes a verdict record with a status and a reason.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    CachePolicy,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
    model_roles,
)
from inspect_ai.util import json_schema
from pydantic import BaseModel

from commerce_evals.cases.model import Expected
from commerce_evals.core.events import Run
from commerce_evals.core.tokens import TokenCount
from commerce_evals.grading.score_metadata import CutRecord, JudgeRecord, VerdictRecord
from commerce_evals.judging.dimensions import (
    RUBRIC,
    Dimension,
    JudgedPart,
    dimensions_for,
    every_case_dimensions,
    part_of,
)
from commerce_evals.judging.prompt import (
    AnswerFormat,
    Fingerprint,
    build_prompt,
    default_template,
    fingerprint,
    sha,
)
from commerce_evals.judging.transcript import Cut, render
from commerce_evals.judging.verdict import VerdictLabel, no_verdict_reason, parse_verdict

GRADER_ROLE = "grader"
DEFAULT_MAX_CHARS = 24_000
DEFAULT_TIMEOUT = 180.0

Status = Literal["pass", "fail", "unknown", "judge_failed", "not_judged"]
STATUSES: tuple[Status, ...] = ("pass", "fail", "unknown", "judge_failed", "not_judged")


class JudgeReply(BaseModel):
    """The structured answer asked of the judge: the critique comes first so it reasons first."""

    critique: str
    verdict: Literal["Pass", "Fail", "Unknown"]


@dataclass(frozen=True)
class JudgeSettings:
    max_chars: int = DEFAULT_MAX_CHARS
    structured: bool = True
    timeout: float = DEFAULT_TIMEOUT
    template: str | None = None  # None: commerce_evals/judging/prompts/_template.md
    enabled: bool = True  # False: `-T judge=off`, a code-only run on purpose

    @property
    def answer(self) -> AnswerFormat:
        """What the judge is asked for and how its reply is read: the JSON object, or, only for
        a provider that can do neither structured output nor JSON, a final verdict line."""
        return "json" if self.structured else "line"

    def generate_config(self) -> GenerateConfig:
        return GenerateConfig(
            temperature=0.0,
            response_schema=ResponseSchema(
                name="judge_verdict",
                json_schema=json_schema(JudgeReply),
                description="A critique, then a verdict of Pass, Fail or Unknown.",
            )
            if self.structured
            else None,
        )


# Verdicts are a function of prompt, model and config: keep them until something changes, in
# every epoch alike (a re-score has no epoch in its context, so per-epoch keys would never hit).
VERDICT_CACHE = CachePolicy(expiry=None, per_epoch=False)


@dataclass(frozen=True)
class DimensionVerdict:
    dimension: str
    status: Status
    verdict: VerdictLabel | None = None
    critique: str = ""
    reason: str = ""
    fingerprint: Fingerprint | None = None
    called: bool = False
    cached: bool = False
    reply: str = ""
    # the judge call's tokens, input and output; a cache hit carries the tokens of the call it
    # replays, so a report can count the judging a run needed whether or not it was paid again
    tokens: tuple[int, int] = (0, 0)

    def record(self) -> VerdictRecord:
        """The verdict as the score's metadata holds it."""
        return VerdictRecord(
            dimension=self.dimension,
            status=self.status,
            verdict=self.verdict,
            critique=self.critique,
            reason=self.reason,
            called=self.called,
            cached=self.cached,
            input_tokens=self.tokens[0],
            output_tokens=self.tokens[1],
            **(self.fingerprint.as_metadata() if self.fingerprint else {}),
            reply=self.reply[:2000] if self.status == "judge_failed" else None,
        )


@dataclass(frozen=True)
class CaseJudgement:
    verdicts: list[DimensionVerdict]
    transcript_sha: str
    cut: Cut | None = None
    problems: list[str] = field(default_factory=list)
    off: bool = False  # `-T judge=off`: not judged on purpose

    @property
    def value(self) -> float:
        """1.0 when every dimension passed, 0.0 when any failed, NaN when not settled by the judge."""
        return _settled([v.status for v in self.verdicts])

    def value_of(self, part: JudgedPart) -> float:
        """The same over the dimensions whose verdicts count under `part` (the rubric's, or the
        path's: a never done in words); NaN when none does."""
        return _settled([v.status for v in self.verdicts if part_of(v.dimension) == part])

    def verdicts_of(self, part: JudgedPart) -> list[DimensionVerdict]:
        return [v for v in self.verdicts if part_of(v.dimension) == part]

    @property
    def judged(self) -> float:
        """1.0 when the judge settled every dimension (Pass or Fail), else 0.0."""
        return float(
            bool(self.verdicts) and all(v.status in ("pass", "fail") for v in self.verdicts)
        )

    def reason(self) -> str | None:
        """Why the rubric part is NaN, if it is: the first unsettled status, in order of gravity."""
        if not math.isnan(self.value):
            return None
        if self.off:
            return "judge_off"
        statuses = {v.status for v in self.verdicts}
        for status in ("judge_failed", "not_judged", "unknown"):
            if status in statuses:
                return status
        return "not_judged"

    def failed_keys(self) -> list[str]:
        """The case keys a Fail verdict breaks: `rubric` for its own, `dimensions` for shared ones."""
        keys = {
            RUBRIC if v.dimension == RUBRIC else "dimensions"
            for v in self.verdicts
            if v.status == "fail"
        }
        return [k for k in (RUBRIC, "dimensions") if k in keys]

    def record(self) -> JudgeRecord:
        """The judgement as the score's metadata holds it."""
        return JudgeRecord(
            verdicts=tuple(v.record() for v in self.verdicts),
            rubric_reason=self.reason(),
            off=self.off,
            transcript_sha=self.transcript_sha,
            cut=CutRecord(**self.cut.as_metadata()) if self.cut else None,
        )

    def notes(self) -> list[str]:
        lines: list[str] = []
        for v in self.verdicts:
            where = f"{part_of(v.dimension)}/{v.dimension}"
            if v.status == "fail":
                lines.append(f"FAIL {where}: {v.critique.strip()}")
            elif v.status == "pass":
                cached = " (cached)" if v.cached else ""
                lines.append(f"pass {where}{cached}: {v.critique.strip()}".rstrip(": "))
            elif v.status == "unknown":
                lines.append(f"UNKNOWN {where}: needs a person, not a pass: {v.critique.strip()}")
            elif v.status == "judge_failed":
                lines.append(f"JUDGE FAILED {where} (not an agent failure): {v.reason}")
            else:
                lines.append(f"not judged {where}: {v.reason}")
        if self.cut and self.cut.happened:
            c = self.cut
            lines.append(
                f"judge transcript cut: {c.turns_dropped} turn(s), {c.events_dropped} event(s), "
                f"{c.values_clipped} value(s) clipped; {c.chars_dropped} of {c.original_chars} chars"
            )
        lines.extend(self.problems)
        return lines


def _settled(statuses: list[Status]) -> float:
    if "fail" in statuses:
        return 0.0
    if statuses and all(s == "pass" for s in statuses):
        return 1.0
    return math.nan


def _short(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def bound_grader() -> Model | None:
    """The model bound to the grader role, or None. Never the model under test by fallback
    (get_model(role=...) would silently return it)."""
    bound = model_roles().get(GRADER_ROLE)
    if isinstance(bound, list):
        return bound[0] if bound else None
    return bound


def _no_context(dimension: Dimension) -> DimensionVerdict:
    return DimensionVerdict(
        dimension.name,
        "not_judged",
        reason="no_judge_context: this domain supplies no reference text",
    )


async def _together(calls: Sequence[Awaitable[DimensionVerdict]]) -> list[DimensionVerdict]:
    """Every call awaited at once, the results in the calls' order. anyio, as Inspect runs on
    either of its backends; not inspect_ai.util.collect, whose span per call would log
    a span's events for each dimension."""
    results: list[DimensionVerdict | None] = [None] * len(calls)

    async def run(index: int, call: Awaitable[DimensionVerdict]) -> None:
        results[index] = await call

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(run, index, call)
    return [r for r in results if r is not None]


async def _ready(verdict: DimensionVerdict) -> DimensionVerdict:
    return verdict


def _not_judged(dimensions: list[Dimension], reason: str) -> list[DimensionVerdict]:
    return [DimensionVerdict(d.name, "not_judged", reason=reason) for d in dimensions]


def _was_cache_read(prompt: str) -> bool:
    """Whether the model call made for `prompt` was served from Inspect's cache.

    ModelOutput carries no cache flag; the ModelEvent Inspect records for the call does. A case's
    dimensions are judged together, so other calls' events may follow this one's: the newest
    event whose last message is this prompt is this call's (each dimension's prompt differs).
    """

    def mine(event: object) -> bool:
        return (
            isinstance(event, ModelEvent) and bool(event.input) and event.input[-1].text == prompt
        )

    try:
        event = transcript().history.find_last(mine)
    except RuntimeError:  # a bounded transcript whose history is gone: report it as not cached
        return False
    return isinstance(event, ModelEvent) and event.cache == "read"


async def judge_dimension(
    model: Model,
    dimension: Dimension,
    prompt: str,
    stamp: Fingerprint,
    settings: JudgeSettings,
) -> DimensionVerdict:
    try:
        with anyio.fail_after(settings.timeout):
            output = await model.generate(
                [ChatMessageUser(content=prompt)],
                config=settings.generate_config(),
                cache=VERDICT_CACHE,
            )
    except TimeoutError:
        return DimensionVerdict(
            dimension.name,
            "judge_failed",
            reason=f"timeout: no reply within {settings.timeout:g}s",
            fingerprint=stamp,
            called=True,
        )
    except Exception as err:  # any fault of the grader model is the judge's, never the agent's
        return DimensionVerdict(
            dimension.name,
            "judge_failed",
            reason=f"error: {type(err).__name__}: {_short(str(err), 400)}",
            fingerprint=stamp,
            called=True,
        )
    cached = _was_cache_read(prompt)
    reply = output.completion or ""
    # every input token the judge read, a provider's prompt cache's reads and writes included
    usage = TokenCount.from_usage(output.usage)
    tokens = (usage.processed_input, usage.output)
    if output.stop_reason == "content_filter":
        return DimensionVerdict(
            dimension.name,
            "judge_failed",
            reason="refusal: the judge model declined to answer",
            fingerprint=stamp,
            called=True,
            cached=cached,
            reply=reply,
            tokens=tokens,
        )
    parsed = parse_verdict(reply, settings.answer)
    if parsed is None:
        return DimensionVerdict(
            dimension.name,
            "judge_failed",
            reason=no_verdict_reason(reply),
            fingerprint=stamp,
            called=True,
            cached=cached,
            reply=reply,
            tokens=tokens,
        )
    return DimensionVerdict(
        dimension.name,
        parsed.verdict.lower(),  # type: ignore[arg-type]
        verdict=parsed.verdict,
        critique=parsed.critique,
        fingerprint=stamp,
        called=True,
        cached=cached,
        tokens=tokens,
    )


async def judge_case(
    expected: Expected,
    run: Run,
    context: str = "",
    settings: JudgeSettings | None = None,
    evidence: Sequence[tuple[str, Any]] = (),
    dimension_evidence: Mapping[str, Sequence[tuple[str, Any]]] | None = None,
) -> CaseJudgement | None:
    """Every judged dimension of a case, or None when the case asserts none.

    `evidence` is extra material for the judge (label, value), quoted into the reference block of
    every dimension's prompt the way the transcript is quoted; `dimension_evidence` adds lines
    for one dimension each (what the code graders read and left to it)."""
    # claims_match_state and no_invented_facts join every case, but only when a grader is bound:
    # with none, a case that names no dimension has nothing left unjudged
    every_case = every_case_dimensions(expected) if bound_grader() is not None else []
    if not (expected.rubric or expected.dimensions or every_case):
        return None
    settings = settings or JudgeSettings()
    dimensions, unknown = dimensions_for(expected)
    dimensions += every_case
    verdicts = [
        DimensionVerdict(name, "not_judged", reason="unknown_dimension: no judge file")
        for name in unknown
    ]
    transcript_sha = sha(run.model_dump(mode="json"))
    if not settings.enabled:
        verdicts += _not_judged(dimensions, "judge_off: the run is code-only (-T judge=off)")
        return CaseJudgement(verdicts, transcript_sha, off=True)
    model = bound_grader()
    if model is None:
        verdicts += _not_judged(
            dimensions, "no_grader_role: bind one with --model-role grader=<model>"
        )
        return CaseJudgement(verdicts, transcript_sha)
    quoted = render(run, settings.max_chars)
    template = settings.template if settings.template is not None else default_template()
    config = settings.generate_config().model_dump(exclude_none=True, mode="json")
    # Every dimension's call in flight together (a real judge takes seconds a call); each keeps
    # its place in the list, and reads its cache flag from its own event (_was_cache_read).
    calls: list[Awaitable[DimensionVerdict]] = []
    for dimension in dimensions:
        if dimension.needs_context and not context.strip():
            calls.append(_ready(_no_context(dimension)))
            continue
        lines = [*evidence, *(dimension_evidence or {}).get(dimension.name, ())]
        prompt = build_prompt(dimension, quoted, context, template, settings.answer, lines)
        stamp = fingerprint(str(model), dimension, template, config, context)
        calls.append(judge_dimension(model, dimension, prompt, stamp, settings))
    verdicts += await _together(calls)
    return CaseJudgement(verdicts, transcript_sha, cut=quoted.cut)
