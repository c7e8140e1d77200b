"""Tuples over dimensions that cover every allowed pair of values (all-pairs), greedily.

A deterministic AETG-style greedy: while some allowed pair of values is uncovered, build one tuple
from each uncovered pair as a seed, filling the other dimensions with the value that covers the most
uncovered pairs (ties to the value used least so far, so values appear evenly), and keep the tuple
that covers the most. Exclusions are partial tuples ({dimension: value, ...}) no tuple may match; a
pair that only excluded tuples could hold is not required and is reported. Over a large space only
the first SEEDS uncovered pairs seed a row each round (a small space tries every one, as AETG's
candidates do), so a space of six dimensions of 14 values is covered in seconds, not hours.

`allowed_count` counts the tuples no exclusion matches without listing them, so a command can say
how many drafts a space would make before it makes any.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from heapq import nsmallest
from itertools import combinations, product
from math import prod

Tuple = dict[str, str]
Pair = tuple[tuple[str, str], tuple[str, str]]
# uncovered pairs tried as a row's seed each round: every one in a space with up to this many pairs
SEEDS = 100


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


def allowed_count(
    values: Mapping[str, Sequence[str]], exclusions: Sequence[Mapping[str, str]] = ()
) -> int:
    """How many full tuples no exclusion matches, counted dimension by dimension: the values no
    live exclusion names are counted together, so the product is never listed."""
    dims = list(values)
    order = {dim: index for index, dim in enumerate(dims)}
    rules = [dict(rule) for rule in exclusions]
    if any(not rule for rule in rules):  # an empty exclusion matches every tuple
        return 0
    last = [max(order[dim] for dim in rule) for rule in rules]
    sizes = [len(values[dim]) for dim in dims]
    memo: dict[tuple[int, frozenset[int]], int] = {}

    def count(index: int, alive: frozenset[int]) -> int:
        if not alive:
            return prod(sizes[index:])
        key = (index, alive)
        if key in memo:
            return memo[key]
        dim = dims[index]
        named = {rules[r][dim] for r in alive if dim in rules[r]} & set(values[dim])
        total = 0
        for value in named:
            still = frozenset(r for r in alive if rules[r].get(dim, value) == value)
            if not any(last[r] == index for r in still):  # else a rule matches in full
                total += count(index + 1, still)
        others = sizes[index] - len(named)
        if others:
            total += others * count(index + 1, frozenset(r for r in alive if dim not in rules[r]))
        memo[key] = total
        return total

    return count(0, frozenset(range(len(rules))))


def _completable(
    partial: Tuple,
    dims: Sequence[str],
    values: Mapping[str, Sequence[str]],
    exclusions: Sequence[Mapping[str, str]],
) -> bool:
    """Whether some full tuple extending `partial` is allowed."""
    # only an exclusion that agrees with every value chosen so far can still match
    live = [r for r in exclusions if all(partial.get(d, v) == v for d, v in r.items())]
    if not live:
        return True
    narrowed = {d: [partial[d]] if d in partial else list(values[d]) for d in dims}
    return allowed_count(narrowed, live) > 0


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
        for seed in nsmallest(SEEDS, uncovered):
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


def _gain(row: Tuple, dim: str, value: str, dims: Sequence[str], uncovered: set[Pair]) -> int:
    """Uncovered pairs that (dim, value) makes with the row's other values."""
    gain = 0
    for other, chosen in row.items():
        if other == dim:
            continue
        ends = ((other, chosen), (dim, value))
        pair = ends if dims.index(other) < dims.index(dim) else (ends[1], ends[0])
        gain += pair in uncovered
    return gain


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
        for position, value in enumerate(values[dim]):
            trial = {**row, dim: value}
            if excluded(trial, exclusions) or not _completable(trial, dims, values, exclusions):
                continue
            gain = _gain(row, dim, value, dims, uncovered)
            options.append((-gain, used[(dim, value)], position, value))
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
