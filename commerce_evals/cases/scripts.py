"""A scripted run's shape: per turn, rounds of tool calls and the reply (a case's reference, its
alternatives and counterexamples, and seed 003's reference_solution are all written this way)."""

from __future__ import annotations

from pydantic import Field, JsonValue

from commerce_evals.core.strict import Strict


class ScriptedCall(Strict):
    tool: str
    # JSON, as a model's tool call is: a key written as a number (`500:`) is an error here, not
    # a call no model could make
    args: dict[str, JsonValue] = Field(default_factory=dict)


class ScriptedTurn(Strict):
    """One turn of a scripted run: rounds of tool calls, then the reply.

    Each item of `calls` is one call in its own round, or a list of calls made together in one round.
    When the last round calls a turn-ending tool, the reply travels in that same message.
    """

    calls: list[ScriptedCall | list[ScriptedCall]] = Field(default_factory=list)
    reply: str = ""

    def rounds(self) -> list[list[ScriptedCall]]:
        return [step if isinstance(step, list) else [step] for step in self.calls]

    def spoken(self) -> str:
        """What the customer reads from this turn, as Turn.reply() gives it in a run: the
        messages of the components it shows (present_suggestions' `message`), then the reply."""
        shown = [
            message
            for step in self.rounds()
            for call in step
            if call.tool.startswith("present_")
            and isinstance(message := call.args.get("message"), str)
        ]
        return "\n".join([*shown, self.reply] if self.reply else shown)
