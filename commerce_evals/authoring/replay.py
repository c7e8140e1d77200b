"""Drafted cheats replayed through the graders, offline: each case's cheats become counterexamples
of a copy of its flow's cases, run by `commerce/reference` code-only (`judge=off`), exactly as a
case's own counterexamples run; what each failed is read back from its score."""

from __future__ import annotations

import tempfile
from collections import defaultdict
from pathlib import Path

import yaml

from commerce_evals.authoring.cheats import CheatDraft, Verdict, case_entry, replay_entry
from commerce_evals.cases.model import Case
from commerce_evals.grading.score_metadata import ScoreMetadata


def replay_cheats(
    drafted: list[tuple[Path, Case, list[CheatDraft]]], cases: list[Case]
) -> dict[str, dict[str, Verdict]]:
    """case id -> cheat name -> what the graders failed it on. `cases` are every case loaded
    beside them (a chained case needs the case it starts after)."""
    from inspect_ai import eval

    from commerce_evals.harness.flow_task import flow_task
    from commerce_evals.reports.judge_records import case_score

    by_flow: dict[str, dict[str, list[CheatDraft]]] = defaultdict(dict)
    for _, case, cheats in drafted:
        if cheats:
            by_flow[case.flow][case.id] = cheats
    verdicts: dict[str, dict[str, Verdict]] = defaultdict(dict)
    with tempfile.TemporaryDirectory(prefix="cheats-") as folder:
        for flow, chosen in by_flow.items():
            entries = [
                replay_entry(c, chosen[c.id]) if c.id in chosen else case_entry(c)
                for c in cases
                if c.flow == flow and c.skip is None
            ]
            dataset = Path(folder) / f"{flow}.yaml"
            dataset.write_text(yaml.safe_dump({"cases": entries}, sort_keys=False))
            task = flow_task(
                flow,
                dataset=str(dataset),
                counterexamples=True,
                judge=False,
                cases=",".join(chosen),
            )
            [log] = eval(
                task,
                model="commerce/reference",
                display="none",
                log_dir=str(Path(folder) / "logs"),
            )
            for sample in log.samples or []:
                score = case_score(sample)
                if score is None or sample.error is not None:
                    continue
                case_id, _, name = str(sample.id).partition("~")
                failed = ScoreMetadata.from_score(score).failed_keys
                verdicts[case_id][name] = Verdict(tuple(failed))
    return dict(verdicts)
