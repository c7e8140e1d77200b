"""The domains and how a task gets a domain's World."""

from __future__ import annotations

from pathlib import Path

from commerce_evals.cases.errors import InputError
from commerce_evals.domains.base import World
from commerce_evals.domains.dealer.world import DealerWorld
from commerce_evals.domains.fixtures import FIXTURES, check_unread_fixtures, fixture_reads
from commerce_evals.domains.shop.world import ShopWorld
from commerce_evals.domains.support.world import SupportWorld

WORLDS: dict[str, type[World]] = {
    world.domain: world for world in (ShopWorld, DealerWorld, SupportWorld)
}


def load_world(domain: str, fixtures: Path | None = None, poisoned: bool = True) -> World:
    if domain not in WORLDS:
        raise ValueError(f"unknown domain {domain!r}; domains: {sorted(WORLDS)}")
    if fixtures is not None and not fixtures.is_dir():
        raise InputError(f"{fixtures}: no such fixtures folder")
    with fixture_reads() as asked:
        world = WORLDS[domain].load(fixtures, poisoned)
    root = fixtures or FIXTURES / domain
    check_unread_fixtures(root, asked.get(root.resolve(), set()), domain)
    return world
