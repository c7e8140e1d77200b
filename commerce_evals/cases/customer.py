"""A case's customer: who they are, what they want, what they tell only when asked, and how the
scripted customer answers an agent's reply (deterministic, no model).

The scripted customer reads only the agent's reply text. A reply *asks* about a reveal when one
of its asking sentences (a sentence with a question mark, or one that starts with a request such
as "please tell me" or "let me know") names one of the reveal's topics as a whole word or phrase
(any case; a trailing "s" is allowed: "size" also matches "sizes"). The customer then answers
with every reveal asked about, in declaration order. A reply that asks something no reveal
covers gets the persona's `unknown` line; a reply that asks nothing ends the conversation (the
agent is done: it met the goal, refused, or handed over). The turn cap ends it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# What the simulated customer writes to end the conversation (tau2-bench uses a stop token too).
STOP_SIGNAL = "###STOP###"
DEFAULT_MAX_TURNS = 6

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_REQUEST = re.compile(
    r"^\W*(?:(?:please|kindly)\s+)?(?:tell me|send me|share|confirm|reply|provide|give me|"
    r"let me know|could you|can you|would you)\b",
    re.IGNORECASE,
)
# A closing offer ("Anything else I can help with?") asks for nothing the customer holds.
_CLOSING = re.compile(
    r"\b(anything else|something else|any other questions|further questions|"
    r"anything more|help with today|have a (?:great|good|nice) day)\b",
    re.IGNORECASE,
)
# How many questions the customer cannot answer before giving up, by patience.
PATIENCE = {"low": 1, "medium": 2, "high": 3}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Persona(_Strict):
    """How the customer talks. `shares` and `withholds` are told to a simulated customer; the
    scripted one shares exactly its reveals, when asked."""

    tone: str = Field(min_length=1)
    patience: Literal["low", "medium", "high"] = "medium"
    shares: list[str] = Field(default_factory=list)
    withholds: list[str] = Field(default_factory=list)
    # what the scripted customer says to a question no reveal covers
    unknown: str = ""


class Reveal(_Strict):
    """A fact the customer gives only when asked: the answer, and the words that count as asking.

    `confirms` makes the answer a consent (tool names, "*" for any), as a scripted turn's
    `{say, confirms}` does: "Yes, cancel it." confirms cancel_order.
    """

    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    say: str = Field(min_length=1)
    topics: list[str] = Field(min_length=1)
    confirms: list[str] = Field(default_factory=list)

    @field_validator("topics")
    @classmethod
    def _topics_have_words(cls, value: list[str]) -> list[str]:
        for topic in value:
            if not re.search(r"\w", topic):
                raise ValueError(f"topic {topic!r} has no word in it")
        return value

    @cached_property
    def _pattern(self) -> re.Pattern[str]:
        words = "|".join(r"\s+".join(re.escape(w) for w in topic.split()) for topic in self.topics)
        return re.compile(rf"(?<!\w)(?:{words})s?(?!\w)", re.IGNORECASE)

    def asked_in(self, reply: str) -> bool:
        return any(self._pattern.search(s) for s in asking_sentences(reply))


class Customer(_Strict):
    """The customer a case's later turns come from (the first turn stays the case's `turns[0]`)."""

    persona: Persona
    goal: str = Field(min_length=1)
    reveals: list[Reveal] = Field(default_factory=list)
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, le=20)

    @model_validator(mode="after")
    def _names_unique(self) -> Customer:
        names = [r.name for r in self.reveals]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise ValueError(f"reveals: names used twice: {doubled}")
        return self

    def reveal(self, name: str) -> Reveal:
        return next(r for r in self.reveals if r.name == name)

    def unknown_line(self) -> str:
        return self.persona.unknown or f"I don't know that. {self.goal}"


def asking_sentences(reply: str) -> list[str]:
    """The sentences of a reply that ask the customer something."""
    sentences = [s.strip() for s in _SENTENCE.split(reply) if s.strip()]
    asking = [s for s in sentences if "?" in s or _REQUEST.match(s)]
    return [s for s in asking if not _CLOSING.search(s)]


def asks_anything(reply: str) -> bool:
    return bool(asking_sentences(reply))


EndReason = Literal["agent_done", "turn_cap", "stop_signal", "no_reply", "gave_up"]


@dataclass(frozen=True)
class CustomerTurn:
    """The customer's next message, or why the conversation ended (`say` is then empty)."""

    say: str = ""
    confirms: frozenset[str] = frozenset()
    answered: tuple[str, ...] = ()
    ended: EndReason | None = None


@dataclass
class RevealLog:
    """Which reveals the agent drew out, on which turn (0-based: the agent turn that asked)."""

    asked: dict[str, list[int]] = field(default_factory=dict)

    def note(self, names: tuple[str, ...], turn: int) -> None:
        for name in names:
            self.asked.setdefault(name, []).append(turn)


def scripted_reply(
    customer: Customer, reply: str, turns_done: int, unanswered: int = 0
) -> CustomerTurn:
    """The scripted customer's answer to the agent's reply after `turns_done` turns, of which
    `unanswered` got the persona's unknown line."""
    if not reply.strip():
        return CustomerTurn(ended="no_reply")
    if not asks_anything(reply):
        return CustomerTurn(ended="agent_done")
    if turns_done >= customer.max_turns:
        return CustomerTurn(ended="turn_cap")
    asked = [r for r in customer.reveals if r.asked_in(reply)]
    if not asked:
        if unanswered >= PATIENCE[customer.persona.patience]:
            return CustomerTurn(ended="gave_up")
        return CustomerTurn(say=customer.unknown_line())
    confirms = frozenset(c for r in asked for c in r.confirms)
    return CustomerTurn(
        say=" ".join(r.say for r in asked),
        confirms=confirms,
        answered=tuple(r.name for r in asked),
    )


@dataclass(frozen=True)
class Conversation:
    """The user side of a scripted run against the scripted customer: each turn's message and
    the writes it consents to, and how the conversation ended after the last one."""

    turns: tuple[tuple[str, frozenset[str]], ...]
    ended: EndReason | None
    # per customer turn (turns[1:]), the reveals it answers; empty: the unknown line
    answered: tuple[tuple[str, ...], ...] = ()


def play_script(
    customer: Customer, first: str, first_confirms: frozenset[str], replies: list[str]
) -> Conversation:
    """The conversation the scripted customer holds with a scripted agent giving `replies` in
    order: no model, the same answers the solver's scripted customer gives."""
    turns = [(first, first_confirms)]
    answered: list[tuple[str, ...]] = []
    for reply in replies:
        unanswered = sum(not names for names in answered)
        answer = scripted_reply(customer, reply, len(turns), unanswered)
        if answer.ended:
            return Conversation(tuple(turns), answer.ended, tuple(answered))
        answered.append(answer.answered)
        turns.append((answer.say, answer.confirms))
    return Conversation(tuple(turns), None, tuple(answered))
