"""Scoring cost: every code grader of one sample, from the Runs a reference eval recorded.

    python benchmarks/scoring.py [--flow checkout]

Prints microseconds per sample for all its code graders, the closed-world outcome and the
domain invariants included: a diagnostic of where a flow's scoring time goes (its share of a
sample's cost is what benchmarks/overhead.py --breakdown measures beside the bare task).
"""

from __future__ import annotations

import argparse
import time

from inspect_ai import eval

from commerce_evals.cases.model import Case
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.scoring.run_record import RunRecord
from commerce_evals.scoring.scorer import code_grades


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flow", default="checkout")
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    spec = FLOWS[args.flow]
    [log] = eval(
        flow_task(args.flow, domain=spec.domain, profile=spec.agent),
        model="commerce/reference",
        display="none",
        log_dir="/tmp/bench-logs",
    )
    world = cached_world(spec.domain, None, True)
    profile = world.agents[spec.agent]
    brief, tools = world.brief(spec.agent), [t.name for t in profile.tools]
    samples = []
    for sample in log.samples or []:
        run = sample.store_as(RunRecord).run
        if run is not None:
            samples.append((Case.model_validate(sample.metadata["case"]), run, sample.metadata))
    pairs = samples
    keys = sum(len(case.expected.asserted_keys()) for case, _, _ in samples)
    started = time.perf_counter()
    for _ in range(args.repeats):
        for case, run, metadata in samples:
            # the keys, the closed-world outcome against the oracles, and the domain's invariants
            code_grades(case, run, brief, metadata, spec.domain, None, True, tools)
    per_sample = (time.perf_counter() - started) / (args.repeats * len(pairs))
    print(f"{args.flow}: {len(pairs)} samples, {keys / len(pairs):.1f} keys each")
    print(
        f"all code graders for one sample: {per_sample * 1e6:.1f} us  ({per_sample * 1e3:.3f} ms)"
    )


if __name__ == "__main__":
    main()
