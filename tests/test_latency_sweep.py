"""The latency sweep (benchmarks/latency_sweep.py) runs on a tiny input and prints its ratio."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


@pytest.mark.slow  # a benchmark end to end; test_benchmark_scripts loads it in the fast tier
def test_the_latency_sweep_prints_a_ratio_per_flow() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "latency_sweep.py"),
            *("--flow", "checkout", "--limit", "2", "--latency", "0.01", "--no-warm-up"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = re.search(
        r"^checkout +samples +2 +chain +(\d+) calls.*ratio (\d+\.\d+)", done.stdout, re.M
    )
    assert line is not None, done.stdout
    assert int(line.group(1)) >= 2  # at least the agent's reply and the judge
    assert float(line.group(2)) > 0
