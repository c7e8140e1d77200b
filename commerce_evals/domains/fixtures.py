"""Where a domain's fixtures live, and the one way a fixture file is read and validated.

Every domain reads its files through `read_fixture`: the project's strict reading (UTF-8, size
and depth caps, a YAML alias budget; cases/reading.py), then its pydantic model, and one
FixtureError naming the file, the field and what is wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.paths import data_dir
from commerce_evals.cases.reading import MAX_FIXTURE_BYTES, read_data

FIXTURES = data_dir("fixtures")
POISONED = data_dir("poisoned")
DATASETS = data_dir("datasets")

SUFFIXES = (".json", ".yaml", ".yml")
M = TypeVar("M", bound=BaseModel)


class FixtureError(InputError):
    """A fixture that does not load, naming the file and the field."""


def fixture_file(root: Path, stem: str) -> Path | None:
    """<stem>.json, .yaml or .yml under root, the first that exists; None when none does."""
    return next((root / f"{stem}{s}" for s in SUFFIXES if (root / f"{stem}{s}").exists()), None)


def read_fixture(root: Path, stem: str, model: type[M]) -> M:
    """The fixture <stem> under root (JSON or YAML), validated by `model`."""
    path = fixture_file(root, stem)
    if path is None:  # named as JSON, the form every shipped fixture takes
        raise FixtureError(f"{root / stem}.json: no such fixture file")
    return read_fixture_file(path, model)


def read_fixture_file(path: Path, model: type[M]) -> M:
    """One fixture file read strictly and validated; the first problem named with the count."""
    data = read_data(path, MAX_FIXTURE_BYTES, "fixture file")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        count = err.error_count()
        raise FixtureError(
            f"{path}: {loc}: {first['msg']} ({count} problem{'s' * (count != 1)})"
        ) from err
