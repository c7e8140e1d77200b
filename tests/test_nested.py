"""objects_in: every dict of a nested JSON value, in the order a recursive walk meets them."""

from __future__ import annotations

from typing import Any

import pytest

from commerce_evals.core.nested import objects_in


def _recursive(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value, *(d for v in value.values() for d in _recursive(v))]
    if isinstance(value, list):
        return [d for v in value for d in _recursive(v)]
    return []


def test_every_dict_in_depth_first_order() -> None:
    value = {
        "id": "a",
        "items": [{"id": "b", "parts": [{"id": "c"}, 3, "x"]}, [{"id": "d"}], None],
        "owner": {"id": "e", "address": {"city": "Lyon"}},
        "total": 4,
    }
    walked = [d.get("id") or d.get("city") for d in objects_in(value)]
    assert walked == ["a", "b", "c", "d", "e", "Lyon"]
    assert [id(d) for d in objects_in(value)] == [id(d) for d in _recursive(value)]


def test_plain_values_hold_no_dicts() -> None:
    assert list(objects_in("text")) == []
    assert list(objects_in([1, [2, ["x"]]])) == []


def test_a_value_that_holds_itself_is_an_error_not_an_endless_walk() -> None:
    looped: dict[str, Any] = {"id": "a"}
    looped["self"] = looped
    with pytest.raises(ValueError, match="holds? itself"):
        list(objects_in(looped))
