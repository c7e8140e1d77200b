"""Who speaks to the agent, turn by turn: a case's scripted user turns, or, for a case with a
customer, its first turn and then the customer's answers (harness/customer.py) until the
customer ends the conversation.

Every way an agent runs takes its turns from here: a solver plays them all (`play`), the MCP
server hands out the next one when the agent sends its reply (`Conversation.next_turn`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from commerce_evals.cases.model import Case
from commerce_evals.core.events import CustomerRecord, Run, Turn
from commerce_evals.harness.customer import CustomerPlayer, customer_player
from commerce_evals.harness.sandbox import Sandbox


@dataclass(frozen=True)
class UserTurn:
    """The person's next message and the writes the case declares it a yes to. A customer's turn
    also names the reveals it answers; both are kept on its Turn in the Run."""

    say: str
    confirms: frozenset[str]
    answers: tuple[str, ...] = ()
    customer: bool = False


class Conversation:
    """The user turns of one case, in order."""

    def __init__(self, case: Case, run: Run) -> None:
        self.case = case
        self.player: CustomerPlayer | None = None
        self.unanswered = 0
        if case.customer is not None:
            self.player = customer_player(case.customer)
            run.customer = CustomerRecord(mode=self.player.mode, model=self.player.model)

    async def next_turn(self, run: Run) -> UserTurn | None:
        """The turn after the ones `run` holds, or None: the conversation is over."""
        index = len(run.turns)
        case = self.case
        if self.player is None:
            if index >= len(case.turns):
                return None
            return UserTurn(case.turns[index], case.confirmed(index))
        if index == 0:
            return UserTurn(case.turns[0], case.confirmed(0), customer=True)
        answer = await self.player.next_turn(run, self.unanswered)
        if answer.ended:
            assert run.customer is not None
            run.customer.ended = answer.ended
            return None
        self.unanswered += not answer.answered
        return UserTurn(answer.say, answer.confirms, answer.answered, customer=True)


def begin(sandbox: Sandbox, user: UserTurn) -> Turn:
    """Open the user's turn in the sandbox."""
    turn = sandbox.begin_turn(user.say, user.confirms)
    if user.customer:
        turn.confirms = sorted(user.confirms)
        turn.answers = list(user.answers)
    return turn


async def play(
    conversation: Conversation, sandbox: Sandbox, agent_turn: Callable[[], Awaitable[None]]
) -> None:
    """Every user turn of the conversation, each answered by `agent_turn`, which ends the turn."""
    while (user := await conversation.next_turn(sandbox.run)) is not None:
        begin(sandbox, user)
        await agent_turn()
        if sandbox.turn_open:
            sandbox.end_turn()
