"""The judge dimensions `label` and `calibrate` take by name (`--dimension`)."""

from __future__ import annotations

from difflib import get_close_matches

from commerce_evals.cli.commands._output import die


def judge_dimensions() -> list[str]:
    """Every name a verdict can carry: a case's own rubric and each shared dimension."""
    from commerce_evals.judging.dimensions import RUBRIC, shared_dimensions

    return [RUBRIC, *sorted(shared_dimensions())]


def check_dimension_options(given: list[str] | None, known: list[str]) -> None:
    """Each --dimension names a judge dimension: a typo must not narrow the command to nothing."""
    for name in given or []:
        if name not in known:
            close = get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            die(f"--dimension {name}: no judge dimension{hint}; dimensions: {', '.join(known)}")
