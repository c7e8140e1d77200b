"""The README's example case is real: it loads, passes under its reference and its alternative,
and its counterexample fails exactly the keys it names."""

from __future__ import annotations

import re
from pathlib import Path

from commerce_evals.checkout import checkout
from tests.helpers import case_score, run_task, samples_by_id

README = Path(__file__).parents[1] / "README.md"


def example_case(tmp_path: Path) -> Path:
    block = re.search(r"```yaml\n(- id: .*?)```", README.read_text(), re.S)
    assert block, "the README shows an example case"
    path = tmp_path / "readme.yaml"
    path.write_text(block.group(1))
    return path


def test_readme_example_case_passes_and_its_counterexample_fails(tmp_path: Path) -> None:
    path = example_case(tmp_path)
    [sample] = samples_by_id(run_task(checkout(dataset=str(path)))).values()
    assert case_score(sample).value["passed"] == 1.0
    [bad] = samples_by_id(
        run_task(checkout(dataset=str(path), counterexamples=True, judge="off"))
    ).values()
    score = case_score(bad)
    assert score.value["passed"] == 0.0
    assert set(score.metadata["failed_keys"]) == set(bad.metadata["breaks"])
    [alternative] = samples_by_id(run_task(checkout(dataset=str(path), alternatives=True))).values()
    assert case_score(alternative).value["passed"] == 1.0, case_score(alternative).explanation
