"""Shared test set-up: no network, a private Inspect cache and log folder per session."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
MINI_SHOP = DATA / "shop_mini"


@pytest.fixture(autouse=True, scope="session")
def _offline_inspect(tmp_path_factory: pytest.TempPathFactory) -> None:
    os.environ.setdefault("INSPECT_CACHE_DIR", str(tmp_path_factory.mktemp("inspect-cache")))
    if "PYTEST_XDIST_WORKER" in os.environ:
        # one folder for the whole session's workers: the flows' runs are made once (flow_runs.py)
        shared = tmp_path_factory.getbasetemp().parent / "shared-runs"
        shared.mkdir(exist_ok=True)
        os.environ.setdefault("COMMERCE_SHARED_RUNS", str(shared))
    os.environ.setdefault("INSPECT_LOG_DIR", str(tmp_path_factory.mktemp("logs")))
    os.environ.pop("ANTHROPIC_API_KEY", None)
    os.environ.pop("OPENAI_API_KEY", None)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Collect once, then freeze what is left: no test runs after this. pytest's cleanup then runs
    five full collections; over a worker's two million objects (the flows' logs the tests share)
    they outlast the 5 s execnet gives a worker to stop, which interrupts it and prints a
    KeyboardInterrupt warning at the end of a passing run."""
    gc.collect()
    gc.freeze()
