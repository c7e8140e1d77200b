"""The strict base of every model a person's file is read into: an unknown key is an error.

A typo such as `never_call` or `todya` must fail loudly, never load as an ignored extra.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    """Unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class FrozenStrict(Strict):
    """Strict, and immutable once read (rows shared by every sample of a task)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def unique_rows(key: str) -> Callable[[Any, list[Any]], list[Any]]:
    """A field validator for a list of rows whose `key` names each row once: a row written twice
    is an error naming both places, never the last copy winning (or the first) without a word.
    Use as `check = field_validator("rows")(unique_rows("id"))`."""

    def check(cls: Any, rows: list[Any]) -> list[Any]:
        first: dict[Any, int] = {}
        for index, row in enumerate(rows):
            value = getattr(row, key)
            if value in first:
                raise ValueError(
                    f"{key} {value} is written twice (rows {first[value]} and {index}); keep one"
                )
            first[value] = index
        return rows

    return check
