"""A row read again changes nothing in a run's Records, so Records may skip it (rows_fixed, as
run_records reads a run); a row that only looks the same (1 for 1.0, NaN) is read."""

from __future__ import annotations

import copy
from typing import Any

from commerce_evals.grading.records import Records

VEHICLE = {
    "id": "V-1002",
    "year": 2024,
    "make": "Honda",
    "model": "Civic",
    "trim": "EX",
    "price": 27950,
    "description": "One owner, full service history, new tires.",
    "offers": [{"offer_id": "O-3001", "amount": 26500, "status": "pending"}],
}


def _state(records: Records) -> dict[str, Any]:
    return {
        key: (sorted(r.names), r.values, r.texts, records.parent.get(key))
        for key, r in records.by_id.items()
    }


def _read(*rows: dict[str, Any], skip: bool, copies: bool = True) -> Records:
    # rows_fixed False: every row is read again, as a caller whose rows may change needs
    records = Records(rows_fixed=skip)
    for row in rows:
        records.add(copy.deepcopy(row) if copies else row)
    return records


def test_a_row_read_again_leaves_the_records_as_reading_it_once_did() -> None:
    changed = {**VEHICLE, "price": 26900, "offers": [{**VEHICLE["offers"][0], "status": "won"}]}
    rows = (VEHICLE, VEHICLE, changed, VEHICLE)
    skipped, read = _read(*rows, skip=True), _read(*rows, skip=False)
    assert _state(skipped) == _state(read)
    # the later price is kept after the earlier, as when every row is read
    assert skipped.by_id["V-1002"].values["price"] == [27950, 26900]
    assert set(skipped.totals) == set(read.totals)


def test_a_row_equal_only_by_value_is_read() -> None:
    as_float = {**VEHICLE, "year": 2024.0}
    records = _read(VEHICLE, as_float, skip=True)
    # 2024 == 2024.0, but the second row names the vehicle another way, and that name is kept
    assert {"2024 Honda Civic EX", "2024.0 Honda Civic EX"} <= records.by_id["V-1002"].names


def test_the_same_row_under_another_parent_is_read() -> None:
    item = {"item_id": "I-1", "name": "Ember Camp Stove", "price": 59.0}
    records = Records(rows_fixed=True)
    records.add({"order_id": "R-1070", "items": [item]})
    records.add({"order_id": "R-1075", "items": [dict(item)]})
    assert {"R-1070/I-1", "R-1075/I-1"} <= set(records.by_id)


def test_parents_set_by_a_row_read_again_are_set_again() -> None:
    # ids holding "/" make two rows give one record two parents: the later read wins, as it did
    # when every row was read
    first = {"id": "A/b", "items": [{"item_id": "c"}]}
    second = {"id": "A", "items": [{"item_id": "b/c"}]}
    for rows in ((first, second, first), (second, first, second), (first, second, second, first)):
        assert _state(_read(*rows, skip=True)) == _state(_read(*rows, skip=False))
    steps = {"id": "V-1", "steps": [{"name": "fees/Title", "status": "due"}]}
    fees = {
        "id": "V-1",
        "items": [{"item_id": "fees", "steps": [{"name": "Title", "status": "paid"}]}],
    }
    rows = (steps, fees, steps)
    assert _state(_read(*rows, skip=True)) == _state(_read(*rows, skip=False))


def test_a_row_changed_between_adds_is_read_again_unless_rows_are_fixed() -> None:
    # a caller that changes its rows between adds leaves rows_fixed False (the default)
    row = {"id": "X-1", "name": "Kettle", "price": 1}
    records = Records()
    records.add(row)
    row["price"] = 2
    row["name"] = "Steel Kettle"
    records.add(row)
    assert records.by_id["X-1"].values["price"] == [1, 2]
    assert records.by_id["X-1"].names == {"Kettle", "Steel Kettle"}


def test_a_nan_read_again_is_kept_as_reading_every_row_keeps_it() -> None:
    rows = ({"id": "X-1", "price": float("nan")}, {"id": "X-1", "price": float("nan")})
    skipped, read = _read(*rows, skip=True), _read(*rows, skip=False)
    assert len(skipped.by_id["X-1"].values["price"]) == len(read.by_id["X-1"].values["price"]) == 2


def test_a_row_another_run_read_is_read_as_a_first_reading_reads_it() -> None:
    # readings are shared between runs (a catalogue's rows recur): the second run's records,
    # read from the shared readings, are those a run reading every row afresh has
    from commerce_evals.grading.row_reading import READINGS as _READINGS

    search = {"results": [VEHICLE, {**VEHICLE, "id": "V-1003", "price": 31000}], "total": 2}
    order = {"order_id": "R-1", "items": [{"item_id": "I-1", "name": "Kettle", "status": "due"}]}
    rows = (search, order, VEHICLE, {"cart_total": 12.5, "lines": []})
    _READINGS.cache_clear()
    _read(*rows, skip=True)
    shared = _read(*rows, skip=True)
    _READINGS.cache_clear()
    afresh = _read(*rows, skip=False)
    assert _state(shared) == _state(afresh)
    assert shared.totals == afresh.totals == [12.5]


def test_a_row_holding_a_nan_is_not_shared() -> None:
    from commerce_evals.grading.row_reading import READINGS as _READINGS

    _READINGS.cache_clear()
    _read({"id": "X-1", "price": float("nan")}, skip=True)
    _read({"id": "X-2", "price": 3.0}, skip=True)
    assert [key for _, key in _READINGS._by_row] == [repr({"id": "X-2", "price": 3.0})]


def test_a_reading_holding_what_is_no_json_value_is_not_shared() -> None:
    # a NaN inside a tuple equals nothing, and a set can change after it is read: a reading
    # holding either is read afresh, as every row was before readings were shared
    from commerce_evals.grading.row_reading import READINGS as _READINGS

    _READINGS.cache_clear()
    _read({"id": "A", "x": (float("nan"),)}, {"id": "S", "v": {1}}, skip=True, copies=False)
    assert not _READINGS._by_row
