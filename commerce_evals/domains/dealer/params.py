"""An operation's parameters: their declared types, and turning the model's values into clean ones.

Clean values are JSON-native (numbers as floats or ints, dates as ISO strings, enum values in their
canonical case), so the same request always compares equal under its idempotency key.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from commerce_evals.domains.base import ToolFailure
from commerce_evals.grading.matching import as_number

ParamType = Literal["string", "number", "integer", "date", "enum"]


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    description: str
    required: bool = True
    choices: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "required": self.required,
            "description": self.description,
        }
        if self.choices:
            row["choices"] = list(self.choices)
        return row

    def signature(self) -> str:
        kind = "|".join(self.choices) if self.choices else self.type
        return f"{self.name}{'' if self.required else '?'}: {kind}"

    def parse(self, value: Any) -> Any:
        where = f"params.{self.name}"
        if self.type == "number":
            number = as_number(value)
            if number is None or number <= 0:
                raise ToolFailure(f"{where} must be a positive amount in dollars, e.g. 24500")
            return number
        if self.type == "integer":
            number = as_number(value)
            if number is None or number < 0 or not float(number).is_integer():
                raise ToolFailure(f"{where} must be a whole number, 0 or more")
            return int(number)
        if self.type == "date":
            try:
                return date.fromisoformat(str(value).strip()).isoformat()
            except ValueError as err:
                raise ToolFailure(f"{where} must be a date as YYYY-MM-DD") from err
        if self.type == "enum":
            for choice in self.choices:
                if isinstance(value, str) and value.strip().casefold() == choice.casefold():
                    return choice
            raise ToolFailure(f"{where} must be one of {list(self.choices)}")
        if not isinstance(value, str) or not value.strip():
            raise ToolFailure(f"{where} must be non-empty text")
        return value.strip()


def clean_params(
    operation: str, declared: tuple[Param, ...], given: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """(clean params, names of required params not given); unknown or malformed ones fail."""
    by_name = {p.name: p for p in declared}
    unknown = sorted(set(given) - set(by_name))
    if unknown:
        names = [p.signature() for p in declared] or "none"
        raise ToolFailure(f"{operation} does not take {unknown}; its params: {names}")
    clean = {name: by_name[name].parse(value) for name, value in given.items() if value is not None}
    missing = [p.name for p in declared if p.required and p.name not in clean]
    return clean, missing
