"""The verdicts every flow's cases, counterexamples and alternatives get under the reference.

`python -m tests.verdict_record` writes them to tests/data/verdicts.json; the test in
test_verdicts_unchanged.py compares them with the runs tests/flow_runs.py makes (the same runs
the per-flow tests read, so a session runs each flow once), and a refactor that changes any
verdict (a score part, a failed key) fails with the samples that moved.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog

from commerce_evals.core.flow_table import FLOWS
from commerce_evals.grading.score_metadata import ScoreMetadata
from commerce_evals.grading.verdict import VERDICT_KEY
from tests.flow_runs import JAPANESE_FLOWS, KINDS, flow_logs, run_name

VERDICTS_FILE = Path(__file__).parent / "data" / "verdicts.json"


def _value(number: Any) -> float | None:
    return None if isinstance(number, float) and math.isnan(number) else number


def verdicts(log: EvalLog) -> dict[str, Any]:
    assert log.status == "success", log.error
    found: dict[str, Any] = {}
    for sample in log.samples or []:
        score = (sample.scores or {})["commerce_case"]
        found[f"{sample.id}@{sample.epoch}"] = {
            # the viewer's grade is read off passed and needs_review (tests/test_viewer_verdict.py)
            "value": {
                k: _value(v) for k, v in sorted(dict(score.value).items()) if k != VERDICT_KEY
            },
            "failed_keys": sorted(ScoreMetadata.from_score(score).failed_keys),
        }
    return dict(sorted(found.items()))


def flow_verdicts(flow: str) -> dict[str, Any]:
    """The record's groups for one flow: `<flow>/<kind>` -> sample -> verdict."""
    runs = flow_logs(flow)
    return {f"{flow}/{kind}": verdicts(runs.logs[kind]) for kind in KINDS}


# every run the tests make: each flow, and each flow with a Japanese store
RUNS = [*FLOWS, *(run_name(flow, "ja") for flow in JAPANESE_FLOWS)]


def record_verdicts() -> dict[str, Any]:
    return {group: found for name in RUNS for group, found in flow_verdicts(name).items()}


if __name__ == "__main__":
    VERDICTS_FILE.write_text(json.dumps(record_verdicts(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {VERDICTS_FILE}")
