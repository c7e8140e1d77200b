"""The scripted models learn which tools end a turn from the tools' declarations alone."""

from __future__ import annotations

import pytest

from commerce_evals.domains import WORLDS
from commerce_evals.scripted import sample


def test_turn_ending_tools_are_read_without_loading_a_world(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a World was loaded to learn which tools end a turn")

    for world in WORLDS.values():
        monkeypatch.setattr(world, "load", classmethod(refuse))
    sample._turn_ending_tools.cache_clear()
    ending = sample._turn_ending_tools()
    assert ending == {
        t.name for w in WORLDS.values() for p in w.agents.values() for t in p.tools if t.ends_turn
    }
    assert ending
