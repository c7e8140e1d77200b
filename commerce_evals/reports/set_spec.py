"""The run sets file (datasets/sets.yaml): which cases each set runs, its epochs, its thresholds.

A set selects cases by what every sample carries in its metadata (flow, tags, priority, id), so
the same rule picks a set's cases from the case files before a run (commerce_evals/case_set.py) and
from the samples of any log after it (`commerce-evals gate`): a regression gate can be applied to
an `everything` run.

A case is in a set when its flow is one of `flows` (empty: every flow), and it matches any of
`tags`, `priorities` or `ids` (none given: every case of those flows), and it carries none of
`exclude_tags`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import ReadError, parse_yaml, read_text
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.core.strict import Strict
from commerce_evals.domains.base import DATASETS

SETS_FILE = DATASETS / "sets.yaml"
SET_NAME = r"^[a-z][a-z0-9_-]*$"
Priority = Literal["critical", "high", "medium", "low"]


@dataclass(frozen=True)
class CaseInfo:
    """What selection reads of a case: the fields every sample's metadata holds."""

    id: str
    flow: str
    priority: str
    tags: tuple[str, ...]

    @classmethod
    def from_metadata(cls, sample_id: str, metadata: dict[str, Any]) -> CaseInfo:
        return cls(
            id=sample_id,
            flow=str(metadata.get("flow", sample_id.split("-", 1)[0])),
            priority=str(metadata.get("priority", "medium")),
            tags=tuple(metadata.get("tags") or ()),
        )


class Selection(Strict):
    flows: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    priorities: list[Priority] = Field(default_factory=list)
    ids: list[str] = Field(default_factory=list)
    exclude_tags: list[str] = Field(default_factory=list)

    def matches(self, case: CaseInfo) -> bool:
        if self.flows and case.flow not in self.flows:
            return False
        if set(self.exclude_tags) & set(case.tags):
            return False
        if not (self.tags or self.priorities or self.ids):
            return True
        return (
            bool(set(self.tags) & set(case.tags))
            or case.priority in self.priorities
            or case.id.split("~", 1)[0] in self.ids
        )

    def candidate_flows(self) -> list[str]:
        """The flows whose cases may be in the set, in FLOWS order."""
        return [flow for flow in FLOWS if not self.flows or flow in self.flows]


class Thresholds(Strict):
    """What `commerce-evals gate` requires of a run of the set. Unset thresholds are not checked.

    An epoch with no score (a sample error) counts as not passed; skipped cases count for nothing.
    An epoch that needs review (the judge did not settle its rubric) counts as not passed in the
    rates, and the cases that need review are held to `max_needs_review`.
    """

    critical_all_epochs: bool = False  # every critical case passes every epoch
    min_pass_hat_k: float | None = Field(default=None, ge=0, le=1)  # share passing every epoch
    min_pass_rate: float | None = Field(default=None, ge=0, le=1)  # share of passing epochs
    min_pass_rate_by_priority: dict[Priority, float] = Field(default_factory=dict)
    require_epochs: bool = True  # the run used at least the set's epochs
    require_all_cases: bool = True  # every selected case of the case files is in the run
    require_complete_run: bool = True  # every log finished (not cancelled) with all its samples
    # cases a person must still look at (the judge left their rubric unsettled) allowed per
    # priority; a priority not named here is not limited (its cases still count as not passed)
    max_needs_review: dict[Priority, int] = Field(
        default_factory=lambda: dict[Priority, int]({"critical": 0})
    )

    @model_validator(mode="after")
    def _rates_are_shares(self) -> Thresholds:
        for priority, rate in self.min_pass_rate_by_priority.items():
            if not 0 <= rate <= 1:
                raise ValueError(f"min_pass_rate_by_priority.{priority}: {rate} is not in [0, 1]")
        for priority, allowed in self.max_needs_review.items():
            if allowed < 0:
                raise ValueError(f"max_needs_review.{priority}: {allowed} is below 0")
        return self


class RunSet(Strict):
    description: str = ""
    select: Selection = Field(default_factory=Selection)
    epochs: int = Field(default=1, ge=1)
    thresholds: Thresholds = Field(default_factory=Thresholds)


class SetsFile(Strict):
    sets: dict[str, RunSet] = Field(min_length=1)

    @model_validator(mode="after")
    def _names_and_flows(self) -> SetsFile:
        for name, run_set in self.sets.items():
            if not re.match(SET_NAME, name):
                raise ValueError(f"sets.{name}: a set name is lowercase letters, digits, - and _")
            unknown = [f for f in run_set.select.flows if f not in FLOWS]
            if unknown:
                raise ValueError(
                    f"sets.{name}.select.flows: {unknown} are not flows; flows: {sorted(FLOWS)}"
                )
        return self

    def get(self, name: str) -> RunSet:
        if name not in self.sets:
            raise SetsFileError([f"no set named {name!r}; sets: {sorted(self.sets)}"])
        return self.sets[name]


class SetsFileError(InputError):
    """One line per problem (InputError keeps them in `problems`)."""


def load_sets(path: Path | str | None = None) -> SetsFile:
    """Read and validate a sets file; every problem is raised together, naming file and field."""
    path = Path(path) if path else SETS_FILE
    try:
        data = parse_yaml(read_text(path, what="sets file"), str(path))
    except ReadError as err:
        raise SetsFileError(err.problems) from err
    try:
        return SetsFile.model_validate(data)
    except ValidationError as err:
        raise SetsFileError(
            [
                f"{path}: {'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}"
                for e in err.errors(include_url=False)
            ]
        ) from err


def select(run_set: RunSet, cases: Iterable[CaseInfo]) -> list[CaseInfo]:
    return [case for case in cases if run_set.select.matches(case)]


def check_ids(
    name: str, run_set: RunSet, cases: Iterable[CaseInfo], path: Path | str | None
) -> None:
    """Every id the set names is a case of its flows, and every tag it selects or excludes is
    carried by one: a mistyped id or tag would select (or leave out) nothing, and the set would
    run and gate without the cases it was written for."""
    cases = list(cases)
    known = {case.id for case in cases}
    tags = {tag for case in cases for tag in case.tags}
    where = Path(path) if path else SETS_FILE
    chosen = run_set.select.flows
    flows = f"the flows {', '.join(chosen)}" if chosen else "any flow"
    problems = []
    for case_id in run_set.select.ids:
        if case_id not in known:
            near = difflib.get_close_matches(case_id, sorted(known), n=1)
            hint = f"; did you mean {near[0]}?" if near else ""
            problems.append(
                f"{where}: sets.{name}.select.ids: {case_id} names no case of {flows}{hint}"
            )
    for field in ("tags", "exclude_tags"):
        for tag in getattr(run_set.select, field):
            if tag not in tags:
                near = difflib.get_close_matches(tag, sorted(tags), n=1)
                hint = f"; did you mean {near[0]}?" if near else ""
                problems.append(
                    f"{where}: sets.{name}.select.{field}: no case of {flows} is tagged {tag}{hint}"
                )
    if problems:
        raise SetsFileError(problems)
