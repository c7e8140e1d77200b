"""Coverage: every positive has its negative in the same niche (flow and niche), every refusal a
case that serves, and every gate that blocks a case a case it lets through."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from commerce_evals.grading.statuses import OPPOSITE
from commerce_evals.lint.model import Finding, LintCase, LintRun, poisoned_fixtures
from commerce_evals.lint.registry import Rule
from commerce_evals.lint.rules.drafts import finished

# Keys that assert something done, shown or said: an agent that refuses everything fails them.
POSITIVE_KEYS = frozenset(
    {
        "calls_tool",
        "calls_one_of",
        "first_tool",
        "cart_contains",
        "memory_contains",
        "staged_change_kinds",
        "ui_components",
        "last_presented",
        "skill_loaded",
        "reply_includes",
        "reply_matches",
        "reply_states",
        "asks_for",
    }
)


Peer = Callable[[LintCase], bool]


def _skill_not_loaded(skill: str) -> Peer:
    return lambda p: (
        bool(p.case.expected.no_skill_load)
        or ((p.case.expected.skill_not_loaded or "").casefold() == skill.casefold())
    )


def _tagged(tag: str) -> Peer:
    return lambda p: tag in p.case.tags


def _negatives_wanted(item: LintCase) -> list[tuple[str, Peer]]:
    """What a peer must assert for each positive the case asserts, and how to tell it does."""
    expected = item.case.expected
    wants: list[tuple[str, Peer]] = []
    if expected.ui_components:
        wants.append(("no_ui", lambda p: bool(p.case.expected.no_ui)))
    if expected.skill_loaded:
        wants.append(
            (
                f"skill_not_loaded: {expected.skill_loaded} (or no_skill_load)",
                _skill_not_loaded(expected.skill_loaded),
            )
        )
    if expected.memory_contains:
        wants.append(
            ("memory_not_contains (or never_calls on the memory tool)", LintCase.refuses_memory)
        )
    for gate in item.tags_with("gate:"):
        wants.append((f"the tag no-gate:{gate}", _tagged(f"no-gate:{gate}")))
    for topic in item.tags_with("disclosure:"):
        wants.append((f"the tag no-disclosure:{topic}", _tagged(f"no-disclosure:{topic}")))
    # a disclosure read from the keys: a status the reply must state ("sold out", "delayed")
    denied = {f.status for f in expected.reply_denies if f.status}
    for status in sorted({f.status for f in expected.reply_states if f.status}):
        opposite = OPPOSITE.get(status)
        if opposite is not None and opposite in denied:
            # the case is itself the negative half of its opposite's pairing ("in stock" stated
            # where "sold out" is denied): the case that discloses the opposite pairs it, as
            # one denying its own status would
            wants.append(
                (
                    f"reply_denies: [{{status: {status}}}] (or, as the negative of "
                    f"{opposite}, reply_states: [{{status: {opposite}}}])",
                    _denies_or_states(status, opposite),
                )
            )
        else:
            wants.append((f"reply_denies: [{{status: {status}}}]", _denies(status)))
    return wants


def _denies(status: str) -> Peer:
    return lambda p: any(f.status == status for f in p.case.expected.reply_denies)


def _states(status: str) -> Peer:
    return lambda p: any(f.status == status for f in p.case.expected.reply_states)


def _denies_or_states(denied: str, stated: str) -> Peer:
    return lambda p: _denies(denied)(p) or _states(stated)(p)


def rule_positive_has_negative(run: LintRun) -> Iterator[Finding]:
    """A case asserting a component, a skill load, a gate, a disclosure or a memory write has a
    case in the same niche (flow and niche) asserting its absence. A disclosure is read from the
    keys (a status `reply_states` asks for, paired with a `reply_denies` of it) as well as from
    the disclosure: tags. A status stated by a case that denies its opposite ("in stock" where
    "sold out" is denied) is the negative half of the opposite's pairing, not a disclosure of
    its own: a case stating the opposite pairs it too."""
    groups = run.groups()
    for item in run.cases:
        expected = item.case.expected
        for what, test in _negatives_wanted(item):
            if not any(test(p) for p in groups[item.group] if p is not item):
                yield item.finding(
                    "positive-has-negative",
                    f"no other case in niche {item.niche} asserts {what}",
                )
        if item.tags_with("disclosure:") and not (
            expected.reply_includes or expected.reply_matches or expected.reply_states
        ):
            yield item.finding(
                "positive-has-negative", "a disclosure case asserts no reply_includes"
            )
        if item.tags_with("no-disclosure:") and not (
            expected.reply_omits or expected.reply_not_matches or expected.reply_denies
        ):
            yield item.finding(
                "positive-has-negative", "a no-disclosure case asserts no reply_omits"
            )


def forbids_a_write(item: LintCase) -> bool:
    """The case asserts that something was not written: a never on a writing tool or an
    operation, nothing applied, nothing carted or remembered, no write at all."""
    expected = item.case.expected
    writes = {t.name for t in item.profile.tools if t.writes} if item.profile else set()
    state = expected.state
    return bool(
        any(p.tool in writes for p in expected.never_calls)
        or expected.never_does
        or expected.no_applied_changes
        or expected.cart_not_contains
        or expected.memory_not_contains
        or (state is not None and (state.no_writes or state.unchanged))
    )


def refuses(item: LintCase) -> bool:
    """A refusal: declared (`should: refuse`, tagged `poisoned`), or read from the case's keys:
    it forbids a write and asserts nothing an agent that refuses everything would fail."""
    if item.case.should == "refuse" or "poisoned" in item.case.tags:
        return True
    if item.case.should is not None or "benign" in item.case.tags:
        return False  # declared as serving, asking or handing over: its author said what it is
    return forbids_a_write(item) and not fails_a_refuser(item)


def rule_refusal_has_counterpart(run: LintRun) -> Iterator[Finding]:
    """A refusal case (should: refuse, tagged poisoned, or one whose keys forbid a write and
    assert nothing an agent refusing everything fails) has a should-serve case in the same niche
    (should: do or answer, benign, or one whose keys such an agent fails); a poisoned case's
    counterpart is tagged benign and serves a benign eval-only listing."""
    groups = run.groups()
    benign_ids: dict[str, set[str]] = {}
    for item in run.cases:
        case = item.case
        poisoned = poisoned_fixtures(item.authoring)
        if "benign" in case.tags and poisoned is not None and item.domain:
            if item.domain not in benign_ids:
                benign_ids[item.domain] = poisoned.benign_ids(run.poisoned_root / item.domain)
            if not item.positive_ids() & benign_ids[item.domain]:
                yield item.finding(
                    "refusal-has-counterpart",
                    "a benign case asserts nothing positive about a benign eval-only listing",
                )
        if "poisoned" in case.tags:
            if not any("benign" in p.case.tags for p in groups[item.group]):
                yield item.finding(
                    "refusal-has-counterpart", f"no benign case in niche {item.niche} to serve"
                )
        elif refuses(item) and not any(_serving(p) for p in groups[item.group] if p is not item):
            yield item.finding(
                "refusal-has-counterpart",
                f"no should-serve case in niche {item.niche} (should: do or answer, or one "
                "asserting a call, a cart line, a row or words said)",
            )


def _serving(item: LintCase) -> bool:
    """A should-serve case: declared, or one an agent refusing everything fails."""
    if item.case.should == "refuse" or "poisoned" in item.case.tags:
        return False
    return (
        item.case.should in {"do", "answer"} or "benign" in item.case.tags or fails_a_refuser(item)
    )


def fails_a_refuser(item: LintCase) -> bool:
    """Whether an agent that refuses everything would fail the case: it asserts something done,
    shown or said, not only what must not happen."""
    expected = item.case.expected
    state = expected.state
    return bool(
        POSITIVE_KEYS & set(expected.asserted_keys())
        or (state is not None and (state.rows or any(n > 0 for n in state.new_rows.values())))
    )


def rule_counterpart_serves(run: LintRun) -> Iterator[Finding]:
    """A refusal's should-serve counterpart (same flow and niche, in every domain) asserts
    something an agent that refuses everything fails: a call made, an item carted, a row written,
    words said. A counterpart that only asserts negatives passes a refuse-everything agent."""
    cases = finished(run)
    groups = run.groups(cases)
    for item in cases:
        if not refuses(item):
            continue
        peers = [p for p in groups[item.group] if p is not item and _serving(p)]
        if peers and not any(fails_a_refuser(p) for p in peers):
            yield item.finding(
                "counterpart-serves",
                f"the should-serve cases in niche {item.niche} ({[p.case.id for p in peers]}) "
                "assert only negatives: an agent that refuses everything passes them",
            )


def _blocked(item: LintCase) -> list[tuple[str, str]]:
    return [
        (tool, str(answer.get("reason") or answer.get("gate") or ""))
        for turn in item.replay
        for tool, answer in turn
        if answer.get("status") == "blocked"
    ]


def _lets_through(item: LintCase, tool: str) -> bool:
    return any(t == tool and a.get("status") == "ok" for turn in item.replay for t, a in turn)


def rule_gate_has_negative(run: LintRun) -> Iterator[Finding]:
    """A case whose known-good run is stopped by a gate has a case in the same niche where the
    same tool goes through, found from the replayed runs, whatever the tags say."""
    cases = finished(run)
    groups = run.groups(cases)
    for item in cases:
        for tool, gate in sorted(set(_blocked(item))):
            peers = [p for p in groups[item.group] if p is not item]
            if not any(_lets_through(p, tool) for p in peers):
                yield item.finding(
                    "gate-has-negative",
                    f"the {gate or 'gate'} gate blocks {tool} here, but no other case in niche "
                    f"{item.niche} has {tool} go through",
                )


RULES: dict[str, Rule] = {
    "positive-has-negative": rule_positive_has_negative,
    "refusal-has-counterpart": rule_refusal_has_counterpart,
    "counterpart-serves": rule_counterpart_serves,
    "gate-has-negative": rule_gate_has_negative,
}
