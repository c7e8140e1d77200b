"""Tuples over dimensions that cover every allowed pair of values (all-pairs), greedily.

A deterministic AETG-style greedy: while some allowed pair of values is uncovered, build one tuple
from each uncovered pair as a seed, filling the other dimensions with the value that covers the most
uncovered pairs (ties to the value used least so far, so values appear evenly), and keep the tuple
that covers the most. Exclusions are partial tuples ({dimension: value, ...}) no tuple may match; a
pair that only excluded tuples could hold is not required and is reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations, product

Tuple = dict[str, str]
Pair = tuple[tuple[str, str], tuple[str, str]]


@dataclass
class Coverage:
    tuples: list[Tuple]
    strength: str
    pairs_required: int
    pairs_covered: int
    unreachable: list[Pair] = field(default_factory=list)

    def value_counts(self) -> dict[str, Counter[str]]:
        counts: dict[str, Counter[str]] = {}
        for row in self.tuples:
            for dim, value in row.items():
                counts.setdefault(dim, Counter())[value] += 1
        return counts


def excluded(row: Mapping[str, str], exclusions: Sequence[Mapping[str, str]]) -> bool:
    """Whether a (possibly partial) tuple matches every entry of some exclusion."""
    return any(
        all(dim in row and row[dim] == value for dim, value in rule.items()) for rule in exclusions
    )


def _pairs(row: Mapping[str, str], dims: Sequence[str]) -> set[Pair]:
    present = [d for d in dims if d in row]
    return {((a, row[a]), (b, row[b])) for a, b in combinations(present, 2)}


def _completable(
    partial: Tuple,
    dims: Sequence[str],
    values: Mapping[str, Sequence[str]],
    exclusions: Sequence[Mapping[str, str]],
) -> bool:
    """Whether some full tuple extending `partial` is allowed (the spaces here are small)."""
    free = [d for d in dims if d not in partial]
    for choice in product(*(values[d] for d in free)):
        if not excluded({**partial, **dict(zip(free, choice, strict=True))}, exclusions):
            return True
    return False


def every_tuple(
    values: Mapping[str, Sequence[str]], exclusions: Sequence[Mapping[str, str]] = ()
) -> Coverage:
    """The full product, less the excluded tuples."""
    dims = list(values)
    rows = [dict(zip(dims, c, strict=True)) for c in product(*(values[d] for d in dims))]
    rows = [r for r in rows if not excluded(r, exclusions)]
    covered = set().union(*(_pairs(r, dims) for r in rows)) if rows else set()
    return Coverage(rows, "all", len(covered), len(covered))


def all_pairs(
    values: Mapping[str, Sequence[str]], exclusions: Sequence[Mapping[str, str]] = ()
) -> Coverage:
    dims = list(values)
    if len(dims) < 2:
        return every_tuple(values, exclusions)
    wanted: set[Pair] = set()
    unreachable: list[Pair] = []
    for a, b in combinations(dims, 2):
        for va, vb in product(values[a], values[b]):
            pair: Pair = ((a, va), (b, vb))
            if _completable({a: va, b: vb}, dims, values, exclusions):
                wanted.add(pair)
            else:
                unreachable.append(pair)
    uncovered = set(wanted)
    used: Counter[tuple[str, str]] = Counter()
    rows: list[Tuple] = []
    while uncovered:
        best: Tuple | None = None
        best_gain = -1
        for seed in sorted(uncovered):
            row = _build(dict(seed), dims, values, exclusions, uncovered, used)
            if row is None:
                continue
            gain = len(_pairs(row, dims) & uncovered)
            if gain > best_gain:
                best, best_gain = row, gain
        if best is None or best_gain <= 0:  # cannot happen for completable pairs; never loop
            break
        rows.append(best)
        uncovered -= _pairs(best, dims)
        used.update(best.items())
    return Coverage(rows, "pairs", len(wanted), len(wanted) - len(uncovered), unreachable)


def _build(
    row: Tuple,
    dims: Sequence[str],
    values: Mapping[str, Sequence[str]],
    exclusions: Sequence[Mapping[str, str]],
    uncovered: set[Pair],
    used: Counter[tuple[str, str]],
) -> Tuple | None:
    for dim in dims:
        if dim in row:
            continue
        options = []
        for value in values[dim]:
            trial = {**row, dim: value}
            if excluded(trial, exclusions) or not _completable(trial, dims, values, exclusions):
                continue
            gain = sum(1 for p in _pairs(trial, dims) if p in uncovered and (dim, value) in p)
            options.append((-gain, used[(dim, value)], list(values[dim]).index(value), value))
        if not options:
            return None
        row[dim] = min(options)[3]
    return {d: row[d] for d in dims}


def cover(
    values: Mapping[str, Sequence[str]],
    exclusions: Sequence[Mapping[str, str]] = (),
    strength: str = "pairs",
) -> Coverage:
    return every_tuple(values, exclusions) if strength == "all" else all_pairs(values, exclusions)
