"""`commerce/flawed-<label>`: a scripted model that fails chosen cases, for run-pattern tests and demos.

It replays each case's reference run, except:
  -M fail=<ids>    those cases replay their first counterexample, every epoch (a known failure);
  -M flaky=<ids>   those cases replay it on every other attempt (so k epochs disagree).
Ids are comma-separated case ids or shell patterns (`checkout-01*`). The label only names the model,
so a sweep can hold several flawed models side by side (`commerce/flawed-a`, `commerce/flawed-b`).

The counterexample comes from the served case's own flow files (the sample's `flow`;
datasets/<flow>.yaml, or -M dataset=<path>): a run of the cases leaves counterexamples out of the
sample metadata. Every runnable case has at least one, each tested to fail exactly its keys.
"""

from __future__ import annotations

from collections import Counter
from difflib import get_close_matches
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo

from commerce_evals.cases.model import Case, load_cases
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.harness.flow_inputs import dataset_paths
from commerce_evals.scripted.base import (
    ScriptedModelAPI,
    ScriptedModelError,
    position,
    scripted_message,
)
from commerce_evals.scripted.sample import ReplayScript, current_script, served_case

PREFIX = "flawed-"


def _patterns(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(str(item).strip() for item in items if str(item).strip())


@lru_cache(maxsize=32)
def _cases(flow: str, dataset: str | None) -> dict[str, Case]:
    return {case.id: case for case in load_cases(dataset_paths(flow, dataset))}


def known_case_ids(dataset: str | None) -> set[str]:
    """The case ids a pattern may name: the dataset's, or every flow's."""
    if dataset:
        if not Path(dataset).exists():
            raise ScriptedModelError(f"-M dataset={dataset}: no such case file or folder")
        return {case.id for case in load_cases(dataset_paths("", dataset))}
    return {case_id for flow in FLOWS for case_id in _cases(flow, None)}


def check_patterns(patterns: dict[str, tuple[str, ...]], dataset: str | None) -> None:
    """Each -M fail/flaky pattern names at least one case: a typo must not fail nothing."""
    if not any(patterns.values()):
        return
    ids = known_case_ids(dataset)
    for argument, values in patterns.items():
        for pattern in values:
            if any(fnmatchcase(case_id, pattern) for case_id in ids):
                continue
            close = get_close_matches(pattern, sorted(ids), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ScriptedModelError(
                f"-M {argument}={pattern}: no case id matches it{hint} "
                f"(ids are <flow>-<nnn>-<behavior>; shell patterns such as checkout-00* work)"
            )


class FlawedReplay(ScriptedModelAPI):
    arguments = ("fail", "flaky", "dataset")

    def __init__(
        self,
        model_name: str,
        *args: Any,
        fail: Any = None,
        flaky: Any = None,
        dataset: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not model_name.startswith(PREFIX) or model_name == PREFIX:
            raise ScriptedModelError(
                f"a flawed scripted model is named commerce/{PREFIX}<label>, not commerce/{model_name}"
            )
        self.fail = _patterns(fail)
        self.flaky = _patterns(flaky)
        self.dataset = dataset
        check_patterns({"fail": self.fail, "flaky": self.flaky}, dataset)
        self._attempts: Counter[str] = Counter()
        self._broken: dict[str, bool] = {}
        super().__init__(model_name, *args, **kwargs)

    def _matches(self, patterns: tuple[str, ...], case_id: str) -> bool:
        return any(fnmatchcase(case_id, pattern) for pattern in patterns)

    def _breaks(self, script: ReplayScript, input: list[ChatMessage]) -> bool:
        """Decided once per attempt (at its first call) and kept for the rest of it."""
        case_id = script.case_id
        if position(input) == (0, 0):
            self._attempts[case_id] += 1
            broken = self._matches(self.fail, case_id) or (
                self._matches(self.flaky, case_id) and self._attempts[case_id] % 2 == 0
            )
            self._broken[script.attempt] = broken
        return self._broken.get(script.attempt, False)

    def _counterexample(self, script: ReplayScript, flow: str) -> ReplayScript:
        case_id = script.case_id
        case = _cases(flow, self.dataset).get(case_id)
        if case is None or not case.counterexamples:
            raise RuntimeError(f"commerce/{self.model_name}: case {case_id} has no counterexample")
        turns = case.script(case.counterexamples[0].name)
        return ReplayScript(script.case_id, turns, script.turn_ending)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        script = current_script(f"commerce/{self.model_name}", tools)
        if self._breaks(script, input):
            _, case = served_case(f"commerce/{self.model_name}")
            script = self._counterexample(script, case.flow)
        return self.output(input, scripted_message(script, input))
