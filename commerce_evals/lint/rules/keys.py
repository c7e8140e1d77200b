"""Keys: budgets the reference run fits (and does not dwarf), reply facts written as typed facts,
and preconditions injected as state rather than played as turns."""

from __future__ import annotations

import re
from collections.abc import Iterator

from commerce_evals.domains.base import _id_values
from commerce_evals.facts import mentions, normalise
from commerce_evals.grading.statuses import phrases
from commerce_evals.grading.statuses import table as status_table
from commerce_evals.japanese.text import is_japanese
from commerce_evals.lint.model import Finding, LintCase, LintRun
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished

# Keys that read turns before the graded one: a case asserting one carries state on purpose.
CROSS_TURN_KEYS = frozenset(
    {"writes_need_confirmation", "before", "call_order", "at_most", "max_calls_per_tool"}
)
_ID_TOKEN = re.compile(r"\b[A-Z]{1,4}-?\d+(?:-\d+)?\b")
_BARE_NUMBER = re.compile(r"(?:^|[|(])(?:\\b)?\$?\d[\d,.?]*(?:\\b)?(?=$|[|)])")
_DATE_WORDS = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?:\\?\.)?\b|\d{4}-\d{2}",
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


POSITIVE_LITERALS = ("reply_includes", "reply_matches")
NEGATIVE_LITERALS = ("reply_omits", "reply_not_matches")
# a needle that asks the person something: a question mark, a request, a wh-question
_ASKING = re.compile(
    r"\\\?|\?$|\blet me know\b|\btell me\b|\bplease\b|\bcould you\b|\bcan you\b"
    r"|\b(?:send|give|provide|share)\b|\bwho(?:'s| is)\b|\bwhat(?:'s| is)\b|\bwhich\b",
    re.IGNORECASE,
)
# a needle that claims an act: "I've updated", "address (is|has been) changed", "override accepted"
_CLAIM = re.compile(
    r"\b(?:i|we)\b(?:'?ve|\s+have)?\W*\s*(?:\(?now\s*\)?\W*\s*)?\(?(?:\w+\|)*\w+ed\b"
    r"|\b(?:is|are|was|were|has been|have been)\W*\s*(?:\(?now\s*\)?\W*\s*)?\(?(?:\w+\|)*\w+ed\b",
    re.IGNORECASE,
)
# a measure of time or length said with its number: "14 days", "(1|one|2)[- ]year"
_MEASURE = re.compile(
    r"\d[^|]{0,20}?\b(?:days?|hours?|weeks?|months?|years?|inch\w*)\b", re.IGNORECASE
)


def literal_reply_problem(key: str, needle: str, domain: str | None = None) -> str:
    """Why a literal reply key should be a typed key instead ("" when it is a literal token: an
    id, a code, a name). Positive keys (`reply_includes`, `reply_matches`) and negative ones
    (`reply_omits`, `reply_not_matches`) alike."""
    text = _ID_TOKEN.sub("ID", needle)
    negative = key in NEGATIVE_LITERALS
    facts = "reply_denies" if negative else "reply_states"
    if key in ("reply_includes", "reply_omits"):
        kinds = {m.kind for m in mentions(text)} - {"count"}
        if kinds:
            return f"{needle!r} is a {'/'.join(sorted(kinds))}: use {facts}"
        if not negative and re.fullmatch(r"\s*\d[\d,.]*\s*", text):
            return f"{needle!r} is a number: use {facts}"
    elif _DATE_WORDS.search(text) or "%" in text or "percent" in text.casefold():
        return f"{needle!r} matches a date or a percent: use {facts}"
    elif re.search(r"\\\$|\$\d", text) or (not negative and _BARE_NUMBER.search(text)):
        return f"{needle!r} matches a number or an amount: use {facts}"
    if _MEASURE.search(text.replace("\\d", "1")):
        return (
            f"{needle!r} matches a span of time or a length: sourced_values (on by default) "
            f"fails one no tool, policy or person gave, and {facts} takes a count"
        )
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
    words = re.sub(r"\(\?:|\\b|[()?]", "", needle).replace("|", " ")
    asking = _ASKING.search(needle) or _ASKING.search(words)
    if key.endswith("matches") and asking and not _ID_TOKEN.search(needle):
        use = "never_asks" if negative else "asks_for"
        return (
            f"{needle!r} reads a question: use {use} with a topic of the domain's asking words "
            "(domains/<domain>/asking.yaml), which hears every way of asking"
        )
    if negative and key.endswith("matches") and _CLAIM.search(needle):
        return (
            f"{needle!r} reads a claim of an act: action_claims (on by default) fails every claim "
            "the run's changes do not back, in any words"
        )
    for status in status_table(domain):
        pattern = re.compile(rf"(?:{status.phrases})", re.IGNORECASE)
        if (
            options
            and all(pattern.fullmatch(o) or _any_status(o, domain) for o in options)
            and any(pattern.fullmatch(o) for o in options)
        ):
            return (
                f"{needle!r} is a phrase with synonyms: use {facts} with "
                f"{{status: {status.name}}}, which reads its every form and its negation"
            )
    return ""


