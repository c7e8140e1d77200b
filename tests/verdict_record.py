"""The verdicts every flow's cases, counterexamples and alternatives get under the reference.

`python -m tests.verdict_record` writes them to tests/data/verdicts.json; the test in
test_verdicts_unchanged.py reruns the same evals and compares, so a refactor that changes any
verdict (a score part, a failed key) fails with the samples that moved.
"""

from __future__ import annotations

import json
import math
from importlib import import_module
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog

from commerce_evals.grading.score_metadata import ScoreMetadata

FLOW_NAMES = ("checkout", "discovery", "memory", "merchant", "injection", "support", "dealer")
VERDICTS_FILE = Path(__file__).parent / "data" / "verdicts.json"
KINDS: dict[str, dict[str, Any]] = {
    "cases": {},
    "counterexamples": {"counterexamples": True, "judge": "off"},
    "alternatives": {"alternatives": True},
}


def _value(number: Any) -> float | None:
    return None if isinstance(number, float) and math.isnan(number) else number


def _verdicts(log: EvalLog) -> dict[str, Any]:
    assert log.status == "success", log.error
    verdicts: dict[str, Any] = {}
    for sample in log.samples or []:
        score = (sample.scores or {})["commerce_case"]
        verdicts[f"{sample.id}@{sample.epoch}"] = {
            "value": {k: _value(v) for k, v in sorted(dict(score.value).items())},
            "failed_keys": sorted(ScoreMetadata.from_score(score).failed_keys),
        }
    return dict(sorted(verdicts.items()))


def record_verdicts() -> dict[str, Any]:
    tasks: list[Task] = []
    labels: list[str] = []
    for flow in FLOW_NAMES:
        make = getattr(import_module(f"commerce_evals.{flow}"), flow)
        for kind, args in KINDS.items():
            tasks.append(make(**args))
            labels.append(f"{flow}/{kind}")
    logs = eval(
        tasks,
        model="commerce/reference",
        model_roles={"grader": "commerce/judge"},
        display="none",
        log_samples=True,
        max_tasks=4,
    )
    return {label: _verdicts(log) for label, log in zip(labels, logs, strict=True)}


if __name__ == "__main__":
    VERDICTS_FILE.write_text(json.dumps(record_verdicts(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {VERDICTS_FILE}")
