"""The parts a score is made of, declared once: every list of parts is read from here.

outcome: state and what the person was told or shown; path: which calls, in which order, nothing
forbidden, the invariants; calls: budgets; rubric: the judges. The first three are graded in code.
"""

from __future__ import annotations

from typing import Literal, get_args

CodePart = Literal["outcome", "path", "calls"]
Part = Literal[CodePart, "rubric"]

CODE_PARTS: tuple[CodePart, ...] = get_args(CodePart)
PARTS: tuple[Part, ...] = get_args(Part)
