"""The Worlds of a process: loaded once per (domain, fixtures, poisoned) and shared by the tasks
that build on them and the scorer that grades against them (`inspect score` rebuilds the same)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from commerce_evals.domains import load_world
from commerce_evals.domains.base import World


@lru_cache(maxsize=16)
def cached_world(domain: str, fixtures: str | None, poisoned: bool) -> World:
    """Worlds are immutable, so tasks in one process share them."""
    return load_world(domain, Path(fixtures) if fixtures else None, poisoned)
