"""Scale: many samples offline in one process, with bounded memory and linear cost.

    python benchmarks/scale.py [--flow checkout] [--sizes 1000 3000 10000]

Each size runs in its own process (flow cases x epochs under commerce/reference) and reports wall
time, time per sample and peak resident memory. Cost grows linearly when time per sample stays
flat across sizes; memory is bounded when peak RSS does not grow with the sample count.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys

CHILD = """
import json, resource, sys, time
from inspect_ai import eval
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.flow_table import FLOWS
flow, target = sys.argv[1], int(sys.argv[2])
spec = FLOWS[flow]
task = flow_task(flow, domain=spec.domain, agent=spec.agent)
cases = len(task.dataset)
epochs = max(1, round(target / cases))
started = time.perf_counter()
[log] = eval(task, model="commerce/reference", epochs=epochs, display="none", log_dir="/tmp/scale-logs",
             max_samples=64, log_samples=True)
elapsed = time.perf_counter() - started
assert log.status == "success", log.error
print(json.dumps({"samples": cases * epochs, "seconds": elapsed,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--flow", default="checkout")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000])
    args = parser.parse_args()
    rows = []
    for size in args.sizes:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, args.flow, str(size)], capture_output=True, text=True
        )
        if out.returncode:
            sys.exit(out.stderr[-2000:])
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
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
    slope = math.log(rows[-1]["seconds"] / base["seconds"]) / math.log(
        rows[-1]["samples"] / base["samples"]
    )
    print(f"growth exponent of time in samples: {slope:.2f} (1.0 = linear)")
    print(
        f"peak memory ratio, largest / smallest run: {rows[-1]['peak_rss_mb'] / base['peak_rss_mb']:.2f}"
    )


if __name__ == "__main__":
    main()
