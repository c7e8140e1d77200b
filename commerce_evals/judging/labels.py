"""Human labels of judged runs: the file format `commerce-evals label` writes and `calibrate` reads.

One label a line in JSONL, or a YAML list (or a mapping with `labels:`) of the same objects:

    {"sample_id": "checkout-101-budget-tradeoff", "epoch": 1, "dimension": "budget_respected",
     "verdict": "Pass", "labeller": "Ana", "time": "2026-11-29T18:02:11+00:00",
     "transcript_sha": "389e57b6b2dfb9be"}

`verdict` is Pass or Fail; Skip records that the person looked and chose not to decide (calibrate
leaves it out). `transcript_sha` ties the label to the exact run it was given for: a label whose
run has since changed is left out as stale. `judge` (optional, written by `commerce-evals label`)
names the judge of the log the person labelled from; calibrate reports labels given beside
another judge than the one it calibrates. Every problem names file, line and field.

A label must name what the logs it is calibrated against hold (`check_label_ids`): a sample of
those logs, an epoch that sample ran, and a dimension the judge was asked about on it. A label
that names none of them is a typo or a label of another run; calibrate refuses it, naming the
line, instead of counting it as "labels with no verdict".
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from difflib import get_close_matches
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, field_validator

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import (
    ReadError,
    compose_yaml,
    construct_yaml,
    parse_json,
    read_text,
)
from commerce_evals.core.strict import Strict
from commerce_evals.judging.dimensions import NAME


class Label(Strict):
    sample_id: str = Field(min_length=1)
    epoch: int = Field(default=1, ge=1)
    dimension: str = Field(pattern=NAME)
    verdict: Literal["Pass", "Fail", "Skip"]
    labeller: str = Field(min_length=1)
    time: datetime
    transcript_sha: str | None = None
    judge: str | None = None  # the judge whose verdict sat beside the run when it was labelled
    note: str = ""

    @field_validator("labeller")
    @classmethod
    def _named(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("a label needs the name of the person who gave it")
        return value

    @field_validator("time")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        return value if value.tzinfo else value.replace(tzinfo=UTC)

    @property
    def key(self) -> tuple[str, int]:
        return (self.sample_id, self.epoch)


class LabelFileError(InputError):
    """One line per problem (InputError keeps them in `problems`)."""


def _problems(path: Path, line: int, err: ValidationError) -> list[str]:
    return [
        f"{path}:{line}: {'.'.join(str(p) for p in e['loc']) or '(label)'}: {e['msg']}"
        for e in err.errors(include_url=False)
    ]


def _jsonl_entries(path: Path, text: str) -> list[tuple[int, Any]]:
    entries: list[tuple[int, Any]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            entries.append((number, parse_json(line, f"{path}:{number}: (label)")))
        except ReadError as err:
            problems.extend(err.problems)
    if problems:
        raise LabelFileError(problems)
    return entries


def _yaml_entries(path: Path, text: str) -> list[tuple[int, Any]]:
    try:
        root = compose_yaml(text, str(path))
    except ReadError as err:
        raise LabelFileError(err.problems) from err
    if root is None:
        return []
    if isinstance(root, yaml.MappingNode):
        found = [(k, v) for k, v in root.value if getattr(k, "value", None) == "labels"]
        if not found:
            raise LabelFileError([f"{path}:1: (file): expected a list of labels or 'labels:'"])
        if len(found) > 1:
            first, again = (k.start_mark.line + 1 for k, _ in found[:2])
            raise LabelFileError(
                [
                    f"{path}: line {again}: key 'labels' written twice (first on line {first}); "
                    "keep one of them"
                ]
            )
        root = found[0][1]
    if not isinstance(root, yaml.SequenceNode):
        raise LabelFileError([f"{path}:1: (file): expected a list of labels"])
    try:
        return [(node.start_mark.line + 1, construct_yaml(node, str(path))) for node in root.value]
    except ReadError as err:
        raise LabelFileError(err.problems) from err


def read_labels(path: Path) -> list[Label]:
    """Every label in the file; all problems raised together, each naming file, line and field."""
    return [label for _, label in located_labels(path)]


def located_labels(path: Path) -> list[tuple[int, Label]]:
    """Every label in the file with the line it starts on."""
    if not path.exists():
        return []
    try:
        text = read_text(path, what="label file")
    except ReadError as err:
        raise LabelFileError(err.problems) from err
    yaml_file = path.suffix.lower() in {".yaml", ".yml"}
    entries = _yaml_entries(path, text) if yaml_file else _jsonl_entries(path, text)
    labels: list[tuple[int, Label]] = []
    problems: list[str] = []
    for line, entry in entries:
        try:
            labels.append((line, Label.model_validate(entry)))
        except ValidationError as err:
            problems.extend(_problems(path, line, err))
    if problems:
        raise LabelFileError(problems)
    return labels


# sample id -> epoch -> the dimensions the judge was asked about on that run
Asked = Mapping[str, Mapping[int, set[str]]]


def _close(name: str, names: list[str]) -> str:
    found = get_close_matches(name, names, n=3)
    return f" (did you mean {', '.join(found)}?)" if found else ""


def label_id_problem(label: Label, asked: Asked, dimensions: list[str]) -> str | None:
    """Why a label names nothing the logs hold (field: problem), or None."""
    fix = "give calibrate the logs it was labelled on, or remove the line"
    if label.dimension not in dimensions:
        return (
            f"dimension: {label.dimension!r} is no judge dimension"
            f"{_close(label.dimension, dimensions)}; dimensions: {', '.join(dimensions)}"
        )
    epochs = asked.get(label.sample_id)
    if epochs is None:
        return (
            f"sample_id: {label.sample_id} is no sample of the logs given"
            f"{_close(label.sample_id, sorted(asked))}; {fix}"
        )
    if label.epoch not in epochs:
        ran = max(epochs)
        return (
            f"epoch: {label.sample_id} ran {ran} epoch(s) in the logs given, not epoch "
            f"{label.epoch}; {fix}"
        )
    judged = sorted(epochs[label.epoch])
    if label.dimension not in judged:
        about = ", ".join(judged) if judged else "no dimension"
        return (
            f"dimension: the judge was not asked about {label.dimension} on {label.sample_id} "
            f"(only about {about}); fix the dimension or remove the line"
        )
    return None


def check_label_ids(
    path: Path, labels: list[tuple[int, Label]], asked: Asked, dimensions: list[str]
) -> None:
    """Every label names a sample, epoch and dimension of the logs; one located line each."""
    problems = []
    for line, label in labels:
        problem = label_id_problem(label, asked, dimensions)
        if problem:
            problems.append(f"{path}:{line}: {problem}")
    if problems:
        raise LabelFileError(problems)


def append_label(path: Path, label: Label) -> None:
    """Add one label at the end of the file (a JSON line, or a YAML list item)."""
    data = json.dumps(label.model_dump(mode="json", exclude_defaults=True), ensure_ascii=False)
    yaml_file = path.suffix.lower() in {".yaml", ".yml"}
    try:
        existing = read_text(path, what="label file") if path.exists() else ""
        root = compose_yaml(existing, str(path)) if yaml_file and existing.strip() else None
    except ReadError as err:
        raise LabelFileError(err.problems) from err
    if root is not None and not isinstance(root, yaml.SequenceNode):
        raise LabelFileError([f"{path}:1: (file): labels append to a YAML list or a JSONL file"])
    prefix = "" if not existing or existing.endswith("\n") else "\n"
    with path.open("a", encoding="utf-8") as out:
        out.write(f"{prefix}{'- ' if yaml_file else ''}{data}\n")


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)
