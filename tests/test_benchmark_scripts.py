"""The benchmark scripts time things, so no test reads their figures; but each must load against
the package as it is (fast tier), and each must run end to end on a tiny input (slow tier): a
renamed argument once broke three of them while every script still loaded."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import subprocess_env

BENCHMARKS = sorted((Path(__file__).parent.parent / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("path", BENCHMARKS, ids=[p.stem for p in BENCHMARKS])
def test_a_benchmark_script_loads_and_has_a_main(path: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"benchmark_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # runs nothing: each script's work is under __main__
    assert callable(module.main)


def test_there_are_benchmark_scripts() -> None:
    assert {p.stem for p in BENCHMARKS} >= {"overhead", "scale", "scoring"}


# each script on the smallest input that still runs every step of it (the latency sweep and the
# report scale have end-to-end tests of their own)
TINY: dict[str, tuple[list[str], str]] = {
    "overhead": (
        ["--flow", "checkout", "--epochs", "1", "--repeats", "1", "--products", "200"],
        "session set-up + snapshot",
    ),
    "scale": (["--flow", "checkout", "--sizes", "40", "--bare"], "ours beyond bare KB/sample"),
    "scale --traced --sites": (
        ["--flow", "checkout", "--sizes", "44", "88", "--traced", "--sites", "3"],
        "where ours holds more than bare at",
    ),
    "scoring": (["--flow", "checkout", "--repeats", "1"], "all code graders for one sample"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TINY))
def test_a_benchmark_runs_on_a_tiny_input(name: str, tmp_path: Path) -> None:
    script = Path(__file__).parent.parent / "benchmarks" / f"{name.split()[0]}.py"
    arguments, last_figure = TINY[name]
    done = subprocess.run(
        [sys.executable, str(script), *arguments],
        cwd=tmp_path,
        env=subprocess_env(INSPECT_LOG_DIR=str(tmp_path / "logs")),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert last_figure in done.stdout, done.stdout[-2000:]
