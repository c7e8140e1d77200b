"""eval-set interrupted mid-run and restarted: finished samples are kept, none lost or re-run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from tests.conftest import DATA, MINI_SHOP

# an eval-set killed and resumed in subprocesses, ten epochs: the slow tier
pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[1]
EPOCHS = 10

RUNNER = f"""
import tests.slow_replay
from inspect_ai import eval_set
from commerce_evals.checkout import checkout
task = checkout(dataset={str(DATA / "cases" / "mini.yaml")!r}, fixtures={str(MINI_SHOP)!r})
eval_set(task, model="slowreplay/reference", log_dir=LOG_DIR, epochs={EPOCHS}, max_samples=2,
         display="none", retry_attempts=0)
"""


def start(log_dir: Path, calls: Path, run: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "SLOW_REPLAY_LOG": str(calls),
        "SLOW_REPLAY_RUN": run,
        "PYTHONPATH": str(ROOT),
    }
    code = f"LOG_DIR = {str(log_dir)!r}\n" + RUNNER
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env)


def test_interrupted_eval_set_resumes_without_losing_or_rerunning_samples(tmp_path: Path) -> None:
    log_dir, calls = tmp_path / "logs", tmp_path / "calls.txt"
    calls.touch()
    first = start(log_dir, calls, "1")
    deadline = time.time() + 120
    while len(calls.read_text().splitlines()) < 20 and time.time() < deadline:
        time.sleep(0.1)
    first.send_signal(signal.SIGINT)
    first.wait(timeout=60)

    [interrupted] = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    assert interrupted.status != "success"
    finished_first = {(s.id, s.epoch) for s in interrupted.samples or [] if s.scores}
    assert 0 < len(finished_first) < 3 * EPOCHS

    second = start(log_dir, calls, "2")
    assert second.wait(timeout=180) == 0

    logs = [read_eval_log(info) for info in list_eval_logs(str(log_dir))]
    [final] = [log for log in logs if log.status == "success"]
    keys = [(s.id, s.epoch) for s in final.samples or []]
    assert len(keys) == len(set(keys)) == 3 * EPOCHS  # none lost, none twice
    assert all(s.scores["commerce_case"].value["passed"] == 1.0 for s in final.samples or [])
    # every case's model calls in the second run account only for unfinished samples
    second_run = Counter(
        line.split()[1] for line in calls.read_text().splitlines() if line.startswith("2 ")
    )
    calls_per_sample = {
        "checkout-001-cart-seen": 2,
        "checkout-002-order-two-turns": 4,
        "checkout-003-suggest": 2,
    }
    for case_id, per_sample in calls_per_sample.items():
        unfinished = EPOCHS - sum(1 for sid, _ in finished_first if sid == case_id)
        assert second_run[case_id] <= unfinished * per_sample, case_id
