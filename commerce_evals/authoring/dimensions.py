"""The dimensions file `commerce-evals draft dimensions` reads (seed 003, step 1).

flow: support                  # the flow the drafted cases belong to (their id prefix): one of
                               #   commerce_evals.core.flow_table.FLOWS
niche: refund                  # optional: the niche every draft sits in
priority: medium               # every draft's priority and difficulty until a person edits
difficulty: medium             #   them; a value may set its own (social-engineer: hard)
coverage: pairs                # pairs (every two values together at least once) or all
about: >                       # what the agent is and the facts a message may use; the
  A support agent for ...      #   drafter reads it
dimensions:                    # 2 to 6 dimensions, each with at least two values
  request: [refund, cancel, address change, policy question]
  customer:
    - verified
    - value: unverified
      hint: gives no name, ZIP or email        # what the drafter should know about the value
      state: {}                                # merged into the draft's `state`
  persona: [polite, rushed, angry, {value: social-engineer, difficulty: hard}]
exclude:                       # partial tuples no draft may match
  - {request: policy question, customer: wrong zip}
"""

from __future__ import annotations

from difflib import get_close_matches
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from commerce_evals.cases.reading import ReadError, read_data
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.core.strict import Strict

Priority = Literal["critical", "high", "medium", "low"]
Difficulty = Literal["easy", "medium", "hard"]


class Value(Strict):
    value: str = Field(min_length=1)
    hint: str = ""
    state: dict[str, Any] = Field(default_factory=dict)
    priority: Priority | None = None
    difficulty: Difficulty | None = None


class DimensionsFile(Strict):
    flow: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    niche: str | None = None
    priority: Priority
    difficulty: Difficulty
    coverage: Literal["pairs", "all"] = "pairs"
    about: str = ""
    dimensions: dict[str, list[Value]] = Field(min_length=2, max_length=6)
    exclude: list[dict[str, str]] = Field(default_factory=list)

    @field_validator("flow")
    @classmethod
    def _a_flow(cls, value: str) -> str:
        # a draft of a flow no task runs could never be finished into a case
        if value not in FLOWS:
            close = get_close_matches(value, list(FLOWS), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise ValueError(f"{value!r} is not a flow; flows: {', '.join(FLOWS)}{hint}")
        return value

    @field_validator("dimensions", mode="before")
    @classmethod
    def _values(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {
            name: [{"value": v} if isinstance(v, str) else v for v in values]
            if isinstance(values, list)
            else values
            for name, values in value.items()
        }

    @model_validator(mode="after")
    def _consistent(self) -> DimensionsFile:
        for name, values in self.dimensions.items():
            if len(values) < 2:
                raise ValueError(f"dimensions.{name}: give at least two values")
            seen = [v.value for v in values]
            if len(set(seen)) != len(seen):
                raise ValueError(f"dimensions.{name}: a value is listed twice")
        for index, rule in enumerate(self.exclude):
            for dim, value in rule.items():
                if dim not in self.dimensions:
                    raise ValueError(f"exclude.{index}: {dim!r} is not a dimension")
                if value not in self.names()[dim]:
                    raise ValueError(f"exclude.{index}: {value!r} is not a value of {dim}")
        return self

    def names(self) -> dict[str, list[str]]:
        return {dim: [v.value for v in values] for dim, values in self.dimensions.items()}

    def value(self, dim: str, name: str) -> Value:
        return next(v for v in self.dimensions[dim] if v.value == name)


class DimensionsFileError(ValueError):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def read_dimensions(path: Path) -> DimensionsFile:
    """The file, validated; every problem names the file and the field."""
    try:
        data = read_data(path, what="dimensions file")  # the strict reading of every case file
    except ReadError as err:
        raise DimensionsFileError(err.problems) from err
    try:
        return DimensionsFile.model_validate(data)
    except ValidationError as err:
        raise DimensionsFileError(
            [
                f"{path}: {'.'.join(str(p) for p in e['loc']) or '(file)'}: "
                + e["msg"].removeprefix("Value error, ")
                for e in err.errors(include_url=False)
            ]
        ) from err
