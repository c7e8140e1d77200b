"""Which verdicts calibration pools: one judge criterion at a time.

A shared dimension is one criterion wherever it is asked, so its verdicts pool under its name. A
case's own rubric is a different criterion in every case, so its verdicts pool per rubric text
(the verdict's `dimension_sha`, the hash of what the judge read), or per group a person declares
alike in a groups file:

    groups:
      delivery-dates: [checkout-028-*, checkout-029-*, checkout-030-*]   # case ids or patterns

A rubric named by no group is its own group. Labels join the group of the verdict they label.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import Field, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import ReadError, parse_yaml, read_text
from commerce_evals.core.strict import Strict
from commerce_evals.judging.dimensions import RUBRIC

NAME = r"^[a-z0-9][a-z0-9_-]*$"


class GroupsFileError(InputError):
    """A groups file that does not load, naming the file, the place and the fix."""


class RubricGroups(Strict):
    """Rubrics a person declares one criterion: group name -> case ids or shell patterns."""

    groups: dict[str, list[str]] = Field(default_factory=dict)

    def declared(self, case_id: str) -> str | None:
        """The first group naming the case (its id, or a pattern it matches)."""
        for name, patterns in self.groups.items():
            if any(fnmatchcase(case_id, pattern) for pattern in patterns):
                return name
        return None


def read_groups(path: Path) -> RubricGroups:
    try:
        data = parse_yaml(read_text(path, what="groups file"), str(path)) or {}
        groups = RubricGroups.model_validate(data)
    except ReadError as err:
        raise GroupsFileError(err.problems) from err
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise GroupsFileError(
            f"{path}: {where}: {first['msg']} (expected groups: {{name: [case ids or patterns]}})"
        ) from err
    for name, patterns in groups.groups.items():
        if not re.match(NAME, name):
            raise GroupsFileError(f"{path}: groups.{name}: a group name is lower-case-with-dashes")
        if not patterns:
            raise GroupsFileError(f"{path}: groups.{name}: name at least one case id or pattern")
    return groups


def case_of(sample_id: str) -> str:
    """The case a sample runs (a counterexample's or an alternative's sample is `<case>~<name>`)."""
    return sample_id.split("~", 1)[0]


def group_key(dimension: str, sample_id: str, criterion: str | None, groups: RubricGroups) -> str:
    """The criterion a verdict (or the label beside it) is calibrated with: a shared dimension by
    name; a rubric by its declared group, else by its text (or, with no text recorded, its case)."""
    if dimension != RUBRIC:
        return dimension
    case_id = case_of(sample_id)
    declared = groups.declared(case_id)
    if declared is not None:
        return f"{RUBRIC}[{declared}]"
    return f"{RUBRIC}@{criterion or case_id}"


def group_names(keys: Iterable[tuple[str, str]]) -> dict[str, str]:
    """How each group is shown: a shared dimension by name, a declared group as `rubric[name]`,
    a rubric's text as `rubric #n` (numbered in the order of the first case using it; `legend`
    says which cases)."""
    cases = _cases_by_key(keys)
    texts = sorted((ids[0], key) for key, ids in cases.items() if key.startswith(f"{RUBRIC}@"))
    shown = {key: key for key in cases if not key.startswith(f"{RUBRIC}@")}
    for number, (_, key) in enumerate(texts, start=1):
        shown[key] = f"{RUBRIC} #{number}"
    return shown


def legend(keys: Iterable[tuple[str, str]]) -> list[str]:
    """One line per rubric text group: which cases' rubric it is."""
    pairs = list(keys)
    names = group_names(pairs)
    lines = []
    for key, ids in _cases_by_key(pairs).items():
        if key.startswith(f"{RUBRIC}@"):
            more = f" and {len(ids) - 1} more with the same text" if len(ids) > 1 else ""
            lines.append(f"{names[key]}: the rubric of {ids[0]}{more}")
    return sorted(lines, key=lambda line: int(line.split("#")[1].split(":")[0]))


def _cases_by_key(keys: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    cases: dict[str, list[str]] = {}
    for key, sample_id in keys:
        ids = cases.setdefault(key, [])
        if case_of(sample_id) not in ids:
            ids.append(case_of(sample_id))
    return {key: sorted(ids) for key, ids in cases.items()}
