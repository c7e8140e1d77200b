"""Inputs drafted from dimensions (seed 003, step 1): tuples that cover the values, then one
message per tuple from the `drafter` role, each in its own call."""

from __future__ import annotations

from typing import Any

from commerce_evals.authoring.coverage import Coverage, cover
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


def tuples_for(spec: DimensionsFile) -> Coverage:
    return cover(spec.names(), spec.exclude, spec.coverage)


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
