"""What every agent of a flow shares for one sample: the case, its sandbox over the injected state
(or the end of the chain it starts after), the rendered instructions, and the Run recorded when
the sample's turns are over, however they ended."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from string import Template
from typing import Any

from inspect_ai.solver import TaskState

from commerce_evals.cases.model import Case
from commerce_evals.cases.sample_case import case_of
from commerce_evals.domains.base import AgentProfile, Session, World
from commerce_evals.grading.graders import tables_read
from commerce_evals.harness.chain import start_session
from commerce_evals.harness.sandbox import Sandbox
from commerce_evals.harness.turns import Conversation
from commerce_evals.scoring.run_record import record_run

# Placeholders the session fills (flow.check_placeholders knows them besides the World's).
SESSION_VARIABLES = ("memory",)


def render_instructions(template: str, variables: dict[str, Any], session: Session) -> str:
    """Every placeholder was checked when the task loaded, so a missing one here is a bug.

    Interned: the prompt of a case is the same text every epoch, and Inspect keeps a sample's
    messages referenced until the run ends; one string object instead of one per sample."""
    return sys.intern(Template(template).substitute(variables, memory=session.context()).strip())


@dataclass(frozen=True)
class AgentSetup:
    """How a flow's agent is set up: the World, the domain's agent (instructions and tools, the
    descriptions a team's tools file gave included), the instructions' text and values, and the
    cap on tool calls per turn."""

    world: World
    profile: AgentProfile
    template: str
    variables: dict[str, Any]
    max_calls_per_turn: int


@dataclass(frozen=True)
class SampleRun:
    case: Case
    sandbox: Sandbox
    instructions: str  # rendered for this sample: the injected state is in them
    conversation: Conversation


def kept_tables(case: Case, world: World) -> set[str]:
    """The tables the case's graders and the domain's invariants read."""
    return tables_read(case.expected, world.key_tables) | world.invariants.tables()


@asynccontextmanager
async def sample_run(state: TaskState, setup: AgentSetup) -> AsyncIterator[SampleRun | None]:
    """The sample's case and sandbox (None: the case is skipped); the Run is recorded for the
    scorers when the block ends, however it ends."""
    case = case_of(state.metadata)
    if case.skip:
        yield None
        return
    tools = setup.profile.tools
    session = start_session(setup.world, tools, case, state.metadata.get("chain"))
    sandbox = Sandbox(session, tools, setup.max_calls_per_turn)
    try:
        yield SampleRun(
            case=case,
            sandbox=sandbox,
            instructions=render_instructions(setup.template, setup.variables, session),
            conversation=Conversation(case, sandbox.run),
        )
    finally:
        record_run(state, sandbox.finish(kept_tables(case, setup.world)))
