"""What a run changed: the one module that computes it, as the rows changed (`what_changed`, read
by the state keys, the action claims and the judge's transcript) and, for the closed-world outcome,
normalised and compared with what an oracle run changed.

A run's changes are, per table, the rows the end snapshot has that the start one lacks (added, or
the new form of a changed row) and the rows the start had that the end lacks (removed, or the old
form of a changed row), as multisets. Before comparing, each domain's `ChangeRules` blank out
volatile fields (generated ids, sequence numbers, keys the agent makes up) and free-text fields
(memory notes, listing copy, ticket notes): those are left to their own keys. Values compare as a
reviewer reads them: numbers by value (15, 15.0 and "15"), list fields a domain declares as sets
in any order, text fields it declares case-insensitive in any case, and amounts within a cent. A
field left empty is never blanked, so a row missing a required value differs, and the reason
names the field. A run passes when its changes equal an oracle's, tables a case waives left out.

The end state cannot show a write the run made and undid (a price staged then dropped, a line
added then removed), so the writes a run made are compared too: each executed write is reduced to
its effect (what kind of change, on which ids: `WriteRule`), and a run fails when it made an
effect no oracle run made. A retry of an oracle's write, or the same write with other arguments
(a different note, a quantity set instead of added), is the same effect.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

from commerce_evals.core.events import Row, Run, Snapshot, ToolCallEvent
from commerce_evals.grading.matching import CENT

VOLATILE = "<generated>"
FREE_TEXT = "<text>"
# a plain decimal numeral: "15" and "15.50" are numbers, "02134" (a ZIP) and "$15" stay text
NUMERAL = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?")
# leftover rows are paired (within a cent, or as alike) only when this few: pairing is quadratic
CLOSE_PAIRING_LIMIT = 64

# {table: {"added": [rows], "removed": [rows]}}, only tables that changed
ChangeSet = dict[str, dict[str, list[Row]]]


@dataclass(frozen=True)
class TableChange:
    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]


def what_changed(run: Run) -> dict[str, TableChange]:
    """Per changed table, the rows the end has that the start lacked, and the reverse, as they
    are (nothing blanked: `diff` is the normalised form the oracles are compared in)."""
    changes: dict[str, TableChange] = {}
    for table in run.changed_tables():
        before, after = run.start_table(table), run.end.get(table, [])
        changes[table] = TableChange(
            added=[row for row in after if row not in before],
            removed=[row for row in before if row not in after],
        )
    return changes


@dataclass(frozen=True)
class WriteRule:
    """What one write tool's executed calls change, for comparing the writes of two runs.

    Calls of tools with one `effect` are one kind of write (adding a cart line and setting its
    quantity both set the line). `targets` are the argument paths (`params.vehicleId`) whose
    values name what a call changes; other arguments (a note, a quantity) do not tell two writes
    apart. With `separately`, each target given (and each item of a list target) is a change of
    its own (one address update may change the address on file and an order's). `dry_run` names
    an argument that, when true, makes the call change nothing. `tables` are the snapshot tables
    the write changes: a case waiving them waives the write.
    """

    effect: str
    targets: tuple[str, ...] = ()
    separately: bool = False
    dry_run: str | None = None
    tables: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ChangeRules:
    """A domain's declaration of how the closed-world comparison reads its tables, per table.

    `free_text` fields are blanked only when they hold a non-empty string (a listing's new copy is
    text; a price change's new value in the same field is a number and is compared). `sets` are
    list fields whose order means nothing (a refund's `item_ids`); `caseless` fields hold text a
    reviewer reads in any case (every string inside them, nested ones included). `writes` says
    what each write tool changes; a write tool without a rule is told apart by all its arguments.
    """

    volatile: dict[str, frozenset[str]] = field(default_factory=dict)
    free_text: dict[str, frozenset[str]] = field(default_factory=dict)
    # tables that are logs of other tables' changes or bookkeeping, never compared
    ignored: frozenset[str] = frozenset()
    sets: dict[str, frozenset[str]] = field(default_factory=dict)
    caseless: dict[str, frozenset[str]] = field(default_factory=dict)
    writes: dict[str, WriteRule] = field(default_factory=dict)
    # free text a person may leave out (a staged change's note): written or not, not compared
    optional_text: dict[str, frozenset[str]] = field(default_factory=dict)

    def normalise(self, table: str, row: Row) -> Row:
        """The row as it is compared; normalising a normalised row changes nothing."""
        volatile = self.volatile.get(table, frozenset())
        free = self.free_text.get(table, frozenset())
        sets = self.sets.get(table, frozenset())
        caseless = self.caseless.get(table, frozenset())
        optional = self.optional_text.get(table, frozenset())
        out: Row = {}
        for name, value in row.items():
            if name in optional and (value is None or isinstance(value, str)):
                out[name] = FREE_TEXT
            elif name in volatile and not _empty(value):
                out[name] = VOLATILE
            elif name in free and isinstance(value, str) and not _empty(value):
                out[name] = FREE_TEXT
            else:
                out[name] = canonical(value, as_set=name in sets, caseless=name in caseless)
        return out

    def effects(self, tool: str, args: dict[str, Any]) -> list[str]:
        """The effects one executed call of a write tool had: none for a dry run, usually one."""
        rule = self.writes.get(tool)
        if rule is None:
            return [f"{tool}{_text(canonical(args))}"]
        if rule.dry_run is not None and bool(args.get(rule.dry_run)):
            return []
        given = {path: v for path in rule.targets if not _empty(v := _at(args, path))}
        if not rule.separately:
            named = {path: canonical(v, as_set=True, caseless=True) for path, v in given.items()}
            return [f"{rule.effect}{_text(named)}"]
        return [
            f"{rule.effect}{_text({path: canonical(item, caseless=True)})}"
            for path, value in given.items()
            for item in (value if isinstance(value, list) else [value])
        ]

    def waives(self, tool: str, tables: Collection[str]) -> bool:
        """Whether a case waiving `tables` waives this tool's writes."""
        if "*" in tables:
            return True
        rule = self.writes.get(tool)
        return rule is not None and bool(rule.tables & set(tables))


def _empty(value: Any) -> bool:
    """No value: what a required field the run left empty holds."""
    if isinstance(value, str):
        return not value.strip()
    return value is None or value == [] or value == {}


def _at(args: dict[str, Any], path: str) -> Any:
    value: Any = args
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def canonical(value: Any, *, as_set: bool = False, caseless: bool = False) -> Any:
    """A JSON value as it is compared: numbers by value (an integral float, or a plain numeral
    string, as the number), lists as sorted sets when `as_set`, text folded when `caseless`."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return int(value) if isinstance(value, float) and value.is_integer() else value
    if isinstance(value, str):
        if NUMERAL.fullmatch(value.strip()):
            return canonical(float(value) if "." in value else int(value))
        return " ".join(value.split()).casefold() if caseless else value
    if isinstance(value, dict):
        return {k: canonical(v, caseless=caseless) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [canonical(v, caseless=caseless) for v in value]
        if not as_set:
            return items
        unique = {_key(item): item for item in items}
        return [unique[k] for k in sorted(unique)]
    return value


def _key(row: Any) -> str:
    return json.dumps(row, sort_keys=True, default=str)


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


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


def renormalised(changes: ChangeSet, rules: ChangeRules) -> ChangeSet:
    """A change set normalised by these rules (one stored by an older version, whose rules
    compared less, reads as a new one would)."""
    return {
        table: {side: [rules.normalise(table, r) for r in rows] for side, rows in c.items()}
        for table, c in changes.items()
    }


def without(changes: ChangeSet, tables: set[str]) -> ChangeSet:
    if "*" in tables:
        return {}
    return {t: c for t, c in changes.items() if t not in tables}


def _row_text(row: Row, limit: int = 140) -> str:
    text = json.dumps(row, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _multiset(rows: list[Row]) -> Counter[str]:
    return Counter(_key(r) for r in rows)


def close(left: Any, right: Any) -> bool:
    """Equal, but for numbers within a cent (at any depth)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return bool(left == right)
    if isinstance(left, int | float) and isinstance(right, int | float):
        return abs(left - right) <= CENT
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(close(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(close, left, right))
    return bool(left == right)


def _pairs(left: list[Row], right: list[Row], fits: Any) -> list[tuple[int, int]]:
    """A largest pairing of `left` with `right` rows that `fits` (augmenting paths)."""
    partner: dict[int, int] = {}  # right index -> left index
    options = [[j for j, r in enumerate(right) if fits(row, r)] for row in left]
    for i in range(len(left)):
        _place(i, options, partner, set())
    return sorted((i, j) for j, i in partner.items())


def _place(i: int, options: list[list[int]], partner: dict[int, int], seen: set[int]) -> bool:
    """Pair left row `i`, moving rows paired before along an augmenting path if it must (a
    function of its own, not a closure: a recursive closure is a reference cycle)."""
    for j in options[i]:
        if j not in seen:
            seen.add(j)
            if j not in partner or _place(partner[j], options, partner, seen):
                partner[j] = i
                return True
    return False


def _drop_close(extra: list[Row], missing: list[Row]) -> tuple[list[Row], list[Row]]:
    """Both sides less the rows that equal one on the other side within a cent (beyond
    CLOSE_PAIRING_LIMIT rows a side, exact equality only: the run already differs a lot)."""
    if not extra or not missing or max(len(extra), len(missing)) > CLOSE_PAIRING_LIMIT:
        return extra, missing
    paired = _pairs(extra, missing, close)
    gone_extra, gone_missing = {i for i, _ in paired}, {j for _, j in paired}
    return (
        [r for i, r in enumerate(extra) if i not in gone_extra],
        [r for j, r in enumerate(missing) if j not in gone_missing],
    )


def _differing(mine: Row, theirs: Row) -> list[str] | None:
    """The fields in which a row differs from a like one (same fields, most of them equal);
    None when the rows are not alike."""
    if mine.keys() != theirs.keys():
        return None
    fields = [name for name in mine if not close(mine[name], theirs[name])]
    return fields if 2 * len(fields) < len(mine) else None


def _field_text(name: str, mine: Any, theirs: Any) -> str:
    if _empty(mine):
        return f"{name} left empty (an oracle run's: {_text(theirs)})"
    return f"{name} {_text(mine)} (an oracle run's: {_text(theirs)})"


def _table_lines(table: str, verb: str, extra: list[Row], missing: list[Row]) -> Iterator[str]:
    alike = (
        _pairs(extra, missing, lambda a, b: _differing(a, b) is not None)
        if max(len(extra), len(missing)) <= CLOSE_PAIRING_LIMIT
        else []
    )
    for i, j in alike:
        named = "; ".join(
            _field_text(name, extra[i][name], missing[j][name])
            for name in _differing(extra[i], missing[j]) or []
        )
        yield f"differs: {table} {verb} {_row_text(extra[i])}: {named}"
    paired_extra, paired_missing = {i for i, _ in alike}, {j for _, j in alike}
    for i, row in enumerate(extra):
        if i not in paired_extra:
            yield f"extra: {table} {verb} {_row_text(row)}"
    for j, row in enumerate(missing):
        if j not in paired_missing:
            yield f"missing: {table} {verb} {_row_text(row)}"


def difference(run: ChangeSet, oracle: ChangeSet) -> list[str]:
    """What the run changed that the oracle did not, and what it did not change that the oracle
    did, one line per row: `+ extra`, `- missing`, per table and direction; a row like one the
    oracle has (the same fields, most of them equal) is one `differs` line naming the fields."""
    lines: list[str] = []
    for table in sorted({*run, *oracle}):
        for direction in ("added", "removed"):
            mine = _multiset(run.get(table, {}).get(direction, []))
            theirs = _multiset(oracle.get(table, {}).get(direction, []))
            extra = [json.loads(k) for k in sorted((mine - theirs).elements())]
            missing = [json.loads(k) for k in sorted((theirs - mine).elements())]
            extra, missing = _drop_close(extra, missing)
            if extra or missing:
                lines.extend(_table_lines(table, direction, extra, missing))
    return lines


def matches(run: ChangeSet, oracle: ChangeSet) -> bool:
    return not difference(run, oracle)


# ---- the writes a run made --------------------------------------------------------------------


@dataclass(frozen=True)
class Write:
    """One executed call of a write tool, and the effects it had."""

    tool: str
    args: dict[str, Any]
    effects: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.tool}{_text(self.args)}" if self.args else self.tool


def executed(calls: list[ToolCallEvent], statuses: dict[str, str]) -> list[ToolCallEvent]:
    """The calls whose tool answered `ok`: a blocked, failed or refused call changed nothing."""
    return [c for c in calls if statuses.get(c.call_id) == "ok"]


def writes_made(
    calls: list[ToolCallEvent],
    statuses: dict[str, str],
    writes: Collection[str],
    rules: ChangeRules,
) -> list[Write]:
    """Each executed call of a write tool, with its effects (a dry run has none)."""
    return [
        Write(c.tool, c.args, tuple(rules.effects(c.tool, c.args)))
        for c in executed(calls, statuses)
        if c.tool in writes
    ]


def run_writes(run: Run, writes: Collection[str], rules: ChangeRules) -> list[Write]:
    return writes_made(run.all_calls(), run.statuses(), writes, rules)


def effect_set(made: list[Write]) -> list[str]:
    """The effects of these writes, sorted, each once (what an oracle's metadata keeps)."""
    return sorted({effect for write in made for effect in write.effects})


def unmatched_writes(
    made: list[Write], oracles: Collection[Collection[str]], rules: ChangeRules, waived: set[str]
) -> list[str]:
    """A line per write whose effect no oracle run had (each effect named once), writes to
    waived tables left out."""
    allowed = {effect for oracle in oracles for effect in oracle}
    lines: dict[str, str] = {}
    for write in made:
        if rules.waives(write.tool, waived):
            continue
        for effect in write.effects:
            if effect not in allowed and effect not in lines:
                lines[effect] = f"wrote what no oracle run wrote: {clip(write.describe())}"
    return list(lines.values())


def clip(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
