"""Oracle runs: what each right-by-definition run of a case changes, computed once at task load.

A case's oracles are its reference and each alternative (`Case.oracle_scripts`). Each is replayed
straight through a fresh session (no model, as chain.py replays a chain), from the state the case
starts in (a chained case starts where its chain ends), and its changes are kept normalised by the
domain's ChangeRules, beside the effects of the writes it made (a write undone before the end
leaves no row, so the writes are compared too). Only those go into sample metadata: they are small
(the rows a run touches, a few effect names), and Inspect deep-copies sample metadata for every
metric key.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from commerce_evals.cases.model import Case
from commerce_evals.cases.scripts import ScriptedTurn
from commerce_evals.core.events import ToolCallEvent, ToolResultEvent
from commerce_evals.domains.base import Session, World
from commerce_evals.domains.tooling import ToolSpec
from commerce_evals.grading.changes import ChangeSet, diff, effect_set, writes_made
from commerce_evals.harness.chain import Chain, start_session

# Each turn's (tool, answer) pairs, in call order.
Answers = list[list[tuple[str, dict[str, Any]]]]


@dataclass(frozen=True)
class Replay:
    """What a scripted run answered per turn, and the calls that reached a tool with their
    statuses (as a Run records them)."""

    answers: Answers
    calls: list[ToolCallEvent]
    statuses: dict[str, str]


def replay(
    session: Session, tools: tuple[ToolSpec, ...], case: Case, script: list[ScriptedTurn]
) -> Replay:
    """Run a scripted run's calls straight into a session, as the agent loop would, without a
    model."""
    specs = {spec.name: spec for spec in tools}
    answers: Answers = []
    calls: list[ToolCallEvent] = []
    statuses: dict[str, str] = {}
    users = case.conversation(script).turns  # a customer case's user turns answer the script
    for index, ((user, confirms), turn) in enumerate(zip(users, script, strict=False)):
        session.begin_turn(user, confirms)
        said: list[tuple[str, dict[str, Any]]] = []
        for r, calls_of_round in enumerate(turn.rounds()):
            for c, call in enumerate(calls_of_round):
                spec = specs.get(call.tool)
                if spec is not None:  # an unknown tool is refused before it runs
                    call_id = f"oracle:t{index}r{r}c{c}"
                    answer = session.call(spec, dict(call.args), call_id)
                    said.append((call.tool, answer))
                    calls.append(ToolCallEvent(call_id=call_id, tool=call.tool, args=call.args))
        for event in session.drain_events():
            if isinstance(event, ToolResultEvent):
                statuses[event.call_id] = event.status
        answers.append(said)
    return Replay(answers, calls, statuses)


def replay_script(
    session: Session, tools: tuple[ToolSpec, ...], case: Case, script: list[ScriptedTurn]
) -> Answers:
    """What each call of a scripted run answered, per turn (see `replay`)."""
    return replay(session, tools, case, script).answers


@dataclass(frozen=True)
class Oracle:
    """One oracle run: its normalised changes, and the effects of the writes it made."""

    changes: ChangeSet
    writes: list[str]


def replay_oracle(
    world: World,
    tools: tuple[ToolSpec, ...],
    case: Case,
    chain: Chain | None,
    script: list[ScriptedTurn],
) -> Oracle:
    """The normalised changes one scripted run makes, and its writes, replayed without a model."""
    session = start_session(world, tools, case, chain)
    start = session.snapshot()
    done = replay(session, tools, case, script)
    rules = world.change_rules
    writes = {spec.name for spec in tools if spec.writes}
    made = writes_made(done.calls, done.statuses, writes, rules)
    return Oracle(diff(start, session.snapshot(), rules), effect_set(made))


def oracles(
    world: World, tools: tuple[ToolSpec, ...], case: Case, chain: Chain | None
) -> list[Oracle]:
    """The reference's oracle, then each alternative's; none for a skipped case."""
    if case.skip:
        return []
    return [replay_oracle(world, tools, case, chain, s) for s in case.oracle_scripts()]
