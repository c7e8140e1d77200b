"""Small builders shared by tests: runs from hand-made events, in-process evals by flow."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from importlib.metadata import distributions
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample

from commerce_evals.cases.model import Case
from commerce_evals.core.events import (
    Event,
    ReplyEvent,
    Run,
    Snapshot,
    ToolCallEvent,
    ToolResultEvent,
    Turn,
    UiEvent,
)
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains import WORLDS
from commerce_evals.grading.keys import JUDGED_KEYS
from commerce_evals.grading.score_metadata import ScoreMetadata


def call(tool: str, **args: Any) -> ToolCallEvent:
    return ToolCallEvent(call_id=f"c-{tool}", tool=tool, args=args)


def result(tool: str, status: str = "ok", reason: str | None = None) -> ToolResultEvent:
    return ToolResultEvent(call_id=f"c-{tool}", tool=tool, status=status, reason=reason)


def ui(component: str) -> UiEvent:
    return UiEvent(component=component)


def reply(text: str) -> ReplyEvent:
    return ReplyEvent(text=text)


def make_run(
    *turns: tuple[str, list[Event]], start: Snapshot | None = None, end: Snapshot | None = None
) -> Run:
    return Run(
        turns=[Turn(user=user, events=list(events)) for user, events in turns],
        start=start or {},
        end=end or {},
    )


# Bound in every test run unless a test says otherwise: without a judge, a case with a rubric
# needs review and never passes. Counterexample runs are code-only (`judge="off"`): their
# `breaks` name code-graded keys.
SCRIPTED_JUDGE = {"grader": "commerce/judge"}


def run_task(task: Task, **kwargs: Any) -> EvalLog:
    kwargs.setdefault("model_roles", SCRIPTED_JUDGE)
    [log] = eval(task, model="commerce/reference", display="none", log_samples=True, **kwargs)
    assert log.status == "success", log.error
    return log


def samples_by_id(log: EvalLog) -> dict[str, EvalSample]:
    assert log.samples is not None
    return {str(s.id): s for s in sorted(log.samples, key=lambda s: (str(s.id), s.epoch))}


def run_metrics(log: EvalLog, scorer: str = "commerce_case") -> dict[str, float]:
    """A scorer's row of figures at the end of a run (its one block, by row name)."""
    assert log.results is not None
    [block] = [s for s in log.results.scores if s.scorer == scorer]
    return {name: metric.value for name, metric in block.metrics.items()}


def case_score(sample: EvalSample) -> Any:
    assert sample.scores is not None
    return sample.scores["commerce_case"]


def keys_no_counterexample_breaks(cases: Iterable[Case]) -> set[str]:
    """Code-graded keys and domain invariants the cases use that no counterexample of theirs
    makes fail."""
    cases = list(cases)
    used = {key for case in cases for key in case.expected.asserted_keys()} - JUDGED_KEYS
    # an invariant is used by a flow whose reference runs make the calls it watches
    called = {c.tool for case in cases for t in case.reference or [] for r in t.rounds() for c in r}
    used |= {
        name
        for case in cases
        for name in WORLDS[FLOWS[case.flow].domain].invariants.exercised(called)
        if name not in case.waive
    }
    broken = {key for case in cases for cx in case.counterexamples for key in cx.breaks}
    return used - broken


def assert_fails_exactly_its_keys(sample: EvalSample) -> None:
    """A counterexample sample fails, and fails exactly the keys it names.

    A judged key it names (`rubric`, `dimensions`: a bad run only a judge can catch) is left
    unsettled with no grader bound, never passed; the code keys must fail exactly as named.
    """
    score = case_score(sample)
    named = set(sample.metadata["breaks"])
    code = named - JUDGED_KEYS
    assert set(ScoreMetadata.from_score(score).failed_keys) == code, score.explanation
    if named & JUDGED_KEYS:
        assert math.isnan(score.value["rubric"]), score.explanation
    if code:
        assert score.value["passed"] == 0.0


def assert_passes(sample: EvalSample) -> None:
    """A reference or alternative sample passes every key it asserts."""
    score = case_score(sample)
    assert ScoreMetadata.from_score(score).failed_keys == (), score.explanation
    assert score.value["passed"] == 1.0, score.explanation


def alternative_ids(cases: Iterable[Case]) -> list[str]:
    return [f"{case.id}~{alt.name}" for case in cases for alt in case.alternatives]


def subprocess_env(**extra: str) -> dict[str, str]:
    """This environment for a subprocess that must import this checkout's code.

    PYTHONPATH points at the checkout only when the installed package is some other checkout (a
    worktree under test). With the package installed editable from here, a PYTHONPATH beside its
    `.egg-info` makes Inspect read the package as not installed and register its tasks without
    the `commerce_evals/` prefix, so `inspect eval commerce_evals/checkout` finds nothing.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if _installed_root() != REPO_ROOT:
        env["PYTHONPATH"] = str(REPO_ROOT)
    return {**env, **extra}


REPO_ROOT = Path(__file__).resolve().parents[1]


def _installed_root() -> Path | None:
    """Where the installed (editable) package points; a checkout's own `.egg-info` on sys.path
    is another distribution of the same name, without the record of where it was installed from."""
    for dist in distributions():
        if (dist.metadata["Name"] or "").lower() != "commerce-evals":
            continue
        url = str(json.loads(dist.read_text("direct_url.json") or "{}").get("url", ""))
        if url.startswith("file://"):
            return Path(url.removeprefix("file://")).resolve()
    return None