def _any_status(text: str, domain: str | None = None) -> bool:
    return any(re.fullmatch(rf"(?:{s.phrases})", text, re.IGNORECASE) for s in status_table(domain))


def rule_typed_reply_facts(run: LintRun) -> Iterator[Finding]:
    """Literal reply keys hold literal tokens (ids, codes, names). A number, an amount, a date, a
    percent, a span of time, a status phrase, a question or a claim of an act is for the typed
    key that reads it in any words: `reply_states`/`reply_denies`, `asks_for`/`never_asks`,
    `sourced_values`, `action_claims`."""
    for item in run.cases:
        expected = item.case.expected
        for key in (*POSITIVE_LITERALS, *NEGATIVE_LITERALS):
            for needle in getattr(expected, key):
                problem = literal_reply_problem(key, needle, item.domain)
                if problem:
                    yield item.finding("typed-reply-facts", f"{key}: {problem}")


def rule_preconditions_in_state(run: LintRun) -> Iterator[Finding]:
    """An earlier turn that only sets up state belongs in `state`, unless the case asserts a key
    that reads across turns: one that only carts or stages, or one that only reads (a search, a
    details call) to make products seen when the graded turn names every product it acts on, so
    it needs nothing of that turn but the products being seen."""
    for item in finished(run):
        reference = item.case.reference or []
        setup_tools = item.authoring.setup_tools
        if (
            len(reference) < 2
            or item.case.customer is not None
            or CROSS_TURN_KEYS & set(item.case.expected.asserted_keys())
        ):
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
            elif (
                tools
                and all(t in item.authoring.seen_tools for t in tools)
                and _graded_turn_names_what_it_acts_on(item)
            ):
                table = item.authoring.seen_tools[tools[0]]
                yield item.finding(
                    "preconditions-in-state",
                    f"turn {index + 1} only reads ({sorted(set(tools))}) to make products "
                    f"seen, and the graded turn names what it acts on: inject them as "
                    f"state.{table} and drop the turn",
                )


def _graded_turn_names_what_it_acts_on(item: LintCase) -> bool:
    """Whether the graded turn's message names, by id or by name, every record its reference
    calls act on (so it does not lean on what an earlier turn's reply said)."""
    if item.world is None or not item.case.reference:
        return False
    calls = [c for rnd in item.case.reference[-1].rounds() for c in rnd]
    fields = item.world.id_fields
    ids = {v for c in calls for _, v in _id_values(c.args, fields)} & item.world.known_ids()
    if not ids:
        return False
    said = item.case.turns[-1].casefold()
    names = {
        str(row.get("id")): str(row.get("name") or "").casefold()
        for row in item.world.records_of(ids)
    }
    return all(i.casefold() in said or (names.get(i) and names[i] in said) for i in ids)


RULES: dict[str, Rule] = {
    "max-tool-calls": rule_max_tool_calls,
    "max-tool-calls-slack": rule_max_tool_calls_slack,
    "typed-reply-facts": rule_typed_reply_facts,
    "preconditions-in-state": rule_preconditions_in_state,
}
