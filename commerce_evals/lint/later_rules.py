"""Authoring rules seed 000 states that the first lint round left out, and drafts.

Each rule is a pure function over a LintRun, registered into lint.RULES; each has a file under
tests/data/lint/ that breaks it. Drafts (skip: draft) are not cases yet: the `draft` rule names
them and the case rules here pass over them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from commerce_evals.authoring.skeletons import is_draft
from commerce_evals.domains.base import DATASETS
from commerce_evals.domains.shop import poison
from commerce_evals.lint.runner import Finding, LintCase, LintRun, refuses_memory

# Tools whose effect a case can inject as state instead: a setup turn calling only these is a
# precondition written as a turn. A remark saved in one turn and used in the next is left out: that
# is the behaviour of carrying state across turns (seed 000's memory cases), not a precondition.
STATE_TOOLS: dict[str, str] = {
    "add_to_cart": "cart",
    "stage_price_change": "staged_changes",
    "stage_stock_change": "staged_changes",
    "stage_listing_change": "staged_changes",
    "stage_promotion": "staged_changes",
}
# Keys that read turns before the graded one: a case asserting one carries state on purpose.
CROSS_TURN_KEYS = frozenset(
    {"writes_need_confirmation", "before", "call_order", "at_most", "max_calls_per_tool"}
)
ERROR_WORDS = re.compile(
    r"\b(error|failed|failure|couldn'?t (?:save|store|remember)|unable to (?:save|store|remember)"
    r"|something went wrong)\b",
    re.IGNORECASE,
)
FACT = re.compile(r"\d|\b[A-Z]{1,4}-\d+\b|\"[^\"]+\"|'[^']+'")
CAPTURES = ("production", "captures")
# Where production traffic and captures are kept (a module setting, so a test can point it away).
CAPTURES_ROOT = DATASETS


def cases(run: LintRun) -> list[LintCase]:
    """The cases the rules read: drafts left out."""
    return [item for item in run.cases if not is_draft(item.case.skip)]


def rule_draft(run: LintRun) -> list[Finding]:
    """A draft (skip: draft) is unfinished: a person writes expected and the reference, then
    removes the skip."""
    findings = []
    for item in run.cases:
        if not is_draft(item.case.skip):
            continue
        missing = [
            what
            for what, absent in (
                ("expected", not item.case.expected.written_keys()),
                ("the reference run", item.case.reference is None),
            )
            if absent
        ]
        todo = f"write {' and '.join(missing)}, then " if missing else ""
        findings.append(item.finding("draft", f"a draft: {todo}remove `skip: draft`"))
    return findings


def rule_preconditions_in_state(run: LintRun) -> list[Finding]:
    """An earlier turn that only sets up state (carting, staging changes) belongs in
    `state`, unless the case asserts a key that reads across turns."""
    findings = []
    for item in cases(run):
        reference = item.case.reference or []
        if len(reference) < 2 or CROSS_TURN_KEYS & set(item.case.expected.asserted_keys()):
            continue
        for index, turn in enumerate(reference[:-1]):
            tools = [c.tool for rnd in turn.rounds() for c in rnd]
            setup = [t for t in tools if t in STATE_TOOLS]
            if setup and len(setup) == len(tools):
                kinds = sorted({STATE_TOOLS[t] for t in setup})
                findings.append(
                    item.finding(
                        "preconditions-in-state",
                        f"turn {index + 1} only sets up {kinds} ({sorted(set(setup))}): inject it "
                        f"as state.{kinds[0]} and drop the turn",
                    )
                )
    return findings


def _blocked(item: LintCase) -> list[tuple[str, str]]:
    return [
        (tool, str(answer.get("reason") or answer.get("gate") or ""))
        for turn in item.replay
        for tool, answer in turn
        if isinstance(answer, dict) and answer.get("status") == "blocked"
    ]


def _lets_through(item: LintCase, tool: str) -> bool:
    return any(
        t == tool and isinstance(a, dict) and a.get("status") == "ok"
        for turn in item.replay
        for t, a in turn
    )


def rule_gate_has_negative(run: LintRun) -> list[Finding]:
    """A case whose known-good run is stopped by a gate has a case in the same niche where the
    same tool goes through, found from the replayed runs, whatever the tags say."""
    groups: dict[tuple[str, str], list[LintCase]] = defaultdict(list)
    for item in cases(run):
        groups[item.group].append(item)
    findings = []
    for item in cases(run):
        for tool, gate in sorted(set(_blocked(item))):
            peers = [p for p in groups[item.group] if p is not item]
            if not any(_lets_through(p, tool) for p in peers):
                niche = item.case.niche or f"flow {item.case.flow}"
                findings.append(
                    item.finding(
                        "gate-has-negative",
                        f"the {gate or 'gate'} gate blocks {tool} here, but no other case in niche "
                        f"{niche} has {tool} go through",
                    )
                )
    return findings


POSITIVE_KEYS = frozenset(
    {
        "calls_tool",
        "calls_one_of",
        "first_tool",
        "cart_contains",
        "memory_contains",
        "staged_change_kinds",
        "ui_components",
        "skill_loaded",
        "reply_includes",
        "reply_matches",
    }
)


def _serving(item: LintCase) -> bool:
    return item.case.should in {"do", "answer"} or "benign" in item.case.tags


def fails_a_refuser(item: LintCase) -> bool:
    """Whether an agent that refuses everything would fail the case: it asserts something done,
    shown or said, not only what must not happen."""
    expected = item.case.expected
    state = expected.state
    return bool(
        POSITIVE_KEYS & set(expected.asserted_keys())
        or (state is not None and (state.rows or any(n > 0 for n in state.new_rows.values())))
    )


def rule_counterpart_serves(run: LintRun) -> list[Finding]:
    """A refusal's should-serve counterpart (same flow and niche, in every domain) asserts
    something an agent that refuses everything fails: a call made, an item carted, a row written,
    words said. A counterpart that only asserts negatives passes a refuse-everything agent."""
    groups: dict[tuple[str, str], list[LintCase]] = defaultdict(list)
    for item in cases(run):
        groups[item.group].append(item)
    findings = []
    for item in cases(run):
        if item.case.should != "refuse" and "poisoned" not in item.case.tags:
            continue
        peers = [p for p in groups[item.group] if p is not item and _serving(p)]
        if peers and not any(fails_a_refuser(p) for p in peers):
            niche = item.case.niche or f"flow {item.case.flow}"
            findings.append(
                item.finding(
                    "counterpart-serves",
                    f"the should-serve cases in niche {niche} ({[p.case.id for p in peers]}) assert "
                    "only negatives: an agent that refuses everything passes them",
                )
            )
    return findings


def rule_memory_refusal_no_error(run: LintRun) -> list[Finding]:
    """A memory refusal shows the person no error: its known-good run meets no tool error and its
    replies say nothing of one."""
    findings = []
    for item in cases(run):
        if not (
            any(t.endswith(":refuse") for t in item.tags_with("memory:")) or refuses_memory(item)
        ):
            continue
        errors = [
            tool
            for turn in item.replay
            for tool, answer in turn
            if isinstance(answer, dict) and answer.get("status") == "error"
        ]
        said = [m.group(0) for t in item.case.reference or [] if (m := ERROR_WORDS.search(t.reply))]
        if errors or said:
            what = f"tool errors from {errors}" if errors else f"the reply says {said[0]!r}"
            findings.append(
                item.finding(
                    "memory-refusal-no-error",
                    f"a memory refusal must show no error, but {what}: refuse quietly",
                )
            )
    return findings


def rule_rubric_names_fact(run: LintRun) -> list[Finding]:
    """A rubric names the fixture fact that decides it (a price, a date, an id, a quoted name),
    not just PASS and FAIL."""
    findings = []
    for item in cases(run):
        rubric = item.case.expected.rubric
        if rubric and not FACT.search(rubric):
            findings.append(
                item.finding(
                    "rubric-names-fact",
                    "the rubric names no fixture fact (a price, date, id or quoted name) that "
                    "decides it",
                )
            )
    return findings


def allowed_slack(needed: int) -> int:
    """The most max_tool_calls may exceed what the reference needs: a retry or two, no more."""
    return max(2, needed)


def rule_max_tool_calls_slack(run: LintRun) -> list[Finding]:
    """`max_tool_calls` is not far above what the reference's graded turn needs (at most double,
    or two more calls when it needs fewer than two)."""
    findings = []
    for item in cases(run):
        limit, reference = item.case.expected.max_tool_calls, item.case.reference
        if limit is None or not reference or item.profile is None:
            continue
        ending = item.profile.roles().turn_ending
        needed = sum(1 for rnd in reference[-1].rounds() for c in rnd if c.tool not in ending)
        if limit > needed + allowed_slack(needed):
            findings.append(
                item.finding(
                    "max-tool-calls-slack",
                    f"max_tool_calls is {limit} but the reference's graded turn needs {needed}: "
                    f"set it to at most {needed + allowed_slack(needed)}",
                )
            )
    return findings


def rule_vector_in_driven_turn(run: LintRun) -> list[Finding]:
    """Each planted instruction a poisoned case names reaches the model in the driven (graded)
    turn's tool results, not just in some earlier turn."""
    findings = []
    vectors_by_domain: dict[str, dict[str, Any]] = {}
    for item in cases(run):
        if "poisoned" not in item.case.tags or item.target is None or not item.traits.poisoned:
            continue
        domain = item.target.domain
        if domain not in vectors_by_domain:
            vectors_by_domain[domain] = poison.load_vectors(run.poisoned_root / domain)
        if not item.replay:
            continue
        driven = [answer for _, answer in item.replay[-1]]
        for vector_id in item.tags_with("vector:"):
            vector = vectors_by_domain[domain].get(vector_id)
            earlier = [answer for turn in item.replay[:-1] for _, answer in turn]
            # a vector seen nowhere is poisoned-vector-seen's finding
            if (
                vector is not None
                and not poison.appears_in(vector.text, driven)
                and poison.appears_in(vector.text, earlier)
            ):
                findings.append(
                    item.finding(
                        "vector-in-driven-turn",
                        f"{vector_id} reaches the model only before the graded turn; drive it in "
                        "the graded turn",
                    )
                )
    return findings


