"""Domain invariants: rules that hold in every case of a domain, graded on every run.

Each is a small pure function `(GradeContext, World) -> Verdict`, declared with its domain, name
and one-line doc, reported under the path part by its name (so a counterexample's `breaks` can
name it), on by default and waivable per case with a reason (`waive: {name: reason}`). A rule
that had nothing to check (no order, no write) holds vacuously: not asserted for the part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from commerce_evals.grading.graders import Grade, GradeContext, Verdict

# the World is passed as Any: the domain's rules read its own World's fields
InvariantFn = Callable[[GradeContext, Any], Verdict]


@dataclass(frozen=True)
class Invariant:
    domain: str
    name: str
    doc: str
    check: InvariantFn
    tables: frozenset[str] = frozenset()  # end-snapshot tables it reads
    tools: frozenset[str] = frozenset()  # the calls it watches: without them it holds vacuously


class Invariants:
    """One domain's rules, in declaration order; its World declares them (`World.invariants`)."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self._rules: list[Invariant] = []

    def rule(
        self, name: str, doc: str, tools: frozenset[str], tables: frozenset[str] = frozenset()
    ) -> Callable[[InvariantFn], InvariantFn]:
        """Declare a function as one of the domain's invariants, watching calls of `tools`."""

        def register(fn: InvariantFn) -> InvariantFn:
            if name in self.names():
                raise ValueError(f"{self.domain} declares the invariant {name!r} twice")
            self._rules.append(Invariant(self.domain, name, doc, fn, tables, tools))
            return fn

        return register

    def __iter__(self) -> Iterator[Invariant]:
        return iter(tuple(self._rules))

    def names(self) -> set[str]:
        return {inv.name for inv in self._rules}

    def exercised(self, tools: set[str]) -> set[str]:
        """The invariants a set of calls can break (what a flow's runs exercise)."""
        return {inv.name for inv in self._rules if inv.tools & tools}

    def tables(self) -> set[str]:
        return {t for inv in self._rules for t in inv.tables}


def check(
    rules: Invariants,
    ctx: GradeContext,
    world: Any,
    waive: dict[str, str],
    agent_tools: set[str] | None = None,
) -> list[Grade]:
    """Every invariant of the domain the case does not waive (and, given the agent's tools, that
    watches a tool the agent has), as path grades."""
    grades = []
    for inv in rules:
        if inv.name in waive or (agent_tools is not None and not inv.tools & agent_tools):
            continue
        verdict = inv.check(ctx, world)
        grades.append(
            Grade(
                key=inv.name,
                part="path",
                passed=verdict[0],
                reason=verdict[1],
                vacuous=len(verdict) == 3 and bool(verdict[2]),
            )
        )
    return grades
