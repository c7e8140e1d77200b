"""What a scripted model knows of the sample it serves: read from the sample itself.

Inspect opens every sample's transcript with a `SampleInitEvent` that holds the sample, metadata
included, both while the sample runs and when `inspect score` re-scores a log. The scripted models
read the case from there: the run to replay (the reference, or the counterexample or alternative
the sample was made for) and the known-good replies the scripted judge compares with. Nothing in
the solver, the scorer or the judge sets anything for them. The known-bad replies the scripted
judge fails are the case's counterexamples' graded replies, which a run of the cases carries as
hashes only (`known_bad_replies` in the sample's metadata).

`serving(sample)` stands in for a running sample, for code that calls a scripted model outside an
Inspect eval (tests, benchmarks).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache

from inspect_ai.dataset import Sample
from inspect_ai.event import SampleInitEvent
from inspect_ai.log import transcript
from inspect_ai.tool import ToolInfo

from commerce_evals.cases.model import Case
from commerce_evals.cases.sample_case import JUDGED_PARTS, case_of, known_bad_keys
from commerce_evals.cases.scripts import ScriptedTurn
from commerce_evals.domains import WORLDS


@dataclass(frozen=True)
class ReplayScript:
    """What a scripted agent replays for the sample it serves."""

    case_id: str
    turns: list[ScriptedTurn]
    turn_ending: frozenset[str]
    # one per attempt at a sample (each epoch, each retry): what a model decides per attempt keys on
    attempt: str = ""


_STAND_IN: ContextVar[Sample | None] = ContextVar("commerce_scripted_sample", default=None)


@contextmanager
def serving(sample: Sample) -> Iterator[None]:
    """Serve `sample` to scripted models called in this block, outside an Inspect sample."""
    token = _STAND_IN.set(sample)
    try:
        yield
    finally:
        _STAND_IN.reset(token)


def _served() -> tuple[Sample, str] | None:
    stand_in = _STAND_IN.get()
    if stand_in is not None:
        return stand_in, f"stand-in-{id(stand_in)}"
    # the init event comes first; the scan stops there
    for event in transcript().events:
        if isinstance(event, SampleInitEvent):
            return event.sample, event.uuid or f"init-{id(event)}"
    return None


def served_sample() -> Sample | None:
    """The sample whose transcript this code runs in (None outside a sample)."""
    served = _served()
    return served[0] if served is not None else None


_CASES: dict[int, tuple[Sample, Case]] = {}


def served_case(model_name: str) -> tuple[Sample, Case]:
    """The served sample and its case (validated once per sample)."""
    sample = served_sample()
    case = (sample.metadata or {}).get("case") if sample is not None else None
    if sample is None or case is None:
        raise RuntimeError(
            f"{model_name} replays commerce-evals cases: run it on a commerce_evals task"
        )
    cached = _CASES.get(id(sample))
    if cached is None or cached[0] is not sample:
        if len(_CASES) > 512:
            _CASES.clear()
        cached = _CASES[id(sample)] = (sample, case_of(sample.metadata or {}))
    return cached


def variant(sample: Sample) -> str | None:
    """The counterexample or alternative the sample was made for (None: the reference)."""
    metadata = sample.metadata or {}
    return metadata.get("counterexample") or metadata.get("alternative")


@lru_cache(maxsize=1)
def _turn_ending_tools() -> frozenset[str]:
    """Every tool that ends the agent's turn, over every domain's agents: read from the tools'
    declarations (each World class's `agents`), so no World's fixtures are loaded for it."""
    ending: set[str] = set()
    continuing: set[str] = set()
    for world in WORLDS.values():
        for profile in world.agents.values():
            brief = profile.brief()
            ending |= brief.turn_ending
            continuing |= {t.name for t in profile.tools} - brief.turn_ending
    if ending & continuing:
        raise RuntimeError(
            f"tools that end a turn for one agent only: {sorted(ending & continuing)}"
        )
    return frozenset(ending)


def current_script(model_name: str, tools: list[ToolInfo]) -> ReplayScript:
    """The run the served sample replays, with the offered tools that end a turn."""
    sample, case = served_case(model_name)
    served = _served()
    offered = {tool.name for tool in tools}
    return ReplayScript(
        case_id=case.id,
        turns=case.script(variant(sample)),
        turn_ending=frozenset(offered & _turn_ending_tools()),
        attempt=served[1] if served is not None else "",
    )


def known_good_replies() -> tuple[str, ...] | None:
    """The graded turn's known-good replies of the served case: its reference's and each
    alternative's (None outside a sample or for a case with none)."""
    sample = served_sample()
    if sample is None or "case" not in (sample.metadata or {}):
        return None
    _, case = served_case("commerce/judge")
    replies = tuple(script[-1].reply for script in case.oracle_scripts() if script)
    return replies or None


def known_bad_replies() -> dict[str, tuple[str, ...]]:
    """The served case's known-bad graded replies, as `reply_key`s, each with the judged parts
    (`rubric`, `dimensions`) its counterexamples name. A run of the cases carries only these
    (`known_bad_replies`); a log written when it held a bare list of keys reads as every part
    failing; a sample without them has them from its case's counterexamples."""
    sample = served_sample()
    metadata = (sample.metadata or {}) if sample is not None else {}
    if "case" not in metadata:
        return {}
    if "known_bad_replies" in metadata:
        stored = metadata["known_bad_replies"]
        if isinstance(stored, Mapping):
            return {str(key): tuple(parts) for key, parts in stored.items()}
        return {str(key): JUDGED_PARTS for key in stored}
    _, case = served_case("commerce/judge")
    return {key: tuple(parts) for key, parts in known_bad_keys(case).items()}