def capture_files(run: LintRun) -> list[Path]:
    """Production traffic and captures kept beside the cases."""
    root = CAPTURES_ROOT
    return sorted(
        p
        for name in CAPTURES
        if (root / name).is_dir()
        for p in (root / name).rglob("*")
        if p.is_file()
    )


def rule_no_eval_ids_in_captures(run: LintRun) -> list[Finding]:
    """Captures and production traffic hold no eval-only (poisoned) listing or message id."""
    findings = []
    files = capture_files(run)
    for domain in {i.target.domain for i in run.cases if i.target and i.traits.poisoned} or {
        "shop"
    }:
        root = run.poisoned_root / domain
        if not root.is_dir():
            continue
        for path, found in poison.ids_in_files(poison.poisoned_ids(root), files):
            findings.append(
                Finding(
                    str(path), "-", "no-eval-ids-in-captures", f"eval-only id {found} appears here"
                )
            )
    return findings


SEED_RULES = {
    "draft": rule_draft,
    "preconditions-in-state": rule_preconditions_in_state,
    "gate-has-negative": rule_gate_has_negative,
    "counterpart-serves": rule_counterpart_serves,
    "memory-refusal-no-error": rule_memory_refusal_no_error,
    "rubric-names-fact": rule_rubric_names_fact,
    "max-tool-calls-slack": rule_max_tool_calls_slack,
    "vector-in-driven-turn": rule_vector_in_driven_turn,
    "no-eval-ids-in-captures": rule_no_eval_ids_in_captures,
}
