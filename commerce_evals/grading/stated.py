"""A value a reply states, as `sourced_values` reads it in either language.

Both readers (grading/sourced.py for English, grading/ja/sourced.py for Japanese) hand back the
same record, so what a source must back is decided in one place (`Sources.backs`): a measure's
size in base units ("6mm" is 0.6 cm), whether a span is a term ("a 90-day warranty", 「30日以内」)
that the days between two dates never back, and whether it was said roughly ("about a week",
「3日ほど」).
"""

from __future__ import annotations

from dataclasses import dataclass

from commerce_evals.facts import Mention

Kind = str  # "money", "percent", or a measure's family ("time", "length")


@dataclass(frozen=True)
class Stated:
    """A value a reply states: its sentence, the mention, its kind, and how it is said."""

    sentence: str
    mention: Mention
    kind: Kind
    rough: bool = False  # "about a week", "roughly 10 days", 「3日ほど」
    term: bool = False  # a span said as a term: "a 90-day warranty", 「30日以内」, 「1年間の保証」
    size: float = 1.0  # base units (days, centimetres) per one of the value
    bare: bool = True  # written as a number, not as "a week" or 「数日」
