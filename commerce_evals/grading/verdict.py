"""The verdict a score carries for Inspect's viewer, beside the numbers it is made of.

Inspect's viewer colours a score value only when it is one of its grades: `C` (CORRECT) a green
circle, `I` (INCORRECT) and `N` (NOANSWER) a red one; a dict of 0/1 numbers gets no colour, and
every sample that ran to the end carries the same green check. So each commerce_case score holds
`verdict` first among its values: CORRECT when `passed` is 1, INCORRECT when a part failed, and
NOANSWER when there is no verdict yet (the case needs review, or it asserted nothing this run
did). A missing judge verdict is red in the list, never green: it is not a pass.

Metrics read numbers only (`metrics.values_of`), so the verdict adds no row; the epoch reducer
keeps it a grade (`reduce_verdicts`) instead of letting Inspect's mean turn it into a number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER

VERDICT_KEY = "verdict"
VERDICTS = (CORRECT, INCORRECT, NOANSWER)


def verdict_of(values: Mapping[str, Any]) -> str:
    """The grade of one epoch's values (`passed`, `needs_review`)."""
    passed = values.get("passed")
    if values.get("needs_review") == 1.0 or not isinstance(passed, int | float):
        return NOANSWER
    if math.isnan(passed):
        return NOANSWER
    return CORRECT if passed == 1.0 else INCORRECT


def reduce_verdicts(verdicts: Iterable[Any]) -> str | None:
    """Over the epochs, the case's grade as pass^k reads it: CORRECT only when every epoch was,
    INCORRECT when any epoch failed, else NOANSWER. None when no epoch carried a verdict (a log
    written before the verdict was)."""
    found = [v for v in verdicts if v in VERDICTS]
    if not found:
        return None
    if INCORRECT in found:
        return INCORRECT
    return CORRECT if all(v == CORRECT for v in found) else NOANSWER
