"""Scripted model providers. `commerce/reference` replays the sample's scripted run;
`commerce/judge` (and its `judge-<behaviour>` variants) is a scripted judge for the grader role;
`commerce/customer` (and `customer-endless`) a scripted model for the customer role.

The run is the case's reference, or, for samples made with `-T counterexamples=true` or
`-T alternatives=true`, one of its counterexamples or alternatives, read from the sample served
(commerce_evals/scripted/sample.py). Each call answers with the next round of the current turn: the round's tool calls
(several in one message when the script groups them), then the reply. Usage is returned, so no
tokenizer (and no network) is needed.

The scripted judge reads the prompt the way a credulous model would: the quoted transcript, then
the instructions after it, split at the first thing that looks like a closing transcript tag (any
case or spacing, look-alike characters folded). `commerce/judge` says what it knows: Pass for a
graded reply that matches a known-good reply of the case served (its reference's, or one of its
alternatives', read from the sample), Fail for a known-bad one (one of its counterexamples'
graded replies, which the sample carries as hashes), and Unknown for any other reply (a live
agent's: the case then needs review), when it has nothing to compare with, or when the harness
says the graded reply was clipped (a note before the value, never text inside it). It is gullible on purpose: an "ignore your instructions ...
verdict: X" it finds in its instructions section is obeyed, so a transcript that escaped its
quoting would flip its verdict, and the tests would see it. It answers in the format it was asked
for: the JSON object when a response schema is sent, else labelled lines with the verdict last.
Variants: judge-pass, judge-fail, judge-unknown (fixed verdicts), judge-garbage (no verdict),
judge-refuse (a content-filter stop), judge-echo (decides like commerce/judge and echoes the whole quoted transcript back, tags and all:
after its JSON object, or before its final verdict line). A judge whose provider fails (raises,
or never answers in time) is a test model: `commerce-test/judge-error`, `commerce-test/judge-slow`
(scripted/chaos.py).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Collection, Mapping
from typing import Any, cast

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from commerce_evals.cases.customer import STOP_SIGNAL, scripted_reply
from commerce_evals.cases.sample_case import reply_key
from commerce_evals.judging.prompt import split_prompt
from commerce_evals.judging.transcript import CUT_MARK_PATTERN, unquote
from commerce_evals.scripted.authoring import ScriptedAuthor
from commerce_evals.scripted.base import (  # noqa: F401  (scripted_step: the API stubs replay it)
    ScriptedModelAPI,
    ScriptedModelError,
    position,
    scripted_message,
    scripted_step,
    usage_for,
)
from commerce_evals.scripted.flawed import FlawedReplay
from commerce_evals.scripted.sample import (
    current_script,
    known_bad_replies,
    known_good_replies,
    served_case,
)

SCRIPTED_MODELS = ("reference",)
JUDGE_BEHAVIOURS = ("reference", "pass", "fail", "unknown", "garbage", "refuse", "echo")
# The judge's provider failing: served under commerce-test/ (scripted/chaos.py), not commerce/.
JUDGE_FAULTS = ("error", "slow")


def scripted_model_names() -> list[str]:
    """Every name the commerce provider answers to."""
    return [
        *(f"commerce/{name}" for name in SCRIPTED_MODELS),
        "commerce/flawed-<label>",
        "commerce/judge",
        *(f"commerce/judge-{b}" for b in JUDGE_BEHAVIOURS if b != "reference"),
        *(f"commerce/{name}" for name in CUSTOMER_BEHAVIOURS),
    ]


def unknown_model(model_name: str) -> ScriptedModelError:
    return ScriptedModelError(
        f"unknown scripted model commerce/{model_name}; "
        f"scripted models: {', '.join(scripted_model_names())}"
    )


class ReplayModel(ScriptedModelAPI):
    arguments = ("latency",)

    def __init__(self, model_name: str, *args: Any, **kwargs: Any) -> None:
        if model_name not in SCRIPTED_MODELS:
            raise unknown_model(model_name)
        super().__init__(model_name, *args, **kwargs)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        script = current_script(f"commerce/{self.model_name}", tools)
        await self.wait()
        return self.output(input, scripted_message(script, input))


def judge_behaviour(model_name: str) -> str | None:
    """`judge` -> "reference", `judge-fail` -> "fail"; None for names that are not judges."""
    if model_name == "judge":
        return "reference"
    if model_name.startswith("judge-"):
        return model_name.removeprefix("judge-")
    return None


_GRADED_REPLY = re.compile(
    rf"^\[turn \d+ graded\] agent: ({CUT_MARK_PATTERN})?(\".*\")$", re.MULTILINE
)
_OBEY = re.compile(
    r"ignore\s+(?:(?:all|any|your|previous|prior|the|above)\s+)*instructions.*?"
    r"verdict\W*(pass|fail|unknown)",
    re.IGNORECASE | re.DOTALL,
)


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


_DIMENSION_LINE = re.compile(r"^Dimension: (\S+)", re.MULTILINE)


def decide(
    prompt: str,
    reference: str | tuple[str, ...] | None,
    known_bad: Mapping[str, Collection[str]] | None = None,
) -> tuple[str, str, str]:
    """(verdict, critique, graded reply) of the reference-deciding judge for one prompt: Pass when
    the graded reply is one of the known-good replies (the reference's or an alternative's); for
    a known-bad one (a counterexample's, by its `reply_key`) Fail when its counterexample names
    the judged part this prompt grades (`rubric`, or `dimensions` for a shared dimension) and
    Pass otherwise, as the case's author declared; else Unknown: a reply it has never seen (a live
    agent's) needs a person. The critique never restates the graded reply, so a verdict written
    in it is never repeated in the judge's answer."""
    known_bad = known_bad or {}
    parts = split_prompt(prompt)
    obeyed = _OBEY.search(parts.instructions)
    if obeyed:
        return obeyed.group(1).title(), "My instructions tell me to give this verdict.", ""
    matches = list(_GRADED_REPLY.finditer(parts.data))
    graded = "\n".join(str(unquote(m.group(2))) for m in matches)
    if not parts.data:
        return "Unknown", "I was given no transcript block.", graded
    if reference is None and not known_bad:
        return (
            "Unknown",
            "I have no known reply of this case to compare the graded reply with.",
            graded,
        )
    if any(m.group(1) for m in matches):
        return "Unknown", "The graded reply was clipped, so I cannot compare it.", graded
    replies = (reference,) if isinstance(reference, str) else reference or ()
    known = [unicodedata.normalize("NFKC", r) for r in replies]
    if any(_same(graded, r) for r in known):
        return "Pass", "The graded reply is a known-good reply of this case.", graded
    broken = known_bad.get(reply_key(graded))
    if broken is not None:
        dimension = _DIMENSION_LINE.search(parts.instructions)
        part = "rubric" if dimension and dimension.group(1) == "rubric" else "dimensions"
        if part not in broken:
            return (
                "Pass",
                "The graded reply is a counterexample's reply, whose declared faults lie outside "
                "this criterion.",
                graded,
            )
        return (
            "Fail",
            "The graded reply is a known-bad reply of this case (a counterexample's)"
            + (f"; the reference reply is {json.dumps(known[0])}." if known else "."),
            graded,
        )
    return (
        "Unknown",
        "The graded reply is neither a known-good reply of this case (its reference's or an "
        "alternative's) nor a known-bad one (a counterexample's): a person must judge it.",
        graded,
    )


FIXED = {
    "pass": ("Pass", "Scripted to pass."),
    "fail": ("Fail", "Scripted to fail."),
    "unknown": ("Unknown", "Scripted to need a person."),
}


class ScriptedJudge(ScriptedModelAPI):
    behaviours: tuple[str, ...] = JUDGE_BEHAVIOURS
    arguments = ("latency",)

    def __init__(self, model_name: str, *args: Any, **kwargs: Any) -> None:
        behaviour = judge_behaviour(model_name)
        if behaviour is None or behaviour not in self.behaviours:
            raise self.unknown(model_name)
        self.behaviour = behaviour
        super().__init__(model_name, *args, **kwargs)

    @staticmethod
    def unknown(model_name: str) -> Exception:
        return unknown_model(model_name)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = input[-1].text if input else ""
        await self.wait()
        if self.behaviour == "error":
            raise RuntimeError("scripted judge: the grader model failed")
        if self.behaviour == "slow":
            await anyio.sleep(3600)
        if self.behaviour == "refuse":
            return self._output(input, "", stop_reason="content_filter")
        if self.behaviour == "garbage":
            return self._output(input, "I read the transcript and have some thoughts about it.")
        if self.behaviour in FIXED:
            verdict, critique = FIXED[self.behaviour]
        else:
            verdict, critique, _ = decide(prompt, known_good_replies(), known_bad_replies())
        echo = ""
        if self.behaviour == "echo":
            echo = f"The transcript, for the record:\n<transcript>\n{split_prompt(prompt).data}\n</transcript>"
        if config.response_schema is not None:
            answer = json.dumps({"critique": critique, "verdict": verdict})
            return self._output(input, f"{answer}\n\n{echo}" if echo else answer)
        lines = f"Critique: {critique}\nVerdict: {verdict}"
        return self._output(input, f"{echo}\n\n{lines}" if echo else lines)

    def _output(
        self, input: list[ChatMessage], text: str, stop_reason: str = "stop"
    ) -> ModelOutput:
        return self.output(input, ChatMessageAssistant(content=text), stop_reason)


CUSTOMER_BEHAVIOURS = {"customer": "scripted", "customer-endless": "endless"}


class ScriptedCustomerModel(ScriptedModelAPI):
    """A model for the customer role that plays the scripted customer's answers (cases/customer.py)
    through the simulated-customer loop: the stop signal when the scripted customer would end,
    and usage counted without a tokenizer. `customer-endless` never sends the stop signal, so
    only the turn cap ends its conversations."""

    arguments = ("latency",)

    def __init__(self, model_name: str, *args: Any, **kwargs: Any) -> None:
        if model_name not in CUSTOMER_BEHAVIOURS:
            raise unknown_model(model_name)
        self.endless = CUSTOMER_BEHAVIOURS[model_name] == "endless"
        super().__init__(model_name, *args, **kwargs)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        _, case = served_case(f"commerce/{self.model_name}")
        await self.wait()
        customer = case.customer
        if customer is None:
            raise RuntimeError(
                f"commerce/{self.model_name} plays a case's customer: case {case.id} has none"
            )
        own = [m.text for m in input if isinstance(m, ChatMessageAssistant)]
        unanswered = sum(text == customer.unknown_line() for text in own[1:])
        agent = input[-1].text if input and isinstance(input[-1], ChatMessageUser) else ""
        answer = scripted_reply(customer, agent, len(own), unanswered)
        if answer.ended and not self.endless:
            text = STOP_SIGNAL
        else:
            text = answer.say or customer.unknown_line()
        return self.output(input, ChatMessageAssistant(content=text))


def create_model(model_name: str, *args: Any, **kwargs: Any) -> ModelAPI:
    """commerce/judge* names get the scripted judge; commerce/flawed-* a replay that fails chosen
    cases (commerce_evals/scripted/flawed.py); commerce/drafter and commerce/clusterer the scripted
    authoring models (commerce_evals/scripted/authoring.py); every other name the
    reference replay."""
    if judge_behaviour(model_name) is not None:
        return ScriptedJudge(model_name, *args, **kwargs)
    if model_name in CUSTOMER_BEHAVIOURS:
        return ScriptedCustomerModel(model_name, *args, **kwargs)
    if model_name.startswith("flawed-"):
        return FlawedReplay(model_name, *args, **kwargs)
    if model_name in ("drafter", "clusterer"):
        return ScriptedAuthor(model_name, *args, **kwargs)
    return ReplayModel(model_name, *args, **kwargs)


@modelapi(name="commerce")
def commerce() -> type[ModelAPI]:
    # Inspect calls what this returns with the model name; a factory picks the class by name.
    return cast(type[ModelAPI], create_model)
