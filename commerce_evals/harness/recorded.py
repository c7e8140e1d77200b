"""`-T recorded=PATH`: grade runs an agent made outside Inspect (run files written by
`commerce-evals serve`) with the flow's own scorer, as `production` grades captured traffic.

Each file's case becomes a sample (its id, metadata and oracles as in any run of the flow); the
solver calls no model: it puts the recorded Run where the scorer reads it and its conversation in
the transcript. A file of another flow, of a case the flow does not have, of a case whose turns,
state or customer changed since, or a second file of one case is refused in one line each.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageSystem, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from commerce_evals.cases.model import Case
from commerce_evals.cases.sample_case import case_of
from commerce_evals.harness.run_file import (
    RunFile,
    RunFileError,
    case_input_sha,
    read_run_file,
    run_files,
)
from commerce_evals.harness.run_messages import transcript_messages
from commerce_evals.scoring.run_record import record_run


@dataclass(frozen=True)
class Recorded:
    path: Path
    record: RunFile

    def agent_metadata(self) -> dict[str, Any]:
        """What a sample of the run records of the agent that made it (diff and compare read it)."""
        found: dict[str, Any] = {
            "agent_under_test": f"recorded: {self.record.agent}",
            "instructions_sha": self.record.instructions_sha,
            "tools_sha": self.record.tools_sha,
            "recorded_run": str(self.path),
        }
        if not self.record.complete:
            found["recorded_incomplete"] = True
        return found


def load_recorded(given: str, flow: str, cases: list[Case]) -> dict[str, Recorded]:
    """The run files `given` names, by case id, each checked against the flow's cases."""
    by_id = {case.id: case for case in cases}
    found: dict[str, Recorded] = {}
    problems: list[str] = []
    for path in run_files(Path(given)):
        record = read_run_file(path)
        case = by_id.get(record.case)
        if record.flow != flow:
            problems.append(
                f"{path}: flow: a {record.flow} run; grade it with commerce_evals/{record.flow}"
            )
        elif case is None:
            problems.append(f"{path}: case: {record.case} is no case of flow {flow!r}")
        elif record.case_input_sha != case_input_sha(case):
            problems.append(
                f"{path}: case_input_sha: case {record.case} gives the agent other turns, state "
                "or customer than when this run was recorded; serve the case again"
            )
        elif record.case in found:
            problems.append(
                f"{path}: case: {record.case} has a run already ({found[record.case].path}); "
                "grade one run per case at a time"
            )
        else:
            found[record.case] = Recorded(path, record)
    if problems:
        raise RunFileError(problems)
    return found


@solver
def recorded_runs(recorded: dict[str, Recorded]) -> Solver:
    """Each sample's recorded Run, for the scorer; no model is called."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        record = recorded[case_of(state.metadata).id].record
        run = record.run
        record_run(state, run)
        # the instructions first, as a flow's agent has them: the graders read what it was told
        state.messages = [ChatMessageSystem(content=record.instructions), *transcript_messages(run)]
        state.output = ModelOutput.from_content(model="recorded", content=run.graded.reply())
        return state

    return solve
