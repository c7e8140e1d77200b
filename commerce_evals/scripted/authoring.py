"""Scripted `drafter` and `clusterer` models, for offline use and tests (`commerce/drafter`,
`commerce/clusterer`). Like the scripted judge, they read the prompt a real model would get.

The drafter turns the prompt's tuple block into a plain message naming each value, so a draft
shows which tuple it came from; asked to propose dimensions, it reads the tools and policy the
prompt gives (proposing.scripted_proposal); asked for cheats, the case's reference
(cheats.scripted_cheats). The clusterer groups the prompt's numbered notes by the first code
key their run failed (notes on runs no key failed form one group), the grouping a person would get
from a model before they edit it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageAssistant, GenerateConfig, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo

from commerce_evals.authoring.cheats import CHEATS_OPEN, scripted_cheats
from commerce_evals.authoring.proposing import TOOLS_OPEN, scripted_proposal
from commerce_evals.scripted.base import ScriptedModelAPI

_TUPLE = re.compile(r"<tuple>\n(.*?)\n</tuple>", re.S)
_NOTE = re.compile(r"^(\d+)\. \[failed: ([^\]]*)\] (.*)$", re.M)


def drafted_message(prompt: str) -> str:
    block = _TUPLE.search(prompt)
    if block is None:
        return "Hello, I have a question about my order."
    values = [line.split(":", 1) for line in block.group(1).splitlines() if ":" in line]
    said = "; ".join(f"{k.strip()} {v.split('(')[0].strip()}" for k, v in values)
    return f"Hi, this is a message for {said}. Can you help me?"


def proposed_modes(prompt: str) -> dict[str, Any]:
    groups: dict[str, list[int]] = {}
    for number, failed, _text in _NOTE.findall(prompt):
        keys = [k.strip() for k in failed.split(",") if k.strip() and k.strip() != "none"]
        name = f"fails {keys[0]}" if keys else "missed by every grader"
        groups.setdefault(name, []).append(int(number))
    return {"modes": [{"name": n, "notes": ids} for n, ids in groups.items()]}


class ScriptedAuthor(ScriptedModelAPI):
    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        prompt = input[-1].text if input else ""
        if self.model_name == "drafter" and TOOLS_OPEN in prompt:
            text = json.dumps(scripted_proposal(prompt))
        elif self.model_name == "drafter" and CHEATS_OPEN in prompt:
            text = json.dumps(scripted_cheats(prompt))
        elif self.model_name == "drafter":
            text = drafted_message(prompt)
        else:
            text = json.dumps(proposed_modes(prompt))
        return self.output(input, ChatMessageAssistant(content=text))
