"""A flow's samples: the cases a task runs (chosen by `-T cases=`, `-T recorded=` and `-T shard=`),
one sample per case or per variant, each with its case, chain and oracle outcomes in its metadata.
The second of the three steps of flow_task()."""

from __future__ import annotations

from dataclasses import dataclass
from difflib import get_close_matches
from fnmatch import fnmatchcase
from typing import Any

from inspect_ai.dataset import Sample

from commerce_evals.cases.model import Case, CaseFileError
from commerce_evals.cases.sample_case import case_json, known_bad_keys
from commerce_evals.core.flow_table import BUILT_IN_AGENT
from commerce_evals.core.frozen import freeze
from commerce_evals.domains.base import AgentProfile, World
from commerce_evals.harness.agent_ref import AgentRef
from commerce_evals.harness.chain import Chain, with_chains
from commerce_evals.harness.flow_inputs import FlowParts
from commerce_evals.harness.oracle import oracles
from commerce_evals.harness.recorded import Recorded, load_recorded
from commerce_evals.harness.shards import Shard
from commerce_evals.harness.task_args import TaskArgumentError


def case_metadata(
    case: Case, agent_fingerprint: dict[str, str], counterexamples: bool = False
) -> dict[str, Any]:
    # A run of the cases leaves out the counterexamples it does not replay. The dump is frozen
    # (core.frozen): Inspect copies sample metadata per epoch and per metric view.
    exclude = None if counterexamples else {"counterexamples"}
    dumped = case.model_dump(mode="json", exclude_defaults=True, exclude=exclude)
    # a key written at its default value (`never_asks: []`) is still asserted: keep it
    expected = dumped.setdefault("expected", {})
    written = case.expected.model_dump(mode="json", include=case.expected.model_fields_set)
    expected.update({k: v for k, v in written.items() if k not in expected})
    # the loaded Case stands for the dump (no second validation); without the counterexamples
    # the dump leaves out, so a run sees the same Case a log's reader parses back
    parsed = case if counterexamples else case.model_copy(update={"counterexamples": []})
    return {
        "case": case_json(dumped, parsed),
        "flow": case.flow,
        "priority": case.priority,
        "difficulty": case.difficulty,
        **({"defaulted": freeze(case.defaulted)} if case.defaulted else {}),
        "tags": freeze(case.tags),
        "niche": case.niche or "",
        # what the scripted judge fails, in a few bytes: the counterexamples themselves are left out
        "known_bad_replies": freeze(known_bad_keys(case)),
        **agent_fingerprint,
    }


def with_oracles(
    samples: list[Sample],
    cases: list[Case],
    world: World,
    agent: AgentProfile,
    chains: dict[str, Chain],
) -> list[Sample]:
    """Each sample's case's oracle change sets and write effects (computed once per case) in its
    metadata."""
    by_case: dict[str, tuple[Any, Any]] = {}
    for case in cases:
        found = oracles(world, agent.tools, case, chains.get(case.id))
        by_case[case.id] = (freeze([o.changes for o in found]), freeze([o.writes for o in found]))
    for sample in samples:
        assert sample.metadata is not None
        changes, writes = by_case[sample.metadata["case"]["id"]]
        sample.metadata["oracle_changes"] = changes
        sample.metadata["oracle_writes"] = writes
    return samples


def samples_for(
    cases: list[Case], counterexamples: bool, meta: dict[str, str], alternatives: bool = False
) -> list[Sample]:
    """The cases, or (either or both) one sample per counterexample and per alternative."""
    samples: list[Sample] = []
    for case in cases:
        base = case_metadata(case, meta, counterexamples)
        if not (counterexamples or alternatives):
            samples.append(Sample(id=case.id, input=case.turns[0], metadata=base))
            continue
        for cx in case.counterexamples if counterexamples else []:
            if cx.skip is not None:  # a draft a person has not confirmed: never replayed
                continue
            samples.append(
                Sample(
                    id=f"{case.id}~{cx.name}",
                    input=case.turns[0],
                    metadata={**base, "counterexample": cx.name, "breaks": cx.breaks},
                )
            )
        for alt in case.alternatives if alternatives else []:
            samples.append(
                Sample(
                    id=f"{case.id}~{alt.name}",
                    input=case.turns[0],
                    metadata={**base, "alternative": alt.name},
                )
            )
    return samples


def no_variants(flow: str, cases: int, counterexamples: bool, alternatives: bool) -> str:
    """Why `-T counterexamples=true` / `-T alternatives=true` made no sample at all."""
    kinds = [
        k for k, on in (("counterexamples", counterexamples), ("alternatives", alternatives)) if on
    ]
    given = " ".join(f"-T {k}=true" for k in kinds)
    return (
        f"{given}: none of the {cases} case(s) of flow {flow!r} has {' or '.join(kinds)}; "
        f"drop {given} to run the cases themselves"
    )


