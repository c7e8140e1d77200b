"""Domain invariants: rules that hold in every case of a domain, graded on every run.

Each is a small pure function `(GradeContext, World) -> Verdict`, declared with its domain, name
and one-line doc, reported under the path part by its name (so a counterexample's `breaks` can
name it), on by default and waivable per case with a reason (`waive: {name: reason}`). A rule
that had nothing to check (no order, no write) holds vacuously: not asserted for the part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from commerce_evals.grading.graders import Grade, GradeContext, Verdict

if TYPE_CHECKING:
    from commerce_evals.domains.base import World

InvariantFn = Callable[[GradeContext, Any], Verdict]


@dataclass(frozen=True)
class Invariant:
    domain: str
    name: str
    doc: str
    check: InvariantFn
    tables: frozenset[str] = frozenset()  # end-snapshot tables it reads
    tools: frozenset[str] = frozenset()  # the calls it watches: without them it holds vacuously


INVARIANTS: dict[str, list[Invariant]] = {}


def invariant(
    domain: str,
    name: str,
    doc: str,
    tools: frozenset[str],
    tables: frozenset[str] = frozenset(),
) -> Callable[[InvariantFn], InvariantFn]:
    """Declare a function as one of `domain`'s invariants, watching calls of `tools`."""

    def register(fn: InvariantFn) -> InvariantFn:
        INVARIANTS.setdefault(domain, []).append(Invariant(domain, name, doc, fn, tables, tools))
        return fn

    return register


def _load() -> None:
    # each domain's rules register themselves on import
    from commerce_evals.domains.dealer import invariants as _dealer  # noqa: F401
    from commerce_evals.domains.shop import invariants as _shop  # noqa: F401
    from commerce_evals.domains.support import invariants as _support  # noqa: F401


def of_domain(domain: str) -> list[Invariant]:
    _load()
    return INVARIANTS.get(domain, [])


def names(domain: str) -> set[str]:
    return {inv.name for inv in of_domain(domain)}


def exercised(domain: str, tools: set[str]) -> set[str]:
    """The invariants a set of calls can break (what a flow's runs exercise)."""
    return {inv.name for inv in of_domain(domain) if inv.tools & tools}


def tables(domain: str) -> set[str]:
    return {t for inv in of_domain(domain) for t in inv.tables}


def check(
    domain: str,
    ctx: GradeContext,
    world: World,
    waive: dict[str, str],
    agent_tools: set[str] | None = None,
) -> list[Grade]:
    """Every invariant of the domain the case does not waive (and, given the agent's tools, that
    watches a tool the agent has), as path grades."""
    grades = []
    for inv in of_domain(domain):
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
