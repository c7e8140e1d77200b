"""Production traffic: captured conversations judged with the shared rubric dimensions.

    inspect eval commerce_evals/production --model none \\
        --model-role grader=anthropic/claude-haiku-4-5 -T traffic=captures/2026-w48.jsonl

The dataset is a traffic file (commerce_evals/reports/traffic.py); a bad line is reported (file, line,
field) and skipped, and the task's metadata keeps the list. The solver replays each conversation
without calling any model: the captured Run goes in the sample store (as a flow's run does) and
the transcript gets its messages. The scorer judges it on the shared dimensions
(commerce_evals/judging/prompts/*.md) through the grader role, one call per dimension, exactly as a
flow's cases are judged; dimensions that need the domain's reference text (a policy) get the
World's judge context. `commerce-evals trends` reads the verdicts over time.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ModelOutput,
)
from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import store_as

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import Expected
from commerce_evals.domains.base import DATASETS
from commerce_evals.domains.worlds import cached_world
from commerce_evals.grading.score_metadata import ProductionScoreMetadata
from commerce_evals.harness.run_messages import transcript_messages
from commerce_evals.harness.task_args import TaskArgumentError, checked_arguments
from commerce_evals.judging import JudgeSettings, judge_case, shared_dimensions
from commerce_evals.judging.judge import DEFAULT_MAX_CHARS, DEFAULT_TIMEOUT
from commerce_evals.reports.traffic import Conversation, load_traffic
from commerce_evals.scoring.run_record import RunRecord, logged_run
from commerce_evals.scoring.scorer import alias_for_rescoring

logger = logging.getLogger(__name__)
EXAMPLE_TRAFFIC = DATASETS / "production" / "example.jsonl"
NAN = float("nan")


@solver
def replay_conversation() -> Solver:
    """Put the captured run in the store and its messages in the transcript; call no model."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        conversation = Conversation.model_validate(state.metadata["conversation"])
        run = conversation.run()
        store_as(RunRecord).run = run
        state.messages = transcript_messages(run)
        state.output = ModelOutput.from_content(model="production", content=run.graded.reply())
        return state

    return solve


@lru_cache(maxsize=8)
def judge_context(domain: str) -> str:
    """The domain's reference text for judges (the support policy, say); empty when it has none."""
    return cached_world(domain, None, False).judge_context()


def dimension_names(value: str | list[str] | None) -> list[str]:
    """The dimensions asked for (by default every shared one whose verdict is a rubric's: the
    path-part ones judge a domain's nevers, asked for by name); an unknown name is an error."""
    known = shared_dimensions()
    if value is None:
        return sorted(name for name, dimension in known.items() if dimension.part == "rubric")
    names = [n.strip() for n in (value.split(",") if isinstance(value, str) else value)]
    # a name given twice is judged once: a score holds one verdict per dimension
    names = list(dict.fromkeys(n for n in names if n))
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise TaskArgumentError(
            f"-T dimensions={value}: {', '.join(unknown) or 'none named'} not shared judge "
            f"dimensions; choose from {', '.join(sorted(known))}"
        )
    return names


def applicable(names: list[str], context: str) -> tuple[list[str], list[str]]:
    """The dimensions that can be judged with this domain's reference text, and those that need
    text it does not have (support has a policy; the shop has none, so `grounded_in_policy`
    does not apply to shop conversations)."""
    shared = shared_dimensions()
    missing = [n for n in names if shared[n].needs_context and not context.strip()]
    return [n for n in names if n not in missing], missing


@scorer(metrics={"*": [accuracy()]})
def production_judges(
    dimensions: list[str] | None = None,
    judge_max_chars: int = DEFAULT_MAX_CHARS,
    judge_structured: bool = True,
    judge_timeout: float = DEFAULT_TIMEOUT,
) -> Scorer:
    """One grader-role verdict per shared dimension; `passed` is 1.0 when every one passed.

    A dimension's value is 1.0 (Pass), 0.0 (Fail) or NaN (Unknown, judge failure, not judged, or
    not applicable: it needs reference text the conversation's domain lacks): NaN is left out of
    its metric and never counted as a pass.
    """
    settings = JudgeSettings(
        max_chars=judge_max_chars, structured=judge_structured, timeout=judge_timeout
    )
    default = dimension_names(dimensions)

    async def score(state: TaskState, target: Target) -> Score:
        conversation = Conversation.model_validate(state.metadata["conversation"])
        run = logged_run(state.store) or conversation.run()
        context = judge_context(conversation.domain)
        names, no_context = applicable(default, context)
        if not names:
            return Score.unscored(
                reason="no_dimensions",
                explanation=f"every dimension asked needs reference text {conversation.domain} lacks",
            )
        judgement = await judge_case(Expected(dimensions=names), run, context, settings)
        if judgement is None:  # judge_case judges nothing only when asked for nothing
            return Score.unscored(reason="no_dimensions")
        # every dimension of the task is a key (dict metrics need the same keys in every score)
        value: dict[str, float] = dict.fromkeys(default, NAN)
        for verdict in judgement.verdicts:
            value[verdict.dimension] = {"pass": 1.0, "fail": 0.0}.get(verdict.status, NAN)
        value["passed"] = judgement.value
        return Score(
            value=value,
            answer=run.graded.reply()[:500],
            explanation="\n".join(judgement.notes()),
            metadata=ProductionScoreMetadata(
                conversation=conversation.id,
                captured_at=conversation.captured_at.isoformat(),
                judge=judgement.record(),
                not_applicable=tuple(no_context),
                failed_keys=tuple(
                    f"dimensions/{v.dimension}" for v in judgement.verdicts if v.status == "fail"
                ),
            ).to_metadata(),
        )

    return score


alias_for_rescoring(production_judges)


def conversation_sample(conversation: Conversation) -> Sample:
    return Sample(
        id=conversation.id,
        input=conversation.turns[0].user,
        metadata={
            "conversation": conversation.model_dump(mode="json"),
            "captured_at": conversation.captured_at.isoformat(),
            "domain": conversation.domain,
            "channel": conversation.channel,
            "served_by": conversation.served_by,
        },
    )


@task
@checked_arguments
def production(
    traffic: str | None = None,
    dimensions: str | list[str] | None = None,  # `-T dimensions=a,b` arrives as a list
    judge_max_chars: int = DEFAULT_MAX_CHARS,
) -> Task:
    """Judge captured conversations on the shared rubric dimensions.

    Args:
        traffic: a traffic file (JSON lines); defaults to the example in datasets/production.
        dimensions: comma-separated shared dimensions to judge (default: every one whose verdict
            is a rubric's; the path-part ones, a domain's nevers done in words, by name).
        judge_max_chars: the judge's transcript budget; longer runs are cut from the start.
    """
    path = Path(traffic) if traffic else EXAMPLE_TRAFFIC
    conversations, problems = load_traffic(path)
    for problem in problems:
        logger.warning(problem.describe())
    if not conversations:
        first = f"; first: {problems[0].describe()}" if problems else ""
        raise InputError(f"{path}: no valid conversation ({len(problems)} line(s) skipped){first}")
    names = dimension_names(dimensions)
    return Task(
        name="production",
        dataset=MemoryDataset([conversation_sample(c) for c in conversations], name=path.stem),
        solver=replay_conversation(),
        scorer=production_judges(dimensions=names, judge_max_chars=judge_max_chars),
        fail_on_error=False,
        metadata={
            "traffic": str(path),
            "conversations": len(conversations),
            "skipped_lines": [p.as_metadata() for p in problems],
            "dimensions": names,
        },
    )
