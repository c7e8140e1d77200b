"""The benchmark scripts are not run by the tests (they time things), but each must still load
against the package as it is: a moved name once broke benchmarks/scoring.py unnoticed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

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
