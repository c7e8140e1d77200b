"""A sweep at the speed of the model: does the harness keep every connection busy?

    python benchmarks/latency_sweep.py [--flow checkout|all] [--latency 1.0] [--max-connections 50]
                                       [--limit N] [--no-judge] [--no-warm-up]

Each flow runs under commerce/reference answering every call after `--latency` seconds, with
commerce/judge bound to the grader role and the same latency; the same as

    inspect eval commerce_evals/<flow> --model commerce/reference -M latency=1.0 \\
        --max-connections 50 \\
        --model-role 'grader={model: commerce/judge, model_args: {latency: 1.0}}'

Per flow it prints the sweep's wall time, its ideal and their ratio (target <= 1.2):

- the ideal is the longest sample's chain of model calls times the latency, plus the load: the
  wall time of the same sweep with no latency (loading the task, Inspect's start and end, and
  every sample's own work: what is left when no call waits);
- a sample's chain is its agent's (and customer's) calls, one after another, and one more for
  the judge when it is called: a case's dimensions are judged together;
- each run has an empty judge cache of its own (verdicts are cached by prompt: a second run
  would read them instead of waiting). The run with no latency is made twice (once with
  --no-warm-up) and the faster taken: the first loads the Worlds and fills the process's caches,
  which the timed run, made after it, does not pay again.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from commerce_evals.core.flow_table import FLOWS
from commerce_evals.judging.judge import GRADER_ROLE

TARGET = 1.2


class Sweep(NamedTuple):
    wall: float
    cpu: float  # this process's CPU time: on a shared machine, what tells contention from waiting
    chain: int  # the longest sample's chain of model calls
    samples: int


@contextmanager
def empty_judge_cache() -> Iterator[None]:
    before = os.environ.get("INSPECT_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="latency-sweep-cache-") as folder:
        os.environ["INSPECT_CACHE_DIR"] = folder
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("INSPECT_CACHE_DIR", None)
            else:
                os.environ["INSPECT_CACHE_DIR"] = before


def chain_of(log: EvalLog) -> int:
    """The longest sample's chain: its calls outside the grader role, one after another, and one
    for its judge calls, which are made together."""
    longest = 0
    for sample in log.samples or []:
        calls = [e for e in sample.events if isinstance(e, ModelEvent)]
        judged = any(e.role == GRADER_ROLE for e in calls)
        longest = max(longest, sum(e.role != GRADER_ROLE for e in calls) + int(judged))
    return longest


def sweep(flow: str, latency: float, max_connections: int, limit: int | None, judge: bool) -> Sweep:
    roles = (
        {GRADER_ROLE: get_model("commerce/judge", memoize=False, latency=latency)} if judge else {}
    )
    gc.collect()
    with empty_judge_cache():
        started, cpu = time.perf_counter(), time.process_time()
        [log] = eval(
            f"commerce_evals/{flow}",
            model=get_model("commerce/reference", memoize=False, latency=latency),
            model_roles=roles,
            max_connections=max_connections,
            limit=limit,
            display="none",
            log_dir=tempfile.gettempdir() + "/latency-sweep-logs",
        )
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if log.status != "success":
        raise SystemExit(f"{flow}: the sweep did not succeed: {log.error}")
    return Sweep(wall, cpu, chain_of(log), len(log.samples or []))


def measure(
    flow: str,
    latency: float,
    max_connections: int,
    limit: int | None,
    judge: bool,
    warm_up: bool,
) -> float:
    """Print one flow's line; return its ratio."""
    unhurried = [sweep(flow, 0.0, max_connections, limit, judge) for _ in range(1 + warm_up)]
    # the faster of the two: this is a shared machine, and the smaller load the stricter ideal
    load = min(unhurried, key=lambda s: s.wall)
    timed = sweep(flow, latency, max_connections, limit, judge)
    ideal = load.wall + load.chain * latency
    ratio = timed.wall / ideal
    print(
        f"{flow:<10} samples {timed.samples:>3}  chain {load.chain:>2} calls  "
        f"wall {timed.wall:6.2f}s  ideal {ideal:6.2f}s "
        f"(load {load.wall:5.2f}s + {load.chain} x {latency:g}s)  "
        f"ratio {ratio:.3f}  target <= {TARGET}  (cpu {timed.cpu:.1f}s vs {load.cpu:.1f}s)",
        flush=True,
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--flow", default="all", choices=[*sorted(FLOWS), "all"])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--max-connections", type=int, default=50)
    parser.add_argument("--limit", type=int, default=None, help="the first N samples only")
    parser.add_argument("--no-judge", action="store_true", help="no grader role bound")
    parser.add_argument("--no-warm-up", action="store_true", help="skip the warm-up run")
    args = parser.parse_args()
    flows = sorted(FLOWS) if args.flow == "all" else [args.flow]
    print(
        f"latency sweep: {args.latency:g}s a call, --max-connections {args.max_connections}, "
        f"judge {'off' if args.no_judge else 'commerce/judge (same latency)'}"
    )
    ratios = [
        measure(
            flow,
            args.latency,
            args.max_connections,
            args.limit,
            not args.no_judge,
            not args.no_warm_up,
        )
        for flow in flows
    ]
    print(f"worst ratio {max(ratios):.3f}  target <= {TARGET}")


if __name__ == "__main__":
    main()
