"""How a row a run showed is read into records, once for every run that shows it.

Reading a row (a product, an order with its items, a closing with its steps) into `Records`
depends on the row and its parent alone: the records it begins or adds to, their parents, names,
values and texts, and the totals it lists. `Tape` writes that reading down as steps; `Records`
takes them (grading/records.py). A row's reading is kept (`READINGS`, by the row as written) and
taken again by every run that shows an equal row: the World's rows and a catalogue's search
results recur from sample to sample.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# the field that is an object's own id, in order of preference ("id" first: an offer's
# `vehicleId` names another record)
ID_FIELDS = (
    "id",
    "refund_id",
    "change_id",
    "ticket_id",
    "task_id",
    "offer_id",
    "order_id",
    "product_id",
    "customer_id",
    "item_id",
)
# ids that number an object within its parent (an order's item I-1): read with the parent's id
NESTED_ID_FIELDS = frozenset({"item_id"})
NAME_FIELDS = ("name", "title")
TOTAL_FIELDS = ("total", "cart_total", "line_total", "subtotal", "order_total")

_ID_FIELD_SET = frozenset(ID_FIELDS)
CONTAINERS = (dict, list)
_TOTAL_FIELD_SET = frozenset(TOTAL_FIELDS)


def id_field_of(row: dict[str, Any]) -> str | None:
    if _ID_FIELD_SET.isdisjoint(row):  # most parts of a record: no id of their own
        return None
    for key in ID_FIELDS:
        value = row.get(key)
        if isinstance(value, str) and value:
            return key
    return None


def _own_id(row: dict[str, Any]) -> str | None:
    key = id_field_of(row)
    return row[key] if key else None


def _is_part(row: dict[str, Any]) -> bool:
    """A part of a record that is a thing of its own: it has a name and a status."""
    return isinstance(row.get("name"), str) and isinstance(row.get("status"), str)


def _vehicle_name(row: dict[str, Any]) -> str | None:
    parts = [row.get(k) for k in ("year", "make", "model", "trim")]
    if row.get("make") and row.get("model"):
        return " ".join(str(p) for p in parts if p)
    return None


# One step of reading a row, (kind, record id, a, b): a record begun (NEW), its parent set to a
# (PARENT), a name a (NAME), the value b at the field path a (VALUE), the text b of the field a
# (TEXT); or a total a listed (TOTAL, no record).
NEW, PARENT, NAME, VALUE, TEXT, TOTAL = range(6)
# the values a shared reading may hold: a JSON row's, none of which can change (a list of plain
# values is kept as a tuple)
_SHARED_VALUES = (str, int, float, type(None))
Step = tuple[int, str | None, Any, Any]


class Tape:
    """How a row is read, written down as steps (`put`) in the order Records takes them: its
    totals, its record, then the parts and the rows inside it (`on_child`: read in line, unless
    the caller reads them itself)."""

    def __init__(
        self,
        put: Callable[[Step], None],
        on_child: Callable[[Any, str | None], None] | None = None,
    ) -> None:
        self.put = put
        # None: in line (not `self.node`, which would tie the tape to itself in a cycle that
        # waits for the garbage collector)
        self.on_child = on_child
        # False once a NaN is read: it is not even equal to itself, so the reading is no value
        # to share (Records keeps every NaN it is shown, as two rows reading it do)
        self.exact = True

    def node(self, node: Any, parent: str | None) -> None:
        if isinstance(node, list):
            for item in node:
                if isinstance(item, CONTAINERS):
                    self.node(item, parent)
        elif isinstance(node, dict):
            self.totals(node)
            id_field = id_field_of(node)
            self.row(node, parent, id_field, node[id_field] if id_field else None)

    def _child(self, node: Any, owner: str | None) -> None:
        if self.on_child is None:
            self.node(node, owner)
        else:
            self.on_child(node, owner)

    def totals(self, node: dict[str, Any]) -> None:
        for total_key in TOTAL_FIELDS if not _TOTAL_FIELD_SET.isdisjoint(node) else ():
            total = node.get(total_key)
            # a bare "total" is a money total only beside the lines it adds up (a search's
            # "total" is its count of results)
            money = total_key != "total" or any(k in node for k in ("lines", "items"))
            if money and isinstance(total, int | float) and not isinstance(total, bool):
                self._value(total)
                self.put((TOTAL, None, float(total), None))

    def row(
        self, node: dict[str, Any], parent: str | None, id_field: str | None, own: str | None
    ) -> None:
        key = own
        if own is not None:
            nested = id_field in NESTED_ID_FIELDS and parent is not None
            key = f"{parent}/{own}" if nested else own
            self.put((NEW, key, None, None))
            if nested and parent is not None:
                self.put((PARENT, key, parent, None))
            self._names(key, node)
            vehicle = _vehicle_name(node)
            if vehicle:
                self.put((NAME, key, vehicle, None))
            self.fields(key, node)
            self.texts(key, node)
        owner = key if own is not None else parent
        for field_name, value in node.items():
            if isinstance(value, dict):
                if owner is not None and _own_id(value) is None:
                    # a named part of a record with its own status (a closing's steps, keyed by
                    # their key): a record of its own under its parent
                    if _is_part(value):
                        self.part(value, owner, str(value.get("key") or field_name))
                    for sub_key, sub in value.items():
                        if isinstance(sub, dict) and _own_id(sub) is None and _is_part(sub):
                            self.part(sub, owner, str(sub.get("key") or sub_key))
                self._child(value, owner)
            elif isinstance(value, list):
                if owner is not None:
                    for item in value:
                        if isinstance(item, dict) and _own_id(item) is None and _is_part(item):
                            self.part(item, owner, str(item.get("key") or item.get("name")))
                self._child(value, owner)

    def part(self, node: dict[str, Any], parent: str, key: str) -> None:
        part_id = f"{parent}/{key}"
        self.put((NEW, part_id, None, None))
        self.put((PARENT, part_id, parent, None))
        self._names(part_id, node)
        self.fields(part_id, node)

    def _names(self, key: str, node: dict[str, Any]) -> None:
        for name_field in NAME_FIELDS:
            if isinstance(node.get(name_field), str) and node[name_field].strip():
                self.put((NAME, key, node[name_field].strip(), None))

    def fields(self, key: str, row: dict[str, Any], prefix: str = "") -> None:
        """Each field of a record's row, by its dotted path: a nested object without an id of
        its own is part of the record; a list counts only if it holds plain values (the
        top-level name fields are its names, not values)."""
        for name, value in row.items():
            if isinstance(value, dict):
                if _own_id(value) is None:
                    self.fields(key, value, f"{prefix}{name}.")
            elif prefix or name not in NAME_FIELDS:
                if not isinstance(value, list):
                    self._value(value)
                    self.put((VALUE, key, f"{prefix}{name}", value))
                elif not any(isinstance(v, CONTAINERS) for v in value):
                    for item in value:
                        self._value(item)
                    self.put((VALUE, key, f"{prefix}{name}", tuple(value)))

    def texts(self, key: str, row: dict[str, Any], where: str = "") -> None:
        """The prose a record carries, by its top field: its description, each review's text
        (a part without an id of its own)."""
        for name, value in row.items():
            place = where or name
            if isinstance(value, str):
                if name not in NAME_FIELDS and len(value.split()) >= 3:
                    self.put((TEXT, key, place, value))
            elif isinstance(value, dict):
                if _own_id(value) is None:
                    self.texts(key, value, place)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, dict) and _own_id(item) is None:
                        self.texts(key, item, place)

    def _value(self, value: Any) -> None:
        if isinstance(value, float):
            if math.isnan(value):
                self.exact = False
        elif isinstance(value, tuple):
            for item in value:
                self._value(item)
        elif not isinstance(value, _SHARED_VALUES):
            self.exact = False  # no JSON value (a set, say): it may change, so nobody shares it


@dataclass(frozen=True)
class Reading:
    """What reading one row with an id does to a Records, step by step, with every row inside
    it read in line. It depends on the row and its parent alone, so one reading serves every
    run that shows an equal row: a catalogue's and a World's rows recur from sample to sample."""

    steps: tuple[Step, ...]
    parents: tuple[tuple[str, str], ...]  # every (record, its parent) it sets, in order
    exact: bool  # no NaN in it (see Tape.exact)


def read_row(node: dict[str, Any], parent: str | None, id_field: str) -> Reading:
    steps: list[Step] = []
    tape = Tape(steps.append)
    tape.totals(node)
    tape.row(node, parent, id_field, node[id_field])
    parents = tuple((key, p) for kind, key, p, _ in steps if kind == PARENT and key is not None)
    return Reading(tuple(steps), parents, tape.exact)


# (parent, the row as written) of a reading: repr tells 1, 1.0 and True apart, which are equal
# but not read alike (a vehicle's name is written from its year)
RowKey = tuple[str | None, str]


class Readings:
    """The readings of the rows read lately, by `RowKey`; the oldest go first past `size`."""

    def __init__(self, size: int) -> None:
        self._by_row: dict[RowKey, Reading] = {}
        self._size = size

    def get(self, key: RowKey) -> Reading | None:
        return self._by_row.get(key)

    def put(self, key: RowKey, reading: Reading) -> None:
        if len(self._by_row) >= self._size:
            del self._by_row[next(iter(self._by_row))]
        self._by_row[key] = reading

    def cache_clear(self) -> None:
        self._by_row.clear()


READINGS = Readings(2048)
