"""Sample outputs the docs show, generated from real offline runs.

The README's explanations come from the runs every regeneration makes (runs.py); the run-pattern
commands' outputs (docs/run-pattern.md) from runs of their own (scenarios.py), made by the
command the doc prints beside each output.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from commerce_evals.docgen.blocks import Block
from commerce_evals.docgen.claims import Sources
from commerce_evals.docgen.scenarios import SCENARIOS

EXPLAINED = (
    "counterexamples",
    "checkout",
    "checkout-017-summary-asks-for-yes~places-straight-away",
)
WITH_CUSTOMER = ("cases", "support", "support-101-ask-zip-before-verifying")


def fenced(text: str) -> str:
    return f"```\n{text.strip(chr(10))}\n```"


def _explanation(sources: Sources) -> str:
    assert sources.runs is not None
    return fenced(sources.runs.explanation(*EXPLAINED))


def _customer_line(sources: Sources) -> str:
    assert sources.runs is not None
    lines = sources.runs.explanation(*WITH_CUSTOMER).splitlines()
    return fenced(next(line for line in lines if line.startswith("customer: ")))


EXPLANATION_BLOCKS = [
    Block("README.md", "explanation-example", _explanation, needs="runs"),
    Block("README.md", "customer-line-example", _customer_line, needs="runs"),
]


def wrapped(command: str, width: int = 96) -> str:
    """A command as a shell prompt line, broken before an option where it runs long."""
    parts = re.split(r" (?=--|-M |-T )", command)
    lines = [f"$ {parts[0]}"]
    for part in parts[1:]:
        if len(lines[-1]) + 1 + len(part) > width:
            lines[-1] += " \\"
            lines.append(f"    {part}")
        else:
            lines[-1] += f" {part}"
    return "\n".join(lines)


def excerpt(output: str, windows: Sequence[tuple[str, str]]) -> str:
    """The lines from each window's first match to its last (both regexes), in order, with
    `...` where lines are left out; the whole output when no window is given."""
    lines = output.rstrip("\n").splitlines()
    if not windows:
        return "\n".join(lines)
    kept: list[str] = []
    at = 0
    for first, last in windows:
        start = next(i for i in range(at, len(lines)) if re.search(first, lines[i]))
        end = next(i for i in range(start, len(lines)) if re.search(last, lines[i]))
        if start > at:
            kept.append("...")
        kept += lines[start : end + 1]
        at = end + 1
    if at < len(lines):
        kept.append("...")
    return "\n".join(kept)


@dataclass(frozen=True)
class Sample:
    """A command's output, shown after the commands that made it."""

    scenario: str
    shown: tuple[int, ...]  # the scenario's commands shown, by index; the last one's output
    windows: tuple[tuple[str, str], ...] = ()

    def render(self, sources: Sources) -> str:
        assert sources.scenarios is not None
        commands = [SCENARIOS[self.scenario][i] for i in self.shown]
        output = sources.scenarios.output(self.scenario, commands[-1])
        return fenced("\n".join([*map(wrapped, commands), excerpt(output, self.windows)]))


RUN_PATTERN = "docs/run-pattern.md"
RUN_PATTERN_SAMPLES = {
    "gate-example": Sample("regression", (1, 2)),
    "diff-example": Sample("regression", (0, 1, 3)),
    "compare-example": Sample(
        "sweep",
        (0, 1),
        ((r"^Cases failing", r"^failing under every model"), (r"^Tokens and cost", r"^└")),
    ),
    "trends-example": Sample("production", (0, 1, 2)),
}

SAMPLE_BLOCKS: list[Block] = [
    *EXPLANATION_BLOCKS,
    *(
        Block(RUN_PATTERN, name, sample.render, needs="scenarios")
        for name, sample in RUN_PATTERN_SAMPLES.items()
    ),
]
