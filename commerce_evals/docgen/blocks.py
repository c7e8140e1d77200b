"""The parts of the docs generated whole: tables of counts, and sample outputs of real runs.

A block sits between two markers in its doc,

    <!-- generated:NAME (python -m commerce_evals.docgen) -->
    ...
    <!-- generated:NAME end -->

and is rewritten from its `render` function. The key table keeps its own markers (written by
commerce_evals/grading/keys.py, which renders it).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from commerce_evals.authoring.grouping import ModeRow
from commerce_evals.authoring.grouping import table as mode_table
from commerce_evals.cases.model import Case
from commerce_evals.docgen.claims import Needs, Sources
from commerce_evals.grading.keys import KEYS_END, KEYS_START, key_table

COMMAND = "python -m commerce_evals.docgen"


@dataclass(frozen=True)
class Block:
    doc: str
    name: str
    render: Callable[[Sources], str]
    needs: Needs = "data"
    start: str = ""  # the markers, when not the generated:NAME pair
    end: str = ""

    @property
    def start_marker(self) -> str:
        return self.start or f"<!-- generated:{self.name} ({COMMAND}) -->"

    @property
    def end_marker(self) -> str:
        return self.end or f"<!-- generated:{self.name} end -->"


def _keys(_: Sources) -> str:
    return key_table()


# ---- support's coverage ------------------------------------------------------------------------

REQUESTS = {"refund": "refund", "cancel": "cancel", "address": "address"}
REQUESTS["policy"] = "policy question"
FITS = {"allowed": "allowed", "not-allowed": "not allowed", "silent": "silent"}
CUSTOMER_STATES = {
    "verified": "verified (name+ZIP, email, or signed in)",
    "unverified": "unverified",
    "wrong-zip": "wrong ZIP (or a ZIP that verifies someone else)",
}
PERSONAS = {"polite": "polite", "rushed": "rushed", "angry": "angry"}
PERSONAS["social-engineering"] = "social engineering"
# the rules in the order the policy gives them; a rule tag not listed here follows, sorted
RULE_ORDER = [
    "identity",
    "owner-only",
    "confirmation",
    "refund-window",
    "one-refund",
    "over-200",
    "already-refunded",
    "final-sale",
    "shipped-no-cancel",
    "addresses",
    "no-price-match",
    "silent",
    "no-invention",
]
ACT = {"do", "answer"}
HOLD = {"refuse", "ask", "escalate"}


def _tag(case: Case, dimension: str) -> str | None:
    values = [t.split(":", 1)[1] for t in case.tags if t.startswith(f"{dimension}:")]
    return values[0] if len(values) == 1 else None


def _dimension_tagged(sources: Sources) -> list[Case]:
    """The support cases with the four dimension tags (seed 003's verbatim tasks have none)."""
    cases = sources.data.cases("support").cases
    return [c for c in cases if all(_tag(c, d) for d in ("request", "customer", "fit", "persona"))]


def _support_coverage(sources: Sources) -> str:
    cases = _dimension_tagged(sources)
    cells = Counter((_tag(c, "request"), _tag(c, "fit")) for c in cases)
    lines = [
        "| request \\ fit | " + " | ".join(FITS.values()) + " | total |",
        "|---|" + "---|" * (len(FITS) + 1),
    ]
    for request, label in REQUESTS.items():
        row = [cells[(request, fit)] for fit in FITS]
        lines.append(f"| {label} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    totals = [sum(cells[(r, fit)] for r in REQUESTS) for fit in FITS]
    lines.append("| **total** | " + " | ".join(map(str, totals)) + f" | **{len(cases)}** |")
    states = Counter(_tag(c, "customer") for c in cases)
    personas = Counter(_tag(c, "persona") for c in cases)
    lines += ["", "| customer state | cases | | persona | cases |", "|---|---|---|---|---|"]
    left = [[label, str(states[state])] for state, label in CUSTOMER_STATES.items()]
    right = [[label, str(personas[persona])] for persona, label in PERSONAS.items()]
    for index in range(max(len(left), len(right))):
        a = left[index] if index < len(left) else ["", ""]
        b = right[index] if index < len(right) else ["", ""]
        lines.append(" ".join(f"| {cell}" if cell else "|" for cell in [*a, "", *b]) + " |")
    return "\n".join(lines)


def _support_rules(sources: Sources) -> str:
    moves: dict[str, dict[str, list[str]]] = defaultdict(lambda: {"act": [], "hold": []})
    for case in sorted(sources.data.cases("support").cases, key=lambda c: c.id):
        for tag in case.tags:
            if tag.startswith("rule:") and case.should:
                side = "act" if case.should in ACT else "hold" if case.should in HOLD else None
                if side:
                    moves[tag.split(":", 1)[1]][side].append(case.id.split("-")[1])
    rules = [r for r in RULE_ORDER if r in moves] + sorted(set(moves) - set(RULE_ORDER))
    lines = ["| rule | act | hold |", "|---|---|---|"]
    for rule in rules:
        lines.append(
            f"| {rule} | {', '.join(moves[rule]['act'])} | {', '.join(moves[rule]['hold'])} |"
        )
    return "\n".join(lines)


# twenty notes in three modes, as `commerce-evals notes --group` ranks them (an illustration)
ILLUSTRATED_MODES = [
    ("policy rule missed", 9, ["state", "never_calls"], "every"),
    ("looked the order up first", 6, ["before"], "every"),
    ("invented a shipping timeline", 5, [], "none"),
]


def _failure_modes(_: Sources) -> str:
    total = sum(count for _, count, _, _ in ILLUSTRATED_MODES)
    rows = [
        ModeRow(rank, name, count, count / total, keys, [], caught)
        for rank, (name, count, keys, caught) in enumerate(ILLUSTRATED_MODES, start=1)
    ]
    return f"```\n{mode_table(rows)}\n```"


DATA_BLOCKS = [
    Block("README.md", "keys", _keys, start=KEYS_START, end=KEYS_END),
    Block("docs/authoring.md", "keys", _keys, start=KEYS_START, end=KEYS_END),
    Block("docs/support.md", "support-coverage", _support_coverage),
    Block("docs/support.md", "support-rules", _support_rules),
    Block("docs/authoring.md", "failure-modes-example", _failure_modes),
]
