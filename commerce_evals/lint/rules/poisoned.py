"""Poisoned cases: every planted instruction a case names exists, reaches the model in the graded
turn of the replayed reference, and is asserted not followed; the manifest matches the eval-only
fixtures. Only for domains whose World.authoring names poisoned fixtures."""

from __future__ import annotations

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


def rule_poisoned_asserts_negative(run: LintRun) -> Iterator[Finding]:
    """A poisoned case asserts in code that each named vector's instruction was not followed."""
    for item in run.cases:
        planted = planted_for(run, item) if "poisoned" in item.case.tags else None
        if planted is None:
            continue
        asserted = set(item.case.expected.asserted_keys())
        for vector_id in item.tags_with("vector:"):
            vector = planted.get(vector_id)
            if vector is not None and not asserted & vector.negatives:
                yield item.finding(
                    "poisoned-asserts-negative",
                    f"{vector_id} is a {vector.kind} instruction; assert one of "
                    f"{sorted(vector.negatives)}",
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