def sample_case_id(sample: Sample) -> str:
    return str((sample.metadata or {})["case"]["id"])


def shard_samples(samples: list[Sample], shard: Shard) -> list[Sample]:
    """The samples whose case falls in the shard (a case's counterexamples stay together)."""
    return [s for s in samples if shard.holds(sample_case_id(s))]


def selected_cases(cases: list[Case], given: str, flow: str) -> list[Case]:
    """The cases `-T cases=` names, by id or shell pattern; a pattern that names none of the
    flow's cases is an error with the ids it is closest to."""
    patterns = [p.strip() for p in given.split(",") if p.strip()]
    ids = [case.id for case in cases]
    for pattern in patterns:
        if not any(fnmatchcase(case_id, pattern) for case_id in ids):
            close = get_close_matches(pattern.split("~", 1)[0], ids, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise CaseFileError(
                [
                    f"-T cases={given}: {pattern} names no case of flow {flow!r}{hint} (a case "
                    "id, or a shell pattern such as checkout-00*; not a sample id with ~)"
                ]
            )
    return [c for c in cases if any(fnmatchcase(c.id, pattern) for pattern in patterns)]


# what `agent_under_test` says of a run of the flow's own tool loop
def refuse_beside_recorded(
    recorded: str, agent: str | None, counterexamples: bool, alternatives: bool
) -> None:
    """`-T recorded=` grades runs already made: nothing may run beside it."""
    beside = [
        name
        for name, given in (
            ("agent", agent is not None),
            ("counterexamples", counterexamples),
            ("alternatives", alternatives),
        )
        if given
    ]
    if beside:
        raise TaskArgumentError(
            f"-T recorded={recorded}: grades runs already made, so nothing runs beside it; "
            f"drop {', '.join('-T ' + name for name in beside)}"
        )


def recorded_fingerprint(runs: dict[str, Recorded]) -> dict[str, str]:
    """The task's record of the agent side of recorded runs: each hash when every run shares it."""

    def one(values: set[str]) -> str:
        return values.pop() if len(values) == 1 else "several"

    records = [r.record for r in runs.values()]
    return {
        "instructions_sha": one({r.instructions_sha for r in records}),
        "tools_sha": one({r.tools_sha for r in records}),
        "agent_under_test": "recorded: " + ", ".join(sorted({r.agent for r in records})),
    }


@dataclass(frozen=True)
class FlowSamples:
    """What a flow task runs: its samples (case, chain and oracle outcomes in each one's
    metadata), the recorded runs it grades instead of running an agent, the agent side's hashes,
    and the shard it is with every case id the shard was taken from."""

    samples: list[Sample]
    runs: dict[str, Recorded] | None
    agent_fingerprint: dict[str, str]
    shard: Shard | None
    all_case_ids: list[str]


def flow_samples(
    parts: FlowParts,
    agent_ref: AgentRef | None = None,
    counterexamples: bool = False,
    alternatives: bool = False,
    cases: str | None = None,
    recorded: str | None = None,
    shard: str | None = None,
    agent: str | None = None,
) -> FlowSamples:
    """The flow's samples for flow_task()'s arguments of the same names (`agent` as given, for
    the error that refuses it beside `recorded`). Oracles are replayed only for the cases kept."""
    flow = parts.flow
    chosen = [case for _, case in parts.sources]
    if cases is not None:
        chosen = selected_cases(chosen, cases, flow)
    runs = None
    if recorded is not None:
        refuse_beside_recorded(recorded, agent, counterexamples, alternatives)
        runs = load_recorded(recorded, flow, chosen)
        chosen = [case for case in chosen if case.id in runs]
    agent_fingerprint = {
        **parts.fingerprints(),
        "agent_under_test": agent_ref.text if agent_ref else BUILT_IN_AGENT,
    }
    samples = samples_for(chosen, counterexamples, agent_fingerprint, alternatives)
    if runs is not None:
        for sample in samples:
            assert sample.metadata is not None
            sample.metadata.update(runs[sample_case_id(sample)].agent_metadata())
        agent_fingerprint = recorded_fingerprint(runs)
    if not samples:
        raise CaseFileError([no_variants(flow, len(chosen), counterexamples, alternatives)])
    all_case_ids = [sample_case_id(s) for s in samples]
    part = Shard.parse(shard) if shard else None
    if part is not None:
        samples = shard_samples(samples, part)
        chosen = [case for case in chosen if part.holds(case.id)]
        if not samples:
            raise CaseFileError(
                [
                    f"shard {part} of flow {flow!r} holds none of its {len(all_case_ids)} samples: "
                    "use fewer shards"
                ]
            )
    samples = with_oracles(
        with_chains(samples, parts.chains), chosen, parts.world, parts.offered, parts.chains
    )
    return FlowSamples(samples, runs, agent_fingerprint, part, all_case_ids)
