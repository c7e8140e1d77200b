"""Scale: many samples offline in one process, with bounded memory and linear cost.

    python benchmarks/scale.py [--flow checkout] [--sizes 1000 3000 10000] [--bare] [--traced]
                               [--sites N]

Each size runs in its own process (flow cases x epochs under commerce/reference) and reports wall
time, time per sample and peak resident memory. With --bare, each size is run a second time as the
bare Inspect task of benchmarks/overhead.py (same samples, same replayed answers, nothing of ours),
and the RSS each eval adds (peak minus the RSS just before it) is set side by side: the difference
per sample is the memory that is ours. Cost grows linearly when time per sample stays
flat across sizes; memory is bounded when peak RSS does not grow with the sample count.
With --traced --sites N, the largest size also prints the N places (file:line, and the first
frame outside pydantic, copy and textwrap that called it) where ours holds more than bare.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from typing import Any

CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[3])))
from inspect_ai import eval
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.core.flow_table import FLOWS
flow, target, bare = sys.argv[1], int(sys.argv[2]), sys.argv[4] == "bare"
traced = sys.argv[5] == "traced"
sites = int(sys.argv[6])
spec = FLOWS[flow]
task = flow_task(flow, domain=spec.domain, profile=spec.agent)
cases = len(task.dataset)
import overhead
# Both kinds run the reference once first: the bare task needs its recording, and the warm-up
# (lazy imports, caches, Inspect's first-eval set-up) must not count as either task's growth.
recorded = overhead.recorded_conversations(task)
if bare:
    profile = cached_world(spec.domain, None, True).agents[spec.agent]
    task = overhead.bare_task(
        list(task.dataset), profile.brief().turn_ending, list(profile.tools), recorded
    )
epochs = max(1, round(target / cases))
def rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
held = {}
if traced:
    # Python's own count of the memory the run holds once every sample is scored (no allocator
    # slack, unlike RSS): measured when Inspect computes the final metrics, after a collection.
    import gc, tracemalloc
    import inspect_ai._eval.task.run as task_run
    compute = task_run.eval_results
    def measured(*args, **kwargs):
        if "mb" not in held and len(kwargs.get("scores", [])) >= cases * epochs:
            gc.collect()
            held["mb"] = (tracemalloc.get_traced_memory()[0] - held["start"]) / 2**20
            if sites:
                held["sites"] = by_site(tracemalloc.take_snapshot().compare_to(held["snap"], "traceback"))
        return compute(*args, **kwargs)
    task_run.eval_results = measured
    LIBRARIES = ("pydantic/", "/copy.py", "/textwrap.py", "/typing.py", "/json/", "/functools.py")
    def where(frame):
        return f"{frame.filename.split('site-packages/')[-1].split('python3.11/')[-1]}:{frame.lineno}"
    def by_site(stats):
        found = {}
        for stat in stats:
            frames = list(reversed(stat.traceback))  # the innermost first
            caller = next((f for f in frames if not any(l in f.filename for l in LIBRARIES)), frames[-1])
            key = where(frames[0]) + " <- " + where(caller)
            found[key] = found.get(key, 0) + stat.size_diff
        return found
    gc.collect()
    tracemalloc.start(3 if sites else 1)
    held["start"] = tracemalloc.get_traced_memory()[0]
    if sites:
        held["snap"] = tracemalloc.take_snapshot()
before = rss_mb()
started = time.perf_counter()
[log] = eval(task, model="commerce/reference", epochs=epochs, display="none", log_dir="/tmp/scale-logs",
             max_samples=64, log_samples=True)
elapsed = time.perf_counter() - started
assert log.status == "success", log.error
print(json.dumps({"samples": cases * epochs, "seconds": elapsed, "rss_before_mb": before,
                  "held_mb": held.get("mb", 0.0), "sites": held.get("sites", {}),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_child(
    flow: str, size: int, kind: str, traced: bool = False, sites: int = 0
) -> dict[str, Any]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            CHILD,
            flow,
            str(size),
            __file__,
            kind,
            "traced" if traced else "-",
            str(sites),
        ],  # fmt: skip
        capture_output=True,
        text=True,
    )
    if out.returncode:
        sys.exit(out.stderr[-2000:])
    row: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    row["growth_mb"] = row["peak_rss_mb"] - row["rss_before_mb"]
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--flow", default="checkout")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument(
        "--bare",
        action="store_true",
        help="also run the bare Inspect task (benchmarks/overhead.py) at each size and print the "
        "memory per sample that is ours beyond it",
    )
    parser.add_argument(
        "--traced",
        action="store_true",
        help="measure what each run holds with tracemalloc (exact, about twice as slow) instead of "
        "RSS; always runs the bare task too and prints the memory each added sample costs, ours "
        "beside bare",
    )
    parser.add_argument(
        "--sites",
        type=int,
        default=0,
        metavar="N",
        help="with --traced: at the largest size, the N allocation sites where ours holds the "
        "most beyond bare (traces 3 frames: slower)",
    )
    args = parser.parse_args()
    if args.traced:
        traced_memory(args.flow, args.sizes, args.sites)
        return
    rows = [run_child(args.flow, size, "ours") for size in args.sizes]
    base = rows[0]
    print(
        f"{'samples':>8} {'seconds':>9} {'ms/sample':>10} {'peak RSS MB':>12} {'time ratio':>11} {'size ratio':>11}"
    )
    for row in rows:
        per = row["seconds"] / row["samples"] * 1000
        print(
            f"{row['samples']:>8} {row['seconds']:>9.1f} {per:>10.1f} {row['peak_rss_mb']:>12.0f} "
            f"{row['seconds'] / base['seconds']:>11.2f} {row['samples'] / base['samples']:>11.2f}"
        )
    if len(rows) > 1:
        slope = math.log(rows[-1]["seconds"] / base["seconds"]) / math.log(
            rows[-1]["samples"] / base["samples"]
        )
        print(f"growth exponent of time in samples: {slope:.2f} (1.0 = linear)")
        print(
            f"peak memory ratio, largest / smallest run: {rows[-1]['peak_rss_mb'] / base['peak_rss_mb']:.2f}"
        )
    if not args.bare:
        return
    print("\nmemory beside the bare Inspect task (RSS growth during the eval, peak minus start):")
    print(
        f"{'samples':>8} {'ours MB':>8} {'bare MB':>8} {'ours KB/sample':>15} {'bare KB/sample':>15} {'ours beyond bare KB/sample':>27}"
    )
    bares = [run_child(args.flow, int(row["samples"]), "bare") for row in rows]
    for row, bare in zip(rows, bares, strict=True):
        n = row["samples"]
        ours_kb, bare_kb = row["growth_mb"] * 1024 / n, bare["growth_mb"] * 1024 / n
        print(
            f"{n:>8.0f} {row['growth_mb']:>8.1f} {bare['growth_mb']:>8.1f} {ours_kb:>15.2f} "
            f"{bare_kb:>15.2f} {ours_kb - bare_kb:>27.2f}"
        )
    if len(rows) > 1:
        # The slope between the smallest and the largest run leaves out what a run holds whatever
        # its size (caches, the task, the final metric table): the memory each sample adds.
        extra = rows[-1]["samples"] - rows[0]["samples"]
        ours_slope = (rows[-1]["growth_mb"] - rows[0]["growth_mb"]) * 1024 / extra
        bare_slope = (bares[-1]["growth_mb"] - bares[0]["growth_mb"]) * 1024 / extra
        print(
            f"per added sample, {rows[0]['samples']:.0f} -> {rows[-1]['samples']:.0f}: ours "
            f"{ours_slope:.2f} KB, bare {bare_slope:.2f} KB, ours beyond bare "
            f"{ours_slope - bare_slope:.2f} KB (target <= 2)"
        )


def traced_memory(flow: str, sizes: list[int], sites: int = 0) -> None:
    print("memory the run holds when every sample is scored (tracemalloc), ours beside bare:")
    print(f"{'samples':>8} {'ours MB':>8} {'bare MB':>8}")
    rows = []
    for size in sizes:
        top = sites if size == max(sizes) else 0
        ours = run_child(flow, size, "ours", True, top)
        bare = run_child(flow, size, "bare", True, top)
        rows.append((ours["samples"], ours["held_mb"], bare["held_mb"]))
        print(f"{ours['samples']:>8.0f} {ours['held_mb']:>8.1f} {bare['held_mb']:>8.1f}")
    if len(rows) > 1:
        (n0, o0, b0), (n1, o1, b1) = rows[0], rows[-1]
        ours_kb, bare_kb = (o1 - o0) * 1024 / (n1 - n0), (b1 - b0) * 1024 / (n1 - n0)
        print(
            f"per added sample, {n0:.0f} -> {n1:.0f}: ours {ours_kb:.2f} KB, bare {bare_kb:.2f} KB,"
            f" ours beyond bare {ours_kb - bare_kb:.2f} KB (target <= 2)"
        )
    if sites:
        print_sites(ours, bare, sites)


def print_sites(ours: dict[str, Any], bare: dict[str, Any], count: int) -> None:
    """Where the largest run of ours holds more than bare's, per sample (negative: less)."""
    n = ours["samples"]
    mine, theirs = ours["sites"], bare["sites"]
    beyond = {site: mine.get(site, 0) - theirs.get(site, 0) for site in {*mine, *theirs}}
    print(f"\nwhere ours holds more than bare at {n:.0f} samples (bytes a sample):")
    for site, size in sorted(beyond.items(), key=lambda kv: -abs(kv[1]))[:count]:
        print(f"  {size / n:>8.0f}  {site}")


if __name__ == "__main__":
    main()
