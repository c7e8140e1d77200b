"""Scoring cost: every code grader of one sample, from the Runs a reference eval recorded.

    python benchmarks/scoring.py [--flow checkout]

Prints microseconds per sample for all its code graders, the closed-world outcome and the
domain invariants included: a diagnostic of where a flow's scoring time goes (its share of a
sample's cost is what benchmarks/overhead.py --breakdown measures beside the bare task).

Twice: with the text readers' caches warm from the passes before (every sample's texts were read
already), and with those caches emptied before each pass, as for a sample whose replies and
results no earlier sample had. An eval's samples fall in between: a catalogue's texts recur from
sample to sample, a reply rarely does.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from inspect_ai import eval

from commerce_evals.cases.model import Case
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.scoring.run_record import RunRecord
from commerce_evals.scoring.scorer import code_grades


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flow", default="checkout", choices=sorted(FLOWS))
    parser.add_argument("--repeats", type=int, default=200, help="passes of each kind, at least 1")
    args = parser.parse_args()
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, not {args.repeats}")
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
    keys = sum(len(case.expected.asserted_keys()) for case, _, _ in samples)

    def one_pass() -> float:
        started = time.perf_counter()
        for case, run, metadata in samples:
            # the keys, the closed-world outcome against the oracles, and the domain's invariants
            code_grades(case, run, brief, metadata, spec.domain, None, True, tools)
        return time.perf_counter() - started

    one_pass()  # the first pass reads the World and loads what the readers load once
    warm = sum(one_pass() for _ in range(args.repeats)) / (args.repeats * len(samples))
    caches = reader_caches()
    cold = 0.0
    for _ in range(args.repeats):
        for cache in caches:
            cache.cache_clear()
        cold += one_pass()
    cold /= args.repeats * len(samples)
    print(f"{args.flow}: {len(samples)} samples, {keys / len(samples):.1f} keys each")
    print(f"all code graders for one sample: {warm * 1e6:.1f} us  ({warm * 1e3:.3f} ms)")
    print(
        f"the same with every text new to the readers ({len(caches)} caches emptied before each "
        f"pass): {cold * 1e6:.1f} us  ({cold * 1e3:.3f} ms)"
    )


# where the readers of text keep what they read: the graders, the typed facts, Japanese text
READERS = ("commerce_evals.grading", "commerce_evals.facts", "commerce_evals.japanese")


def reader_caches() -> list[Any]:
    """The caches of the text readers (functools' and any other with a cache_clear), each once,
    however many modules import it."""
    found: dict[int, Any] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(READERS):
            continue
        for value in vars(module).values():
            if isinstance(value, type):
                continue  # a cache's class: its instance is the cache
            if callable(getattr(value, "cache_clear", None)) and str(
                getattr(value, "__module__", "")
            ).startswith(READERS):
                found[id(value)] = value
    return list(found.values())


if __name__ == "__main__":
    main()
