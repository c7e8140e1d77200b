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


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), re.S)


def test_the_readme_shows_the_example_agents_whole() -> None:
    """The files `Evaluate your own agent` shows are the ones the tests run, character for
    character."""
    shown = _blocks("python")
    for name in ("react_agent.py", "openai_agents_sdk.py"):
        example = (README.parent / "examples" / "agents" / name).read_text()
        assert example in shown, f"the README does not show examples/agents/{name} as it is"


def test_the_readme_tools_file_applies_to_the_shopper(tmp_path: Path) -> None:
    [block] = [b for b in _blocks("yaml") if b.startswith("search_products:")]
    path = tmp_path / "tools.yaml"
    path.write_text(block)
    task = checkout(tools=str(path), cases="checkout-001-cart-seen-product")
    assert task.metadata is not None and task.metadata["tools_file"] == str(path)
