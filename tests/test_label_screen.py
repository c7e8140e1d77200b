"""The labelling screen shows what its criterion refers to (the policy the judge was given) and
never the judge's own verdict or critique, which would anchor the person; it asks for a sample of
the verdicts drawn evenly from each, and input that ends mid-way is one error line."""

from __future__ import annotations

import io
import sys
from collections import Counter
from pathlib import Path

import pexpect
import pytest
from rich.console import Console

from commerce_evals.cli.commands.label import LabelItem, label_items, label_loop, sample_items
from commerce_evals.judging.labels import read_labels
from commerce_evals.support import support
from tests.helpers import make_run, run_task, subprocess_env

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


# ---- a sample of the verdicts, not every one ----------------------------------------------------


def _items(counts: dict[tuple[str, str], int]) -> list[LabelItem]:
    run = make_run(("hi", []))
    return [
        LabelItem(f"{dimension}-{status}-{n}", 1, dimension, "", run, "sha", status=status)
        for (dimension, status), count in counts.items()
        for n in range(count)
    ]


def test_the_sample_is_drawn_evenly_from_each_verdict_of_each_dimension() -> None:
    # a run of 276 verdicts, most of them Pass: the sample still holds the rare Fail and Unknown
    items = _items(
        {
            ("rubric", "pass"): 200,
            ("rubric", "fail"): 6,
            ("rubric", "unknown"): 2,
            ("budget_respected", "pass"): 60,
            ("budget_respected", "fail"): 8,
        }
    )
    picked = sample_items(items, limit=None, per_dimension=10, seed=0)
    drawn = Counter((i.dimension, i.status) for i in picked)
    assert drawn == {
        ("rubric", "pass"): 4,
        ("rubric", "fail"): 4,
        ("rubric", "unknown"): 2,
        ("budget_respected", "pass"): 5,
        ("budget_respected", "fail"): 5,
    }
    limited = sample_items(items, limit=8, per_dimension=None, seed=0)
    assert Counter((i.dimension, i.stratum) for i in limited) == {
        ("budget_respected", "pass"): 2,
        ("budget_respected", "fail"): 2,
        ("rubric", "pass"): 2,
        ("rubric", "fail"): 1,
        ("rubric", "unsettled"): 1,
    }
    # the draw is the seed's, in the log's order; no limit takes every item
    assert sample_items(items, 8, None, seed=0) == limited
    assert sample_items(items, 8, None, seed=1) != limited
    assert [items.index(i) for i in limited] == sorted(items.index(i) for i in limited)
    assert len(sample_items(items, None, None)) == len(items)


def _spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "commerce_evals.cli.app", *args],
        env=subprocess_env(COLUMNS="200", TERM="dumb"),
        encoding="utf-8",
        timeout=120,
        dimensions=(40, 200),
    )


@pytest.fixture(scope="module")
def judged_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = run_task(
        support(), sample_id="support-00*", log_dir=str(tmp_path_factory.mktemp("judged"))
    )
    return Path(log.location)


def test_label_asks_for_the_sample_it_says(judged_log: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    found = len(label_items(judged_log))
    child = _spawn("label", str(judged_log), "--labels", str(labels), "--limit", "2")
    child.expect("Your name")
    child.sendline("Ana")
    child.expect(f"2 verdicts to label of the {found} left for you")
    for number in (1, 2):
        child.expect(rf"\[{number}/2\]")
        child.expect("p = Pass")
        child.sendline("p")
    child.expect(f"recorded 2 Pass, 0 Fail, 0 skip in {labels}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert len(read_labels(labels)) == 2


def test_input_that_ends_mid_label_is_one_error_line(judged_log: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    child = _spawn("label", str(judged_log), "--labels", str(labels))
    child.expect("Your name")
    child.sendline("Ana")
    child.expect(r"\[1/")
    child.expect("p = Pass")
    child.sendline("f")
    child.expect(r"\[2/")
    child.expect("p = Pass")
    child.sendeof()
    child.expect(
        r"error: label: input ended before the label of \S+ \(\w+\); recorded 0 Pass, 1 Fail, "
        rf"0 skip in {labels}; run label again in a terminal to go on"
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "Aborted" not in (child.before or "")
    assert [label.verdict for label in read_labels(labels)] == ["Fail"]
