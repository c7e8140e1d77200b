"""Oracle runs: what each right-by-definition run of a case changes, computed once at task load.

A case's oracles are its reference and each alternative (`Case.oracle_scripts`). Each is replayed
straight through a fresh session (no model, as chain.py replays a chain), from the state the case
starts in (a chained case starts where its chain ends), and its changes are kept normalised by the
domain's ChangeRules. Only those change sets go into sample metadata: they are small (the rows a
run touches), and Inspect deep-copies sample metadata for every metric key.
"""

from __future__ import annotations

from typing import Any

from commerce_evals.cases.model import Case, ScriptedTurn
from commerce_evals.domains.base import Session, World
from commerce_evals.domains.tooling import ToolSpec
from commerce_evals.grading.changes import ChangeSet, diff
from commerce_evals.harness.chain import start_session

# Each turn's (tool, answer) pairs, in call order.
Answers = list[list[tuple[str, dict[str, Any]]]]


def replay_script(
    session: Session, tools: tuple[ToolSpec, ...], case: Case, script: list[ScriptedTurn]
) -> Answers:
    """Run a scripted run's calls straight into a session, as the agent loop would, without a
    model; what each call answered, per turn."""
    specs = {spec.name: spec for spec in tools}
    answers: Answers = []
    users = case.conversation(script).turns  # a customer case's user turns answer the script
    for index, ((user, confirms), turn) in enumerate(zip(users, script, strict=False)):
        session.begin_turn(user, confirms)
        said: list[tuple[str, dict[str, Any]]] = []
        for r, calls in enumerate(turn.rounds()):
            for c, call in enumerate(calls):
                spec = specs.get(call.tool)
                if spec is not None:  # an unknown tool is refused before it runs
                    answer = session.call(spec, dict(call.args), f"oracle:t{index}r{r}c{c}")
                    said.append((call.tool, answer))
        session.drain_events()
        answers.append(said)
    return answers


def replay_changes(
    world: World,
    tools: tuple[ToolSpec, ...],
    case: Case,
    chain: dict[str, Any] | None,
    script: list[ScriptedTurn],
) -> ChangeSet:
    """The normalised changes one scripted run makes, replayed without a model."""
    session = start_session(world, tools, case, chain)
    start = session.snapshot()
    replay_script(session, tools, case, script)
    return diff(start, session.snapshot(), world.change_rules)


def oracle_changes(
    world: World, tools: tuple[ToolSpec, ...], case: Case, chain: dict[str, Any] | None
) -> list[ChangeSet]:
    """The changes of the reference, then of each alternative; empty for a skipped case."""
    if case.skip:
        return []
    return [replay_changes(world, tools, case, chain, s) for s in case.oracle_scripts()]
