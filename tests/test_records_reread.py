"""A row read again changes nothing in a run's Records, so Records may skip it; a row that only
looks the same (1 for 1.0, a reordered object) is read."""

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


def _read(*rows: dict[str, Any], skip: bool) -> Records:
    records = Records()
    if not skip:
        records._read_before = lambda node, parent, own: False  # type: ignore[method-assign]
    for row in rows:
        records.add(copy.deepcopy(row))
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
    records = Records()
    records.add({"order_id": "R-1070", "items": [item]})
    records.add({"order_id": "R-1075", "items": [dict(item)]})
    assert {"R-1070/I-1", "R-1075/I-1"} <= set(records.by_id)
