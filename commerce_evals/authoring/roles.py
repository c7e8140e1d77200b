"""The authoring commands' models, bound through Inspect's model roles and called with its cache.

`commerce-evals draft` binds `drafter`, `notes --group` binds `clusterer` (`--model-role
drafter=anthropic/claude-sonnet-4-5`, as `inspect eval --model-role` does). Offline, the scripted
`commerce/drafter` and `commerce/clusterer` stand in. Every call is cached on disk by Inspect
(INSPECT_CACHE_DIR), so drafting the same tuples again costs nothing.
"""

from __future__ import annotations

import asyncio

from inspect_ai.model import CachePolicy, ChatMessageUser, GenerateConfig, Model, get_model

DRAFTER = "drafter"
CLUSTERER = "clusterer"
AUTHORING_CACHE = CachePolicy(expiry=None)


class RoleError(ValueError):
    """A role the command needs is not bound, or is bound to a model that does not load."""


def parse_role(spec: str, role: str) -> str:
    """`drafter=provider/model` -> `provider/model`; a bare model name is accepted too."""
    name, sep, model = spec.partition("=")
    if not sep:
        return spec
    if name != role:
        raise RoleError(f"--model-role {spec!r}: this command binds the {role!r} role")
    if not model:
        raise RoleError(f"--model-role {spec!r}: name a model after '='")
    return model


def bind(role: str, model: str) -> Model:
    """Load `model` in `role` (Inspect records the role on the model and its events)."""
    try:
        return get_model(model, role=role, config=GenerateConfig(temperature=0.0))
    except Exception as err:  # an unknown provider or a missing key: one clear line
        raise RoleError(f"the {role} model {model!r} does not load: {err}") from err


async def _ask(model: Model, prompt: str) -> str:
    output = await model.generate([ChatMessageUser(content=prompt)], cache=AUTHORING_CACHE)
    if output.error:
        raise RoleError(f"the {model} call failed: {output.error}")
    return output.completion.strip()


def ask_each(model: Model, prompts: list[str]) -> list[str]:
    """One model call per prompt (never batched into one prompt), answers in order."""

    async def run() -> list[str]:
        return [await _ask(model, p) for p in prompts]

    return asyncio.run(run())
