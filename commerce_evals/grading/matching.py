"""One subset matcher for tool-call arguments and state rows.

A pattern matches a value when:
- a dict pattern's keys are all present in the value and each matches (the value may hold more keys);
- a list pattern and a list value are equal as sets: every pattern item matches some value item and
  every value item is matched by some pattern item;
- numbers agree within a cent;
- strings agree ignoring case (a number given as a string, such as a ZIP, matches the number);
- the string "*" matches any present value.
"""

from __future__ import annotations

from typing import Any

ANY = "*"
CENT = 0.01 + 1e-9


def as_number(value: Any) -> float | None:
    """A number, or a numeric string such as \"$1,250.00\", as a float; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().lstrip("$").replace(",", ""))
        except ValueError:
            return None
    return None


def matches(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, str) and pattern == ANY:
        return value is not None
    if isinstance(pattern, dict):
        if not isinstance(value, dict):
            return False
        return all(key in value and matches(sub, value[key]) for key, sub in pattern.items())
    if isinstance(pattern, list):
        if not isinstance(value, list):
            return False
        return all(any(matches(p, v) for v in value) for p in pattern) and all(
            any(matches(p, v) for p in pattern) for v in value
        )
    if isinstance(pattern, bool) or isinstance(value, bool):
        return isinstance(pattern, bool) and isinstance(value, bool) and pattern == value
    if pattern is None:
        return value is None
    if isinstance(pattern, int | float) or isinstance(value, int | float):
        left, right = as_number(pattern), as_number(value)
        return left is not None and right is not None and abs(left - right) <= CENT
    if isinstance(pattern, str) and isinstance(value, str):
        return pattern.strip().casefold() == value.strip().casefold()
    return bool(pattern == value)


def any_row_matches(pattern: dict[str, Any], rows: list[dict[str, Any]]) -> bool:
    return any(matches(pattern, row) for row in rows)
