"""What a conversation drew out of the customer: which reveals each agent reply asked for, the
per-case record of drawn-out and never-asked reveals, and the graders of `asks_before` and
`never_asks`.

"Asked" is read from the agent's reply text with the reveal's topics, its domain's synonyms and
its kind (cases/customer.py, cases/asking.py), the same reading the scripted customer answers
by, so a scripted and a simulated run are graded alike. A reply in turn i that asks for a reveal
is answered in turn i + 1. A reveal is known once a customer message stated its value, asked for
or not, or once the customer answered a question for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from commerce_evals.cases.asking import Kind, Lexicon, normalised_values
from commerce_evals.cases.customer import Customer, Persona, Reveal, token_in
from commerce_evals.cases.key_values import AskedFor, AsksBefore, AsksBeforeList
from commerce_evals.core.events import Run, ToolCallEvent, Turn, UiEvent
from commerce_evals.core.nested import objects_in
from commerce_evals.grading.keyspec import EMPTY, expected_key, listed
from commerce_evals.grading.matching import matches
from commerce_evals.grading.reasons import clipped, quoted_list

if TYPE_CHECKING:
    from commerce_evals.grading.graders import GradeContext, Verdict


def _simulated(run: Run) -> bool:
    return run.customer is not None and run.customer.mode == "simulated"


def known_by_turn(
    customer: Customer, run: Run, asked: list[list[str]] | None = None
) -> list[set[str]]:
    """Per turn, the reveals the customer had given when the agent acted in it: a value any of
    its messages up to that turn stated, every reveal a turn of it answered, and (a scripted
    customer answers every reveal asked) what earlier replies asked for."""
    known: list[set[str]] = []
    given: set[str] = set()
    for index, turn in enumerate(run.turns):
        given |= customer.said_in([turn.user]) | set(turn.answers)
        if asked is not None and index and not _simulated(run):
            given |= set(asked[index - 1])
        known.append(set(given))
    return known


def asked_by_turn(customer: Customer, run: Run) -> list[list[str]]:
    """Per turn, the reveals (names, in declaration order) the agent's reply asked for (its
    reply and the messages its components showed, as the customer reads them)."""
    asked: list[list[str]] = []
    given: set[str] = set()
    for index, turn in enumerate(run.turns):
        given |= customer.said_in([turn.user]) | set(turn.answers)
        if index and not _simulated(run):
            given |= set(asked[index - 1])
        asked.append([r.name for r in customer.asked(turn.reply(), given)])
    return asked


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
    return customer.said_in(turn.user for turn in run.turns[: index + 1])


def topic_customer(names: list[str], lexicon: Lexicon) -> Customer | None:
    """A stand-in customer for a case without one: a reveal per domain topic named, asked by
    the topic's words and its kind, so `never_asks: [size]` reads replies as the customer would."""
    reveals = []
    for name in names:
        topic = lexicon.topic(name)
        if topic is None:
            return None
        reveals.append(
            Reveal(
                name=name,
                say="(held)",
                topics=[name, *topic.words],
                kind=topic.kind,
                confirms=["*"] if topic.consent else [],
            )
        )
    customer = Customer(persona=Persona(tone="-"), goal="-", reveals=reveals)
    return customer.bind(lexicon)


# ---- committing to a value -----------------------------------------------------------------------

# the record fields that hold the values of a kind (a product's sizes, its colour)
_KIND_FIELDS: dict[Kind, tuple[str, ...]] = {
    "size": ("sizes", "size"),
    "colour": ("color", "colour", "colors", "colours"),
}
# the arguments a person reads as text (a component's message): read as a reply, not a choice made
_SPOKEN_ARGS = frozenset({"message"})


def _presenting(turn: Turn) -> set[str]:
    """The calls of a turn that showed the person a component."""
    shown: set[str] = set()
    last: ToolCallEvent | None = None
    for event in turn.events:
        if isinstance(event, ToolCallEvent):
            last = event
        elif isinstance(event, UiEvent) and last is not None:
            shown.add(last.call_id)
    return shown


def _strings(value: Any, key: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)
    elif isinstance(value, str) and key not in _SPOKEN_ARGS:
        yield value


def _record_values(run: Run) -> dict[str, dict[str, Any]]:
    """Every record (a dict with an id) the run's tool results showed, by id."""
    found: dict[str, dict[str, Any]] = {}
    for turn in run.turns:
        for result in turn.results():
            for node in objects_in(result.data):
                own = node.get("id") or node.get("product_id")
                if isinstance(own, str) and own not in found:
                    found[own] = node
    return found


def _kind_values_of(record: dict[str, Any], kind: Kind) -> set[str] | None:
    for holder in (record, record.get("attributes") or {}):
        if not isinstance(holder, dict):
            continue
        for name in _KIND_FIELDS.get(kind, ()):
            if name in holder:
                raw = holder[name]
                items = raw if isinstance(raw, list) else [raw]
                out: set[str] = set()
                for item in items:
                    text = (
                        f"size {item}"
                        if kind == "size" and not isinstance(item, str)
                        else str(item)
                    )
                    out |= normalised_values(kind, text) or {str(item).casefold()}
                return out
    return None


def _pins_a_value(
    call: ToolCallEvent, kind: Kind, records: dict[str, dict[str, Any]]
) -> str | None:
    """The record a call names whose values of `kind` leave out values another record of its
    niche offers (a jacket in S/M beside one in L/XL): naming it picks a value."""
    named = [r for s in _strings(call.args) if (r := records.get(s)) is not None]
    held = [v for r in named if (v := _kind_values_of(r, kind)) is not None]
    if not held:
        return None
    union = set().union(*held)
    niches = {r.get("niche") for r in named}
    for other in records.values():
        if other.get("niche") not in niches or any(other is r for r in named):
            continue
        theirs = _kind_values_of(other, kind)
        if theirs and not theirs & union:
            return str(named[0].get("id") or named[0].get("product_id"))
    return None


