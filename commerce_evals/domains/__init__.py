"""The domains and how a task gets a domain's World."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

from commerce_evals.cases.errors import InputError
from commerce_evals.domains.base import World

WORLDS = {
    "shop": "commerce_evals.domains.shop.world:ShopWorld",
    "dealer": "commerce_evals.domains.dealer.world:DealerWorld",
    "support": "commerce_evals.domains.support.world:SupportWorld",
}


def load_world(domain: str, fixtures: Path | None = None, poisoned: bool = True) -> World:
    if domain not in WORLDS:
        raise ValueError(f"unknown domain {domain!r}; domains: {sorted(WORLDS)}")
    if fixtures is not None and not fixtures.is_dir():
        raise InputError(f"{fixtures}: no such fixtures folder")
    module, name = WORLDS[domain].split(":")
    world_class = getattr(import_module(module), name)
    return world_class.load(fixtures, poisoned)
