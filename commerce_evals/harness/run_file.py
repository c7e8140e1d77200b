"""A recorded run: the Run of one case that an agent outside Inspect made, written by the sandbox
that served it (`commerce-evals serve`), graded later by the case's own scorer
(`-T recorded=PATH`, `commerce-evals grade RUN.json`).

The file names its flow and case and a hash of what the agent was given by the case (its turns,
its injected state, its customer), so a run is never graded against a case that has since put
something else in front of the agent; what the case expects may change (that is a re-grade).
It also keeps the hashes of the instructions and tool descriptions the agent was served, and
who the agent was, for `diff` and `compare`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import Case
from commerce_evals.cases.reading import ReadError, read_data
from commerce_evals.core.events import Run
from commerce_evals.core.strict import Strict
from commerce_evals.domains.base import short_hash


class RunFileError(InputError):
    """A run file that cannot be graded: one line per problem, naming file, field and fix."""


class RunFile(Strict):
    format: Literal["commerce-evals recorded run 1"] = "commerce-evals recorded run 1"
    flow: str
    case: str
    # what the case put in front of the agent (case_input_sha): its turns, state and customer
    case_input_sha: str
    # who ran the case (an MCP client's name and version, as it introduced itself)
    agent: str
    # the instructions as the agent was served them (the graders read them as a source of what
    # the agent was told), and the hashes of the instructions' template and of the tools
    instructions: str
    instructions_sha: str
    tools_sha: str
    tools_file: str | None = None
    # the flow task's arguments the case was served with, which grading needs again
    dataset: str | None = None
    fixtures: str | None = None
    poisoned: bool | None = None
    # whether the conversation reached its end (the last user turn was answered)
    complete: bool
    run: Run


def case_input_sha(case: Case) -> str:
    """A hash of what a case gives the agent: its user turns with their consent, its injected
    state and its customer."""
    dumped = case.model_dump(mode="json", include={"turns", "confirms", "state", "customer"})
    return short_hash(dumped)


def write_run_file(path: Path, record: RunFile) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(record.model_dump(mode="json", exclude_none=True), indent=1)
    path.write_text(text + "\n", encoding="utf-8")


def read_run_file(path: Path) -> RunFile:
    try:
        data = read_data(path, what="run file")
    except ReadError as err:
        raise RunFileError(err.problems) from err
    try:
        return RunFile.model_validate(data)
    except ValidationError as err:
        problems = []
        for e in err.errors(include_url=False):
            where = ".".join(str(p) for p in e["loc"]) or "(file)"
            problems.append(
                f"{path}: {where}: {e['msg']}; a run file is written by commerce-evals serve"
            )
        raise RunFileError(problems) from err


def run_files(path: Path) -> list[Path]:
    """The run files a path names: the file, or every *.json file of the folder."""
    if path.is_dir():
        found = sorted(path.glob("*.json"))
        if not found:
            raise RunFileError(f"{path}: no run files (*.json) in this folder")
        return found
    return [path]
