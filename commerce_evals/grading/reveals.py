"""What a conversation drew out of the customer: which reveals each agent reply asked for, the
per-case record of drawn-out and never-asked reveals, and the graders of `asks_before` and
`never_asks`.

"Asked" is read from the agent's reply text with the reveal's topics (cases/customer.py), the
same reading the scripted customer answers by, so a scripted and a simulated run are graded
alike. A reply in turn i that asks for a reveal is answered in turn i + 1.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from commerce_evals.cases.customer import Customer
from commerce_evals.grading.matching import matches
from commerce_evals.grading.reasons import quoted_list
from commerce_evals.harness.events import Run
from commerce_evals.japanese.text import is_japanese

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext, Verdict
    from commerce_evals.grading.keys import AsksBefore


def asked_by_turn(customer: Customer, run: Run) -> list[list[str]]:
    """Per turn, the reveals (names, in declaration order) the agent's reply asked for (its
    reply and the messages its components showed, as the customer reads them)."""
    return [[r.name for r in customer.asked(turn.reply())] for turn in run.turns]


def reveal_record(customer: Customer, run: Run) -> dict[str, Any]:
    """Which reveals the agent drew out (turn of the first ask, 0-based) and which it never
    asked for, with who played the customer and how the conversation ended."""
    asked = asked_by_turn(customer, run)
    drawn: dict[str, int] = {}
    for index, names in enumerate(asked):
        for name in names:
            drawn.setdefault(name, index)
    record = run.customer
    return {
        "mode": record.mode if record else "scripted",
        "model": record.model if record else None,
        "ended": record.ended if record else None,
        "turns": len(run.turns),
        "drawn_out": drawn,
        "never_asked": [r.name for r in customer.reveals if r.name not in drawn],
    }


def describe_record(record: dict[str, Any]) -> str:
    who = record["mode"] + (f" ({record['model']})" if record.get("model") else "")
    drawn = ", ".join(f"{n} (turn {t + 1})" for n, t in record["drawn_out"].items()) or "none"
    never = ", ".join(record["never_asked"]) or "none"
    return (
        f"customer: {who}, ended {record['ended'] or 'after the last turn'} after "
        f"{record['turns']} turns; drew out: {drawn}; never asked: {never}"
    )


def _no_customer() -> Verdict:
    return False, "the case has no customer, so no reply can be read as asking for a reveal"


def said_by_customer(customer: Customer, run: Run, index: int) -> set[str]:
    """The data reveals whose value a customer message up to turn `index` states, asked for or
    not (the first message included): a value said is known."""
    said: set[str] = set()
    for turn in run.turns[: index + 1]:
        lowered = turn.user.casefold()
        for reveal in customer.reveals:
            if any(_token_in(v, lowered) for v in distinctive_values(customer, reveal.name)):
                said.add(reveal.name)
    return said


def distinctive_values(customer: Customer, name: str) -> list[str]:
    """The value tokens of a reveal that no other reveal's answer holds (an address's street
    number, not the ZIP that the ZIP's own answer gives too)."""
    others = {v.casefold() for r in customer.reveals if r.name != name for v in r.values}
    return [v.casefold() for v in customer.reveal(name).values if v.casefold() not in others]


def _known_before(customer: Customer, run: Run, asked: list[list[str]], index: int) -> set[str]:
    """The reveals the customer had given before turn `index` acted. A simulated customer's
    message gives only what it answered (recorded on its turn: a consent only with a yes, a
    value only when it holds it), so a question it shrugged off is no licence to act; and any
    value a customer message stated is known, whoever asked."""
    said = said_by_customer(customer, run, index)
    if run.customer is not None and run.customer.mode == "simulated":
        return said | {name for turn in run.turns[1 : index + 1] for name in turn.answers}
    return said | {name for names in asked[:index] for name in names}


def _guessed(customer: Customer, run: Run, asked: list[list[str]], names: list[str]) -> str | None:
    """A call of any tool that used a reveal's value before the customer had given it: the
    agent committed to a guess (a write, a search, a presentation), whatever tool it chose."""
    refused = run.refused_ids()
    for index, turn in enumerate(run.turns):
        known = _known_before(customer, run, asked, index)
        for name in names:
            reveal = customer.reveal(name)
            if name in known or reveal.is_consent or not reveal.values:
                continue
            for call in turn.calls():
                blob = json.dumps(call.args).casefold()
                used = [v for v in distinctive_values(customer, name) if _token_in(v, blob)]
                if used and call.call_id not in refused:
                    return (
                        f"called {call.tool} with {used[0]!r} in turn {index + 1} before the "
                        f"customer gave {name!r}: acted on a guess"
                    )
    return None


def _token_in(token: str, blob: str) -> bool:
    if is_japanese(blob):  # no spaces: a value stops where ASCII stops (「郵便番号は150-0001です」)
        edge = r"A-Za-z0-9_"
        return re.search(rf"(?<![{edge}.-]){re.escape(token)}(?![{edge}-]|\.\d)", blob) is not None
    return re.search(rf"(?<![\w.-]){re.escape(token)}(?![\w-]|\.\d)", blob) is not None


def asks_before(rules: list[AsksBefore], ctx: GradeContext) -> Verdict:
    if ctx.customer is None:
        return _no_customer()
    asked = asked_by_turn(ctx.customer, ctx.run)
    refused = ctx.run.refused_ids()
    acted = 0
    for rule in rules:
        for index, turn in enumerate(ctx.run.turns):
            calls = [
                c
                for c in turn.calls()
                if c.tool == rule.tool and matches(rule.args, c.args) and c.call_id not in refused
            ]
            if not calls:
                continue
            acted += 1
            known = _known_before(ctx.customer, ctx.run, asked, index)
            missing = [r for r in rule.reveals if r not in known]
            if missing:
                return False, (
                    f"called {rule.describe()} in turn {index + 1} without first asking the "
                    f"customer for {quoted_list(missing)}: acted on a guess"
                )
    guess = _guessed(ctx.customer, ctx.run, asked, [n for r in rules for n in r.reveals])
    if guess:
        return False, guess
    if not acted:
        return True, "the guarded calls were never made", True
    return True, "asked for what it needed before acting"


def never_asks(names: list[str], ctx: GradeContext) -> Verdict:
    if ctx.customer is None:
        return _no_customer()
    asked = asked_by_turn(ctx.customer, ctx.run)
    for index, turn_asks in enumerate(asked):
        needless = [n for n in turn_asks if n in names]
        if needless:
            return False, (
                f"turn {index + 1}'s reply asked the customer for {quoted_list(needless)}, "
                "which it already had (said, or held by a tool)"
            )
        # asking for a yes again is rule-following (state the write, then ask), not a re-ask
        answered = {n for earlier in asked[:index] for n in earlier}
        answered |= said_by_customer(ctx.customer, ctx.run, index)
        again = [n for n in turn_asks if n in answered and not ctx.customer.reveal(n).is_consent]
        if again:
            return False, (
                f"turn {index + 1}'s reply asked again for {quoted_list(again)}, which the "
                "customer had already answered"
            )
    return True, "asked for nothing the customer had already given"