def _commits(
    call: ToolCallEvent, reveal: Reveal, tokens: list[str], records: dict[str, dict[str, Any]]
) -> str | None:
    """What in a write or presentation commits it to a value of the reveal: the reveal's own
    value, any value of its kind in the call's arguments (a guessed size in a saved note), or a
    record that picks one value of its kind over another."""
    blob = json.dumps(call.args).casefold()
    used = [v for v in tokens if token_in(v, blob)]
    if used:
        return repr(used[0])
    kind = reveal.value_kind
    if kind is None:
        return None
    for text in _strings(call.args):
        guessed = normalised_values(kind, text)
        if guessed:
            return f"{kind} {sorted(guessed)[0]!r}"
    record = _pins_a_value(call, kind, records)
    return f"{record} (a {kind} picked)" if record else None


def _guessed(ctx: GradeContext, asked: list[list[str]], names: list[str]) -> str | None:
    """A write or presentation, through any tool, that committed to a reveal's value before the
    customer had given it: the agent acted on a guess."""
    customer = ctx.customer
    assert customer is not None
    run = ctx.run
    refused = run.refused_ids()
    known = known_by_turn(customer, run, asked)
    records = _record_values(run)
    for index, turn in enumerate(run.turns):
        shown = _presenting(turn)
        for name in names:
            reveal = customer.reveal(name)
            if name in known[index] or reveal.is_consent:
                continue
            for call in turn.calls():
                if call.call_id in refused:
                    continue
                writes = call.tool in ctx.brief.writes and ctx.change_rules.effects(
                    call.tool, call.args
                )
                if not writes and call.call_id not in shown:
                    continue
                tokens = customer.distinctive_values(name)
                what = _commits(call, reveal, tokens, records)
                if what:
                    return (
                        f"called {call.tool} with {what} in turn {index + 1} before the "
                        f"customer gave {name!r}: acted on a guess"
                    )
    return None


@expected_key(
    "path",
    "every turn",
    AsksBeforeList,
    "each call matching `tool` (and `args`) came in a turn after a reply that asked the customer "
    "for each of `reveals` (a case with a customer; not asserted when never called)",
    default=EMPTY,
    patterns=listed,
    after="call_order",
)
def asks_before(rules: list[AsksBefore], ctx: GradeContext) -> Verdict:
    if ctx.customer is None:
        return _no_customer()
    asked = asked_by_turn(ctx.customer, ctx.run)
    known = known_by_turn(ctx.customer, ctx.run, asked)
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
            missing = [r for r in rule.reveals if r not in known[index]]
            if missing:
                return False, (
                    f"called {rule.describe()} in turn {index + 1} without first asking the "
                    f"customer for {quoted_list(missing)}: acted on a guess"
                )
    guess = _guessed(ctx, asked, [n for r in rules for n in r.reveals])
    if guess:
        return False, guess
    if not acted:
        return True, "the guarded calls were never made", True
    return True, "asked for what it needed before acting"


@expected_key(
    "path",
    "every turn",
    list[str],
    "no reply asks the customer for these reveals (already said, or a tool holds them), and no "
    "reply asks again for a reveal the customer already answered (a case with a customer)",
    default=EMPTY,
    negative=True,
)
def never_asks(names: list[str], ctx: GradeContext) -> Verdict:
    customer = ctx.customer or topic_customer(names, ctx.asking)
    if customer is None:
        return _no_customer()
    asked = asked_by_turn(customer, ctx.run)
    for index, turn_asks in enumerate(asked):
        needless = [n for n in turn_asks if n in names]
        said = clipped(ctx.run.turns[index].reply())
        if needless:
            return False, (
                f"turn {index + 1}'s reply asked the customer for {quoted_list(needless)}, "
                f"which it already had (said, or held by a tool): {said}"
            )
        if ctx.customer is None:
            continue
        # asking for a yes again is rule-following (state the write, then ask), not a re-ask
        answered = {n for earlier in asked[:index] for n in earlier}
        answered |= said_by_customer(customer, ctx.run, index)
        again = [n for n in turn_asks if n in answered and not customer.reveal(n).is_consent]
        if again:
            return False, (
                f"turn {index + 1}'s reply asked again for {quoted_list(again)}, which the "
                f"customer had already answered: {said}"
            )
    return True, "asked for nothing the customer had already given"


@expected_key(
    "path",
    "graded turn",
    AskedFor,
    "the reply asks the person for each of these (a reveal of the case's customer, or a topic of "
    "the domain's asking words; a list is any one of its names), read as the scripted customer "
    "hears a question: by a topic or its synonyms, a question word of its kind or values of it "
    "proposed, not by a mention",
    default=EMPTY,
)
def asks_for(entries: list[str | list[str]], ctx: GradeContext) -> Verdict:
    """The graded reply asks for each entry (one of a list's names), as the customer hears it."""
    options = [[e] if isinstance(e, str) else list(e) for e in entries]
    names = list(dict.fromkeys(n for group in options for n in group))
    customer = ctx.customer or topic_customer(names, ctx.asking)
    if customer is None:
        return False, f"{quoted_list(names)} name no reveal and no topic of the domain"
    reply = ctx.run.graded.reply()
    asked = {r.name for r in customer.asked(reply)}
    missing = [" or ".join(group) for group in options if not asked & set(group)]
    if missing:
        return False, (
            f"the reply does not ask for {quoted_list(missing)} (a question or request seeking "
            f"it); reply: {clipped(reply)}"
        )
    return True, f"the reply asks for {quoted_list(sorted(asked & set(names)))}"
