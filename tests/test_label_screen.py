"""The labelling screen shows what its criterion refers to (the policy the judge was given) and
never the judge's own verdict or critique, which would anchor the person."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from commerce_evals.cli.commands.label import label_items, label_loop
from commerce_evals.support import support
from tests.helpers import run_task

POLICY_CASE = "support-039-address-split-shipment-silent"


def test_policy_dimension_shows_the_policy_and_hides_the_verdict(tmp_path: Path) -> None:
    log = run_task(
        support(),
        sample_id=POLICY_CASE,
        model_roles={"grader": "commerce/judge-fail"},
        log_dir=str(tmp_path / "logs"),
    )
    [item] = label_items(Path(log.location), ["grounded_in_policy"])
    assert "refund" in item.reference.casefold(), "the domain's policy reaches the labeller"
    screen = io.StringIO()
    counts = label_loop(
        [item], "Ana", tmp_path / "labels.jsonl", lambda _: "s", Console(file=screen, width=100)
    )
    shown = screen.getvalue()
    assert counts["Skip"] == 1
    assert "reference given to the judge" in shown
    assert item.reference.splitlines()[0].strip() in shown
    assert "Scripted to fail" not in shown, "the judge's critique must not be shown"
