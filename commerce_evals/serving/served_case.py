"""One case served to an agent outside Inspect, whatever the protocol: the sandbox over the case's
injected state, the person's turns handed out one at a time, and the run written to a file after
every turn for `commerce-evals grade`.

The person's messages come from the case (its scripted turns, or its scripted customer answering
the agent's replies): the agent reads the first with `read_message` and sends each reply with
`send_reply`, whose answer is the next message or the end of the conversation. Everything else
the agent does goes through the sandbox's tools and is recorded as it runs, as in a flow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import Case
from commerce_evals.cases.state import own_state
from commerce_evals.harness.chain import start_session
from commerce_evals.harness.flow_inputs import FlowParts, flow_parts
from commerce_evals.harness.run_file import RunFile, case_input_sha, write_run_file
from commerce_evals.harness.sample_run import kept_tables, render_instructions
from commerce_evals.harness.sandbox import CallNotRun, Sandbox
from commerce_evals.harness.task_args import DEFAULT_MAX_CALLS_PER_TURN
from commerce_evals.harness.turns import Conversation, begin

OVER = "The conversation is over: do not call any more tools. The run is recorded in {path}."


class ServeError(InputError):
    """What `commerce-evals serve` cannot serve: one line naming the argument and the fix."""


class ConversationOver(Exception):
    """A call after the conversation ended."""


@dataclass
class ServedCase:
    parts: FlowParts
    case: Case
    sandbox: Sandbox
    conversation: Conversation
    instructions: str
    record: Path
    agent: str
    tools_file: str | None = None
    dataset: str | None = None
    fixtures: str | None = None
    poisoned: bool | None = None
    over: bool = False
    _calls: int = field(default=0, repr=False)

    # ---- the person's side -----------------------------------------------------------------

    @property
    def injected_state(self) -> dict[str, Any]:
        """The case's own injected state (what the instructions' session context tells)."""
        return own_state(self.case.state)

    async def _start(self) -> None:
        if not self.sandbox.run.turns:
            user = await self.conversation.next_turn(self.sandbox.run)
            assert user is not None, "a case has a first turn"
            begin(self.sandbox, user)

    async def read_message(self) -> str:
        """The person's message waiting for a reply (the first one begins the conversation)."""
        if self.over:
            return OVER.format(path=self.record)
        await self._start()
        return self.sandbox.turn.user

    async def send_reply(self, text: str) -> str:
        """The agent's reply ends its turn; the person's next message, or the end."""
        if self.over:
            return OVER.format(path=self.record)
        await self._start()
        self.sandbox.reply(text)
        self.sandbox.end_turn()
        self.save(complete=False)
        user = await self.conversation.next_turn(self.sandbox.run)
        if user is None:
            self.over = True
            self.save(complete=True)
            return OVER.format(path=self.record)
        begin(self.sandbox, user)
        return user.say

    # ---- the agent's tools -----------------------------------------------------------------

    async def call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """One call of a domain tool; CallNotRun when it did not run (refused, past the cap),
        ConversationOver after the end."""
        if self.over:
            raise ConversationOver(OVER.format(path=self.record))
        await self._start()
        self._calls += 1
        return self.sandbox.call(tool, args, f"mcp-{self._calls}")

    # ---- the record ------------------------------------------------------------------------

    def save(self, complete: bool) -> None:
        run = self.sandbox.run_so_far(kept_tables(self.case, self.parts.world))
        if self.sandbox.turn_open:
            run.turns = run.turns[:-1]  # the open turn is not over: the file holds whole turns
        hashes = self.parts.fingerprints()
        record = RunFile(
            flow=self.parts.flow,
            case=self.case.id,
            case_input_sha=case_input_sha(self.case),
            agent=self.agent,
            tools_file=self.tools_file,
            dataset=self.dataset,
            fixtures=self.fixtures,
            poisoned=self.poisoned,
            complete=complete,
            run=run,
            instructions=self.instructions,
            instructions_sha=hashes["instructions_sha"],
            tools_sha=hashes["tools_sha"],
        )
        write_run_file(self.record, record)

    def close(self) -> None:
        """The client went away: a turn it left open is closed as it stands and recorded."""
        if self.over or not self.sandbox.run.turns:
            return
        if self.sandbox.turn_open:
            self.sandbox.end_turn()
        self.save(complete=False)


def serve_case(
    flow: str,
    case_id: str,
    record: Path,
    agent: str = "an MCP client",
    dataset: str | None = None,
    fixtures: str | None = None,
    instructions: str | None = None,
    tools: str | None = None,
    poisoned: bool | None = None,
    max_calls_per_turn: int = DEFAULT_MAX_CALLS_PER_TURN,
) -> ServedCase:
    """The case's sandbox, as a flow task would start it (chains and a tools file included)."""
    parts = flow_parts(flow, None, None, dataset, fixtures, instructions, poisoned, tools)
    case = parts.case(case_id.strip())
    if case is None:
        close = get_close_matches(case_id, parts.case_ids(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ServeError(f"--case {case_id}: no case of flow {flow!r} has this id{hint}")
    if case.skip:
        raise ServeError(f"--case {case_id}: the case is skipped ({case.skip}); serve another")
    chain = parts.chains.get(case.id)
    tools_offered = parts.offered.tools
    session = start_session(parts.world, tools_offered, case, chain)
    sandbox = Sandbox(session, tools_offered, max_calls_per_turn)
    return ServedCase(
        parts=parts,
        case=case,
        sandbox=sandbox,
        conversation=Conversation(case, sandbox.run),
        instructions=render_instructions(parts.template, parts.variables, session),
        record=record,
        agent=agent,
        tools_file=tools,
        dataset=dataset,
        fixtures=fixtures,
        poisoned=poisoned,
    )


__all__ = ["CallNotRun", "ConversationOver", "ServeError", "ServedCase", "serve_case"]
