"""A case's `state`: what the domain injects, and `after`, which belongs to the harness.

`state: {after: <case id>}` starts a case where another case's reference run ended (see
harness/chain.py); every other key is the domain's, validated by its World's state model.
"""

from __future__ import annotations

from typing import Any

AFTER = "after"


def own_state(state: dict[str, Any]) -> dict[str, Any]:
    """A case's state without `after`: what the domain's state model validates."""
    return {key: value for key, value in state.items() if key != AFTER}
