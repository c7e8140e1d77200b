"""Inputs drafted from dimensions (seed 003, step 1): tuples that cover the values, then one
message per tuple from the `drafter` role, each in its own call.

The tuples are capped (`--max-drafts`, MAX_DRAFTS by default) and counted before the first call:
`coverage: all` over six dimensions of ten values is a million drafter calls, which nobody means.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Any

from commerce_evals.authoring.coverage import Coverage, allowed_count, cover
from commerce_evals.authoring.dimensions import DimensionsFile
from commerce_evals.authoring.skeletons import DRAFT, case_id, slug

TUPLE_OPEN, TUPLE_CLOSE = "<tuple>", "</tuple>"
PROMPT = """You write test inputs for an agent evaluation.

{about}

Write the one message a customer described by the tuple below would actually send to the agent:
in their words, with the details such a customer would give (or leave out), in their mood. Do not
explain, label or quote it; answer with the message only.

{tuple_open}
{lines}
{tuple_close}
"""


# a draft is one drafter call and one skeleton a person finishes: more than this is a mistake
MAX_DRAFTS = 200


class TooManyDrafts(ValueError):
    """The dimensions file would make more drafts than the cap allows."""


class NoDrafts(ValueError):
    """The dimensions file's exclusions leave no tuple to draft."""


def _fewest_pairs_rows(spec: DimensionsFile) -> tuple[int, str, str]:
    """A lower bound on the rows of any all-pairs cover: each row holds one value pair of two
    dimensions, so it takes at least as many rows as the allowed pairs of any two."""
    values = spec.names()
    best = (0, "", "")
    for a, b in combinations(values, 2):
        allowed = sum(
            1
            for va, vb in product(values[a], values[b])
            if allowed_count({**values, a: [va], b: [vb]}, spec.exclude)
        )
        best = max(best, (allowed, a, b))
    return best


def tuples_for(spec: DimensionsFile, limit: int = MAX_DRAFTS) -> Coverage:
    """The tuples to draft; TooManyDrafts, before any tuple is listed when that can be known,
    when they are more than `limit`."""
    fix = (
        "use coverage: pairs, fewer values, exclusions, or a higher --max-drafts"
        if spec.coverage == "all"
        else "use fewer values or exclusions, or a higher --max-drafts"
    )
    over = f"over --max-drafts {limit}; {fix}"
    if spec.coverage == "all":
        count = allowed_count(spec.names(), spec.exclude)
        if count > limit:
            raise TooManyDrafts(
                f"coverage: all makes {count:,} drafts here, one drafter call each, {over}"
            )
    else:
        fewest, a, b = _fewest_pairs_rows(spec)
        if fewest > limit:
            raise TooManyDrafts(
                f"coverage: pairs makes at least {fewest:,} drafts here (every allowed value of "
                f"{a} beside every one of {b}), one drafter call each, {over}"
            )
    coverage = cover(spec.names(), spec.exclude, spec.coverage)
    if not coverage.tuples:
        raise NoDrafts(
            "exclude: every tuple of the dimensions is excluded, so there is nothing to draft; "
            "remove or narrow an exclusion"
        )
    if len(coverage.tuples) > limit:
        raise TooManyDrafts(
            f"coverage: {spec.coverage} makes {len(coverage.tuples):,} drafts here, one drafter "
            f"call each, {over}"
        )
    return coverage


def drafter_prompt(spec: DimensionsFile, row: dict[str, str]) -> str:
    lines = []
    for dim, name in row.items():
        hint = spec.value(dim, name).hint
        lines.append(f"{dim}: {name}" + (f" ({hint})" if hint else ""))
    return PROMPT.format(
        about=spec.about.strip() or "The agent serves a store's customers.",
        tuple_open=TUPLE_OPEN,
        lines="\n".join(lines),
        tuple_close=TUPLE_CLOSE,
    )


def _merged_state(spec: DimensionsFile, row: dict[str, str]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for dim, name in row.items():
        for key, value in spec.value(dim, name).state.items():
            if isinstance(value, list) and isinstance(state.get(key), list):
                state[key] = [*state[key], *value]
            else:
                state[key] = value
    return state


def _pick(spec: DimensionsFile, row: dict[str, str], field: str, order: list[str]) -> str:
    """The highest setting any value of the tuple asks for, else the file's."""
    asked = [getattr(spec.value(d, n), field) for d, n in row.items()]
    asked = [a for a in asked if a is not None]
    return min(asked, key=order.index) if asked else getattr(spec, field)


def skeleton(
    spec: DimensionsFile, row: dict[str, str], message: str, number: int
) -> dict[str, Any]:
    draft: dict[str, Any] = {
        "id": case_id(spec.flow, number, list(row.values())),
        "priority": _pick(spec, row, "priority", ["critical", "high", "medium", "low"]),
        "difficulty": _pick(spec, row, "difficulty", ["hard", "medium", "easy"]),
        "tags": [f"{dim}:{slug([name])}" for dim, name in row.items()],
    }
    if spec.niche:
        draft["niche"] = spec.niche
    draft.update(
        {
            "skip": DRAFT,
            "state": _merged_state(spec, row),
            "turns": [message],
            "expected": {},
            "notes": "Drafted from "
            + ", ".join(f"{d}={n}" for d, n in row.items())
            + ". A person writes expected, the reference run and the fixture fact that decides it.",
        }
    )
    return draft
