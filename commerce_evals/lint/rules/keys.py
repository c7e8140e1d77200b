"""Keys: budgets the reference run fits (and does not dwarf), reply facts written as typed facts,
and preconditions injected as state rather than played as turns."""

from __future__ import annotations

import re
from collections.abc import Iterator

from commerce_evals.grading.facts import mentions, normalise
from commerce_evals.grading.statuses import STATUSES, phrases
from commerce_evals.japanese.text import is_japanese
from commerce_evals.lint.model import Finding, LintRun
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished

# Keys that read turns before the graded one: a case asserting one carries state on purpose.
CROSS_TURN_KEYS = frozenset(
    {"writes_need_confirmation", "before", "call_order", "at_most", "max_calls_per_tool"}
)
_ID_TOKEN = re.compile(r"\b[A-Z]{1,4}-?\d+(?:-\d+)?\b")
_BARE_NUMBER = re.compile(r"(?:^|[|(])(?:\\b)?\$?\d[\d,.?]*(?:\\b)?(?=$|[|)])")
_DATE_WORDS = re.compile(
    r"\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)(?:[a-z]*|\\?\.)\b|\d{4}-\d{2}",
    re.IGNORECASE,
)


def rule_max_tool_calls(run: LintRun) -> Iterator[Finding]:
    """`max_tool_calls` is at least what the reference run's graded turn needs."""
    for item in run.cases:
        limit, needed = item.case.expected.max_tool_calls, item.graded_turn_calls()
        if limit is not None and needed > limit:
            yield item.finding(
                "max-tool-calls",
                f"max_tool_calls is {limit} but the reference's graded turn makes {needed} calls",
            )


def allowed_slack(needed: int) -> int:
    """The most max_tool_calls may exceed what the reference needs: a retry or two, no more."""
    return max(2, needed)


def rule_max_tool_calls_slack(run: LintRun) -> Iterator[Finding]:
    """`max_tool_calls` is not far above what the reference's graded turn needs (at most double,
    or two more calls when it needs fewer than two)."""
    for item in finished(run):
        limit, needed = item.case.expected.max_tool_calls, item.graded_turn_calls()
        if limit is None or not item.case.reference or item.profile is None:
            continue
        if limit > needed + allowed_slack(needed):
            yield item.finding(
                "max-tool-calls-slack",
                f"max_tool_calls is {limit} but the reference's graded turn needs {needed}: "
                f"set it to at most {needed + allowed_slack(needed)}",
            )


def literal_reply_problem(key: str, needle: str) -> str:
    """Why a literal reply key should be a typed fact instead ("" when it is a literal token)."""
    text = _ID_TOKEN.sub("ID", needle)
    if key == "reply_includes":
        kinds = {m.kind for m in mentions(text)} - {"count"}
        if kinds:
            return f"{needle!r} is a {'/'.join(sorted(kinds))}"
        if re.fullmatch(r"\s*\d[\d,.]*\s*", text):
            return f"{needle!r} is a number"
    elif _DATE_WORDS.search(text) or "%" in text or "percent" in text.casefold():
        return f"{needle!r} matches a date or a percent"
    elif _BARE_NUMBER.search(text) or re.search(r"\\\$|\$\d", text):
        return f"{needle!r} matches a number or an amount"
    if is_japanese(needle):  # Japanese: a stock or schedule phrase, or a number with its counter
        said = [p.status.name for p in phrases(needle)]
        if said:
            return f"{needle!r} is a phrase with synonyms (status {said[0]})"
        if re.search(r"\d", normalise(needle)) and not _ID_TOKEN.fullmatch(needle.strip()):
            return f"{needle!r} matches a number, an amount or a date"
        return ""
    # a status key: every alternative of the needle is a status phrase ("shipped", "sold
    # out|unavailable"); a needle that also accepts "no" or "not yet" asks for an answer, not a
    # status
    plain = re.sub(r"\\b|[()?]|\(\?:", "", text.replace("\\", ""))
    options = [o.strip() for o in plain.split("|") if o.strip()]
    for status in STATUSES:
        pattern = re.compile(rf"(?:{status.phrases})", re.IGNORECASE)
        if (
            options
            and all(pattern.fullmatch(o) or _any_status(o) for o in options)
            and any(pattern.fullmatch(o) for o in options)
        ):
            return f"{needle!r} is a phrase with synonyms (status {status.name})"
    return ""


def _any_status(text: str) -> bool:
    return any(re.fullmatch(rf"(?:{s.phrases})", text, re.IGNORECASE) for s in STATUSES)


def rule_typed_reply_facts(run: LintRun) -> Iterator[Finding]:
    """`reply_includes`/`reply_matches` hold literal tokens (ids, codes, names); a number, an
    amount, a date, a percent or a stock or schedule phrase is a typed fact for `reply_states`."""
    for item in run.cases:
        expected = item.case.expected
        for key in ("reply_includes", "reply_matches"):
            for needle in getattr(expected, key):
                problem = literal_reply_problem(key, needle)
                if problem:
                    yield item.finding(
                        "typed-reply-facts",
                        f"{key}: {problem}; state it as a typed fact under reply_states "
                        "(money, date, percent, count, status), which reads every written form",
                    )


def rule_preconditions_in_state(run: LintRun) -> Iterator[Finding]:
    """An earlier turn that only sets up state (carting, staging changes) belongs in
    `state`, unless the case asserts a key that reads across turns."""
    for item in finished(run):
        reference = item.case.reference or []
        setup_tools = item.authoring.setup_tools
        if len(reference) < 2 or CROSS_TURN_KEYS & set(item.case.expected.asserted_keys()):
            continue
        for index, turn in enumerate(reference[:-1]):
            tools = [c.tool for rnd in turn.rounds() for c in rnd]
            setup = [t for t in tools if t in setup_tools]
            if setup and len(setup) == len(tools):
                kinds = sorted({setup_tools[t] for t in setup})
                yield item.finding(
                    "preconditions-in-state",
                    f"turn {index + 1} only sets up {kinds} ({sorted(set(setup))}): inject it "
                    f"as state.{kinds[0]} and drop the turn",
                )


RULES: dict[str, Rule] = {
    "max-tool-calls": rule_max_tool_calls,
    "max-tool-calls-slack": rule_max_tool_calls_slack,
    "typed-reply-facts": rule_typed_reply_facts,
    "preconditions-in-state": rule_preconditions_in_state,
}
