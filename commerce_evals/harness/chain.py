"""Cases in order without coupled samples: `state: {after: <case id>}`.

A case whose state is `{after: X}` starts where case X's reference run ended. At task load,
`resolve_chains` follows each `after` back to a case with ordinary injected state (the root) and
records, oldest first, the reference runs to replay over it; a missing reference, a cycle or an
`after` beside other state keys is a load error naming file, case and field. In the solver,
`start_session` builds the root's session and replays each run straight into it (no model:
`begin_turn`, then `call` per scripted call), so every case still runs alone, in parallel and
under `--sample-id`, from the state the chain leaves.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from pydantic import BaseModel

from commerce_evals.cases.model import Case, CaseFileError, ScriptedTurn
from commerce_evals.cases.state import AFTER
from commerce_evals.core.events import ToolResultEvent
from commerce_evals.core.frozen import ParsedDump, parsed_dump
from commerce_evals.domains.base import Session, World
from commerce_evals.domains.tooling import ToolSpec


class ChainLink(BaseModel):
    """One earlier case's reference run, replayed to carry its end state forward."""

    case_id: str
    turns: list[str]
    script: list[ScriptedTurn]
    confirms: list[list[str]] = []


class Chain(BaseModel):
    """The root case's injected state and the runs to replay over it, oldest first."""

    state: dict[str, Any]
    links: list[ChainLink]


class ChainError(RuntimeError):
    """A replay that did not go as its reference run says: the start state would be wrong."""


def _own_problem(case: Case, by_id: dict[str, Case]) -> str | None:
    ref = case.state[AFTER]
    if not isinstance(ref, str):
        return f"expected a case id, got {ref!r}"
    others = sorted(set(case.state) - {AFTER})
    if others:
        return f"'after' stands alone; {others} cannot go beside it (inject them at the root)"
    if ref == case.id:
        return "a case cannot start after itself"
    if ref not in by_id:
        return f"no case {ref!r} in the loaded case files"
    if by_id[ref].reference is None:
        return f"case {ref!r} has no reference run to start from"
    return None


def _walk(case: Case, by_id: dict[str, Case]) -> Chain:
    path = [case.id]
    links: list[ChainLink] = []
    current = case
    while AFTER in current.state:
        ref = current.state[AFTER]
        if ref in path:
            raise ValueError("cycle: " + " -> ".join([*path, ref]))
        path.append(ref)
        current = by_id[ref]
        assert current.reference is not None
        turns, confirms = current.turns, current.confirms
        if current.customer is not None:
            # its user turns are the scripted customer's answers to its reference, as in its oracle
            talk = current.conversation(current.reference).turns
            turns = [user for user, _ in talk]
            confirms = [sorted(consent) for _, consent in talk]
        links.append(
            ChainLink(case_id=current.id, turns=turns, script=current.reference, confirms=confirms)
        )
    return Chain(state=current.state, links=list(reversed(links)))


def resolve_chains(sources: list[tuple[Path, Case]]) -> dict[str, Chain]:
    """Every chained case's Chain, by case id; every problem raised together."""
    by_id = {case.id: case for _, case in sources}
    chained = [(path, case) for path, case in sources if AFTER in case.state]
    problems = [
        f"{path}: case {case.id}: state.after: {problem}"
        for path, case in chained
        if (problem := _own_problem(case, by_id))
    ]
    if problems:
        raise CaseFileError(problems)
    chains: dict[str, Chain] = {}
    for path, case in chained:
        try:
            chains[case.id] = _walk(case, by_id)
        except ValueError as err:
            problems.append(f"{path}: case {case.id}: state.after: {err}")
    if problems:
        raise CaseFileError(problems)
    return chains


def with_chains(samples: list[Sample], chains: dict[str, Chain]) -> list[Sample]:
    """Put each chained case's Chain in its samples' metadata, where the solver finds it."""
    dumps = {
        case_id: parsed_dump(chain.model_dump(mode="json"), chain)
        for case_id, chain in chains.items()
    }
    for sample in samples:
        case_id = (sample.metadata or {}).get("case", {}).get("id")
        if case_id in dumps:
            assert sample.metadata is not None
            sample.metadata["chain"] = dumps[case_id]
    return samples


def _chain_of(chain: Chain | Mapping[str, Any]) -> Chain:
    """The Chain itself, the one a sample's dump was made from, or one parsed from a log's dict."""
    if isinstance(chain, Chain):
        return chain
    return chain.parsed if isinstance(chain, ParsedDump) else Chain.model_validate(chain)


def start_session(
    world: World,
    tools: tuple[ToolSpec, ...],
    case: Case,
    chain: Chain | Mapping[str, Any] | None,
) -> Session:
    """The case's session: its injected state, or the end state of the chain it starts after."""
    if chain is None:
        if AFTER in case.state:
            raise ChainError(
                f"case {case.id} starts after {case.state[AFTER]!r} but its sample carries no "
                "chain: build the task with flow_task()"
            )
        return world.session(case.state)
    resolved = _chain_of(chain)
    session = world.session(resolved.state)
    specs = {spec.name: spec for spec in tools}
    for link in resolved.links:
        replay(session, specs, link, case.id)
    return session


def replay(session: Session, specs: dict[str, ToolSpec], link: ChainLink, for_case: str) -> None:
    """Run one reference run's calls straight into the session; an error result stops it."""
    for turn_index, (user, turn) in enumerate(zip(link.turns, link.script, strict=True)):
        confirms = link.confirms[turn_index] if turn_index < len(link.confirms) else []
        session.begin_turn(user, frozenset(confirms))
        for round_index, calls in enumerate(turn.rounds()):
            for call_index, call in enumerate(calls):
                spec = specs.get(call.tool)
                if spec is None:
                    raise ChainError(
                        f"{for_case} starts after {link.case_id}, whose reference calls "
                        f"{call.tool!r}, a tool this agent lacks"
                    )
                call_id = f"{link.case_id}:t{turn_index}r{round_index}c{call_index}"
                session.call(spec, dict(call.args), call_id)
            failed = [
                e
                for e in session.drain_events()
                if isinstance(e, ToolResultEvent) and e.status == "error"
            ]
            if failed:
                raise ChainError(
                    f"{for_case} starts after {link.case_id}, but replaying its reference, "
                    f"{failed[0].tool} answered error: {failed[0].reason}"
                )
