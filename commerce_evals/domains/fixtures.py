"""Where a domain's fixtures live, and the one way a fixture file is read and validated.

Every domain reads its files through `read_fixture`: the project's strict reading (UTF-8, size
and depth caps, a YAML alias budget; cases/reading.py), then its pydantic model, and one
FixtureError naming the file, the field and what is wrong.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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


# The fixture names a domain's loader asked for, by folder, while `fixture_reads` records them.
_ASKED: ContextVar[dict[Path, set[str]] | None] = ContextVar("fixture_names_asked", default=None)


def _fixture_files(root: Path) -> list[Path]:
    """The files directly under root whose suffix is a fixture's (in any case: `.JSON` too)."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)


def fixture_file(root: Path, stem: str) -> Path | None:
    """<stem>.json, .yaml or .yml under root (suffix in any case); None when there is none. Two
    files for one fixture (`catalog.json` beside `catalog.yaml`) are an error: reading one would
    leave the other aside without a word."""
    asked = _ASKED.get()
    if asked is not None:
        asked.setdefault(root.resolve(), set()).add(stem)
    found = [p for p in _fixture_files(root) if p.stem == stem]
    if len(found) > 1:
        names = " and ".join(p.name for p in found)
        raise FixtureError(f"{root}: {names} are both the {stem} fixture; keep one of them")
    return found[0] if found else None


@contextmanager
def fixture_reads() -> Iterator[dict[Path, set[str]]]:
    """Records which fixture names a loader asks for in each folder (see unread_fixtures)."""
    asked: dict[Path, set[str]] = {}
    token = _ASKED.set(asked)
    try:
        yield asked
    finally:
        _ASKED.reset(token)


def check_unread_fixtures(root: Path, asked: set[str], domain: str) -> None:
    """A file in a fixtures folder that looks like a fixture but is none its domain reads (a
    misspelt `seller_message.json`) is an error: the loader would pass it by and the run would
    go without its rows."""
    problems = []
    for path in _fixture_files(root):
        if path.stem in asked:
            continue
        near = difflib.get_close_matches(path.stem, sorted(asked), n=1)
        hint = f"did you mean {near[0]}{path.suffix}? " if near else ""
        problems.append(
            f"{path}: not a fixture file of the {domain} domain, which reads "
            f"{', '.join(sorted(asked))}; {hint}rename or remove it"
        )
    if problems:
        raise FixtureError(problems)


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
