"""The closed-world outcome: what a run changed, compared with what an oracle run changed.

A run's changes are, per table, the rows the end snapshot has that the start one lacks (added, or
the new form of a changed row) and the rows the start had that the end lacks (removed, or the old
form of a changed row), as multisets. Before comparing, each domain's `ChangeRules` blank out
volatile fields (generated ids, sequence numbers, keys the agent makes up) and free-text fields
(memory notes, listing copy, ticket notes): those are left to their own keys. A run passes when
its changes equal an oracle's, tables a case waives left out.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from commerce_evals.harness.events import Row, Snapshot

VOLATILE = "<generated>"
FREE_TEXT = "<text>"

# {table: {"added": [rows], "removed": [rows]}}, only tables that changed
ChangeSet = dict[str, dict[str, list[Row]]]


@dataclass(frozen=True)
class ChangeRules:
    """A domain's declaration of the fields the closed-world comparison blanks out, per table.

    `free_text` fields are blanked only when they hold a string (a listing's new copy is text; a
    price change's new value in the same field is a number and is compared).
    """

    volatile: dict[str, frozenset[str]] = field(default_factory=dict)
    free_text: dict[str, frozenset[str]] = field(default_factory=dict)
    # tables that are logs of other tables' changes or bookkeeping, never compared
    ignored: frozenset[str] = frozenset()

    def normalise(self, table: str, row: Row) -> Row:
        volatile = self.volatile.get(table, frozenset())
        free = self.free_text.get(table, frozenset())
        if not volatile and not free:
            return row
        out = dict(row)
        for name in volatile & out.keys():
            out[name] = VOLATILE
        for name in free & out.keys():
            if isinstance(out[name], str):
                out[name] = FREE_TEXT
        return out

    def as_args(self) -> dict[str, Any]:
        return {
            "volatile": {t: sorted(f) for t, f in self.volatile.items()},
            "free_text": {t: sorted(f) for t, f in self.free_text.items()},
            "ignored": sorted(self.ignored),
        }

    @classmethod
    def from_args(cls, args: dict[str, Any] | None) -> ChangeRules:
        args = args or {}
        return cls(
            volatile={t: frozenset(f) for t, f in (args.get("volatile") or {}).items()},
            free_text={t: frozenset(f) for t, f in (args.get("free_text") or {}).items()},
            ignored=frozenset(args.get("ignored") or ()),
        )


def _key(row: Row) -> str:
    return json.dumps(row, sort_keys=True, default=str)


def _moved_or_changed(before: list[Row], after: list[Row]) -> tuple[list[Row], list[Row]]:
    """Each side less the rows the other holds unchanged at the same place: most rows of a
    changed table. Dropping an equal row from both sides leaves the added and removed multisets
    as they were, and comparing two rows costs less than serialising them."""
    shared = min(len(before), len(after))
    moved = [i for i in range(shared) if before[i] != after[i]]
    kept_before = [before[i] for i in moved] + before[shared:]
    kept_after = [after[i] for i in moved] + after[shared:]
    return kept_before, kept_after


def diff(start: Snapshot, end: Snapshot, rules: ChangeRules) -> ChangeSet:
    """Rows added and removed per table, normalised; `start` lacking a table means unchanged."""
    changes: ChangeSet = {}
    for table in sorted({*start, *end} - rules.ignored):
        before = start.get(table, end.get(table, []))
        after = end.get(table, [])
        if before == after:
            continue
        before, after = _moved_or_changed(before, after)
        old = Counter(_key(rules.normalise(table, r)) for r in before)
        new = Counter(_key(rules.normalise(table, r)) for r in after)
        added = sorted((new - old).elements())
        removed = sorted((old - new).elements())
        if added or removed:
            changes[table] = {
                "added": [json.loads(k) for k in added],
                "removed": [json.loads(k) for k in removed],
            }
    return changes


def without(changes: ChangeSet, tables: set[str]) -> ChangeSet:
    if "*" in tables:
        return {}
    return {t: c for t, c in changes.items() if t not in tables}


def _row_text(row: Row, limit: int = 140) -> str:
    text = json.dumps(row, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _multiset(rows: list[Row]) -> Counter[str]:
    return Counter(_key(r) for r in rows)


def difference(run: ChangeSet, oracle: ChangeSet) -> list[str]:
    """What the run changed that the oracle did not, and what it did not change that the oracle
    did, one line per row: `+ extra`, `- missing`, per table and direction."""
    lines: list[str] = []
    for table in sorted({*run, *oracle}):
        for direction, verb in (("added", "added"), ("removed", "removed")):
            mine = _multiset(run.get(table, {}).get(direction, []))
            theirs = _multiset(oracle.get(table, {}).get(direction, []))
            for key in sorted((mine - theirs).elements()):
                lines.append(f"extra: {table} {verb} {_row_text(json.loads(key))}")
            for key in sorted((theirs - mine).elements()):
                lines.append(f"missing: {table} {verb} {_row_text(json.loads(key))}")
    return lines


def matches(run: ChangeSet, oracle: ChangeSet) -> bool:
    return not difference(run, oracle)
