"""Test-only: commerce/reference with latency, logging each call, for interrupting a run."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from inspect_ai.model import ModelAPI, modelapi

from commerce_evals.scripted.providers import ReplayModel
from commerce_evals.scripted.sample import served_sample


class SlowReplay(ReplayModel):
    def __init__(self, model_name: str, *args: Any, **kwargs: Any) -> None:
        super().__init__("reference", *args, **kwargs)

    async def generate(self, input, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        await asyncio.sleep(float(os.environ.get("SLOW_REPLAY_SECONDS", "0.05")))
        sample = served_sample()
        case_id = sample.metadata["case"]["id"] if sample and sample.metadata else "-"
        with open(os.environ["SLOW_REPLAY_LOG"], "a") as log:
            log.write(f"{os.environ.get('SLOW_REPLAY_RUN', '?')} {case_id}\n")
        return await super().generate(input, tools, tool_choice, config)


@modelapi(name="slowreplay")
def slowreplay() -> type[ModelAPI]:
    return SlowReplay
