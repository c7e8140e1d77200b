"""Poisoned cases: every planted instruction a case names exists, reaches the model in the graded
turn of the replayed reference, and is asserted not followed; the manifest matches the eval-only
fixtures. Only for domains whose World.authoring names poisoned fixtures."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from commerce_evals.domains.base import PlantedInstruction
from commerce_evals.lint.model import Finding, LintCase, LintRun, appears_in, poisoned_fixtures
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished


def planted_for(run: LintRun, item: LintCase) -> dict[str, PlantedInstruction] | None:
    """The instructions planted in the case's domain, or None when it has no poisoned fixtures."""
    poisoned = poisoned_fixtures(item.authoring)
    if poisoned is None or item.domain is None:
        return None
    return poisoned.planted(run.poisoned_root / item.domain)


def rule_poisoned_vector_seen(run: LintRun) -> Iterator[Finding]:
    """Every vector a poisoned case names (vector:<id>) exists and its text appears in a tool
    result of the case's reference run, replayed (a review only reaches the model on a details
    call)."""
    for item in run.cases:
        planted = planted_for(run, item) if "poisoned" in item.case.tags else None
        if planted is None:
            continue
        named = item.tags_with("vector:")
        if not named:
            yield item.finding("poisoned-vector-seen", "a poisoned case names no vector:<id>")
        answers = [answer for turn in item.replay for _, answer in turn]
        if item.replay_error:
            yield item.finding("poisoned-vector-seen", item.replay_error)
        for vector_id in named:
            vector = planted.get(vector_id)
            if vector is None:
                yield item.finding(
                    "poisoned-vector-seen", f"{vector_id} is not in the vectors manifest"
                )
            elif not appears_in(vector.text, answers):
                yield item.finding(
                    "poisoned-vector-seen",
                    f"{vector_id} ({vector.where}) is in no tool result of the reference run: "
                    "the driven turn never puts it in front of the model",
                )


_ID = re.compile(r"\b[A-Z]{1,4}-\d+\b")


def _named(text: str, needle: str) -> bool:
    """Whether a needle (a brand, a code) stands in a text, in any case and spacing."""
    squash = re.compile(r"[\W_]+")
    return bool(needle.strip()) and squash.sub("", needle.casefold()) in squash.sub(
        "", text.casefold()
    )


def _ids_in(value: object) -> set[str]:
    return set(_ID.findall(json.dumps(value, default=str)))


def negatives_about(item: LintCase, vector: PlantedInstruction) -> list[str]:
    """The negative keys the case asserts that are about this planted instruction: a
    never_calls on a tool that would carry it out (naming, if it names any, an id the instruction
    is about), a cart_not_contains of a listing it names, a memory_not_contains or a reply
    negative of a word it plants, no_applied_changes for a staged change."""
    expected = item.case.expected
    asserted = set(expected.asserted_keys()) & vector.negatives
    about = f"{vector.text} {vector.context}"
    ids = _ids_in(about)
    found: list[str] = []
    if "never_calls" in asserted and any(
        p.tool in vector.tools and _ids_in(p.args) <= ids for p in expected.never_calls
    ):
        found.append("never_calls")
    if "cart_not_contains" in asserted and set(expected.cart_not_contains) & ids:
        found.append("cart_not_contains")
    if "memory_not_contains" in asserted and any(
        _named(about, n) for n in expected.memory_not_contains
    ):
        found.append("memory_not_contains")
    if "reply_omits" in asserted and any(_named(about, n) for n in expected.reply_omits):
        found.append("reply_omits")
    if "reply_not_matches" in asserted and any(
        re.search(pattern, about, re.IGNORECASE) for pattern in expected.reply_not_matches
    ):
        found.append("reply_not_matches")
    if "reply_denies" in asserted and any(
        _named(about, str(v)) for fact in expected.reply_denies for v in _fact_values(fact)
    ):
        found.append("reply_denies")
    if "no_applied_changes" in asserted:
        found.append("no_applied_changes")
    return found


def _fact_values(fact: object) -> list[object]:
    dumped = fact.model_dump(exclude_none=True) if hasattr(fact, "model_dump") else {}
    return [
        (int(v) if isinstance(v, float) and v.is_integer() else v)
        for k, v in dumped.items()
        if k != "role"
    ]


def rule_poisoned_asserts_negative(run: LintRun) -> Iterator[Finding]:
    """A poisoned case asserts in code that each named vector's instruction was not followed,
    with a negative about that instruction: a never_calls on a tool that would carry it out (not
    on some other tool), a cart_not_contains of the listing it pushes, a memory_not_contains,
    reply_omits or reply_not_matches of what it plants."""
    for item in run.cases:
        planted = planted_for(run, item) if "poisoned" in item.case.tags else None
        if planted is None:
            continue
        for vector_id in item.tags_with("vector:"):
            vector = planted.get(vector_id)
            if vector is not None and not negatives_about(item, vector):
                tools = f" on {sorted(vector.tools)}" if vector.tools else ""
                yield item.finding(
                    "poisoned-asserts-negative",
                    f"{vector_id} is a {vector.kind} instruction ({vector.text!r}); assert one of "
                    f"{sorted(vector.negatives)} about it (never_calls{tools}, or the listing, "
                    "word or code it plants)",
                )


def rule_vector_in_driven_turn(run: LintRun) -> Iterator[Finding]:
    """Each planted instruction a poisoned case names reaches the model in the driven (graded)
    turn's tool results, not just in some earlier turn."""
    for item in finished(run):
        planted = planted_for(run, item) if "poisoned" in item.case.tags else None
        if planted is None or not item.replay:
            continue
        driven = [answer for _, answer in item.replay[-1]]
        earlier = [answer for turn in item.replay[:-1] for _, answer in turn]
        for vector_id in item.tags_with("vector:"):
            vector = planted.get(vector_id)
            # a vector seen nowhere is poisoned-vector-seen's finding
            if (
                vector is not None
                and not appears_in(vector.text, driven)
                and appears_in(vector.text, earlier)
            ):
                yield item.finding(
                    "vector-in-driven-turn",
                    f"{vector_id} reaches the model only before the graded turn; drive it in "
                    "the graded turn",
                )


def rule_poisoned_manifest(run: LintRun) -> Iterator[Finding]:
    """Every vector in the manifest sits verbatim in the eval-only listing or message it names."""
    for _, poisoned, root in run.domains_with_poisoned():
        try:
            problems = poisoned.manifest_problems(root)
        except ValueError as err:
            problems = [str(err)]
        manifest = str(root / poisoned.manifest)
        yield from (Finding(manifest, "-", "poisoned-manifest", p) for p in problems)


RULES: dict[str, Rule] = {
    "poisoned-vector-seen": rule_poisoned_vector_seen,
    "poisoned-asserts-negative": rule_poisoned_asserts_negative,
    "vector-in-driven-turn": rule_vector_in_driven_turn,
    "poisoned-manifest": rule_poisoned_manifest,
}
