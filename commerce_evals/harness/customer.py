"""Who answers the agent in a case with a `customer`: the scripted customer (default, no model) or
a simulated one (the model bound with `--model-role customer=<model>`).

Both read the agent's last reply and give the next user message or end the conversation. The
simulated customer is told the persona, the goal and the reveals as private knowledge, answers at
temperature 0, and ends with STOP_SIGNAL when the goal is met or it gives up; the turn cap is
enforced here, whatever the model says. Its calls go through the `customer` role, so Inspect
counts its tokens apart from the agent's (the log's role_usage), as it does the judge's.

What the agent asked is read from its reply in both modes (cases/customer.py). A simulated
customer's message answers an asked reveal only when it gives it: a consent only when the
message opens with a yes (a "no" consents to nothing), a fact with a value (a ZIP, an email)
only when the message holds that value.
"""

from __future__ import annotations

from typing import Literal, Protocol

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    model_roles,
)

from commerce_evals.cases.customer import (
    STOP_SIGNAL,
    Customer,
    CustomerTurn,
    scripted_reply,
)
from commerce_evals.core.events import Run

CUSTOMER_ROLE = "customer"
CustomerMode = Literal["scripted", "simulated"]


def bound_customer() -> Model | None:
    """The model bound to the customer role, or None (never the agent's model by fallback)."""
    bound = model_roles().get(CUSTOMER_ROLE)
    if isinstance(bound, list):
        return bound[0] if bound else None
    return bound


def known_reveals(customer: Customer, run: Run) -> set[str]:
    """The reveals the customer has given so far: a value any of its messages stated, and every
    reveal a turn of it answered."""
    said = customer.said_in(turn.user for turn in run.turns)
    return said | {name for turn in run.turns for name in turn.answers}


def agent_reply(run: Run) -> str:
    """What the customer reads: the agent's reply text of the last turn and the messages its
    components showed (a shop turn may speak only through present_suggestions)."""
    return run.turns[-1].reply() if run.turns else ""


class CustomerPlayer(Protocol):
    mode: CustomerMode
    model: str | None

    async def next_turn(self, run: Run, unanswered: int) -> CustomerTurn: ...


class ScriptedCustomer:
    """The deterministic customer of cases/customer.py."""

    mode: CustomerMode = "scripted"
    model: str | None = None

    def __init__(self, customer: Customer) -> None:
        self.customer = customer

    async def next_turn(self, run: Run, unanswered: int) -> CustomerTurn:
        known = known_reveals(self.customer, run)
        return scripted_reply(self.customer, agent_reply(run), len(run.turns), unanswered, known)


def customer_prompt(customer: Customer) -> str:
    persona = customer.persona
    facts = "\n".join(
        f"- {r.name}: say it only when the agent asks about {', '.join(r.topics)}. "
        f'Your answer: "{r.say}"'
        for r in customer.reveals
    )
    lines = [
        "You are a customer chatting with a store's assistant. Stay in character; never say you "
        "are an AI or a simulation. Write only your next message to the assistant.",
        f"Your goal: {customer.goal}",
        f"Your tone: {persona.tone}. Your patience: {persona.patience}.",
    ]
    if persona.shares:
        lines.append("You are happy to share: " + "; ".join(persona.shares) + ".")
    if persona.withholds:
        lines.append("You will not share: " + "; ".join(persona.withholds) + ".")
    lines += [
        "What you know but give only when asked (one fact per question asked; never volunteer "
        "them, never invent others):",
        facts or "- nothing beyond your goal",
        "If asked something you do not know, say so and restate your goal. Keep messages short.",
        "When the assistant asks your permission for something, start your answer with Yes if "
        "you agree and with No if you do not.",
        f"When your goal is met, or you give up, reply with {STOP_SIGNAL} alone.",
    ]
    return "\n".join(lines)


class SimulatedCustomer:
    """A model plays the customer; the history is flipped (the agent speaks as the user)."""

    mode: CustomerMode = "simulated"

    def __init__(self, customer: Customer, model: Model) -> None:
        self.customer = customer
        self.bound = model
        self.model: str | None = str(model)

    async def next_turn(self, run: Run, unanswered: int) -> CustomerTurn:
        reply = agent_reply(run)
        if not reply.strip():
            return CustomerTurn(ended="no_reply")
        if len(run.turns) >= self.customer.max_turns:
            return CustomerTurn(ended="turn_cap")
        messages: list[ChatMessage] = [ChatMessageSystem(content=customer_prompt(self.customer))]
        for turn in run.turns:
            messages.append(ChatMessageAssistant(content=turn.user))
            messages.append(ChatMessageUser(content=turn.reply() or "(no reply)"))
        # never cached, as the agent's calls: each epoch is a fresh conversation
        output = await self.bound.generate(
            messages, config=GenerateConfig(temperature=0), cache=False
        )
        text = output.completion.strip()
        if STOP_SIGNAL in text or not text:
            return CustomerTurn(ended="stop_signal")
        known = known_reveals(self.customer, run)
        asked = [r for r in self.customer.asked(reply, known) if r.answered_by(text)]
        return CustomerTurn(
            say=text,
            confirms=frozenset(c for r in asked for c in r.confirms),
            answered=tuple(r.name for r in asked),
        )


def customer_player(customer: Customer) -> CustomerPlayer:
    model = bound_customer()
    return ScriptedCustomer(customer) if model is None else SimulatedCustomer(customer, model)
