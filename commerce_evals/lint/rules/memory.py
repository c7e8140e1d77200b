"""Memory: each memory kind has a write, a refuse and a use case; what must not be remembered is
asserted; a refusal is quiet; a stored fact is put to a search that can show it mattered.
Only for agents whose domain names a memory tool (World.authoring)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from commerce_evals.lint.model import Finding, LintCase, LintRun, strings_in
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished

MEMORY_ROLES = ("write", "refuse", "use")
# Not a lasting preference in any domain: what a person wants once, for an errand.
ERRAND = re.compile(
    r"\b(one[- ]off|just this once|this once|one[- ]time|just for (a|an|the|this)\b[^.?!]*?\b"
    r"(trip|flight|weekend|party|wedding|event)|as a gift|a gift for|gift for|birthday|"
    r"for my (nephew|niece|sister|brother|mom|mother|dad|father|friend|son|daughter|kids?|wife|"
    r"husband|partner|boss)\b)",
    re.IGNORECASE,
)
ERROR_WORDS = re.compile(
    r"\b(error|failed|failure|couldn'?t (?:save|store|remember)|unable to (?:save|store|remember)"
    r"|something went wrong)\b",
    re.IGNORECASE,
)


def rule_memory_three_cases(run: LintRun) -> Iterator[Finding]:
    """Each memory kind (tag memory:<kind>:<role>) has a write, a refuse and a use case, and
    each case asserts what its role says."""
    roles: dict[str, dict[str, LintCase]] = defaultdict(dict)
    for item in run.cases:
        for tag in item.tags_with("memory:"):
            kind, _, role = tag.rpartition(":")
            if not kind or role not in MEMORY_ROLES:
                yield item.finding(
                    "memory-three-cases", f"tag memory:{tag} is not memory:<kind>:<role>"
                )
                continue
            roles[kind].setdefault(role, item)
            expected = item.case.expected
            if role == "write" and not expected.memory_contains:
                yield item.finding("memory-three-cases", "a write case asserts no memory_contains")
            if role == "refuse" and not item.refuses_memory():
                yield item.finding(
                    "memory-three-cases",
                    "a refuse case asserts neither memory_not_contains nor never_calls on the "
                    "memory tool",
                )
            if role == "use" and not item.case.state.get("memory"):
                yield item.finding("memory-three-cases", "a use case injects no stored memory")
    for kind, found in sorted(roles.items()):
        missing = [r for r in MEMORY_ROLES if r not in found]
        if missing:
            first = next(iter(found.values()))
            yield first.finding(
                "memory-three-cases", f"memory kind {kind!r} lacks its {missing} case(s)"
            )


def rule_memory_end_state(run: LintRun) -> Iterator[Finding]:
    """A turn that mentions what memory must not hold (health, hostile content, in a shop) or a
    one-off errand asserts the memory end state (memory_not_contains, never_calls on the memory
    tool, or a state check on memory), for agents that can write memory."""
    for item in run.cases:
        authoring = item.authoring
        tool = authoring.memory_tool
        if not item.agent_has(tool):
            continue
        sensitive = {**authoring.not_remembered, "a one-off errand": ERRAND}
        topics = [
            topic
            for topic, pattern in sensitive.items()
            if any(pattern.search(turn) for turn in item.case.turns)
        ]
        if topics and not item.asserts_memory_end_state():
            yield item.finding(
                "memory-end-state",
                f"a turn mentions {' and '.join(topics)} but the case does not assert the "
                f"memory end state (memory_not_contains or never_calls: [{tool}])",
            )


def rule_memory_refusal_no_error(run: LintRun) -> Iterator[Finding]:
    """A memory refusal shows the person no error: its known-good run meets no tool error and its
    replies say nothing of one."""
    for item in finished(run):
        if not (
            any(t.endswith(":refuse") for t in item.tags_with("memory:")) or item.refuses_memory()
        ):
            continue
        errors = [
            tool for turn in item.replay for tool, answer in turn if answer.get("status") == "error"
        ]
        said = [m.group(0) for t in item.case.reference or [] if (m := ERROR_WORDS.search(t.reply))]
        if errors or said:
            what = f"tool errors from {errors}" if errors else f"the reply says {said[0]!r}"
            yield item.finding(
                "memory-refusal-no-error",
                f"a memory refusal must show no error, but {what}: refuse quietly",
            )


def rule_stored_fact_search(run: LintRun) -> Iterator[Finding]:
    """A stored-fact case (memory:<kind>:use) runs, in its reference's graded turn, a search
    whose results hold both the item the fact favours and one it rules out."""
    for item in run.in_domain_with("search_tool"):
        if not any(t.endswith(":use") for t in item.tags_with("memory:")):
            continue
        if not item.replay:
            if item.replay_error:
                yield item.finding("stored-fact-search", item.replay_error)
            continue
        favoured, ruled_out = item.positive_ids(), item.negative_ids()
        if not favoured or not ruled_out:
            yield item.finding(
                "stored-fact-search",
                "a stored-fact case names no favoured item (a positive id) or no ruled-out "
                "item (cart_not_contains or a never_calls id)",
            )
            continue
        searches = [a for tool, a in item.replay[-1] if tool == item.authoring.search_tool]
        if not searches:
            yield item.finding("stored-fact-search", "the reference's graded turn runs no search")
            continue
        shown = {s for answer in searches for s in strings_in(answer)}
        missing = sorted((favoured | ruled_out) - shown)
        if missing:
            yield item.finding(
                "stored-fact-search",
                f"the graded turn's search results lack {missing}: the query must return both "
                "the item the fact favours and the one it rules out",
            )


RULES: dict[str, Rule] = {
    "memory-three-cases": rule_memory_three_cases,
    "memory-end-state": rule_memory_end_state,
    "memory-refusal-no-error": rule_memory_refusal_no_error,
    "stored-fact-search": rule_stored_fact_search,
}
