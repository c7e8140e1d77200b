"""benchmarks/report_scale.py runs end to end on a tiny input: a stored log copied into a folder
of a few samples, then compare and gate over it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
OLD_LOG = ROOT / "tests" / "data" / "old_logs" / "checkout-before-verdict.eval"


@pytest.mark.slow  # a benchmark end to end; test_benchmark_scripts loads it in the fast tier
def test_report_scale_runs_on_a_tiny_folder(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "report_scale", ROOT / "benchmarks" / "report_scale.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    figures = module.main(
        ["--samples", "6", "--models", "1", "--source", str(OLD_LOG), "--folder", str(tmp_path)]
    )
    assert figures["samples"] == 6
    assert figures["compare_s"] > 0 and figures["gate_s"] > 0
    assert figures["read_verdicts_s"] > 0
