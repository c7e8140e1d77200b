"""A case's judge dimensions are judged together: the calls overlap, the verdicts keep the
dimensions' order, and each call's cache flag is read from its own model event."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log._transcript import Transcript, init_transcript
from inspect_ai.model import ChatMessageUser, GenerateConfig, ModelOutput, get_model
from inspect_ai.model._model import init_model_roles

from commerce_evals.cases.model import Expected
from commerce_evals.judging.judge import CaseJudgement, _was_cache_read, judge_case
from commerce_evals.scripted.sample import serving
from tests.test_judge_parts import REFERENCE, reference_sample, shoe_run

LATENCY = 0.4
DIMENSIONS = ["budget_respected", "tradeoff_stated", "no_invented_availability"]


def judged_with_latency(latency: float) -> tuple[CaseJudgement | None, float]:
    async def go() -> tuple[CaseJudgement | None, float]:
        grader = get_model("commerce/judge", memoize=False, latency=latency)
        init_model_roles({"grader": grader})
        expected = Expected(rubric="PASS if it compares them. FAIL if not.", dimensions=DIMENSIONS)
        try:
            with serving(reference_sample(REFERENCE)):
                start = time.perf_counter()
                judgement = await judge_case(expected, shoe_run())
                return judgement, time.perf_counter() - start
        finally:
            init_model_roles({})

    return asyncio.run(go())


def test_the_dimensions_of_a_case_are_judged_together_in_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judged_with_latency(0.0)  # the first judging of a process pays for imports and prompt files
    # verdicts are cached by prompt: an empty cache, so every call is made and waits
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path))
    judgement, took = judged_with_latency(LATENCY)
    assert judgement is not None
    names = [v.dimension for v in judgement.verdicts]
    # the rubric, the case's dimensions, then the two every case gets when a grader is bound
    assert names == ["rubric", *DIMENSIONS, "claims_match_state", "no_invented_facts"]
    assert all(v.called and not v.cached for v in judgement.verdicts)
    # six calls of LATENCY each: one after another would take 6 x LATENCY
    assert took < 2.5 * LATENCY, f"judging took {took:.2f}s for {len(names)} calls"
    # the same case again: every verdict is read from the cache, each call seeing its own event
    again, _ = judged_with_latency(LATENCY)
    assert again is not None and all(v.cached for v in again.verdicts)


def model_event(prompt: str, cache: str | None) -> ModelEvent:
    return ModelEvent(
        model="commerce/judge",
        input=[ChatMessageUser(content=prompt)],
        tools=[],
        tool_choice="none",
        config=GenerateConfig(),
        output=ModelOutput.from_content("commerce/judge", "{}"),
        cache=cache,  # type: ignore[arg-type]
    )


def test_a_cache_flag_is_read_from_its_own_call_not_the_last_one() -> None:
    transcript = Transcript()
    init_transcript(transcript)
    transcript._event(model_event("judge dimension a", "read"))
    transcript._event(model_event("judge dimension b", None))  # another dimension, finished later
    assert _was_cache_read("judge dimension a") is True
    assert _was_cache_read("judge dimension b") is False
    assert _was_cache_read("a prompt never sent") is False
