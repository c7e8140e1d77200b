"""Walking a tool result's JSON (nested dicts and lists) without a recursive closure.

A grader that walks a result with a nested `def visit(...)` calling itself makes a reference
cycle (the function holds its own cell), and everything the closure holds (a run's whole
Records, hundreds of objects) then outlives the grader until the garbage collector finds it,
often in an older generation that only a full collection clears.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def objects_in(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict in `value`, itself included, in the order a depth-first walk meets them: a
    dict before the dicts inside it, then its values and a list's items in their order. A value
    nested deeper than MAX_DEPTH (a structure that holds itself) is an error, not an endless walk.
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ValueError(f"a value nested deeper than {MAX_DEPTH} levels: does it hold itself?")
        if isinstance(node, dict):
            yield node
            stack.extend((child, depth + 1) for child in reversed(node.values()))
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in reversed(node))


# deeper than any tool result; about where Python's own recursion limit stopped the walks this
# replaced
MAX_DEPTH = 1000
